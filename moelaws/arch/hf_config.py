"""A Hugging Face ``config.json`` as an :class:`~moelaws.arch.MoEConfig`.

:func:`from_hf_config` reads the configuration file a model hub ships with its weights (a
path to the file, a directory holding it, or the parsed dict) and converts it, one
``model_type`` at a time, to the fields :mod:`moelaws.arch.counting` counts.

Nothing is guessed silently:

* a ``model_type`` outside :data:`SUPPORTED_MODEL_TYPES` is refused with a ``ValueError``
  that names the supported ones;
* a field the converter does not know (neither used nor listed as not changing the
  parameter count) raises an :class:`HFConfigWarning` that names it, since it may change the
  count;
* a known field with a value the converter cannot represent (a non-SwiGLU activation, tied
  embeddings where the family never ties them, ...) raises a ``ValueError``;
* weights the converter understands but :class:`~moelaws.arch.MoEConfig` does not hold (QK-norm
  weights, attention sinks, the DeepSeek routers' score-correction biases, the
  multi-token-prediction module, a vision encoder) are listed, with their number where the
  config fixes it, in the result's ``source`` (see :func:`uncounted`). They are below 0.1 % of
  every stored model's total except the modules outside the language model (MTP, vision).

:func:`as_config` is the one place where the package's public functions turn what they are given
into an :class:`~moelaws.arch.MoEConfig` (an ``MoEConfig`` as it is; a dict, a path to
``config.json`` or a directory through :func:`from_hf_config`; anything else a ``ValueError``
naming these); :func:`accepts_hf_config` applies it to a function's first argument.

The attention context length of the FLOP counts is not read from ``max_position_embeddings``
(the longest context the model supports, not its training context); it defaults to 4096, as
for the presets, and can be given.
"""

from __future__ import annotations

import functools
import inspect
import json
import warnings
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, TypeVar, Union

from moelaws.arch.config import MLA, MoEConfig

__all__ = [
    "SUPPORTED_MODEL_TYPES",
    "ConfigLike",
    "HFConfigWarning",
    "accepts_hf_config",
    "as_config",
    "from_hf_config",
    "is_hf_config",
    "read_hf_config",
    "uncounted",
]


class HFConfigWarning(UserWarning):
    """A ``config.json`` field the converter does not know; it may change the count."""


# Fields that do not change any parameter count: token ids, dtypes, initialisation,
# regularisation, rotary-embedding settings, routing arithmetic (not weights), caching,
# quantisation of the stored weights, and bookkeeping of the hub and of transformers.
_NO_COUNT_FIELDS = frozenset({
    "_attn_implementation_autoset", "_name_or_path", "architectures", "attention_chunk_size",
    "attention_dropout", "attn_pdrop", "attn_scale", "attn_temperature_tuning", "auto_map",
    "aux_loss_alpha", "boi_token_index", "bos_token_id", "cache_implementation", "clip_qkv",
    "decoder_start_token_id", "emb_pdrop", "embd_pdrop", "eoi_token_index", "eos_token_id",
    "ep_size", "floor_scale", "for_llm_compressor", "hidden_dropout", "image_token_index",
    "initial_context_length", "initializer_range", "input_jitter_noise", "layer_norm_eps",
    "layer_types", "max_position_embeddings", "max_seq_len", "max_window_layers", "model_type",
    "n_group", "no_rope_layers", "norm_topk_prob", "original_max_position_embeddings",
    "output_router_logits", "pad_token_id", "pretraining_tp", "quantization_config",
    "resid_pdrop", "rms_norm_eps", "rope_parameters", "rope_scaling", "rope_theta",
    "routed_scaling_factor", "router_aux_loss_coef", "router_jitter_noise", "scoring_func",
    "seq_aux", "sliding_window", "swiglu_limit", "topk_group", "torch_dtype",
    "transformers_version", "use_cache", "use_sliding_window",
})

_SWIGLU = ("silu", "swiglu")


