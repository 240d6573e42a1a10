"""How the comprehensive paper counts a configuration: Eq. 2-3's N_a and N (through
:func:`moelaws.comprehensive.law.layer_weights`), C = D·N_a (App. G), and Eq. 2's
granularity G = n_k + n_s (its adapter's roles ``convention`` and ``granularity``).
"""

from __future__ import annotations

import math

from moelaws.arch.config import MoEConfig
from moelaws.arch.counting import Counts, attention_weights, embedding_params
from moelaws.arch.hf_config import ConfigLike, accepts_hf_config
from moelaws.arch.ratios import check_moe
from moelaws.comprehensive.law import layer_weights

CONVENTION = "comprehensive"
"""The convention's name in :func:`moelaws.conventions.counts` (the paper's id)."""


def comprehensive_counts(cfg: MoEConfig, *, attention: str = "eq2") -> Counts:
    """Comprehensive paper, Eq. 2-3 (:func:`~moelaws.comprehensive.law.layer_weights`).

    N_a ≈ (4·d_head·n_h + 3·G·d_expert)·d_hidden·l with G = n_k + n_s, and
    N ≈ (4·d_head·n_h + 3·d_expert·(S·G + n_e))·d_hidden·l with S·G = n_s. Compute per token
    is N_a (App. G, C = D·N_a); the FLOP fields are NaN (the paper counts no FLOPs). Shared
    experts are taken to have width d_expert, as the formula assumes.

    Generalisation: a leading dense layer is a layer of one always-active expert of width
    d_ffn (attention term + 3·d·d_ffn).

    Parameters
    ----------
    attention
        ``"eq2"`` (default): the attention term as printed, 4·d_head·n_h·d, the weight count
        of the paper's own multi-head models; for MLA models d_head is then the query/key head
        width, which counts MLA's compressed projections as full multi-head ones (DeepSeek-V3:
        about 67B active instead of its 37B). ``"weights"``: the real attention projection
        weights (:func:`~moelaws.arch.counting.attention_weights`, no norms or biases),
        identical to Eq. 2 for multi-head attention and correct for grouped-query and MLA
        attention; the paper's Table 4 uses the model-card sizes, which count attention this
        way.

    Raises
    ------
    ValueError
        For an unknown ``attention``.
    """
    if attention == "eq2":
        attn = 4 * cfg.attn_head_dim * cfg.n_heads * cfg.d_model
    elif attention == "weights":
        attn = attention_weights(cfg, biases=False, norms=False)
    else:
        raise ValueError(f"attention must be 'eq2' or 'weights', got {attention!r}")
    d = cfg.d_model
    dense = cfg.n_ffn_dense_layers * layer_weights(attn, 1, cfg.d_ff, d)
    activated = cfg.top_k + cfg.n_shared
    active = dense + cfg.n_moe_layers * layer_weights(attn, activated, cfg.d_expert, d)
    experts = cfg.n_shared + cfg.n_experts
    total = dense + cfg.n_moe_layers * layer_weights(attn, experts, cfg.d_expert, d)
    nan = math.nan
    return Counts(CONVENTION, total, active, embedding_params(cfg), nan, nan, nan, active)


@accepts_hf_config
def granularity(cfg: ConfigLike) -> float:
    """Eq. 2's granularity G = n_k + n_s, the activated experts (routed plus shared).

    Parameters
    ----------
    cfg : MoEConfig or Hugging Face config (dict, path or directory)

    Raises
    ------
    ValueError
        For a dense configuration.
    """
    check_moe(cfg, "granularity")
    return float(cfg.top_k + cfg.n_shared)


__all__ = ["CONVENTION", "comprehensive_counts", "granularity"]

from moelaws.validation import guard_public  # noqa: E402

guard_public(globals(), __all__)
