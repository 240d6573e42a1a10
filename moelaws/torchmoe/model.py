"""A small decoder-only MoE transformer built from a :class:`moelaws.arch.MoEConfig`.

The model has exactly the weights that :func:`moelaws.arch.counts` counts under the ``exact``
convention: attention q/k/v/o projections (biases only if ``attention_bias``), SwiGLU dense
FFNs and experts (three matrices each: gate and up are stored side by side in one ``w_in``,
down is ``w_out``; expert and router biases only if ``expert_bias``), a ``d_model x E`` router
per MoE layer, two RMSNorm weight vectors per layer plus a final one, and the input
embedding plus an output projection (one matrix if ``tie_embeddings``).

Routing
-------
The router is a linear map to ``E`` logits, a softmax over *all* experts, and the top-k of
those probabilities. The top-k probabilities weight the experts' outputs as they are (the
Switch/DeepSeek-V2 convention) or, with ``renormalize=True``, divided by their sum (the
Mixtral/Qwen convention; it gives a top-1 router no gradient, so it is off by default).

Auxiliary losses (averaged over the MoE layers, then scaled by their coefficients)
-------------------------------------------------------------------------------
``balance``
    Switch/GShard load-balancing loss ``E * sum_i f_i * P_i`` with ``f_i`` the fraction of the
    ``N * k`` routed assignments that go to expert ``i`` and ``P_i`` the mean router
    probability of expert ``i`` (softmax over all experts). It is 1.0 for a perfectly uniform
    router and ``E`` when every token goes to one expert with probability 1.
``z``
    ST-MoE router z-loss: the mean over tokens of ``logsumexp(router logits) ** 2``.

Dispatch
--------
All implementations compute the same function; they differ in how tokens reach experts:

``loop``
    The readable reference: for each expert, find its tokens with a boolean mask, run the
    expert, add the weighted result back.
``padded``
    Scatter tokens into an ``(E, capacity, d)`` buffer with ``capacity`` = the largest expert
    load (no token is dropped) and run one batched matmul. Simple and GPU-friendly, but the
    padding grows with ``E`` and it collapses on CPU.
``sorted``
    Sort the ``N * k`` assignments by expert once, run each expert on its contiguous slice,
    and un-sort. The fast CPU path.
``grouped``
    Like ``sorted`` but the per-expert matmuls are one ``torch.nn.functional.grouped_mm``
    call (only where torch provides it).
"""

from __future__ import annotations

import contextlib
import math
import numbers
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

import torch
import torch.nn.functional as F
from torch import nn

from moelaws.arch import MoEConfig
from moelaws.arch.counting import total_params
from moelaws.arch.hf_config import ConfigLike, as_config

MAX_PARAMS = 1e9
"""Largest model :class:`MoETransformer` builds unless told otherwise (``max_params=``): 4 GB of
float32 weights, plus as much again for gradients and twice for AdamW's moments."""

__all__ = [
    "DISPATCHES",
    "DenseFFN",
    "MoELayer",
    "MoEOutput",
    "MoETransformer",
    "RMSNorm",
    "Routing",
    "available_dispatches",
    "balance_loss",
    "route",
    "z_loss",
]


# --- building blocks ---------------------------------------------------------------------


class RMSNorm(nn.Module):
    """Root-mean-square layer norm with a learned gain (no bias)."""

    def __init__(self, dim: int, eps: float = 1e-6) -> None:
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * self.weight


def _rope_tables(head_dim: int, length: int, base: float = 10000.0) -> tuple[torch.Tensor, ...]:
    inv_freq = 1.0 / base ** (torch.arange(0, head_dim, 2, dtype=torch.float64) / head_dim)
    angles = torch.outer(torch.arange(length, dtype=torch.float64), inv_freq)
    angles = torch.cat([angles, angles], dim=-1)
    return angles.cos().float(), angles.sin().float()


def _apply_rope(x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor) -> torch.Tensor:
    """Rotate pairs (i, i + head_dim/2) of ``x`` (B, H, T, hd) by position-dependent angles."""
    half = x.shape[-1] // 2
    rotated = torch.cat([-x[..., half:], x[..., :half]], dim=-1)
    return x * cos + rotated * sin