class _Fields:
    """A config dict that remembers which fields the converter read."""

    def __init__(self, data: Mapping[str, Any], where: str = "") -> None:
        self.data = dict(data)
        self.where = where
        self.read: set[str] = set()
        self.layout = ""
        self.extra_unknown: list[str] = []

    def get(self, key: str, default: Any = None) -> Any:
        self.read.add(key)
        return self.data.get(key, default)

    def need(self, key: str) -> Any:
        self.read.add(key)
        if self.data.get(key) is None:
            raise ValueError(f"config.json{self.where} has no {key!r}, which the count needs")
        return self.data[key]

    def unknown(self, extra_known: frozenset[str] = frozenset()) -> list[str]:
        known = self.read | _NO_COUNT_FIELDS | extra_known
        return sorted(f"{self.where.strip(' ()')}.{k}".lstrip(".") for k in self.data
                      if k not in known)


def _swiglu(f: _Fields, key: str = "hidden_act") -> None:
    act = f.get(key, "silu")
    if act not in _SWIGLU:
        raise ValueError(f"{key}={act!r}: only SwiGLU (silu-gated) FFNs can be counted")


def _tied(f: _Fields) -> bool:
    return bool(f.get("tie_word_embeddings", False))


def _gqa(f: _Fields) -> dict[str, Any]:
    d, h = int(f.need("hidden_size")), int(f.need("num_attention_heads"))
    head_dim = f.get("head_dim")
    return {
        "d_model": d,
        "n_heads": h,
        "n_kv_heads": int(f.get("num_key_value_heads") or h),
        "head_dim": int(head_dim) if head_dim is not None else None,
    }


def _moe_layer_split(f: _Fields, n_layers: int, is_moe: Callable[[int], bool]) -> int:
    """Number of dense layers; records a layout note when they are not the leading ones."""
    dense = [i for i in range(n_layers) if not is_moe(i)]
    if dense != list(range(len(dense))):
        f.layout = (f"{len(dense)} dense layers {dense[:3]}{'...' if len(dense) > 3 else ''} "
                    "interleaved with MoE layers (counts depend only on their number)")
    return len(dense)


# --- one converter per family --------------------------------------------------------------


def _mixtral(f: _Fields) -> tuple[dict[str, Any], list[str]]:
    _swiglu(f)
    return {
        "n_layers": int(f.need("num_hidden_layers")), **_gqa(f),
        "n_experts": int(f.need("num_local_experts")), "top_k": int(f.need("num_experts_per_tok")),
        "d_expert": int(f.need("intermediate_size")), "vocab_size": int(f.need("vocab_size")),
        "tie_embeddings": _tied(f),
    }, []


def _qwen_moe(f: _Fields, *, shared: bool) -> tuple[dict[str, Any], list[str]]:
    """Qwen1.5/Qwen2-MoE (``shared``: one gated shared expert) and Qwen3-MoE."""
    _swiglu(f)
    n_layers = int(f.need("num_hidden_layers"))
    step = int(f.get("decoder_sparse_step", 1) or 1)
    mlp_only = set(f.get("mlp_only_layers") or [])
    n_dense = _moe_layer_split(f, n_layers, lambda i: i not in mlp_only and (i + 1) % step == 0)
    notes: list[str] = []
    f.get("intermediate_size")  # the dense-FFN width: understood, unused without dense layers
    fields = {
        "n_layers": n_layers, **_gqa(f),
        "n_experts": int(f.need("num_experts")), "top_k": int(f.need("num_experts_per_tok")),
        "d_expert": int(f.need("moe_intermediate_size")),
        "d_ff": int(f.need("intermediate_size")) if n_dense else 0,
        "n_dense_layers": n_dense, "vocab_size": int(f.need("vocab_size")),
        "tie_embeddings": _tied(f),
    }
    hd = fields["head_dim"] or fields["d_model"] // fields["n_heads"]
    q_w, kv_w = fields["n_heads"] * hd, fields["n_kv_heads"] * hd
    if shared:
        width = int(f.need("shared_expert_intermediate_size"))
        fields.update(n_shared=1, d_shared=width, shared_expert_gate=True)
        # Qwen2-MoE projects q, k and v with biases and o without; MoEConfig's
        # attention_bias would add the o bias too, so the q/k/v biases are listed instead.
        notes.append(f"q/k/v projection biases ({n_layers * (q_w + 2 * kv_w):,})")
    else:
        if f.get("attention_bias", False):
            fields["attention_bias"] = True
        notes.append(f"QK-norm weights ({n_layers * 2 * hd:,})")
    return fields, notes


