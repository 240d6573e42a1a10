"""One description of an MoE transformer: :class:`MoEConfig`."""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields, replace
from typing import Any


@dataclass(frozen=True)
class MLA:
    """Multi-head latent attention (DeepSeek-V2/V3, Kimi-K2) projection sizes.

    Parameters
    ----------
    kv_lora_rank
        Rank of the compressed key/value latent.
    qk_nope_head_dim, qk_rope_head_dim
        Per-head query/key widths without and with rotary embedding.
    v_head_dim
        Per-head value width.
    q_lora_rank
        Rank of the compressed query, or ``None`` for a direct query projection.
    """

    kv_lora_rank: int
    qk_nope_head_dim: int
    qk_rope_head_dim: int
    v_head_dim: int
    q_lora_rank: int | None = None

    def __post_init__(self) -> None:
        for f in ("kv_lora_rank", "qk_nope_head_dim", "qk_rope_head_dim", "v_head_dim"):
            _positive_int(f"mla.{f}", getattr(self, f))
        if self.q_lora_rank is not None:
            _positive_int("mla.q_lora_rank", self.q_lora_rank)


def _positive_int(name: str, value: Any) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        raise ValueError(f"{name} must be a positive integer, got {value!r}")


def _non_negative_int(name: str, value: Any) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValueError(f"{name} must be a non-negative integer, got {value!r}")


