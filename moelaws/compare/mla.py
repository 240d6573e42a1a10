"""The leverage and allocation counts with MLA attention counted by its real weights.

The ``arch`` conventions ``"leverage"`` (App. I Eq. 10-12) and ``"allocation"`` (App. C) read
the papers' ``d²`` attention terms as ``d·n_h·d_head``. For multi-head and grouped-query
attention that is the real projection count; for MLA (DeepSeek-V3, Kimi-K2) it counts the
compressed low-rank projections as full multi-head ones, the same trap the comprehensive
paper's Eq. 2 sets (chapter 7). This module recounts the two papers' attention for MLA models
by their real projection weights, leaving every other term as the paper prints it:

* allocation (App. C): projections ``2 x`` the attention weights (query, key-value and output
  paths) and context terms ``2·n_ctx·n_h·(d_qk + d_v)`` at the real head widths;
* leverage (App. I): projections ``2 x`` the query and key-value path weights (App. I has no
  output projection) and App. I's printed context term ``4·s·d``.

For a configuration without MLA both are exactly the ``arch`` counts, so only MLA rows move.
Eq. 1 (allocation) and Eq. 4 / Table 5 (leverage) are then evaluated on the recounted FLOPs.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import pandas as pd

from moelaws import arch, conventions
from moelaws.allocation.law import optimal_ratio
from moelaws.arch.config import MoEConfig
from moelaws.arch.counting import attention_weights
from moelaws.compare.tokens import _preset_names, training_tokens
from moelaws.leverage.budget import compute_optimal_allocation
from moelaws.leverage.law import efficiency_leverage


def _output_weights(cfg: MoEConfig) -> float:
    return float(cfg.n_heads * cfg.value_head_dim * cfg.d_model)


def allocation_attention_flops(cfg: MoEConfig) -> float:
    """App. C forward attention FLOPs per token, MLA counted by its real weights.

    Parameters
    ----------
    cfg : MoEConfig

    Returns
    -------
    float
        Over all layers: 2 x the attention projection weights plus the context terms
        ``2·n_ctx·n_h·(d_qk + d_v)`` (App. C's attention weights and value application).
        Equals ``allocation_counts(cfg).attention_flops`` without MLA.
    """
    proj = 2.0 * attention_weights(cfg, biases=False, norms=False)
    mixing = 2.0 * cfg.context_length * cfg.n_heads * (cfg.attn_head_dim + cfg.value_head_dim)
    return cfg.n_layers * (proj + mixing)


def leverage_attention_flops(cfg: MoEConfig) -> float:
    """App. I (Eq. 10) forward attention FLOPs per token, MLA counted by its real weights.

    Parameters
    ----------
    cfg : MoEConfig

    Returns
    -------
    float
        Over all layers: 2 x the query and key-value projection weights (App. I counts no
        output projection) plus App. I's context term ``4·s·d``. Equals
        ``leverage_counts(cfg).attention_flops`` without MLA.
    """
    if cfg.mla is None:
        return float(conventions.counts(cfg, "leverage").attention_flops)
    proj = 2.0 * (attention_weights(cfg, biases=False, norms=False) - _output_weights(cfg))
    return cfg.n_layers * (proj + 4.0 * cfg.context_length * cfg.d_model)


def real_attention_row(cfg: MoEConfig, tokens: float | None) -> dict[str, float]:
    """Allocation Eq. 1 and leverage Eq. 4 / Table 5 on the MLA-recounted FLOPs.

    Parameters
    ----------
    cfg : MoEConfig
        An MoE configuration.
    tokens
        Training tokens D, or ``None`` (then every compute-dependent value is NaN).

    Returns
    -------
    dict
        Per count (``as printed``: the ``arch`` convention; ``real MLA``: this module), the
        allocation paper's r = C_E/C_A, attention share C_A/(C_A + C_E), training compute, r*
        and r/r*, and the leverage paper's M, EL (Eq. 4) and D/D_opt (Table 5).
    """
    D = math.nan if tokens is None else float(tokens)
    alloc, levc = conventions.counts(cfg, "allocation"), conventions.counts(cfg, "leverage")
    S = arch.sparsity(cfg, "allocation")
    A, G = arch.activation_ratio(cfg), arch.granularity(cfg, "leverage")
    row: dict[str, float] = {"MLA": cfg.mla is not None}
    for label, c_a, c_l in (
        ("as printed", alloc.attention_flops, levc.attention_flops),
        ("real MLA", allocation_attention_flops(cfg), leverage_attention_flops(cfg)),
    ):
        r = alloc.ffn_flops / c_a
        C = 3.0 * (c_a + alloc.ffn_flops + alloc.logits_flops) * D
        r_star = float(optimal_ratio(C, S)) if math.isfinite(C) else math.nan
        M = 3.0 * (c_l + levc.ffn_flops + levc.logits_flops)
        C_lev = M * D
        finite = math.isfinite(C_lev)
        row.update({
            f"r ({label})": r,
            f"attention share ({label})": c_a / (c_a + alloc.ffn_flops),
            f"r/r* ({label})": r / r_star,
            f"M ({label})": M,
            f"EL ({label})": float(efficiency_leverage(A, G, C_lev)) if finite else math.nan,
            f"D/D_opt ({label})": (D / float(compute_optimal_allocation(C_lev, "moe").D)
                                   if finite else math.nan),
        })
    return row


def real_attention_table(
    models: Sequence[str] | None = None, assumed_tokens: Mapping[str, float] | None = None
) -> pd.DataFrame:
    """:func:`real_attention_row` over MoE presets, one row per model.

    Parameters
    ----------
    models
        Preset names; default all MoE presets.
    assumed_tokens
        ``{preset: tokens}`` for models without a published count.

    Raises
    ------
    TypeError
        If ``models`` is not a list or tuple of names.
    ValueError
        For an empty ``models``, an unknown preset, or a non-positive assumed count.
    """
    names = (_preset_names("models", models) if models is not None
             else [n for n, c in arch.PRESETS.items() if c.is_moe])
    rows = {}
    for name in names:
        cfg = arch.preset(name)
        rows[name] = real_attention_row(cfg, training_tokens(name, assumed_tokens).tokens)
    return pd.DataFrame.from_dict(rows, orient="index")


__all__ = ["allocation_attention_flops", "leverage_attention_flops", "real_attention_row",
           "real_attention_table"]

from moelaws.validation import guard_public  # noqa: E402

guard_public(globals(), __all__)