def _deepseek(f: _Fields) -> tuple[dict[str, Any], list[str]]:
    """DeepSeek-V2/V3 and Kimi-K2: MLA attention, shared experts, leading dense layers."""
    _swiglu(f)
    n_layers = int(f.need("num_hidden_layers"))
    first_dense = int(f.get("first_k_dense_replace", 0) or 0)
    freq = int(f.get("moe_layer_freq", 1) or 1)
    n_experts = f.get("n_routed_experts")
    if not n_experts:
        raise ValueError("n_routed_experts is missing or 0: a dense DeepSeek model is not an "
                         "MoE configuration this converter reads")
    n_dense = _moe_layer_split(f, n_layers, lambda i: i >= first_dense and i % freq == 0)
    notes = []
    q_lora = f.get("q_lora_rank")
    mla = MLA(
        kv_lora_rank=int(f.need("kv_lora_rank")), qk_nope_head_dim=int(f.need("qk_nope_head_dim")),
        qk_rope_head_dim=int(f.need("qk_rope_head_dim")), v_head_dim=int(f.need("v_head_dim")),
        q_lora_rank=int(q_lora) if q_lora else None,
    )
    if f.get("attention_bias", False):
        raise ValueError("attention_bias=true is not supported with MLA attention")
    h = int(f.need("num_attention_heads"))
    f.get("num_key_value_heads")  # MLA has no grouped key/value heads to count
    n_moe = n_layers - n_dense
    if f.get("topk_method") == "noaux_tc":
        notes.append(f"router score-correction biases ({n_moe * int(n_experts):,})")
    mtp = int(f.get("num_nextn_predict_layers", 0) or 0)
    if mtp:
        notes.append(f"multi-token-prediction module ({mtp} layer(s); not part of the main "
                     "model)")
    return {
        "n_layers": n_layers, "d_model": int(f.need("hidden_size")), "n_heads": h,
        "n_kv_heads": h, "mla": mla, "d_ff": int(f.need("intermediate_size")) if n_dense else 0,
        "n_experts": int(n_experts), "top_k": int(f.need("num_experts_per_tok")),
        "n_shared": int(f.get("n_shared_experts", 0) or 0),
        "d_expert": int(f.need("moe_intermediate_size")), "n_dense_layers": n_dense,
        "vocab_size": int(f.need("vocab_size")), "tie_embeddings": _tied(f),
    }, notes


def _olmoe(f: _Fields) -> tuple[dict[str, Any], list[str]]:
    _swiglu(f)
    fields = {
        "n_layers": int(f.need("num_hidden_layers")), **_gqa(f),
        "n_experts": int(f.need("num_experts")), "top_k": int(f.need("num_experts_per_tok")),
        "d_expert": int(f.need("intermediate_size")), "vocab_size": int(f.need("vocab_size")),
        "tie_embeddings": _tied(f), "attention_bias": bool(f.get("attention_bias", False)),
    }
    hd = fields["head_dim"] or fields["d_model"] // fields["n_heads"]
    qk_norm = fields["n_layers"] * (fields["n_heads"] + fields["n_kv_heads"]) * hd
    return fields, [f"QK-norm weights ({qk_norm:,})"]