@dataclass(frozen=True)
class MoEConfig:
    """A decoder-only transformer whose FFNs are dense SwiGLU or SwiGLU mixtures of experts.

    A model with ``n_experts == 0`` is dense: every layer has a SwiGLU FFN of width ``d_ff``.
    Otherwise the first ``n_dense_layers`` layers are dense (width ``d_ff``) and the remaining
    layers are MoE layers with ``n_experts`` routed experts of width ``d_expert``, ``top_k`` of
    them activated per token, plus ``n_shared`` always-active shared experts of width
    ``d_shared`` (default ``d_expert``).

    Parameters
    ----------
    n_layers, d_model, n_heads
        Depth, hidden size and number of query heads.
    n_kv_heads
        Key/value heads (grouped-query attention); default ``n_heads``.
    head_dim
        Per-head width; default ``d_model // n_heads`` (which then must divide evenly).
    d_ff
        Width of the dense SwiGLU FFN (dense models and leading dense layers).
    n_experts, top_k, n_shared, d_expert, d_shared
        Routed experts, activated routed experts per token, shared experts, expert width,
        shared-expert width.
    n_dense_layers
        Leading dense layers of an MoE model. Counts depend only on their number, so a model
        whose dense layers are interleaved with MoE layers (Llama 4 Maverick) is described by
        how many it has.
    vocab_size, context_length, tie_embeddings
        Vocabulary, training context length, whether input and output embeddings are shared.
    mla
        Multi-head latent attention sizes, or ``None`` for (grouped-query) multi-head attention.
    attention_bias, expert_bias
        Whether attention projections / experts and router carry biases (gpt-oss does).
    shared_expert_gate
        Whether each MoE layer scales its shared experts by a learned sigmoid gate, a
        ``d_model x 1`` projection (Qwen1.5/Qwen2-MoE).
    sliding_window, n_sliding_layers
        Width of the local attention window and how many layers use it (gpt-oss alternates
        128-token sliding-window layers with full-attention layers). They change no parameter
        count, only the attention-score FLOPs of the exact convention.
    name, source
        A label, and where the configuration comes from (model card, config file, paper table).
    """

    n_layers: int
    d_model: int
    n_heads: int
    n_kv_heads: int | None = None
    head_dim: int | None = None
    d_ff: int = 0
    n_experts: int = 0
    top_k: int = 0
    n_shared: int = 0
    d_expert: int = 0
    d_shared: int | None = None
    n_dense_layers: int = 0
    vocab_size: int = 32000
    context_length: int = 4096
    tie_embeddings: bool = False
    mla: MLA | None = None
    attention_bias: bool = False
    expert_bias: bool = False
    shared_expert_gate: bool = False
    sliding_window: int | None = None
    n_sliding_layers: int = 0
    name: str = "custom"
    source: str = ""

    def __post_init__(self) -> None:
        _positive_int("n_layers", self.n_layers)
        _positive_int("d_model", self.d_model)
        _positive_int("n_heads", self.n_heads)
        _positive_int("vocab_size", self.vocab_size)
        _positive_int("context_length", self.context_length)
        for f in ("tie_embeddings", "attention_bias", "expert_bias", "shared_expert_gate"):
            if not isinstance(getattr(self, f), bool):
                raise ValueError(f"{f} must be True or False, got {getattr(self, f)!r}")
        if self.mla is not None and not isinstance(self.mla, MLA):
            raise ValueError(f"mla must be an MLA or None, got {type(self.mla).__name__}")
        for f in ("name", "source"):
            if not isinstance(getattr(self, f), str):
                raise ValueError(f"{f} must be a string, got {getattr(self, f)!r}")
        for f in ("d_ff", "n_experts", "top_k", "n_shared", "d_expert", "n_dense_layers"):
            _non_negative_int(f, getattr(self, f))
        if self.n_kv_heads is not None:
            _positive_int("n_kv_heads", self.n_kv_heads)
            if self.n_heads % self.n_kv_heads:
                raise ValueError(
                    f"n_kv_heads ({self.n_kv_heads}) must divide n_heads ({self.n_heads})"
                )
        if self.head_dim is not None:
            _positive_int("head_dim", self.head_dim)
        elif self.mla is None and self.d_model % self.n_heads:
            raise ValueError(
                f"n_heads ({self.n_heads}) must divide d_model ({self.d_model}) "
                "when head_dim is not given"
            )
        if self.d_shared is not None:
            _positive_int("d_shared", self.d_shared)
        _non_negative_int("n_sliding_layers", self.n_sliding_layers)
        if self.sliding_window is not None:
            _positive_int("sliding_window", self.sliding_window)
        if self.n_sliding_layers > self.n_layers:
            raise ValueError(
                f"n_sliding_layers ({self.n_sliding_layers}) must not exceed n_layers "
                f"({self.n_layers})"
            )
        if self.n_sliding_layers and self.sliding_window is None:
            raise ValueError("n_sliding_layers > 0 needs a sliding_window")
        if self.n_experts == 0:
            if self.top_k or self.n_shared or self.d_expert or self.n_dense_layers:
                raise ValueError(
                    "n_experts is 0 (a dense model): top_k, n_shared, d_expert and "
                    "n_dense_layers must be 0"
                )
            _positive_int("d_ff", self.d_ff)
        else:
            _positive_int("top_k", self.top_k)
            _positive_int("d_expert", self.d_expert)
            if self.top_k > self.n_experts:
                raise ValueError(
                    f"top_k ({self.top_k}) must not exceed n_experts ({self.n_experts})"
                )
            if self.n_dense_layers >= self.n_layers:
                raise ValueError(
                    f"n_dense_layers ({self.n_dense_layers}) must be below n_layers "
                    f"({self.n_layers}) in an MoE model"
                )
            if self.n_dense_layers:
                _positive_int("d_ff", self.d_ff)

    @property
    def is_moe(self) -> bool:
        return self.n_experts > 0

    @property
    def kv_heads(self) -> int:
        """Key/value heads in force (``n_kv_heads`` or ``n_heads``)."""
        return self.n_kv_heads if self.n_kv_heads is not None else self.n_heads

    @property
    def attn_head_dim(self) -> int:
        """Query/key width per head: ``head_dim``, ``d_model // n_heads``, or MLA's nope+rope."""
        if self.mla is not None:
            return self.mla.qk_nope_head_dim + self.mla.qk_rope_head_dim
        return self.head_dim if self.head_dim is not None else self.d_model // self.n_heads

    @property
    def value_head_dim(self) -> int:
        """Value width per head."""
        return self.mla.v_head_dim if self.mla is not None else self.attn_head_dim

    @property
    def shared_width(self) -> int:
        return self.d_shared if self.d_shared is not None else self.d_expert

    @property
    def n_moe_layers(self) -> int:
        return self.n_layers - self.n_dense_layers if self.is_moe else 0

    @property
    def n_ffn_dense_layers(self) -> int:
        """Layers with a dense FFN (all layers of a dense model)."""
        return self.n_dense_layers if self.is_moe else self.n_layers

    def replace(self, **changes: Any) -> MoEConfig:
        """A copy with some fields changed (validated again)."""
        return replace(self, **changes)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> MoEConfig:
        """Build a config from a plain dict (e.g. parsed JSON).

        Raises
        ------
        ValueError
            On unknown keys or invalid values.
        """
        if not isinstance(data, dict):
            raise ValueError("a configuration must be a JSON object")
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(data) - known)
        if unknown:
            raise ValueError(f"unknown configuration fields: {', '.join(unknown)}")
        values = dict(data)
        try:
            if isinstance(values.get("mla"), dict):
                values["mla"] = MLA(**values["mla"])
            return cls(**values)
        except TypeError as exc:
            raise ValueError(str(exc)) from exc
