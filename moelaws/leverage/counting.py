"""How the efficiency-leverage paper counts a configuration: App. I's FLOPs (Eq. 10-12), the
same with MLA attention counted by its real weights, and Sec. 2.1's granularity G = 2·d/d_e
(its adapter's roles ``convention``, ``mla`` and ``granularity``).
"""

from __future__ import annotations

from moelaws.arch.config import MoEConfig
from moelaws.arch.counting import (
    Counts,
    attention_keys_per_token,
    attention_weights,
    embedding_params,
    ffn_weights,
)
from moelaws.arch.hf_config import ConfigLike, accepts_hf_config
from moelaws.arch.ratios import check_moe

CONVENTION = "leverage"
"""The convention's name in :func:`moelaws.conventions.counts` (the paper's id)."""


def leverage_counts(cfg: MoEConfig) -> Counts:
    """Efficiency-leverage paper, App. I Eq. 10-12 (forward FLOPs; training = 3 x forward).

    Per token and layer: attention 2·d²·(1 + 2/(n_h/n_kv)) + 4·s·d (no output projection, as
    printed); dense FFN 6·d·d_ffn; MoE FFN 6·d·E_a·d_expert plus 4·d·d_shared per shared
    expert (the factor 4, not 6, is as printed); logits 2·d·V once. M = 3·C_fwd per token,
    so that C = M·D. Parameters (which App. I does not define) are the attention, FFN and
    expert weight matrices.

    Generalisations: d² is read as d·n_h·d_head (identical when n_h·d_head = d); a
    sliding-window layer's context term counts its window instead of s
    (:func:`~moelaws.arch.counting.attention_keys_per_token`, as the exact count does; the
    paper's models have no such layers).
    """
    d = cfg.d_model
    q_width = cfg.n_heads * cfg.attn_head_dim
    attn_layer = 2.0 * d * q_width * (1 + 2 * cfg.kv_heads / cfg.n_heads)
    attention_flops = cfg.n_layers * attn_layer + context_flops(cfg)
    ffn_flops = 6.0 * d * cfg.d_ff * cfg.n_ffn_dense_layers
    if cfg.is_moe:
        per_layer = 6.0 * d * cfg.top_k * cfg.d_expert + 4.0 * d * cfg.shared_width * cfg.n_shared
        ffn_flops += cfg.n_moe_layers * per_layer
    logits = 2.0 * d * cfg.vocab_size
    attn = attention_weights(cfg, biases=False, norms=False)
    total = cfg.n_layers * attn + ffn_weights(cfg, cfg.n_experts, biases=False)
    active = cfg.n_layers * attn + ffn_weights(cfg, cfg.top_k, biases=False)
    return Counts(
        CONVENTION, total, active, embedding_params(cfg), attention_flops, ffn_flops, logits,
        3.0 * (attention_flops + ffn_flops + logits),
    )


def mla_attention_flops(cfg: MoEConfig) -> float:
    """App. I (Eq. 10) forward attention FLOPs per token, MLA counted by its real weights.

    App. I's ``d²`` read as ``d·n_h·d_head`` (:func:`leverage_counts`) counts MLA's compressed
    low-rank projections as full multi-head ones; here an MLA model's projections are
    ``2 x`` its query and key-value path weights (App. I has no output projection), with
    App. I's printed context term ``4·s·d``.

    Parameters
    ----------
    cfg : MoEConfig

    Returns
    -------
    float
        Over all layers. Equals ``leverage_counts(cfg).attention_flops`` without MLA.
    """
    if cfg.mla is None:
        return float(leverage_counts(cfg).attention_flops)
    output = float(cfg.n_heads * cfg.value_head_dim * cfg.d_model)
    proj = 2.0 * (attention_weights(cfg, biases=False, norms=False) - output)
    return cfg.n_layers * proj + context_flops(cfg)


def context_flops(cfg: MoEConfig) -> float:
    """App. I (Eq. 10) context term, forward FLOPs per token over all layers: ``4·s·d`` per
    layer (scores and value mixing, each ``2·s·d``, no causal mask), a sliding-window layer
    counting its window instead of ``s`` (:func:`~moelaws.arch.counting.attention_keys_per_token`).

    Parameters
    ----------
    cfg : MoEConfig

    Returns
    -------
    float
        Part of ``leverage_counts(cfg).attention_flops``.
    """
    return 4.0 * attention_keys_per_token(cfg) * cfg.d_model


@accepts_hf_config
def granularity(cfg: ConfigLike) -> float:
    """Sec. 2.1's expert granularity G = 2·d_model/d_expert.

    Parameters
    ----------
    cfg : MoEConfig or Hugging Face config (dict, path or directory)

    Raises
    ------
    ValueError
        For a dense configuration.
    """
    check_moe(cfg, "granularity")
    return 2 * cfg.d_model / cfg.d_expert


__all__ = ["CONVENTION", "granularity", "leverage_counts", "mla_attention_flops"]

from moelaws.validation import guard_public  # noqa: E402

guard_public(globals(), __all__)