def _dbrx(f: _Fields) -> tuple[dict[str, Any], list[str]]:
    ffn = _Fields(f.need("ffn_config"), " (ffn_config)")
    attn = _Fields(f.need("attn_config"), " (attn_config)")
    act = ffn.get("ffn_act_fn") or {"name": "silu"}
    if act.get("name") not in _SWIGLU:
        raise ValueError(f"ffn_config.ffn_act_fn={act!r}: only SwiGLU FFNs can be counted")
    h = int(f.need("n_heads"))
    fields = {
        "n_layers": int(f.need("n_layers")), "d_model": int(f.need("d_model")), "n_heads": h,
        "n_kv_heads": int(attn.get("kv_n_heads") or h),
        "n_experts": int(ffn.need("moe_num_experts")), "top_k": int(ffn.need("moe_top_k")),
        "d_expert": int(ffn.need("ffn_hidden_size")), "vocab_size": int(f.need("vocab_size")),
        "tie_embeddings": _tied(f),
    }
    ffn_ignored = frozenset({"moe_jitter_eps", "moe_loss_weight", "moe_normalize_expert_weights",
                             "uniform_expert_assignment", "ffn_act_fn", "model_type"})
    attn_ignored = frozenset({"clip_qkv", "rope_theta", "attn_pdrop", "model_type"})
    f.extra_unknown = ffn.unknown(ffn_ignored) + attn.unknown(attn_ignored)
    return fields, []


def _gpt_oss(f: _Fields) -> tuple[dict[str, Any], list[str]]:
    _swiglu(f)
    top_k = int(f.need("num_experts_per_tok"))
    if f.get("experts_per_token", top_k) != top_k:
        raise ValueError("experts_per_token and num_experts_per_tok disagree")
    fields = {
        "n_layers": int(f.need("num_hidden_layers")), **_gqa(f),
        "n_experts": int(f.need("num_local_experts")), "top_k": top_k,
        "d_expert": int(f.need("intermediate_size")), "vocab_size": int(f.need("vocab_size")),
        "tie_embeddings": _tied(f), "attention_bias": bool(f.get("attention_bias", True)),
        "expert_bias": True,
    }
    layer_types = f.get("layer_types") or []
    n_sliding = sum(t == "sliding_attention" for t in layer_types)
    if n_sliding:
        fields["sliding_window"] = int(f.need("sliding_window"))
        fields["n_sliding_layers"] = n_sliding
    sinks = fields["n_layers"] * fields["n_heads"]
    return fields, [f"attention sinks ({sinks:,}, one logit per head and layer)"]


def _phimoe(f: _Fields) -> tuple[dict[str, Any], list[str]]:
    _swiglu(f)
    fields = {
        "n_layers": int(f.need("num_hidden_layers")), **_gqa(f),
        "n_experts": int(f.need("num_local_experts")), "top_k": int(f.need("num_experts_per_tok")),
        "d_expert": int(f.need("intermediate_size")), "vocab_size": int(f.need("vocab_size")),
        "tie_embeddings": _tied(f), "attention_bias": bool(f.get("attention_bias", False)),
    }
    d, n = fields["d_model"], fields["n_layers"]
    notes = [f"LayerNorm biases ({d * (2 * n + 1):,})"]
    if f.get("lm_head_bias", False):
        notes.append(f"output-head bias ({fields['vocab_size']:,})")
    return fields, notes


