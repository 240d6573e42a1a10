"""One description of an MoE transformer, and every paper's way of counting it.

>>> from moelaws import arch
>>> cfg = arch.preset("Mixtral-8x7B")
>>> round(arch.total_params(cfg, embeddings=True) / 1e9, 1)
46.7
"""

from moelaws.arch import hf_config, vendor_check
from moelaws.arch.config import MLA, MoEConfig
from moelaws.arch.counting import (
    Counts,
    active_params,
    attention_weights,
    conventions,
    counts,
    embedding_params,
    expert_weights,
    flops,
    router_weights,
    total_params,
)
from moelaws.arch.hf_config import (
    SUPPORTED_MODEL_TYPES,
    ConfigLike,
    HFConfigWarning,
    as_config,
    from_hf_config,
)
from moelaws.arch.presets import PRESETS, preset
from moelaws.arch.ratios import (
    activation_ratio,
    all_ratios,
    expert_attention_ratio,
    granularity,
    holistic_ratios,
    sharing_ratio,
    sparsity,
)
from moelaws.arch.tables import conventions_table, presets_table
from moelaws.arch.vendor_check import vendor_check_summary, vendor_check_table
from moelaws.validation import guard_public

__all__ = [
    "MLA",
    "PRESETS",
    "SUPPORTED_MODEL_TYPES",
    "ConfigLike",
    "Counts",
    "HFConfigWarning",
    "MoEConfig",
    "activation_ratio",
    "active_params",
    "all_ratios",
    "as_config",
    "attention_weights",
    "conventions",
    "conventions_table",
    "counts",
    "embedding_params",
    "expert_attention_ratio",
    "expert_weights",
    "flops",
    "from_hf_config",
    "granularity",
    "hf_config",
    "holistic_ratios",
    "preset",
    "presets_table",
    "router_weights",
    "sharing_ratio",
    "sparsity",
    "total_params",
    "vendor_check",
    "vendor_check_summary",
    "vendor_check_table",
]

# Numeric arguments of every public function are checked, and a non-finite result raises
# (moelaws.validation.public).
guard_public(globals(), __all__)
