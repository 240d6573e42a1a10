"""A Hugging Face ``config.json`` as an :class:`~moelaws.arch.MoEConfig`.

:func:`from_hf_config` reads the configuration file a model hub ships with its weights (a
path to the file, a directory holding it, or the parsed dict) and converts it to the fields
:mod:`moelaws.arch.counting` counts. Any ``model_type`` is read:

* the generic reader (:mod:`moelaws.arch.hf_generic`) reads any MoE config by the usual field
  names (expert count, experts per token, expert and shared-expert widths, dense-layer
  patterns, grouped-query and MLA attention, tied embeddings, sliding-window layers);
* a family in :data:`SUPPORTED_MODEL_TYPES` has a refinement on top of it for what it does
  differently from those names (Qwen2-MoE's gated shared expert and q/k/v biases, GLM-4.5's
  q/k/v biases without an o bias, gpt-oss's
  expert biases and attention sinks, Llama 4's implicit shared expert, DBRX's nested
  ``ffn_config``, Hunyuan's per-layer lists and shared MLP, SmallThinker's own names and a file
  without ``model_type`` (:func:`model_type_of`), QK-norm and LayerNorm weights listed as
  uncounted), and whose absent fields
  are the family's own defaults.

Nothing is guessed silently:

* for a ``model_type`` without a refinement, every default the generic reader put in place of
  an absent field ("no n_shared_experts: no shared experts assumed", "no
  moe_intermediate_size: expert width taken from intermediate_size") is an
  :class:`HFConfigWarning` naming the field;
* a field no reader knows (neither used nor listed as not changing the parameter count) is an
  :class:`HFConfigWarning` naming it, since it may change the count;
* a value the counts cannot represent (a non-gated FFN activation, MLP biases, attention biases
  with MLA, a config without routed experts) is a ``ValueError`` naming the field;
* types are strict and sizes range-checked before anything loops over layers
  (:mod:`moelaws.arch.hf_fields`: an integer is a JSON integer, ``2048.0`` included among the
  refused; a boolean is ``true``/``false``; at most 10,000 layers, a 10^7-token vocabulary,
  10^14 parameters), and files are read defensively (:mod:`moelaws.arch.hf_json`: regular
  files of at most 1 MiB, nesting at most 32 levels, strict UTF-8 JSON objects without
  ``NaN`` or duplicate keys);
* weights a reader understands but :class:`~moelaws.arch.MoEConfig` does not hold (QK-norm
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
import warnings
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, TypeVar, Union

from moelaws.arch.config import MoEConfig
from moelaws.arch.hf_fields import MAX_TOTAL_PARAMS, Fields
from moelaws.arch.hf_generic import SWIGLU, Reading, read_generic
from moelaws.arch.hf_json import read_json_object
from moelaws.validation import caller_stacklevel

__all__ = [
    "SUPPORTED_MODEL_TYPES",
    "ConfigLike",
    "HFConfigWarning",
    "accepts_hf_config",
    "as_config",
    "from_hf_config",
    "is_hf_config",
    "model_type_of",
    "read_hf_config",
    "uncounted",
]


class HFConfigWarning(UserWarning):
    """A ``config.json`` field the converter does not know (it may change the count), or an
    absent field whose default the generic reader assumed."""


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
    "max_position_embeddings", "max_seq_len", "max_window_layers", "model_type",
    "n_group", "no_rope_layers", "norm_topk_prob", "original_max_position_embeddings",
    "output_router_logits", "pad_token_id", "pretraining_tp", "quantization_config",
    "resid_pdrop", "rms_norm_eps", "rope_parameters", "rope_scaling", "rope_theta",
    "routed_scaling_factor", "router_aux_loss_coef", "router_jitter_noise", "scoring_func",
    "seq_aux", "sliding_window", "swiglu_limit", "topk_group", "topk_method", "torch_dtype",
    "transformers_version", "use_cache", "use_sliding_window", "quantization",
})

# What transformers writes into every (sub-)config from PretrainedConfig's defaults: generation
# settings, output switches, labels. DBRX's nested ffn_config and attn_config carry them.
_PRETRAINED_BOOKKEEPING = frozenset({
    "add_cross_attention", "bad_words_ids", "begin_suppress_tokens", "chunk_size_feed_forward",
    "cross_attention_hidden_size", "diversity_penalty", "do_sample", "early_stopping",
    "encoder_no_repeat_ngram_size", "exponential_decay_length_penalty", "finetuning_task",
    "forced_bos_token_id", "forced_eos_token_id", "id2label", "is_decoder",
    "is_encoder_decoder", "label2id", "length_penalty", "max_length", "min_length",
    "no_repeat_ngram_size", "num_beam_groups", "num_beams", "num_return_sequences",
    "output_attentions", "output_hidden_states", "output_scores", "prefix", "problem_type",
    "pruned_heads", "remove_invalid_values", "repetition_penalty", "return_dict",
    "return_dict_in_generate", "sep_token_id", "suppress_tokens", "task_specific_params",
    "temperature", "tf_legacy_loss", "tie_encoder_decoder", "tokenizer_class", "top_k",
    "top_p", "torchscript", "typical_p", "use_bfloat16", "torch_dtype", "_name_or_path",
    "transformers_version", "architectures", "bos_token_id", "eos_token_id", "pad_token_id",
})


# --- refinements: what a family does differently from the generic reading -----------------


def _qk_norm(r: Reading, per_layer_heads: int) -> None:
    v = r.values
    hd = v["head_dim"] or v["d_model"] // v["n_heads"]
    r.notes.append(f"QK-norm weights ({v['n_layers'] * per_layer_heads * hd:,})")


def _qwen2_moe(r: Reading) -> None:
    """One shared expert behind a learned sigmoid gate; q/k/v projections with biases."""
    v = r.values
    if "d_shared" not in v:
        raise ValueError(f"config.json has no {r.text.name('shared_expert_intermediate_size')!r}"
                         ", which the count needs")
    v["shared_expert_gate"] = True
    hd = v["head_dim"] or v["d_model"] // v["n_heads"]
    # Qwen2-MoE projects q, k and v with biases and o without; MoEConfig's attention_bias
    # would add the o bias too, so the q/k/v biases are listed instead.
    qkv = v["n_layers"] * (v["n_heads"] * hd + 2 * v["n_kv_heads"] * hd)
    r.notes.append(f"q/k/v projection biases ({qkv:,})")


def _qwen3_moe(r: Reading) -> None:
    _qk_norm(r, 2)


def _deepseek(r: Reading) -> None:
    """MLA is what DeepSeek-V2/V3 and Kimi-K2 use; the generic reading covers the rest."""
    if "mla" not in r.values:
        raise ValueError(f"config.json has no {r.text.name('kv_lora_rank')!r}, which the count "
                         "needs")


def _olmoe(r: Reading) -> None:
    v = r.values
    _qk_norm(r, v["n_heads"] + v["n_kv_heads"])


def _gpt_oss(r: Reading) -> None:
    """Biases on the attention projections (default true), the experts and the router; one
    attention-sink logit per head and layer."""
    v = r.values
    v["attention_bias"] = bool(r.text.bool("attention_bias", True))
    v["expert_bias"] = True
    r.notes.append(f"attention sinks ({v['n_layers'] * v['n_heads']:,}, one logit per head "
                   "and layer)")


def _phimoe(r: Reading) -> None:
    """The checkpoint has biases on attention, layer norms and the output head, which the stored
    trimmed config does not describe (``attention_bias`` absent) and MoEConfig does not count."""
    v = r.values
    d, n = v["d_model"], v["n_layers"]
    head_dim = v.get("head_dim") or d // v["n_heads"]
    # q, k and v biases per head, and the output projection's bias of width d
    attention = n * (head_dim * (v["n_heads"] + 2 * v["n_kv_heads"]) + d) if not v.get(
        "attention_bias") else 0
    r.notes[:0] = [f"LayerNorm biases ({d * (2 * n + 1):,})",
                   *([f"attention biases ({attention:,})"] if attention else []),
                   f"output-head bias ({v['vocab_size']:,})"]


def _llama4(r: Reading) -> None:
    """Every MoE layer has one shared expert as wide as a routed one (no field says so); the
    QK norm is an L2 norm without weights; no attention biases."""
    v = r.values
    r.text.bool("use_qk_norm", False)
    if v["attention_bias"]:
        raise ValueError("attention_bias=true is not supported for llama4")
    v["n_shared"], v["d_shared"] = 1, v["d_expert"]


def _dbrx(top: Fields) -> Reading:
    """DBRX nests its experts in ``ffn_config`` and its key/value heads in ``attn_config``
    under names of its own; it is read here, not by the generic reader."""
    ffn, attn = top.nested("ffn_config"), top.nested("attn_config")
    if ffn is None or attn is None:
        raise ValueError("config.json has no 'ffn_config' or 'attn_config', which the count "
                         "needs")
    act = ffn.raw("ffn_act_fn")
    act_name = act.get("name", "silu") if isinstance(act, dict) else act
    if act is not None and act_name not in SWIGLU:
        raise ValueError(f"ffn_config.ffn_act_fn={act!r}: only SwiGLU FFNs can be counted")
    r = Reading(top, top)
    h = top.int("n_heads", "heads")
    kv = attn.int("kv_n_heads", "heads", None)
    r.values = {
        "n_layers": top.int("n_layers", "layers"), "d_model": top.int("d_model", "width"),
        "n_heads": h, "n_kv_heads": kv if kv is not None else h,
        "n_experts": ffn.int("moe_num_experts", "experts"),
        "top_k": ffn.int("moe_top_k", "experts"), "d_expert": ffn.int("ffn_hidden_size", "width"),
        "vocab_size": top.int("vocab_size", "vocab"),
        "tie_embeddings": bool(top.bool("tie_word_embeddings", False)),
    }
    # A sub-config's own tie_word_embeddings is PretrainedConfig's default, not DBRX's choice
    # (the top-level field is).
    nested_ignored = _PRETRAINED_BOOKKEEPING | {"model_type", "tie_word_embeddings"}
    ffn_ignored = nested_ignored | {"moe_jitter_eps", "moe_loss_weight",
                                    "moe_normalize_expert_weights", "uniform_expert_assignment"}
    attn_ignored = nested_ignored | {"clip_qkv", "rope_theta", "attn_pdrop"}
    r.extra_unknown = ffn.unknown(ffn_ignored) + attn.unknown(attn_ignored)
    return r


def _glm4_moe(r: Reading) -> None:
    """Zhipu GLM-4.5 MoE: q/k/v projections with biases (``attention_bias``) and o without, as
    transformers' Glm4MoeAttention builds them; RMS QK-norm when ``use_qk_norm``; one shared MLP
    of ``moe_intermediate_size x n_shared_experts`` (the generic reading); a router
    score-correction bias per expert and MoE layer (Glm4MoeTopkRouter); partial rotary
    embeddings (``partial_rotary_factor``), which have no weights."""
    f, v = r.text, r.values
    f.raw("partial_rotary_factor")
    if v.get("attention_bias"):
        # MoEConfig's attention_bias would add the o bias too, so the q/k/v biases are listed.
        v["attention_bias"] = False
        hd = v["head_dim"] or v["d_model"] // v["n_heads"]
        qkv = v["n_layers"] * (v["n_heads"] + 2 * v["n_kv_heads"]) * hd
        r.notes.append(f"q/k/v projection biases ({qkv:,})")
    if f.bool("use_qk_norm", False):
        _qk_norm(r, 2)
    moe_layers = v["n_layers"] - v.get("n_dense_layers", 0)
    r.notes.append(f"router score-correction biases ({moe_layers * v['n_experts']:,})")


def _ernie4_5_moe(r: Reading) -> None:
    """Baidu ERNIE 4.5 MoE: one shared MLP of ``moe_intermediate_size x
    moe_num_shared_experts``; MoE layers are those from ``moe_layer_start_index`` to
    ``moe_layer_end_index`` (-1 or absent: the last) every ``moe_layer_interval``, the others
    dense of ``intermediate_size``; ``use_bias`` puts biases on every projection; a router
    score-correction bias per expert and MoE layer."""
    f, v = r.text, r.values
    if f.bool("use_bias", False):
        raise ValueError("use_bias=true: projection biases are not counted")
    n = v["n_layers"]
    shared = f.int("moe_num_shared_experts", "experts", 0, low=0)
    v["n_shared"], v["d_shared"] = (1, v["d_expert"] * shared) if shared else (0, None)
    start = f.int("moe_layer_start_index", "layers", 0, low=0)
    end_raw = f.raw("moe_layer_end_index")
    end = n - 1 if end_raw in (None, -1) else f.int("moe_layer_end_index", "layers", low=0)
    interval = f.int("moe_layer_interval", "layers", 1)
    dense = [i for i in range(n) if not (start <= i <= end and (i + 1) % interval == 0)]
    v["n_dense_layers"] = len(dense)
    v["d_ff"] = f.int("intermediate_size", "width") if dense else 0
    if dense and dense != list(range(len(dense))):
        r.layout = (f"{len(dense)} dense layers {dense[:3]}{'...' if len(dense) > 3 else ''} "
                    "interleaved with MoE layers (counts depend only on their number)")
    r.notes.append(f"router score-correction biases ({(n - len(dense)) * v['n_experts']:,})")


def _per_layer(f: Fields, key: str, limit: str, n_layers: int, *, low: int = 1) -> int:
    """An integer, or a list of one integer per layer that must all be equal (MoEConfig has
    one value per model)."""
    if not isinstance(f.raw(key), list):
        return f.int(key, limit, low=low)
    values = f.int_list(key, limit, low=low) or []
    if len(values) != n_layers or len(set(values)) != 1:
        raise ValueError(f"{f.name(key)} must list one value per layer ({n_layers}), all equal: "
                         "layers of different widths or expert counts cannot be represented")
    return values[0]


# Tencent's remote-code fields that do not change the language model's count: token ids, the
# unused classification head's settings, routing switches, and the (absent) vision encoder's
# settings, which only matter when vit_type names one.
_HUNYUAN_NO_COUNT = frozenset({
    "add_classification_head", "anyres_pooling_size", "anyres_vit_max_image_size",
    "anyres_vit_two_views", "class_num", "dense_list", "eod_token_id", "group_limited_greedy",
    "im_end_id", "im_newline_id", "im_start_id", "image_token_id", "mask_init_id",
    "moe_drop_tokens", "moe_random_routing_dropped_token", "num_media_embeds",
    "org_vocab_size", "pad_id", "pool_type", "position_embedding_xdrope", "sep_token_id",
    "skip_cls_token", "text_end_id", "text_start_id", "use_rotary_pos_emb", "video_end_id",
    "video_start_id", "vit_add_patchemb_bias", "vit_input_resolution", "vit_mapping_type",
    "vit_norm_type", "vit_patch", "vit_path", "vit_remove_prenorm", "vit_token",
    "vit_used_rms_norm", "xdrope_section",
})


def _hunyuan(top: Fields) -> Reading:
    """Tencent Hunyuan-MoE (remote code ``HunYuanMoEV1ForCausalLM``, ``model_type`` "hunyuan").

    Per-layer lists (``moe_topk``, ``num_shared_expert``, ``moe_intermediate_size``); the
    shared MLP (``use_mixed_mlp_moe``) is ``intermediate_size × num_shared_expert`` wide and the
    routed experts ``intermediate_size`` wide (the vendor's ``HunYuanMLP``); an RMS norm of
    queries and keys per head (``use_qk_norm``); cross-layer key/value sharing (``use_cla``)
    and latent attention (``use_mla``) are refused.
    """
    f = top
    r = Reading(top, top)
    for key, what in (("use_cla", "cross-layer attention (key/value projections shared "
                                  "between layers)"),
                      ("use_mla", "latent attention in the vendor's own layout")):
        if f.bool(key, False):
            raise ValueError(f"{f.name(key)}=true: {what}, which the counts cannot represent")
    f.int("cla_share_factor", "layers", None)
    for key in ("kv_lora_rank", "q_lora_rank", "qk_nope_head_dim", "qk_rope_head_dim",
                "v_head_dim"):
        if f.raw(key) is not None:
            raise ValueError(f"{f.name(key)} is set without use_mla: latent attention in the "
                             "vendor's own layout cannot be represented")
    act = f.str("hidden_act")
    if act is not None and act not in SWIGLU:
        raise ValueError(f"hidden_act={act!r}: only SwiGLU (silu-gated) FFNs can be counted")
    if f.bool("mlp_bias", False):
        raise ValueError("mlp_bias=true: FFN biases are not counted")
    if f.str("norm_type", "rms") != "rms":
        raise ValueError(f"norm_type={f.str('norm_type')!r}: only RMS norms are supported")
    n = f.int("num_hidden_layers", "layers")
    d = f.int("hidden_size", "width")
    h = f.int("num_attention_heads", "heads")
    kv = f.int("num_key_value_heads", "heads", None)
    # The vendor's attention takes its head width from hidden_size / num_attention_heads.
    head_dim = f.int("attention_head_dim", "width", None)
    if head_dim is not None and head_dim * h != d:
        raise ValueError(f"attention_head_dim={head_dim} differs from hidden_size / "
                         "num_attention_heads, which the vendor's attention uses")
    width = f.int("intermediate_size", "width")
    if f.has("moe_intermediate_size") and _per_layer(
            f, "moe_intermediate_size", "width", n) != width:
        raise ValueError("moe_intermediate_size differs from intermediate_size, which the "
                         "vendor's experts use: the expert width is ambiguous")
    shared = _per_layer(f, "num_shared_expert", "experts", n, low=0)
    mixed = f.bool("use_mixed_mlp_moe", False)
    skipped = f.int("moe_layer_num_skipped", "layers", 0, low=0)
    r.values = {
        "n_layers": n, "d_model": d, "n_heads": h, "n_kv_heads": kv if kv is not None else h,
        "head_dim": None,
        "n_experts": f.int("num_experts", "experts"),
        "top_k": _per_layer(f, "moe_topk", "experts", n), "d_expert": width,
        "n_shared": 1 if mixed and shared else 0,
        "d_shared": width * shared if mixed and shared else None,
        "n_dense_layers": skipped, "d_ff": width if skipped else 0,
        "attention_bias": bool(f.bool("attention_bias", False)),
        "vocab_size": f.int("vocab_size", "vocab"),
        "tie_embeddings": bool(f.bool("tie_word_embeddings", False)),
    }
    if f.bool("use_qk_norm", False):
        _qk_norm(r, 2)
    if f.raw("vit_type") is not None:
        r.notes.append("vision encoder (vit_*)")
    if f.bool("add_classification_head", False):
        r.notes.append("classification head (dense_list)")
    r.extra_unknown = []
    f.read.update(k for k in _HUNYUAN_NO_COUNT if k in f.data)
    return r


def _layer_flags(f: Fields, key: str, n_layers: int) -> list[int]:
    """A list of one 0 or 1 per layer (absent: all 0)."""
    flags = f.int_list(key, "layers")
    if flags is None:
        return [0] * n_layers
    if len(flags) != n_layers or set(flags) - {0, 1}:
        raise ValueError(f"{f.name(key)} must hold one 0 or 1 per layer ({n_layers})")
    return flags


# SmallThinker's fields that do not change the count: the model's name, routing arithmetic and
# generation defaults the vendor wrote into its config.
_SMALLTHINKER_NO_COUNT = frozenset({
    "model_name", "moe_primary_router_apply_softmax", "max_length", "repetition_penalty",
    "temperature", "top_p", "tokenizer_class",
})


def _smallthinker(top: Fields) -> Reading:
    """PowerInfer's SmallThinker (remote code ``SmallThinkerForCausalLM``; its config names no
    ``model_type``, the vendor's configuration class declares "smallthinker").

    Routed experts ``moe_num_primary_experts`` of width ``moe_ffn_hidden_size``,
    ``moe_num_active_primary_experts`` per token, in every layer, no shared expert; each expert
    is ``down(up(x) * relu(gate(x)))``, three matrices like a SwiGLU expert (no ``hidden_act``
    field says so); sliding-window layers from ``sliding_window_layout``; layers without
    rotary embedding (``rope_layout``) have the same weights.
    """
    f = top
    r = Reading(top, top)
    n = f.int("num_hidden_layers", "layers")
    if f.raw("hidden_act") is not None or f.raw("mlp_bias"):
        raise ValueError("hidden_act or mlp_bias set: SmallThinker's experts are relu-gated "
                         "without biases, which is all this reader represents")
    h = f.int("num_attention_heads", "heads")
    kv = f.int("num_key_value_heads", "heads", None)
    sliding = _layer_flags(f, "sliding_window_layout", n)
    _layer_flags(f, "rope_layout", n)
    tied = f.bool("tie_word_embeddings", None)
    if tied is None:
        raise ValueError("config.json has no 'tie_word_embeddings', which the count needs "
                         "(the vendor's default is true, its 21B config says false)")
    r.values = {
        "n_layers": n, "d_model": f.int("hidden_size", "width"), "n_heads": h,
        "n_kv_heads": kv if kv is not None else h, "head_dim": f.int("head_dim", "width", None),
        "n_experts": f.int("moe_num_primary_experts", "experts"),
        "top_k": f.int("moe_num_active_primary_experts", "experts"),
        "d_expert": f.int("moe_ffn_hidden_size", "width"),
        "vocab_size": f.int("vocab_size", "vocab"), "tie_embeddings": tied,
    }
    if any(sliding):
        r.values["sliding_window"] = f.int("sliding_window_size", "width")
        r.values["n_sliding_layers"] = sum(sliding)
    else:
        f.int("sliding_window_size", "width", None)
    f.read.update(k for k in _SMALLTHINKER_NO_COUNT if k in f.data)
    return r


_OWN_READERS: dict[str, Callable[[Fields], Reading]] = {"dbrx": _dbrx, "hunyuan": _hunyuan,
                                                   "smallthinker": _smallthinker}
"""Families that name their fields so differently that the generic reader is not used."""


_REFINEMENTS: dict[str, Callable[[Reading], None]] = {
    "deepseek_v2": _deepseek,
    "deepseek_v3": _deepseek,
    "ernie4_5_moe": _ernie4_5_moe,
    "glm4_moe": _glm4_moe,
    "gpt_oss": _gpt_oss,
    "kimi_k2": _deepseek,
    "llama4": _llama4,
    "mixtral": lambda r: None,
    "olmoe": _olmoe,
    "phimoe": _phimoe,
    "qwen2_moe": _qwen2_moe,
    "qwen3_moe": _qwen3_moe,
}

SUPPORTED_MODEL_TYPES: tuple[str, ...] = tuple(sorted({*_REFINEMENTS, *_OWN_READERS}))
"""The ``model_type`` values with a family refinement (any other is read by the generic
reader, with a warning for each default it assumes)."""

_FAMILY_FIELDS = frozenset({"vision_config", "text_config", "ffn_config", "attn_config"})


def is_hf_config(data: Any) -> bool:
    """Whether a parsed JSON object looks like a Hugging Face config (not MoEConfig fields)."""
    markers = {"model_type", "architectures", "hidden_size", "num_hidden_layers"}
    return isinstance(data, dict) and bool(markers & set(data))


def read_hf_config(path: str | Path) -> tuple[dict[str, Any], Path]:
    """Parse ``path`` (a ``config.json``, or a directory holding one), defensively: the
    parsed object and the file it came from, or the ``ValueError`` of
    :func:`moelaws.arch.hf_json.read_json_object` (which documents every refusal)."""
    return read_json_object(path)


# Remote-code families whose config.json names no model_type: the type the vendor's
# configuration class declares, recognised by the file's only architecture.
_ARCHITECTURE_TYPES = {"SmallThinkerForCausalLM": "smallthinker"}


def model_type_of(data: Mapping[str, Any]) -> Any:
    """The ``model_type`` of a parsed config: its own field, or for a remote-code family whose
    file names none (SmallThinker) the type its configuration class declares, recognised by
    the only entry of ``architectures``; ``None`` if neither."""
    if data.get("model_type") is not None:
        return data["model_type"]
    archs = data.get("architectures")
    if isinstance(archs, list) and len(archs) == 1 and isinstance(archs[0], str):
        return _ARCHITECTURE_TYPES.get(archs[0])
    return None


def _read(data: dict[str, Any], where: str) -> tuple[Reading, str]:
    if model_type_of(data) is None:
        raise ValueError(
            f"unsupported model_type None in {where}: a Hugging Face config.json names its "
            f"model_type; supported: any MoE model_type (with refinements for "
            f"{', '.join(SUPPORTED_MODEL_TYPES)})")
    model_type = model_type_of(data)
    if not isinstance(model_type, str):
        raise ValueError(f"model_type must be a JSON string, got {type(model_type).__name__} "
                         f"in {where}")
    top = Fields(data)
    own = _OWN_READERS.get(model_type)
    if own is not None:
        r = own(top)
    else:
        r = read_generic(top)
        refine = _REFINEMENTS.get(model_type)
        if refine is not None:
            refine(r)
            r.assumptions = []  # absent fields are the family's own defaults
    return r, model_type


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
        For a config without a string ``model_type``, a missing field the count needs, a value
        of the wrong JSON type or outside its plausible range, a value the counts cannot
        represent, more than 10^14 parameters, or a file :func:`read_hf_config` refuses; the
        message names the field. For a ``name`` that is empty.

    Warns
    -----
    HFConfigWarning
        For fields no reader knows, which may change the count, and (for a ``model_type``
        outside :data:`SUPPORTED_MODEL_TYPES`) for each default assumed for an absent field.
    """
    if name is not None and (not isinstance(name, str) or not name.strip()):
        raise ValueError(f"name must be a non-empty string or None, got {name!r}")
    where = "config"
    if isinstance(config, (str, Path)):
        data, file = read_hf_config(config)
        where = str(file)
        default_name = file.parent.name or None
    elif isinstance(config, Mapping):
        data, default_name = dict(config), None
    else:
        raise ValueError(f"expected a dict or a path, got {type(config).__name__}")
    r, model_type = _read(data, where)
    top = r.top
    known = _NO_COUNT_FIELDS | (_FAMILY_FIELDS & top.read)
    unknown = top.unknown(known)
    if r.text is not top:
        unknown += r.text.unknown(_NO_COUNT_FIELDS)
    unknown += r.extra_unknown
    for _, sentence in r.assumptions:
        warnings.warn(f"{where}: {sentence}", HFConfigWarning, stacklevel=caller_stacklevel())
    if unknown:
        warnings.warn(
            f"{where}: fields not understood, they may change the count: {', '.join(unknown)}",
            HFConfigWarning, stacklevel=caller_stacklevel(),
        )
    label = name or _label(data) or default_name or model_type
    source = f"Hugging Face config.json ({where}, model_type {model_type})"
    if r.layout:
        source += f"; {r.layout}"
    if r.notes:
        source += "; not counted: " + "; ".join(r.notes)
    try:
        cfg = MoEConfig(**r.values, name=str(label), source=source,
                        context_length=context_length)
    except TypeError as exc:
        raise ValueError(str(exc)) from exc
    _check_total(cfg, where)
    return cfg


def _label(data: Mapping[str, Any]) -> str | None:
    value = data.get("_name_or_path")
    return value if isinstance(value, str) and value else None


def _check_total(cfg: MoEConfig, where: str) -> None:
    # Imported here: counting imports this module (for accepts_hf_config).
    from moelaws.arch.counting import counts

    c = counts(cfg, "exact")
    if c.total + c.embedding > MAX_TOTAL_PARAMS:
        raise ValueError(f"{where}: {c.total + c.embedding:.3g} parameters is above the "
                         f"plausible maximum {MAX_TOTAL_PARAMS:.0e}")


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