def _llama4(f: _Fields) -> tuple[dict[str, Any], list[str]]:
    notes = []
    if f.data.get("vision_config") is not None:
        f.read.add("vision_config")
        notes.append("vision encoder and projector (vision_config)")
    text = _Fields(f.need("text_config"), " (text_config)") if "text_config" in f.data else f
    _swiglu(text)
    n_layers = int(text.need("num_hidden_layers"))
    step = int(text.get("interleave_moe_layer_step", 1) or 1)
    moe_layers = set(text.get("moe_layers") or range(step - 1, n_layers, step))
    n_dense = _moe_layer_split(f, n_layers, lambda i: i in moe_layers)
    text.get("intermediate_size_mlp")  # dense-FFN width: understood, unused if none is dense
    text.get("use_qk_norm")  # Llama 4's QK norm is an L2 norm without weights
    if text.get("attention_bias", False):
        raise ValueError("attention_bias=true is not supported for llama4")
    width = int(text.need("intermediate_size"))
    fields = {
        "n_layers": n_layers, **_gqa(text),
        "n_experts": int(text.need("num_local_experts")),
        "top_k": int(text.need("num_experts_per_tok")), "d_expert": width,
        "n_shared": 1, "d_shared": width, "n_dense_layers": n_dense,
        "d_ff": int(text.need("intermediate_size_mlp")) if n_dense else 0,
        "vocab_size": int(text.need("vocab_size")), "tie_embeddings": _tied(text),
    }
    if text is not f:
        if bool(f.get("tie_word_embeddings", fields["tie_embeddings"])) != fields["tie_embeddings"]:
            raise ValueError("tie_word_embeddings differs between the config and its text_config")
        f.extra_unknown = text.unknown()
    return fields, notes


_CONVERTERS: dict[str, Callable[[_Fields], tuple[dict[str, Any], list[str]]]] = {
    "dbrx": _dbrx,
    "deepseek_v2": _deepseek,
    "deepseek_v3": _deepseek,
    "gpt_oss": _gpt_oss,
    "kimi_k2": _deepseek,
    "llama4": _llama4,
    "mixtral": _mixtral,
    "olmoe": _olmoe,
    "phimoe": _phimoe,
    "qwen2_moe": lambda f: _qwen_moe(f, shared=True),
    "qwen3_moe": lambda f: _qwen_moe(f, shared=False),
}

SUPPORTED_MODEL_TYPES: tuple[str, ...] = tuple(sorted(_CONVERTERS))
"""The ``model_type`` values :func:`from_hf_config` converts."""

_FAMILY_FIELDS = frozenset({"vision_config", "text_config", "ffn_config", "attn_config"})


def is_hf_config(data: Any) -> bool:
    """Whether a parsed JSON object looks like a Hugging Face config (not MoEConfig fields)."""
    markers = {"model_type", "architectures", "hidden_size", "num_hidden_layers"}
    return isinstance(data, dict) and bool(markers & set(data))


def read_hf_config(path: str | Path) -> tuple[dict[str, Any], Path]:
    """Parse ``path`` (a ``config.json``, or a directory holding one).

    Returns
    -------
    (dict, Path)
        The parsed object and the file it came from.

    Raises
    ------
    ValueError
        If there is no such file, it cannot be read, or it is not a JSON object.
    """
    file = Path(path)
    if file.is_dir():
        file = file / "config.json"
    try:
        text = file.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ValueError(f"no such configuration file: {file}") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ValueError(f"cannot read {file}: {exc}") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"{file} is not valid JSON: {exc}") from None
    if not isinstance(data, dict):
        raise ValueError(f"{file} is not a JSON object")
    return data, file


