"""How the expert-attention allocation paper counts a configuration: App. C's FLOPs, the same
with MLA attention counted by its real weights, its sparsity S = (E − E_act)/E (App. B.1) and
its ratio r = C_E/C_A (its adapter's roles ``convention``, ``mla``, ``sparsity`` and
``ratios``).
"""

from __future__ import annotations

from moelaws.arch.config import MoEConfig
from moelaws.arch.counting import (
    Counts,
    attention_keys_per_token,
    attention_weights,
    context_flops,
    embedding_params,
    exact_counts,
    ffn_weights,
    router_weights,
)
from moelaws.arch.hf_config import ConfigLike, accepts_hf_config
from moelaws.arch.ratios import activation_ratio, check_moe

CONVENTION = "allocation"
"""The convention's name in :func:`moelaws.conventions.counts` (the paper's id)."""


def allocation_counts(cfg: MoEConfig) -> Counts:
    """Expert-attention allocation paper, App. C (forward FLOPs; training = 3 x forward).

    Per token and layer: query projection 2·d²; key-value projection 4·d²/(n_h/n_kv);
    attention weights 2·n_ctx·d; value application 2·n_ctx·d; output projection 2·d²; sparse
    MLP 2·d·E + 3·2·d·d_expert·(top-k + n_shared); logits 2·d·V once.

    The value-application term is printed as 2·n_ctx·d² per n_ctx tokens, which is not
    dimensionally consistent with the attention-weights term; we read it as 2·n_ctx·d per
    token (the same cost as the attention weights), a reconstruction. d² is read as
    d·n_h·d_head; a sliding-window layer's two context terms count its window instead of
    n_ctx (:func:`~moelaws.arch.counting.attention_keys_per_token`, as the exact count does;
    the paper's models have no such layers). Leading dense layers count 6·d·d_ffn.
    Parameters (which App. C does not define) are the attention, FFN, expert and router
    weight matrices.
    """
    d = cfg.d_model
    q_width = cfg.n_heads * cfg.attn_head_dim
    proj = 2.0 * d * q_width + 4.0 * d * q_width * cfg.kv_heads / cfg.n_heads + 2.0 * d * q_width
    mixing = 2.0 * attention_keys_per_token(cfg) * q_width * 2
    attention_flops = cfg.n_layers * proj + mixing
    ffn_flops = 6.0 * d * cfg.d_ff * cfg.n_ffn_dense_layers
    if cfg.is_moe:
        per_layer = 2.0 * d * cfg.n_experts + 6.0 * d * cfg.d_expert * (cfg.top_k + cfg.n_shared)
        ffn_flops += cfg.n_moe_layers * per_layer
    logits = 2.0 * d * cfg.vocab_size
    attn = attention_weights(cfg, biases=False, norms=False)
    router = cfg.n_moe_layers * router_weights(cfg, biases=False)
    total = cfg.n_layers * attn + ffn_weights(cfg, cfg.n_experts, biases=False) + router
    active = cfg.n_layers * attn + ffn_weights(cfg, cfg.top_k, biases=False) + router
    return Counts(
        CONVENTION, total, active, embedding_params(cfg), attention_flops, ffn_flops, logits,
        3.0 * (attention_flops + ffn_flops + logits),
    )


def mla_attention_flops(cfg: MoEConfig) -> float:
    """App. C forward attention FLOPs per token, MLA counted by its real weights.

    App. C's ``d²`` read as ``d·n_h·d_head`` (:func:`allocation_counts`) counts MLA's
    compressed low-rank projections as full multi-head ones; here the projections are ``2 x``
    the real attention weights (query, key-value and output paths) and the context terms
    ``2·n_ctx·n_h·(d_qk + d_v)`` are at the real head widths (App. C's attention weights and
    value application).

    Parameters
    ----------
    cfg : MoEConfig

    Returns
    -------
    float
        Over all layers. Equals ``allocation_counts(cfg).attention_flops`` without MLA.
    """
    proj = 2.0 * attention_weights(cfg, biases=False, norms=False)
    return cfg.n_layers * proj + context_flops(cfg)


@accepts_hf_config
def sparsity(cfg: ConfigLike) -> float:
    """App. B.1's sparsity S = (E − E_act)/E with shared experts counted in both E and E_act
    (1 shared + 2 routed active of E = 17 gives 82.35 %), i.e. 1 − A.

    Parameters
    ----------
    cfg : MoEConfig or Hugging Face config (dict, path or directory)

    Raises
    ------
    ValueError
        For a dense configuration.
    """
    check_moe(cfg, "sparsity")
    return 1.0 - activation_ratio(cfg)


@accepts_hf_config
def expert_attention_ratio(cfg: ConfigLike, *, attention: str = "convention") -> float:
    """r = C_E/C_A, expert over attention forward FLOPs per token (App. C).

    C_E is App. C's sparse-MLP (and dense-FFN) FLOPs. C_A depends on ``attention``:

    ``"convention"`` (default)
        App. C's attention FLOPs with d² read as d·n_h·d_head (:func:`allocation_counts`). For
        multi-head latent attention this treats every head as a full-rank K/Q/V head of the
        query/key width (DeepSeek-V3: 128 heads of 192 = 24,576 wide, 3.4 x d_model).
    ``"d_model"``
        App. C read literally with d = d_model and multi-head attention: 8·d² + 4·n_ctx·d per
        layer (grouped-query K/V where the config has fewer K/V heads; a sliding-window
        layer's context term at its window, as in :func:`allocation_counts`).
    ``"exact"``
        The real attention FLOPs of the exact convention (MLA's low-rank projections, the
        scores over the context, sliding windows).

    For grouped-query models with n_h·d_head = d_model the first two agree.

    Parameters
    ----------
    cfg : MoEConfig or Hugging Face config (dict, path or directory)
    attention
        ``"convention"``, ``"d_model"`` or ``"exact"``.

    Raises
    ------
    ValueError
        For an unknown ``attention``.
    """
    c = allocation_counts(cfg)
    if attention == "convention":
        c_a = c.attention_flops
    elif attention == "exact":
        c_a = exact_counts(cfg).attention_flops
    elif attention == "d_model":
        d = float(cfg.d_model)
        projections = 4.0 * d * d + 4.0 * d * d * cfg.kv_heads / cfg.n_heads
        c_a = cfg.n_layers * projections + 4.0 * attention_keys_per_token(cfg) * d
    else:
        raise ValueError(f"attention must be 'convention', 'd_model' or 'exact', got {attention!r}")
    return c.ffn_flops / c_a


__all__ = [
    "CONVENTION",
    "allocation_counts",
    "expert_attention_ratio",
    "mla_attention_flops",
    "sparsity",
]

from moelaws.validation import guard_public  # noqa: E402

guard_public(globals(), __all__)
