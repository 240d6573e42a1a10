"""The attention/expert FLOPs split of a configuration, and configurations with a chosen r.

App. C of the allocation paper counts forward FLOPs per token; ``moelaws.arch`` implements it
as the ``"allocation"`` convention (:func:`moelaws.arch.counts`), with one reconstruction: the
value-application term, printed as ``2·n_ctx·d²`` per sequence, is read as ``2·n_ctx·d`` per
token (the same cost as the attention weights, as in Narayanan et al. 2021). The chapter
checks that reading against the leverage paper's Table 12, whose configurations are built to
hold per-token compute fixed.

App. B.1 sweeps r "by independently scaling the dimensions of the attention and expert
sublayers" with depth and head count fixed. :func:`config_for_ratio` does this for any
configuration by changing the per-head width (attention) and the expert width, so that the
hidden size, the embeddings and the logits stay as they are.
"""

from __future__ import annotations

import math

from moelaws.allocation.counting import allocation_counts, expert_attention_ratio, sparsity
from moelaws.arch import MoEConfig
from moelaws.arch.hf_config import ConfigLike, accepts_hf_config


@accepts_hf_config
def flops_split(cfg: ConfigLike) -> dict[str, float]:
    """Per-token FLOPs of a configuration under App. C (``arch`` convention ``"allocation"``).

    Parameters
    ----------
    cfg : MoEConfig or Hugging Face config (dict, path or directory)

    Returns
    -------
    dict
        ``C_A`` and ``C_E`` (forward attention and expert FLOPs per token, router included in
        ``C_E``), ``r = C_E/C_A``
        (:func:`moelaws.allocation.counting.expert_attention_ratio`), the expert share
        ``C_E/(C_A + C_E)``, the attention share of all forward FLOPs (logits included), the
        sparsity ``S`` (:func:`moelaws.allocation.counting.sparsity`), and
        ``training_flops_per_token`` (3 x forward, logits included).

    Raises
    ------
    ValueError
        For a dense configuration (S is undefined).
    """
    c = allocation_counts(cfg)
    return {
        "C_A": c.attention_flops,
        "C_E": c.ffn_flops,
        "r": expert_attention_ratio(cfg),
        "expert_share": c.ffn_flops / (c.attention_flops + c.ffn_flops),
        "attention_share_with_logits": c.attention_flops / c.forward_flops,
        "S": sparsity(cfg),
        "training_flops_per_token": 3.0 * c.forward_flops,
    }


def _attention_flops_per_head_unit(cfg: MoEConfig) -> float:
    """App. C attention FLOPs per token and layer for one unit of per-head width."""
    d, h, kv, n_ctx = cfg.d_model, cfg.n_heads, cfg.kv_heads, cfg.context_length
    return h * (2.0 * d + 4.0 * d * kv / h + 2.0 * d + 4.0 * n_ctx)


def _expert_flops(cfg: MoEConfig, d_expert: float) -> float:
    return 2.0 * cfg.d_model * cfg.n_experts + 6.0 * cfg.d_model * d_expert * (
        cfg.top_k + cfg.n_shared
    )


@accepts_hf_config
def config_for_ratio(
    base: ConfigLike, r: float, *, flops_per_layer: float | None = None
) -> MoEConfig:
    """A configuration with expert/attention ratio close to ``r`` at fixed per-token compute.

    Depth, hidden size, head counts, experts and vocabulary are those of ``base``; the
    per-head width (an even integer, for rotary embeddings) sets the attention FLOPs and the
    expert width (shared experts included) takes the rest of the budget, as App. B.1 scales
    the attention and expert sublayers.

    Parameters
    ----------
    base : MoEConfig or Hugging Face config (dict, path or directory)
        An MoE configuration without leading dense layers and without MLA.
    r
        Target ``C_E/C_A`` (App. C counts), positive.
    flops_per_layer
        Target ``C_A + C_E`` per token and layer (forward FLOPs); default: that of ``base``.

    Returns
    -------
    MoEConfig
        The closest configuration on the integer grid; check its ratio with
        :func:`flops_split`.

    Raises
    ------
    ValueError
        If ``r`` is not positive and finite, ``base`` is dense, has dense layers or MLA, or
        the budget is too small for the requested split.
    """
    if not (isinstance(r, (int, float)) and math.isfinite(r) and r > 0):
        raise ValueError(f"target ratio r must be positive and finite, got {r!r}")
    if not base.is_moe or base.n_dense_layers or base.mla is not None:
        raise ValueError("config_for_ratio needs an MoE config without dense layers or MLA")
    if flops_per_layer is None:
        c = allocation_counts(base)
        flops_per_layer = (c.attention_flops + c.ffn_flops) / base.n_layers
    if not (math.isfinite(flops_per_layer) and flops_per_layer > 0):
        raise ValueError("flops_per_layer must be positive and finite")
    unit = _attention_flops_per_head_unit(base)
    head_dim = max(2, 2 * round(flops_per_layer / (1.0 + r) / unit / 2))
    attention = head_dim * unit
    per_width = 6.0 * base.d_model * (base.top_k + base.n_shared)
    d_expert = round((flops_per_layer - attention - _expert_flops(base, 0.0)) / per_width)
    if d_expert < 1:
        raise ValueError(
            f"a budget of {flops_per_layer:.3g} FLOPs per layer leaves no expert width at r={r}"
        )
    return base.replace(
        head_dim=head_dim, d_expert=d_expert, d_shared=None, name=f"{base.name} r={r:g}"
    )