def from_hf_config(
    config: Mapping[str, Any] | str | Path,
    *,
    name: str | None = None,
    context_length: int = 4096,
) -> MoEConfig:
    """Convert a Hugging Face ``config.json`` to an :class:`~moelaws.arch.MoEConfig`.

    Parameters
    ----------
    config
        The parsed config, a path to ``config.json``, or a directory holding one.
    name
        Label of the result; default the config's ``_name_or_path``, the directory's name,
        or its ``model_type``.
    context_length
        Context length for the attention FLOPs (not read from ``max_position_embeddings``).

    Returns
    -------
    MoEConfig
        With ``source`` naming the file and listing weights the config implies but
        ``MoEConfig`` does not count (:func:`uncounted`).

    Raises
    ------
    ValueError
        For a ``model_type`` outside :data:`SUPPORTED_MODEL_TYPES` (the message lists them), a
        missing field the count needs, or a value the converter cannot represent.

    Warns
    -----
    HFConfigWarning
        For fields the converter does not know, which may change the count.
    """
    where = "config"
    if isinstance(config, (str, Path)):
        data, file = read_hf_config(config)
        where = str(file)
        default_name = file.parent.name or None
    elif isinstance(config, Mapping):
        data, default_name = dict(config), None
    else:
        raise ValueError(f"expected a dict or a path, got {type(config).__name__}")
    model_type = data.get("model_type")
    if model_type not in _CONVERTERS:
        raise ValueError(
            f"unsupported model_type {model_type!r} in {where}; supported: "
            f"{', '.join(SUPPORTED_MODEL_TYPES)}"
        )
    fields = _Fields(data)
    values, notes = _CONVERTERS[model_type](fields)
    unknown = fields.unknown(_FAMILY_FIELDS & fields.read) + fields.extra_unknown
    if unknown:
        warnings.warn(
            f"{where}: fields not understood, they may change the count: {', '.join(unknown)}",
            HFConfigWarning, stacklevel=2,
        )
    label = name or data.get("_name_or_path") or default_name or model_type
    source = f"Hugging Face config.json ({where}, model_type {model_type})"
    if fields.layout:
        source += f"; {fields.layout}"
    if notes:
        source += "; not counted: " + "; ".join(notes)
    try:
        return MoEConfig(**values, name=str(label), source=source,
                         context_length=context_length)
    except TypeError as exc:
        raise ValueError(str(exc)) from exc


def uncounted(cfg: MoEConfig) -> str:
    """What a converted config's count leaves out (``""`` if nothing or not converted)."""
    marker = "; not counted: "
    return cfg.source.split(marker, 1)[1] if marker in cfg.source else ""


ConfigLike = Union[MoEConfig, Mapping[str, Any], str, Path]  # noqa: UP007
"""What the public functions that take a configuration accept: an
:class:`~moelaws.arch.MoEConfig`, or a Hugging Face config as its parsed dict, a path to its
``config.json`` or a directory holding one (:func:`as_config`)."""

HF_CONFIG_PARAMETER = "cfg : MoEConfig or Hugging Face config (dict, path or directory)"
"""The line each function decorated with :func:`accepts_hf_config` has in its docstring."""


def as_config(cfg: ConfigLike) -> MoEConfig:
    """``cfg`` as an :class:`~moelaws.arch.MoEConfig`.

    Parameters
    ----------
    cfg : MoEConfig or Hugging Face config (dict, path or directory)
        An ``MoEConfig`` is returned as it is; a mapping (a parsed ``config.json``), a path
        to a ``config.json`` or a directory holding one is converted by
        :func:`from_hf_config` (with its defaults; call it directly to set ``name`` or
        ``context_length``).

    Raises
    ------
    ValueError
        For any other type (the message names the accepted ones), or as
        :func:`from_hf_config` for a config it cannot convert.
    """
    if isinstance(cfg, MoEConfig):
        return cfg
    if isinstance(cfg, (Mapping, str, Path)):
        return from_hf_config(cfg)
    raise ValueError(
        "expected a configuration: an MoEConfig, or a Hugging Face config as a dict, a path "
        f"to config.json or a directory holding one; got {type(cfg).__name__}"
    )


F = TypeVar("F", bound=Callable[..., Any])


def accepts_hf_config(fn: F) -> F:
    """Let ``fn``, whose first argument is an ``MoEConfig``, take a Hugging Face config too:
    the first argument (given by position or by name) goes through :func:`as_config` before
    ``fn`` sees it.

    The wrapper keeps ``fn``'s signature (``functools.wraps``), so that
    :func:`moelaws.validation.public` reads the same annotations (a configuration is not a
    number and is not checked there).
    """
    first = next(iter(inspect.signature(fn).parameters))

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        if args:
            args = (as_config(args[0]), *args[1:])
        elif first in kwargs:
            kwargs[first] = as_config(kwargs[first])
        return fn(*args, **kwargs)

    return wrapper  # type: ignore[return-value]
