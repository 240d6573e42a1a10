"""One description of an MoE transformer, and every paper's way of counting it.

>>> from moelaws import arch
>>> cfg = arch.preset("Mixtral-8x7B")
>>> round(arch.total_params(cfg, embeddings=True) / 1e9, 1)
46.7
"""

from moelaws.arch.config import MLA, MoEConfig
from moelaws.arch.counting import (
    CONVENTIONS,
    Counts,
    active_params,
    attention_weights,
    counts,
    embedding_params,
    expert_weights,
    flops,
    router_weights,
    total_params,
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
from moelaws.validation import guard_public

__all__ = [
    "CONVENTIONS",
    "MLA",
    "PRESETS",
    "Counts",
    "MoEConfig",
    "activation_ratio",
    "active_params",
    "all_ratios",
    "attention_weights",
    "conventions_table",
    "counts",
    "embedding_params",
    "expert_attention_ratio",
    "expert_weights",
    "flops",
    "granularity",
    "holistic_ratios",
    "preset",
    "presets_table",
    "router_weights",
    "sharing_ratio",
    "sparsity",
    "total_params",
]

# Numeric arguments of every public function are checked, and a non-finite result raises
# (moelaws.validation.public).
guard_public(globals(), __all__)