class Attention(nn.Module):
    """Causal multi-head attention with RoPE and grouped-query key/value heads."""

    def __init__(self, cfg: MoEConfig, impl: str = "sdpa") -> None:
        super().__init__()
        d, h, kv, hd = cfg.d_model, cfg.n_heads, cfg.kv_heads, cfg.attn_head_dim
        if hd % 2:
            raise ValueError(f"RoPE needs an even head width, got {hd}")
        if impl not in ("sdpa", "math"):
            raise ValueError(f"attention impl must be 'sdpa' or 'math', got {impl!r}")
        self.n_heads, self.n_kv_heads, self.head_dim, self.impl = h, kv, hd, impl
        bias = cfg.attention_bias
        self.wq = nn.Linear(d, h * hd, bias=bias)
        self.wk = nn.Linear(d, kv * hd, bias=bias)
        self.wv = nn.Linear(d, kv * hd, bias=bias)
        self.wo = nn.Linear(h * hd, d, bias=bias)

    def forward(self, x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor) -> torch.Tensor:
        b, t, _ = x.shape
        h, kv, hd = self.n_heads, self.n_kv_heads, self.head_dim
        q = self.wq(x).view(b, t, h, hd).transpose(1, 2)
        k = self.wk(x).view(b, t, kv, hd).transpose(1, 2)
        v = self.wv(x).view(b, t, kv, hd).transpose(1, 2)
        q, k = _apply_rope(q, cos[:t], sin[:t]), _apply_rope(k, cos[:t], sin[:t])
        if kv != h:
            k = k.repeat_interleave(h // kv, dim=1)
            v = v.repeat_interleave(h // kv, dim=1)
        if self.impl == "sdpa":
            out = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        else:  # the textbook formula (its matmuls are visible to torch's FLOP counter)
            scores = (q @ k.transpose(-2, -1)) / math.sqrt(hd)
            mask = torch.ones(t, t, dtype=torch.bool, device=x.device).triu(1)
            out = scores.masked_fill(mask, float("-inf")).softmax(-1) @ v
        return self.wo(out.transpose(1, 2).reshape(b, t, h * hd))


class DenseFFN(nn.Module):
    """SwiGLU FFN: ``w_out(silu(gate) * up)`` with ``[gate | up] = w_in(x)`` (3·d·width weights)."""

    def __init__(self, d_model: int, width: int, bias: bool = False) -> None:
        super().__init__()
        self.width = width
        self.w_in = nn.Linear(d_model, 2 * width, bias=bias)
        self.w_out = nn.Linear(width, d_model, bias=bias)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        gate, up = self.w_in(x).chunk(2, dim=-1)
        return self.w_out(F.silu(gate) * up)


# --- routing and auxiliary losses ---------------------------------------------------------


@dataclass
class Routing:
    """What one MoE layer's router decided for a batch of ``N`` tokens (all detached).

    Attributes
    ----------
    layer
        Index of the transformer block.
    indices, weights
        ``(N, k)`` chosen experts and their gate weights.
    counts
        ``(E,)`` number of routed assignments per expert (sums to ``N * k``).
    mean_probs
        ``(E,)`` router probability of each expert, averaged over tokens.
    """

    layer: int
    indices: torch.Tensor
    weights: torch.Tensor
    counts: torch.Tensor
    mean_probs: torch.Tensor


def _require_tensor(name: str, value: object) -> None:
    if not isinstance(value, torch.Tensor):
        raise TypeError(f"{name} must be a torch.Tensor, not {type(value).__name__}")


def route(
    logits: torch.Tensor, top_k: int, *, renormalize: bool = False
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Softmax router with top-k selection.

    Parameters
    ----------
    logits
        ``(N, E)`` router logits.
    top_k
        Experts per token.
    renormalize
        Divide the top-k probabilities by their sum.

    Returns
    -------
    probs, indices, weights
        ``(N, E)`` softmax over all experts; ``(N, k)`` chosen experts in decreasing
        probability; ``(N, k)`` their gate weights.
    """
    _require_tensor("logits", logits)
    if logits.ndim != 2:
        raise ValueError(f"logits must be (tokens, experts), got shape {tuple(logits.shape)}")
    if not isinstance(renormalize, bool):
        raise TypeError(f"renormalize must be True or False, not {type(renormalize).__name__}")
    n_experts = logits.shape[-1]
    if isinstance(top_k, bool) or not isinstance(top_k, int) or not 1 <= top_k <= n_experts:
        raise ValueError(f"top_k must be an integer from 1 to the {n_experts} experts, "
                         f"got {top_k!r}")
    probs = logits.float().softmax(dim=-1)
    weights, indices = probs.topk(top_k, dim=-1)
    if renormalize:
        weights = weights / weights.sum(dim=-1, keepdim=True)
    return probs, indices, weights.to(logits.dtype)


def balance_loss(probs: torch.Tensor, indices: torch.Tensor, n_experts: int) -> torch.Tensor:
    """Switch/GShard load-balancing loss ``E * sum_i f_i * P_i``.

    ``f_i`` is the fraction of the ``N * k`` assignments in ``indices`` that go to expert
    ``i`` (not differentiable), ``P_i`` the mean of ``probs[:, i]`` (the softmax over all
    experts, differentiable). Uniform routing gives 1.0; routing everything to one expert
    with probability 1 gives ``E``.

    Raises
    ------
    TypeError
        If ``probs`` or ``indices`` is not a tensor, or ``indices`` not integer.
    ValueError
        If the batch is empty, ``probs`` is not ``(N, n_experts)`` or ``n_experts`` is not a
        positive whole number.
    """
    _require_tensor("probs", probs)
    _require_tensor("indices", indices)
    if isinstance(n_experts, bool) or not isinstance(n_experts, int) or n_experts < 1:
        raise ValueError(f"n_experts must be a positive whole number, got {n_experts!r}")
    if probs.ndim != 2 or probs.shape[-1] != n_experts:
        raise ValueError(f"probs must be (tokens, n_experts={n_experts}), got shape "
                         f"{tuple(probs.shape)}")
    if indices.is_floating_point() or indices.is_complex() or indices.dtype == torch.bool:
        raise TypeError(f"indices must be an integer tensor, not {indices.dtype}")
    if indices.numel() == 0 or probs.shape[0] == 0:
        raise ValueError("balance_loss needs at least one routed token (the batch is empty)")
    counts = torch.bincount(indices.reshape(-1), minlength=n_experts).to(probs.dtype)
    frac = counts / indices.numel()
    return n_experts * torch.sum(frac * probs.mean(dim=0))


def z_loss(logits: torch.Tensor) -> torch.Tensor:
    """ST-MoE router z-loss: mean over tokens of ``logsumexp(logits) ** 2``."""
    _require_tensor("logits", logits)
    if logits.numel() == 0:
        raise ValueError("z_loss needs at least one token's logits (the batch is empty)")
    return torch.logsumexp(logits.float(), dim=-1).pow(2).mean()


# --- dispatch implementations -------------------------------------------------------------
# Each takes x (N, d), indices (N, k), weights (N, k) and the stacked expert weights
# w_in (E, d, 2f), w_out (E, f, d), optional b_in (E, 2f), b_out (E, d), and returns (N, d):
#     y[n] = sum_j weights[n, j] * expert_{indices[n, j]}(x[n]).

_ExpertArgs = tuple[torch.Tensor, torch.Tensor, torch.Tensor | None, torch.Tensor | None]


def _swiglu(h: torch.Tensor) -> torch.Tensor:
    gate, up = h.chunk(2, dim=-1)
    return F.silu(gate) * up


def _expert(x: torch.Tensor, w_in, w_out, b_in, b_out) -> torch.Tensor:
    h = x @ w_in
    if b_in is not None:
        h = h + b_in
    out = _swiglu(h) @ w_out
    return out if b_out is None else out + b_out


def _per_expert(w: torch.Tensor | None, n: int) -> tuple:
    # unbind once: its backward stacks the E gradients in one go, whereas E separate
    # w[e] selections would each materialise a full-size zero gradient.
    return (None,) * n if w is None else w.unbind(0)


def dispatch_loop(x, indices, weights, w_in, w_out, b_in=None, b_out=None) -> torch.Tensor:
    """Reference: one boolean-mask lookup per expert."""
    n_experts = w_in.shape[0]
    ws_in, ws_out = w_in.unbind(0), w_out.unbind(0)
    bs_in, bs_out = _per_expert(b_in, n_experts), _per_expert(b_out, n_experts)
    y = torch.zeros_like(x)
    for e in range(n_experts):
        token, slot = torch.where(indices == e)
        if token.numel() == 0:
            continue
        out = _expert(x[token], ws_in[e], ws_out[e], bs_in[e], bs_out[e])
        y = y.index_add(0, token, out * weights[token, slot, None])
    return y


def _sort_by_expert(indices: torch.Tensor, n_experts: int):
    flat = indices.reshape(-1)
    order = torch.argsort(flat, stable=True)  # assignment ids grouped by expert
    counts = torch.bincount(flat, minlength=n_experts)
    return order, counts


def _unsort(out_sorted: torch.Tensor, order: torch.Tensor, weights: torch.Tensor) -> torch.Tensor:
    n, k = weights.shape
    inverse = torch.empty_like(order)
    inverse[order] = torch.arange(order.numel(), device=order.device)
    out = out_sorted.index_select(0, inverse)  # back to (token, slot) order
    return (out.view(n, k, -1) * weights.unsqueeze(-1)).sum(dim=1)


def dispatch_sorted(x, indices, weights, w_in, w_out, b_in=None, b_out=None) -> torch.Tensor:
    """Sort assignments by expert, run each expert on its contiguous slice, un-sort."""
    n_experts, k = w_in.shape[0], indices.shape[1]
    order, counts = _sort_by_expert(indices, n_experts)
    xs = x.index_select(0, order // k)
    ws_in, ws_out = w_in.unbind(0), w_out.unbind(0)
    bs_in, bs_out = _per_expert(b_in, n_experts), _per_expert(b_out, n_experts)
    outs = [
        _expert(chunk, ws_in[e], ws_out[e], bs_in[e], bs_out[e])
        for e, chunk in enumerate(xs.split(counts.tolist()))
        if chunk.shape[0]
    ]
    return _unsort(torch.cat(outs), order, weights)


def dispatch_grouped(x, indices, weights, w_in, w_out, b_in=None, b_out=None) -> torch.Tensor:
    """Like :func:`dispatch_sorted`, with one ``F.grouped_mm`` per matrix for all experts."""
    n_experts, k = w_in.shape[0], indices.shape[1]
    order, counts = _sort_by_expert(indices, n_experts)
    expert_of = torch.repeat_interleave(torch.arange(n_experts, device=x.device), counts)
    offs = torch.cumsum(counts, 0).to(torch.int32)
    xs = x.index_select(0, order // k)
    h = F.grouped_mm(xs, w_in, offs=offs)
    if b_in is not None:
        h = h + b_in[expert_of]
    out = F.grouped_mm(_swiglu(h), w_out, offs=offs)
    if b_out is not None:
        out = out + b_out[expert_of]
    return _unsort(out, order, weights)


def dispatch_padded(x, indices, weights, w_in, w_out, b_in=None, b_out=None) -> torch.Tensor:
    """Scatter tokens into an (E, capacity, d) buffer and run batched matmuls (no drops)."""
    n_experts, k = w_in.shape[0], indices.shape[1]
    order, counts = _sort_by_expert(indices, n_experts)
    expert_of = indices.reshape(-1)[order]
    starts = torch.cumsum(counts, 0) - counts
    slot = torch.arange(order.numel(), device=x.device) - starts[expert_of]
    capacity = int(counts.max())
    buf = x.new_zeros(n_experts, capacity, x.shape[1])
    buf = buf.index_put((expert_of, slot), x[order // k])
    h = torch.bmm(buf, w_in)
    if b_in is not None:
        h = h + b_in[:, None, :]
    out = torch.bmm(_swiglu(h), w_out)
    if b_out is not None:
        out = out + b_out[:, None, :]
    return _unsort(out[expert_of, slot], order, weights)


_DISPATCH_FNS: dict[str, Callable[..., torch.Tensor]] = {
    "loop": dispatch_loop,
    "padded": dispatch_padded,
    "sorted": dispatch_sorted,
    "grouped": dispatch_grouped,
}
DISPATCHES: tuple[str, ...] = tuple(_DISPATCH_FNS)
"""Every dispatch implementation (``grouped`` needs ``torch.nn.functional.grouped_mm``)."""


def available_dispatches() -> tuple[str, ...]:
    """The dispatch implementations this torch build can run."""
    return tuple(d for d in DISPATCHES if d != "grouped" or hasattr(F, "grouped_mm"))


# --- MoE layer -----------------------------------------------------------------------------


class MoELayer(nn.Module):
    """Routed SwiGLU experts (stacked weights), optional shared experts, softmax top-k router."""

    def __init__(
        self, cfg: MoEConfig, *, dispatch: str = "sorted", renormalize: bool = False
    ) -> None:
        super().__init__()
        d, e, f = cfg.d_model, cfg.n_experts, cfg.d_expert
        self.n_experts, self.top_k, self.width = e, cfg.top_k, f
        self.renormalize = renormalize
        self.dispatch = dispatch
        self.router = nn.Linear(d, e, bias=cfg.expert_bias)
        self.w_in = nn.Parameter(torch.empty(e, d, 2 * f))
        self.w_out = nn.Parameter(torch.empty(e, f, d))
        if cfg.expert_bias:
            self.b_in = nn.Parameter(torch.zeros(e, 2 * f))
            self.b_out = nn.Parameter(torch.zeros(e, d))
        else:
            self.register_parameter("b_in", None)
            self.register_parameter("b_out", None)
        self.shared = nn.ModuleList(
            DenseFFN(d, cfg.shared_width, bias=cfg.expert_bias) for _ in range(cfg.n_shared)
        )

    @property
    def dispatch(self) -> str:
        return self._dispatch

    @dispatch.setter
    def dispatch(self, name: str) -> None:
        if name not in _DISPATCH_FNS:
            raise ValueError(f"unknown dispatch {name!r}; choose from {', '.join(DISPATCHES)}")
        if name not in available_dispatches():
            raise ValueError(f"dispatch {name!r} needs torch.nn.functional.grouped_mm")
        self._dispatch = name

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, dict[str, torch.Tensor], tuple]:
        """``x`` is ``(N, d)``; returns the output, the auxiliary losses and the routing."""
        logits = self.router(x)
        probs, indices, weights = route(logits, self.top_k, renormalize=self.renormalize)
        y = _DISPATCH_FNS[self._dispatch](
            x, indices, weights, self.w_in, self.w_out, self.b_in, self.b_out
        )
        for expert in self.shared:
            y = y + expert(x)
        aux = {
            "balance": balance_loss(probs, indices, self.n_experts),
            "z": z_loss(logits),
        }
        return y, aux, (indices, weights.detach(), probs.detach())


class Block(nn.Module):
    def __init__(self, cfg: MoEConfig, layer: int, *, dispatch: str, renormalize: bool,
                 attention: str) -> None:
        super().__init__()
        self.layer = layer
        self.attn_norm = RMSNorm(cfg.d_model)
        self.attn = Attention(cfg, attention)
        self.ffn_norm = RMSNorm(cfg.d_model)
        self.is_moe = cfg.is_moe and layer >= cfg.n_dense_layers
        if self.is_moe:
            self.ffn: nn.Module = MoELayer(cfg, dispatch=dispatch, renormalize=renormalize)
        else:
            self.ffn = DenseFFN(cfg.d_model, cfg.d_ff)

    def forward(self, x, cos, sin):
        x = x + self.attn(self.attn_norm(x), cos, sin)
        h = self.ffn_norm(x)
        if not self.is_moe:
            return x + self.ffn(h), None, None
        b, t, d = h.shape
        y, aux, routing = self.ffn(h.reshape(b * t, d))
        return x + y.view(b, t, d), aux, routing


# --- the model -----------------------------------------------------------------------------


@dataclass
class MoEOutput:
    """Output of :meth:`MoETransformer.forward`.

    ``loss`` is what to minimise: ``ce_loss + aux_loss_coef * balance_loss + z_loss_coef *
    z_loss`` (the auxiliary losses averaged over MoE layers; zero for a dense model). It is
    ``None`` without targets.
    """

    logits: torch.Tensor
    loss: torch.Tensor | None = None
    ce_loss: torch.Tensor | None = None
    balance_loss: torch.Tensor | None = None
    z_loss: torch.Tensor | None = None
    routing: list[Routing] = field(default_factory=list)


class MoETransformer(nn.Module):
    """Decoder-only transformer whose FFNs are dense SwiGLU or MoE layers, built from a config.

    Parameters
    ----------
    cfg : MoEConfig or Hugging Face config (dict, path or directory)
        The architecture (:class:`moelaws.arch.MoEConfig`, or a Hugging Face config converted by
        :func:`moelaws.arch.as_config`); MLA attention is not supported.
    dispatch
        Expert-dispatch implementation, one of :data:`DISPATCHES`.
    aux_loss_coef, z_loss_coef
        Coefficients of the load-balancing loss and the router z-loss.
    renormalize
        Renormalise the top-k gate weights to sum to one.
    attention
        ``"sdpa"`` (fused kernel) or ``"math"`` (explicit softmax(QKᵀ)V, same function).
    init_std
        Standard deviation of the normal initialisation (output projections of each residual
        branch are scaled down by ``sqrt(2 * n_layers)``).

    max_params
        Refuse to build a model with more parameters than this (embeddings included), before
        any weight is allocated; ``None`` lifts the limit. The default,
        :data:`MAX_PARAMS`, keeps an accidental real-size config (Mixtral-8x7B would need
        about 190 GB in float32) from exhausting memory: torchmoe is for toy models.

    Raises
    ------
    ValueError
        For configurations with MLA attention, odd head widths, an unknown dispatch, or more
        than ``max_params`` parameters.
    """

    def __init__(
        self,
        cfg: ConfigLike,
        *,
        dispatch: str = "sorted",
        aux_loss_coef: float = 0.01,
        z_loss_coef: float = 0.001,
        renormalize: bool = False,
        attention: str = "sdpa",
        init_std: float = 0.02,
        max_params: float | None = MAX_PARAMS,
    ) -> None:
        super().__init__()
        cfg = as_config(cfg)
        size = total_params(cfg, "exact", embeddings=True)
        if max_params is not None and size > max_params:
            raise ValueError(
                f"this config has {size:.3g} parameters, above the limit of {max_params:.3g} "
                "(torchmoe builds toy models); pass max_params= to raise it deliberately")
        if cfg.mla is not None:
            raise ValueError("torchmoe does not implement MLA attention (cfg.mla is set)")
        if cfg.shared_expert_gate:
            # Its parameter count would then differ from moelaws.arch's exact convention.
            raise ValueError("torchmoe does not implement the shared-expert gate "
                             "(cfg.shared_expert_gate is set)")
        self.cfg = cfg
        self.aux_loss_coef, self.z_loss_coef = aux_loss_coef, z_loss_coef
        self._rerouted = False
        self.embed = nn.Embedding(cfg.vocab_size, cfg.d_model)
        self.blocks = nn.ModuleList(
            Block(cfg, i, dispatch=dispatch, renormalize=renormalize, attention=attention)
            for i in range(cfg.n_layers)
        )
        self.norm = RMSNorm(cfg.d_model)
        self.lm_head = nn.Linear(cfg.d_model, cfg.vocab_size, bias=False)
        if cfg.tie_embeddings:
            self.lm_head.weight = self.embed.weight
        cos, sin = _rope_tables(cfg.attn_head_dim, cfg.context_length)
        self.register_buffer("rope_cos", cos, persistent=False)
        self.register_buffer("rope_sin", sin, persistent=False)
        self._init_weights(init_std)

    def _init_weights(self, std: float) -> None:
        out_std = std / math.sqrt(2 * self.cfg.n_layers)
        for name, p in self.named_parameters():
            if name.endswith("norm.weight"):
                nn.init.ones_(p)
            elif name.endswith(("bias", ".b_in", ".b_out")):
                nn.init.zeros_(p)
            elif name.endswith(("wo.weight", "w_out.weight", ".w_out")):
                nn.init.normal_(p, 0.0, out_std)
            else:
                nn.init.normal_(p, 0.0, std)

    # -- structure ------------------------------------------------------------------------

    def moe_layers(self) -> list[MoELayer]:
        return [b.ffn for b in self.blocks if b.is_moe]

    @property
    def dispatch(self) -> str | None:
        layers = self.moe_layers()
        return layers[0].dispatch if layers else None

    @dispatch.setter
    def dispatch(self, name: str) -> None:
        for layer in self.moe_layers():
            layer.dispatch = name

    @contextlib.contextmanager
    def routed_top_k(self, k: int) -> Iterator[MoETransformer]:
        """Route every MoE layer's tokens to its top-``k`` experts inside the block, and give
        each layer back the ``top_k`` it had afterwards, also when the block raises.

        The weights are unchanged: with ``renormalize=False`` the extra experts add their
        whole softmax probability to the output (module docstring, "Routing").

        Raises
        ------
        ValueError
            If ``k`` is not an integer from 1 to the number of routed experts (2.0 is not).

        Notes
        -----
        Inside the block ``flops_per_token`` counts the ``k`` experts, while ``cfg.top_k`` keeps
        the trained value: evaluate inside it, do not train. A forward pass inside it that
        records gradients (outside ``torch.no_grad()`` or ``torch.inference_mode()``) raises
        ``RuntimeError``, so a training step cannot run on the rerouted model by mistake.
        """
        layers = self.moe_layers()
        if not layers:
            raise ValueError("the model has no MoE layer to route")
        n_experts = min(layer.n_experts for layer in layers)
        if not isinstance(k, numbers.Integral) or isinstance(k, bool) or not 1 <= k <= n_experts:
            raise ValueError(f"top-k must be an integer from 1 to {n_experts}, got {k!r}")
        before, rerouted = [layer.top_k for layer in layers], self._rerouted
        try:
            for layer in layers:
                layer.top_k = int(k)
            self._rerouted = True
            yield self
        finally:
            self._rerouted = rerouted
            for layer, own in zip(layers, before, strict=True):
                layer.top_k = own

    def num_params(self) -> int:
        """Number of distinct parameters (a tied embedding counted once)."""
        return sum(p.numel() for p in self.parameters())

    def flops_per_token(self, *, training: bool = True) -> float:
        """Matmul FLOPs per token, counted from the modules themselves.

        Forward: 2 x (weights of every linear map a token passes through: attention
        projections, dense FFNs, the router, ``top_k`` routed and all shared experts, the output
        projection) + attention scores and value mixing over the full training context
        (``2 * n_ctx * n_heads * (d_qk + d_v)`` per layer). Training is 3 x forward. Norms,
        softmaxes, RoPE and biases are not counted. Equals ``arch.flops(cfg, "exact")``.
        """
        cfg = self.cfg
        total = 2.0 * self.lm_head.in_features * self.lm_head.out_features
        for block in self.blocks:
            a = block.attn
            for lin in (a.wq, a.wk, a.wv, a.wo):
                total += 2.0 * lin.in_features * lin.out_features
            total += 2.0 * cfg.context_length * a.n_heads * 2 * a.head_dim
            if block.is_moe:
                moe = block.ffn
                total += 2.0 * moe.router.in_features * moe.router.out_features
                total += moe.top_k * 2.0 * (moe.w_in[0].numel() + moe.w_out[0].numel())
                ffns = list(moe.shared)
            else:
                ffns = [block.ffn]
            for ffn in ffns:
                total += 2.0 * (ffn.w_in.weight.numel() + ffn.w_out.weight.numel())
        return (3.0 if training else 1.0) * total

    # -- forward --------------------------------------------------------------------------

    def forward(self, idx: torch.Tensor, targets: torch.Tensor | None = None) -> MoEOutput:
        """``idx`` and ``targets`` are ``(B, T)`` token ids with ``T <= context_length``."""
        t = idx.shape[1]
        if t > self.cfg.context_length:
            raise ValueError(f"sequence length {t} exceeds context_length")
        if getattr(self, "_rerouted", False) and torch.is_grad_enabled():
            raise RuntimeError("routed_top_k is for evaluation: run the forward pass inside "
                               "torch.no_grad(), not a training step")
        x = self.embed(idx)
        balance, zl, routing = [], [], []
        for block in self.blocks:
            x, aux, info = block(x, self.rope_cos, self.rope_sin)
            if aux is not None:
                balance.append(aux["balance"])
                zl.append(aux["z"])
                indices, weights, probs = info
                counts = torch.bincount(indices.reshape(-1), minlength=block.ffn.n_experts)
                routing.append(Routing(block.layer, indices, weights, counts, probs.mean(0)))
        logits = self.lm_head(self.norm(x))
        out = MoEOutput(logits=logits, routing=routing)
        if balance:
            out.balance_loss = torch.stack(balance).mean()
            out.z_loss = torch.stack(zl).mean()
        if targets is not None:
            out.ce_loss = F.cross_entropy(logits.reshape(-1, logits.shape[-1]), targets.reshape(-1))
            out.loss = out.ce_loss
            if balance:
                out.loss = (
                    out.loss + self.aux_loss_coef * out.balance_loss + self.z_loss_coef * out.z_loss
                )
        return out
