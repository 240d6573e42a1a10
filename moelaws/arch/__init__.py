"""One description of an MoE transformer, counted exactly, and the blocks every paper's
counting convention is built from.

Each paper's convention and ratios live in its folder (``moelaws/<paper>/counting.py``).
Counting under a convention by name, every paper's ratios and the tables that put them side
by side reach the papers through their registry: they are in :mod:`moelaws.conventions`.

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
from moelaws.arch.ratios import activation_ratio, sharing_ratio
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
    "as_config",
    "attention_weights",
    "counts",
    "embedding_params",
    "expert_weights",
    "flops",
    "from_hf_config",
    "hf_config",
    "preset",
    "router_weights",
    "sharing_ratio",
    "total_params",
    "vendor_check",
    "vendor_check_summary",
    "vendor_check_table",
]

# Numeric arguments of every public function are checked, and a non-finite result raises
# (moelaws.validation.public).
guard_public(globals(), __all__)
