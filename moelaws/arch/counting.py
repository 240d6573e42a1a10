"""Exact parameter and FLOP counts of an :class:`~moelaws.arch.MoEConfig`, and the building
blocks every paper's counting convention is made of.

The papers count parameters and compute differently; each paper's convention lives in its own
folder (``moelaws/<paper>/counting.py``, named by its adapter's role ``convention``) and is
built from the blocks here (:func:`attention_weights`, :func:`expert_weights`,
:func:`router_weights`, :func:`ffn_weights`, :func:`embedding_params`) and the :class:`Counts`
record. This module knows one convention by name, ``exact``; :mod:`moelaws.conventions`,
above the registry of papers, counts under any convention by name.

``exact``
    The book's own count: every weight of a standard implementation (attention projections,
    FFNs, experts, router, RMSNorm weights, biases where the config has them). Forward FLOPs
    per token are 2 x the active matmul weights, plus attention scores and value mixing over
    the full context (2·n_ctx·n_h·d_qk + 2·n_ctx·n_h·d_v per layer, as in Hoffmann et al.'s
    accounting: no causal mask, every query sees all n_ctx keys; a sliding-window layer sees
    at most its window), plus the output logits (the head is counted although N excludes
    embeddings). Training compute per token is 3 x forward.
"""

from __future__ import annotations

from collections.abc import Callable
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
        What the convention multiplies by the number of training tokens D to get its compute
        C: training FLOPs per token for the exact count and for most papers, the active
        parameter count for a paper that counts compute in parameter-tokens (C = D·N_a), NaN
        for a paper that defines no compute.
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


def context_flops(cfg: MoEConfig) -> float:
    """Forward FLOPs per token of attention scores and value mixing, summed over the layers:
    the exact count's context term.

    Per key, ``2·n_h·d_qk`` for the scores and ``2·n_h·d_v`` for the mixing, times
    :func:`attention_keys_per_token` (Hoffmann et al.'s accounting, no causal mask: a causal
    model computes about half). The projections are not included.

    Parameters
    ----------
    cfg : MoEConfig

    Returns
    -------
    float
        Part of ``exact_counts(cfg).attention_flops``.
    """
    return (2.0 * cfg.n_heads * (cfg.attn_head_dim + cfg.value_head_dim)
            * attention_keys_per_token(cfg))


def ffn_weights(cfg: MoEConfig, experts_per_moe_layer: int, *, biases: bool) -> int:
    """FFN and expert weights of all layers: the dense FFNs, ``experts_per_moe_layer`` routed
    experts and the shared experts of every MoE layer (routers excluded).

    ``experts_per_moe_layer`` is ``cfg.n_experts`` for the total count and ``cfg.top_k`` for
    the active one; ``biases`` adds the expert biases where the config has them.
    """
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
    total = cfg.n_layers * attn + ffn_weights(cfg, cfg.n_experts, biases=True) + router + norms
    active = cfg.n_layers * attn + ffn_weights(cfg, cfg.top_k, biases=True) + router + norms
    attn_matmul = attention_weights(cfg, biases=False, norms=False)
    attention_flops = cfg.n_layers * 2.0 * attn_matmul + context_flops(cfg)
    routers = cfg.n_moe_layers * router_weights(cfg, biases=False)
    ffn_flops = 2.0 * (ffn_weights(cfg, cfg.top_k, biases=False) + routers)
    logits = 2.0 * cfg.d_model * cfg.vocab_size
    return Counts(
        "exact", total, active, embedding_params(cfg), attention_flops, ffn_flops, logits,
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


def per_token_totals(
    count: Callable[..., Counts],
) -> tuple[Callable[..., float], Callable[..., float], Callable[..., float]]:
    """``total_params``, ``active_params`` and ``flops`` over one way of counting by name.

    The one definition of the three: :mod:`moelaws.arch` builds them over :func:`counts` (the
    exact convention only), :mod:`moelaws.conventions` over its own ``counts`` (every paper's
    convention, from the registry).

    Parameters
    ----------
    count
        ``count(cfg, convention)`` giving :class:`Counts`.

    Returns
    -------
    tuple of callables
        ``total_params(cfg, convention="exact", *, embeddings=False)``,
        ``active_params(cfg, convention="exact", *, embeddings=False)`` and
        ``flops(cfg, convention="exact", *, training=True)``.
    """

    @accepts_hf_config
    def total_params(cfg: ConfigLike, convention: str = "exact", *,
                     embeddings: bool = False) -> float:
        """Total parameters under ``convention`` (non-embedding unless ``embeddings``).

        Parameters
        ----------
        cfg : MoEConfig or Hugging Face config (dict, path or directory)
        """
        c = count(cfg, convention)
        return c.total + (c.embedding if embeddings else 0.0)

    @accepts_hf_config
    def active_params(cfg: ConfigLike, convention: str = "exact", *,
                      embeddings: bool = False) -> float:
        """Active parameters per token under ``convention`` (non-embedding unless
        ``embeddings``).

        Parameters
        ----------
        cfg : MoEConfig or Hugging Face config (dict, path or directory)
        """
        c = count(cfg, convention)
        return c.active + (c.embedding if embeddings else 0.0)

    @accepts_hf_config
    def flops(cfg: ConfigLike, convention: str = "exact", *, training: bool = True) -> float:
        """FLOPs per token under ``convention``: training (3 x forward) or forward.

        NaN for a convention whose paper defines no FLOPs.

        Parameters
        ----------
        cfg : MoEConfig or Hugging Face config (dict, path or directory)
        """
        return (3.0 if training else 1.0) * count(cfg, convention).forward_flops

    made = (total_params, active_params, flops)
    for fn in made:
        fn.__module__ = count.__module__
        fn.__qualname__ = fn.__name__
    return made


total_params, active_params, flops = per_token_totals(counts)
