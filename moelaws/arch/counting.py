"""Parameter and FLOP counts of an :class:`~moelaws.arch.MoEConfig` under each paper's convention.

The five papers count parameters and compute differently; each convention below applies one
paper's formulas to a configuration. Where a paper's architecture family lacks a feature that
a configuration has (shared experts, leading dense layers, MLA attention), the generalisation
used is stated in the function's docstring. Each paper's adapter (:mod:`moelaws.papers`, role
``convention``) names its function here. :func:`counts` and the functions built on it count
exactly; :mod:`moelaws.conventions`, above the registry, counts under any convention by name.

Conventions
-----------
``exact``
    The book's own count: every weight of a standard implementation (attention projections,
    FFNs, experts, router, RMSNorm weights, biases where the config has them). Forward FLOPs
    per token are 2 x the active matmul weights, plus attention scores and value mixing over
    the full context (2·n_ctx·n_h·d_qk + 2·n_ctx·n_h·d_v per layer, as in Hoffmann et al.'s
    accounting: no causal mask, every query sees all n_ctx keys; a sliding-window layer sees
    at most its window), plus the output logits (the head is counted although N excludes
    embeddings). Training compute per token is 3 x forward.
``holistic``
    Holistic paper, App. A Eq. 10-12 (= Eq. 3): N_a from attention, dense-FFN and activated
    expert weights, N = N_a + inactive experts, M = 6·N_a + 6·S·N_q·d_qkv·L with S the
    sequence length. Compute per token is M.
``leverage``
    Efficiency-leverage paper, App. I Eq. 10-12: forward FLOPs of attention (without the output
    projection, as printed), FFN and logits; M = 3·C_fwd per token (C = M·D).
``comprehensive``
    Comprehensive paper, Eq. 2-3: N_a = (4·d_head·n_h + 3·G·d_expert)·d·l with G = n_k + n_s,
    N = (4·d_head·n_h + 3·d_expert·(S·G + n_e))·d·l. Compute per token is N_a (App. G: C = D·N_a).
``constrained``
    Memory/inference-constrained paper, Eq. 1-2: N_total = l·d²·(4 + 3·n_exp/g) with
    g = d/d_exp, N_active likewise with n_topk. The paper defines no compute.
``allocation``
    Expert-attention allocation paper, App. C: forward FLOPs of the attention block and of the
    sparse MLP (router included), plus logits; training = 3 x forward.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from moelaws.arch.config import MoEConfig
from moelaws.arch.hf_config import ConfigLike, accepts_hf_config


@dataclass(frozen=True)
class Counts:
    """Counts of one configuration under one convention.

    Attributes
    ----------
    total, active
        Non-embedding total and active parameters.
    embedding
        Input plus output embedding parameters (the output one only if untied).
    attention_flops, ffn_flops, logits_flops
        Forward FLOPs per token of the attention blocks (projections included), of the FFN or
        expert blocks (router included), and of the output logits. NaN where the paper
        defines no FLOPs.
    compute_per_token
        What the paper multiplies by the number of training tokens D to get its compute C:
        training FLOPs per token for holistic (M), leverage (M), allocation and exact; the
        active parameter count for comprehensive (C = D·N_a); NaN for constrained.
    """

    convention: str
    total: float
    active: float
    embedding: float
    attention_flops: float
    ffn_flops: float
    logits_flops: float
    compute_per_token: float

    @property
    def forward_flops(self) -> float:
        """Forward FLOPs per token (NaN where the paper defines no FLOPs)."""
        return self.attention_flops + self.ffn_flops + self.logits_flops


# --- building blocks (weights per layer) ---------------------------------------------------


@accepts_hf_config
def attention_weights(cfg: ConfigLike, *, biases: bool = True, norms: bool = True) -> int:
    """Weights of one attention block (query, key, value, output projections).

    For MLA this includes the low-rank down/up projections and the latent RMSNorms.

    Parameters
    ----------
    cfg : MoEConfig or Hugging Face config (dict, path or directory)
    """
    d, h = cfg.d_model, cfg.n_heads
    if cfg.mla is not None:
        m = cfg.mla
        qk = m.qk_nope_head_dim + m.qk_rope_head_dim
        if m.q_lora_rank is None:
            q = d * h * qk
        else:
            q = d * m.q_lora_rank + m.q_lora_rank * h * qk + (m.q_lora_rank if norms else 0)
        kv = (
            d * (m.kv_lora_rank + m.qk_rope_head_dim)
            + m.kv_lora_rank * h * (m.qk_nope_head_dim + m.v_head_dim)
            + (m.kv_lora_rank if norms else 0)
        )
        o = h * m.v_head_dim * d
        return q + kv + o
    hd, kv_h = cfg.attn_head_dim, cfg.kv_heads
    weights = 2 * d * h * hd + 2 * d * kv_h * hd
    if biases and cfg.attention_bias:
        weights += h * hd + 2 * kv_h * hd + d
    return weights


@accepts_hf_config
def expert_weights(cfg: ConfigLike, width: int, *, biases: bool = True) -> int:
    """Weights of one SwiGLU expert (gate, up, down) of the given width.

    Parameters
    ----------
    cfg : MoEConfig or Hugging Face config (dict, path or directory)
    """
    weights = 3 * cfg.d_model * width
    if biases and cfg.expert_bias:
        weights += 2 * width + cfg.d_model
    return weights


@accepts_hf_config
def router_weights(cfg: ConfigLike, *, biases: bool = True) -> int:
    """Weights of one router (a d_model x n_experts matrix, plus a bias if the config has one).

    A shared-expert gate (``cfg.shared_expert_gate``, a d_model x 1 projection) is counted
    with the router it sits beside.

    Parameters
    ----------
    cfg : MoEConfig or Hugging Face config (dict, path or directory)
    """
    if not cfg.is_moe:
        return 0
    weights = cfg.d_model * cfg.n_experts + (cfg.n_experts if biases and cfg.expert_bias else 0)
    return weights + (cfg.d_model if cfg.shared_expert_gate else 0)


@accepts_hf_config
def embedding_params(cfg: ConfigLike) -> int:
    """Input embedding plus (if untied) output projection weights: V·d·(1 or 2).

    Parameters
    ----------
    cfg : MoEConfig or Hugging Face config (dict, path or directory)
    """
    return cfg.vocab_size * cfg.d_model * (1 if cfg.tie_embeddings else 2)


def attention_keys_per_token(cfg: MoEConfig) -> float:
    """Keys each query attends to, summed over the layers, in the exact FLOP convention.

    Non-causal (every query sees the whole ``context_length`` window, as in Kaplan et al.'s
    and Hoffmann et al.'s accounting); a sliding-window layer sees at most ``sliding_window``
    keys. Equal to ``n_layers * context_length`` for a model without sliding-window layers.
    """
    window = min(cfg.sliding_window or cfg.context_length, cfg.context_length)
    return float((cfg.n_layers - cfg.n_sliding_layers) * cfg.context_length
                 + cfg.n_sliding_layers * window)


def _ffn_params(cfg: MoEConfig, experts_per_moe_layer: int, *, biases: bool) -> int:
    dense = cfg.n_ffn_dense_layers * expert_weights(cfg, cfg.d_ff, biases=False)
    if not cfg.is_moe:
        return dense
    per_layer = experts_per_moe_layer * expert_weights(cfg, cfg.d_expert, biases=biases)
    per_layer += cfg.n_shared * expert_weights(cfg, cfg.shared_width, biases=biases)
    return dense + cfg.n_moe_layers * per_layer


# --- conventions ---------------------------------------------------------------------------


def exact_counts(cfg: MoEConfig) -> Counts:
    """Every weight of a standard implementation; see the module docstring."""
    attn = attention_weights(cfg)
    norms = cfg.d_model * (2 * cfg.n_layers + 1)
    router = cfg.n_moe_layers * router_weights(cfg)
    total = cfg.n_layers * attn + _ffn_params(cfg, cfg.n_experts, biases=True) + router + norms
    active = cfg.n_layers * attn + _ffn_params(cfg, cfg.top_k, biases=True) + router + norms
    attn_matmul = attention_weights(cfg, biases=False, norms=False)
    mixing_per_key = 2.0 * cfg.n_heads * (cfg.attn_head_dim + cfg.value_head_dim)
    attention_flops = (cfg.n_layers * 2.0 * attn_matmul
                       + mixing_per_key * attention_keys_per_token(cfg))
    routers = cfg.n_moe_layers * router_weights(cfg, biases=False)
    ffn_flops = 2.0 * (_ffn_params(cfg, cfg.top_k, biases=False) + routers)
    logits = 2.0 * cfg.d_model * cfg.vocab_size
    return Counts(
        "exact", total, active, embedding_params(cfg), attention_flops, ffn_flops, logits,
        3.0 * (attention_flops + ffn_flops + logits),
    )


def holistic_counts(cfg: MoEConfig) -> Counts:
    """Holistic paper, App. A Eq. 10-12 (main-text Eq. 3).

    N_a = 2·d·d_qkv·(N_q + N_kv)·L + 3·d·d_d·L_d + L_m·(K·3·d·d_m + 3·d·d_m),
    N = N_a + 3·d·d_m·(N_e − K)·L_m, M = 6·N_a + 6·S·N_q·d_qkv·L (S: sequence length).

    Generalisations: ``n_shared`` shared experts of width ``d_shared`` (the paper has exactly
    one, of width d_m); MLA attention counted by its real projection weights, with
    N_q·d_qkv read as n_heads·(qk head width).
    """
    attn = attention_weights(cfg, biases=False, norms=False)
    active = cfg.n_layers * attn + _ffn_params(cfg, cfg.top_k, biases=False)
    total = cfg.n_layers * attn + _ffn_params(cfg, cfg.n_experts, biases=False)
    attention_flops = 2.0 * cfg.n_layers * attn + 2.0 * (
        cfg.context_length * cfg.n_heads * cfg.attn_head_dim * cfg.n_layers
    )
    ffn_flops = 2.0 * _ffn_params(cfg, cfg.top_k, biases=False)
    m = 6.0 * active + 6.0 * cfg.context_length * cfg.n_heads * cfg.attn_head_dim * cfg.n_layers
    return Counts("holistic", total, active, 0.0, attention_flops, ffn_flops, 0.0, m)


def leverage_counts(cfg: MoEConfig) -> Counts:
    """Efficiency-leverage paper, App. I Eq. 10-12 (forward FLOPs; training = 3 x forward).

    Per token and layer: attention 2·d²·(1 + 2/(n_h/n_kv)) + 4·s·d (no output projection, as
    printed); dense FFN 6·d·d_ffn; MoE FFN 6·d·E_a·d_expert plus 4·d·d_shared per shared
    expert (the factor 4, not 6, is as printed); logits 2·d·V once. M = 3·C_fwd per token,
    so that C = M·D. Parameters (which App. I does not define) are the attention, FFN and
    expert weight matrices.

    Generalisation: d² is read as d·n_h·d_head (identical when n_h·d_head = d).
    """
    d, s = cfg.d_model, cfg.context_length
    q_width = cfg.n_heads * cfg.attn_head_dim
    attn_layer = 2.0 * d * q_width * (1 + 2 * cfg.kv_heads / cfg.n_heads) + 4.0 * s * d
    attention_flops = cfg.n_layers * attn_layer
    ffn_flops = 6.0 * d * cfg.d_ff * cfg.n_ffn_dense_layers
    if cfg.is_moe:
        per_layer = 6.0 * d * cfg.top_k * cfg.d_expert + 4.0 * d * cfg.shared_width * cfg.n_shared
        ffn_flops += cfg.n_moe_layers * per_layer
    logits = 2.0 * d * cfg.vocab_size
    attn = attention_weights(cfg, biases=False, norms=False)
    total = cfg.n_layers * attn + _ffn_params(cfg, cfg.n_experts, biases=False)
    active = cfg.n_layers * attn + _ffn_params(cfg, cfg.top_k, biases=False)
    return Counts(
        "leverage", total, active, embedding_params(cfg), attention_flops, ffn_flops, logits,
        3.0 * (attention_flops + ffn_flops + logits),
    )


def comprehensive_counts(cfg: MoEConfig, *, attention: str = "eq2") -> Counts:
    """Comprehensive paper, Eq. 2-3.

    N_a ≈ (4·d_head·n_h + 3·G·d_expert)·d_hidden·l with G = n_k + n_s, and
    N ≈ (4·d_head·n_h + 3·d_expert·(S·G + n_e))·d_hidden·l with S·G = n_s. Compute per token
    is N_a (App. G, C = D·N_a). Shared experts are taken to have width d_expert, as the
    formula assumes.

    Generalisation: leading dense layers contribute the attention term + 3·d·d_ffn each.

    Parameters
    ----------
    attention
        ``"eq2"`` (default): the attention term as printed, 4·d_head·n_h·d, the weight count
        of the paper's own multi-head models; for MLA models d_head is then the query/key head
        width, which counts MLA's compressed projections as full multi-head ones (DeepSeek-V3:
        about 67B active instead of its 37B). ``"weights"``: the real attention projection
        weights (:func:`attention_weights`, no norms or biases), identical to Eq. 2 for
        multi-head attention and correct for grouped-query and MLA attention; the paper's
        Table 4 uses the model-card sizes, which count attention this way.

    Raises
    ------
    ValueError
        For an unknown ``attention``.
    """
    if attention == "eq2":
        per_layer_attention = 4 * cfg.attn_head_dim * cfg.n_heads * cfg.d_model
    elif attention == "weights":
        per_layer_attention = attention_weights(cfg, biases=False, norms=False)
    else:
        raise ValueError(f"attention must be 'eq2' or 'weights', got {attention!r}")
    d, attn = cfg.d_model, per_layer_attention
    dense = cfg.n_ffn_dense_layers * (attn + 3 * d * cfg.d_ff)
    g = cfg.top_k + cfg.n_shared
    active = dense + cfg.n_moe_layers * (attn + 3 * g * cfg.d_expert * d)
    experts = cfg.n_shared + cfg.n_experts
    total = dense + cfg.n_moe_layers * (attn + 3 * cfg.d_expert * experts * d)
    nan = math.nan
    return Counts("comprehensive", total, active, embedding_params(cfg), nan, nan, nan, active)


def constrained_counts(cfg: MoEConfig) -> Counts:
    """Memory/inference-constrained paper, Eq. 1-2: N ≈ l·d²·(4 + 3·n/g), g = d/d_exp.

    Generalisations: shared experts count as experts that are always active (in both totals);
    leading dense layers contribute 4·d² + 3·d·d_ffn. The paper defines no compute (NaN).
    """
    d = cfg.d_model
    dense = cfg.n_ffn_dense_layers * (4 * d * d + 3 * d * cfg.d_ff)
    moe = cfg.n_moe_layers
    total = dense + moe * (4 * d * d + 3 * d * cfg.d_expert * (cfg.n_experts + cfg.n_shared))
    active = dense + moe * (4 * d * d + 3 * d * cfg.d_expert * (cfg.top_k + cfg.n_shared))
    nan = math.nan
    return Counts("constrained", total, active, embedding_params(cfg), nan, nan, nan, nan)


def allocation_counts(cfg: MoEConfig) -> Counts:
    """Expert-attention allocation paper, App. C (forward FLOPs; training = 3 x forward).

    Per token and layer: query projection 2·d²; key-value projection 4·d²/(n_h/n_kv);
    attention weights 2·n_ctx·d; value application 2·n_ctx·d; output projection 2·d²; sparse
    MLP 2·d·E + 3·2·d·d_expert·(top-k + n_shared); logits 2·d·V once.

    The value-application term is printed as 2·n_ctx·d² per n_ctx tokens, which is not
    dimensionally consistent with the attention-weights term; we read it as 2·n_ctx·d per
    token (the same cost as the attention weights), a reconstruction. d² is read as
    d·n_h·d_head. Leading dense layers count 6·d·d_ffn. Parameters (which App. C does not
    define) are the attention, FFN, expert and router weight matrices.
    """
    d = cfg.d_model
    q_width = cfg.n_heads * cfg.attn_head_dim
    proj = 2.0 * d * q_width + 4.0 * d * q_width * cfg.kv_heads / cfg.n_heads + 2.0 * d * q_width
    mixing = 2.0 * cfg.context_length * q_width * 2
    attention_flops = cfg.n_layers * (proj + mixing)
    ffn_flops = 6.0 * d * cfg.d_ff * cfg.n_ffn_dense_layers
    if cfg.is_moe:
        per_layer = 2.0 * d * cfg.n_experts + 6.0 * d * cfg.d_expert * (cfg.top_k + cfg.n_shared)
        ffn_flops += cfg.n_moe_layers * per_layer
    logits = 2.0 * d * cfg.vocab_size
    attn = attention_weights(cfg, biases=False, norms=False)
    router = cfg.n_moe_layers * router_weights(cfg, biases=False)
    total = cfg.n_layers * attn + _ffn_params(cfg, cfg.n_experts, biases=False) + router
    active = cfg.n_layers * attn + _ffn_params(cfg, cfg.top_k, biases=False) + router
    return Counts(
        "allocation", total, active, embedding_params(cfg), attention_flops, ffn_flops, logits,
        3.0 * (attention_flops + ffn_flops + logits),
    )


@accepts_hf_config
def counts(cfg: ConfigLike, convention: str = "exact") -> Counts:
    """Exact counts of ``cfg`` (convention ``exact``, :func:`exact_counts`).

    A paper's convention is the paper's own (its adapter's role ``convention``); count under
    any of them by name with :func:`moelaws.conventions.counts`.

    Parameters
    ----------
    cfg : MoEConfig or Hugging Face config (dict, path or directory)
    convention
        ``"exact"``, the only convention this module knows by name.

    Raises
    ------
    ValueError
        If ``convention`` is not ``"exact"``.
    """
    if convention != "exact":
        raise ValueError(f"moelaws.arch counts only the exact convention, not {convention!r}; "
                         f"count under a paper's with moelaws.conventions.counts(cfg, "
                         f"{convention!r})")
    return exact_counts(cfg)


@accepts_hf_config
def total_params(cfg: ConfigLike, convention: str = "exact", *, embeddings: bool = False) -> float:
    """Total parameters under ``convention`` (non-embedding unless ``embeddings``).

    Parameters
    ----------
    cfg : MoEConfig or Hugging Face config (dict, path or directory)
    """
    c = counts(cfg, convention)
    return c.total + (c.embedding if embeddings else 0.0)


@accepts_hf_config
def active_params(cfg: ConfigLike, convention: str = "exact", *, embeddings: bool = False) -> float:
    """Active parameters per token under ``convention`` (non-embedding unless ``embeddings``).

    Parameters
    ----------
    cfg : MoEConfig or Hugging Face config (dict, path or directory)
    """
    c = counts(cfg, convention)
    return c.active + (c.embedding if embeddings else 0.0)


@accepts_hf_config
def flops(cfg: ConfigLike, convention: str = "exact", *, training: bool = True) -> float:
    """FLOPs per token under ``convention``: training (3 x forward) or forward.

    For ``holistic`` training FLOPs per token are the paper's M. NaN for conventions whose
    paper defines no FLOPs (comprehensive, constrained).

    Parameters
    ----------
    cfg : MoEConfig or Hugging Face config (dict, path or directory)
    """
    return (3.0 if training else 1.0) * counts(cfg, convention).forward_flops
