"""The generic reader: any MoE ``config.json`` by its usual field names.

:func:`read_generic` reads the fields that model families share under a handful of names and
returns the :class:`~moelaws.arch.MoEConfig` fields, the weights it understands but does not
count, and every assumption it made where a field was absent (each naming the field). The
family refinements of :mod:`moelaws.arch.hf_config` call it and then correct what their family
does differently; for a ``model_type`` without a refinement its assumptions become
:class:`~moelaws.arch.hf_config.HFConfigWarning` s.

What it reads
-------------
* depth, width, heads: ``num_hidden_layers``, ``hidden_size``, ``num_attention_heads``;
  key/value heads ``num_key_value_heads`` (absent: as many as query heads), ``head_dim``
  (absent: ``hidden_size / num_attention_heads``);
* MLA attention when ``kv_lora_rank`` is given (``q_lora_rank``, ``qk_nope_head_dim``,
  ``qk_rope_head_dim``, ``v_head_dim``);
* routed experts: :data:`EXPERT_COUNT` names; experts per token: :data:`EXPERTS_PER_TOKEN`
  (``top_k`` only when none of those is present: it is also a sampling setting); expert width
  ``moe_intermediate_size`` (absent: ``intermediate_size``);
* shared experts: ``n_shared_experts`` / ``num_shared_experts`` of the expert width, or one
  shared expert of ``shared_expert_intermediate_size`` (absent: none);
* dense layers: ``first_k_dense_replace`` and ``moe_layer_freq`` (DeepSeek; as a list, one
  0/1 per layer, MiMo),
  ``decoder_sparse_step`` and ``mlp_only_layers`` (Qwen), ``interleave_moe_layer_step`` and
  ``moe_layers`` (Llama 4), ``mlp_layer_types`` (one ``"dense"`` or ``"sparse"`` per layer,
  Laguna); a layer is MoE when every rule present says so (absent: every layer
  is MoE); their width ``intermediate_size_mlp``, else ``dense_intermediate_size``, else
  ``intermediate_size``;
* sliding-window layers: the ``"sliding_attention"`` entries of ``layer_types``, with
  ``sliding_window``;
* ``vocab_size``, ``tie_word_embeddings`` (absent: untied), ``attention_bias`` (absent:
  none), ``hidden_act`` (absent: SwiGLU); a nested ``text_config`` is the language model.

What it refuses
---------------
Layers the counts cannot represent, named by a field (:data:`_UNREPRESENTABLE`: Mamba layers,
hyper-connections, a low-rank output projection, attention whose keys are its values, layers
of another head width or head count (``num_attention_heads_per_layer``), a sparse-attention
indexer (``index_n_heads``: GLM-5, DeepSeek-V3.2; about 0.73B weights in GLM-5);
``layer_types`` other than full and sliding-window
attention, e.g. linear attention; ``v_head_dim`` unlike ``head_dim`` without MLA); a
non-gated FFN activation (``hidden_act`` other than ``silu``/``swiglu``: MoEConfig counts
gate, up and down projections), MLP biases (``mlp_bias: true``), attention biases with MLA, a
config without a routed-expert count (a dense model: give ``MoEConfig`` fields instead), a
``layer_types`` list whose length is not the number of layers.
"""

from __future__ import annotations

from typing import Any

from moelaws.arch.config import MLA
from moelaws.arch.hf_fields import Fields

__all__ = ["EXPERTS_PER_TOKEN", "EXPERT_COUNT", "SWIGLU", "Reading", "read_generic"]

EXPERT_COUNT = ("num_local_experts", "num_experts", "n_routed_experts", "moe_num_experts",
                "num_routed_experts")
"""Field names of the number of routed experts, in order of preference."""

EXPERTS_PER_TOKEN = ("num_experts_per_tok", "experts_per_token", "moe_k", "moe_top_k",
                     "num_selected_experts", "top_k_experts")
"""Field names of the number of routed experts each token activates."""

SWIGLU = ("silu", "swiglu")
"""``hidden_act`` values of a SwiGLU (silu-gated) FFN."""

_DENSE_PATTERN = ("first_k_dense_replace", "moe_layer_freq", "decoder_sparse_step",
                  "mlp_only_layers", "interleave_moe_layer_step", "moe_layers",
                  "mlp_layer_types")


class Reading:
    """What :func:`read_generic` found: fields, notes, assumptions and the layer layout.

    Attributes
    ----------
    values
        Keyword arguments of :class:`~moelaws.arch.MoEConfig`.
    notes
        Weights understood but not counted (``"QK-norm weights (65,536)"``).
    assumptions
        ``(field, sentence)`` per absent field that a default stood in for.
    layout
        A note when dense layers are interleaved with MoE layers, else ``""``.
    extra_unknown
        Fields of nested objects that no reader knows (full names).
    text, top
        The fields of the language model and of the whole file (the same unless the file
        nests a ``text_config``).
    """

    def __init__(self, top: Fields, text: Fields) -> None:
        self.top, self.text = top, text
        self.values: dict[str, Any] = {}
        self.notes: list[str] = []
        self.assumptions: list[tuple[str, str]] = []
        self.layout = ""
        self.extra_unknown: list[str] = []

    def assume(self, field: str, what: str) -> None:
        self.assumptions.append((field, f"no {self.text.name(field)}: {what}"))


def read_generic(top: Fields) -> Reading:
    """Read ``top`` (a parsed ``config.json``) by the usual field names (module docstring).

    Raises
    ------
    ValueError
        A missing field the count needs, a value of the wrong type or out of range, or a
        layout the counts cannot represent (module docstring), naming the field.
    """
    nested = top.nested("text_config")
    f = nested or top
    r = Reading(top, f)
    v = r.values
    _refuse_unrepresentable(f)
    act_key = "hidden_activation" if f.has("hidden_activation") else "hidden_act"
    act = f.str(act_key)
    if act is None:
        r.assume("hidden_act", "a SwiGLU (silu-gated) FFN assumed")
    elif act not in SWIGLU:
        raise ValueError(f"{f.name(act_key)}={act!r}: only SwiGLU (silu-gated) FFNs can "
                         "be counted")
    if f.bool("mlp_bias", False):
        raise ValueError(f"{f.name('mlp_bias')}=true: FFN biases are not counted")
    n_layers = f.int("num_hidden_layers", "layers")
    v["n_layers"] = n_layers
    v["d_model"] = f.int("hidden_size", "width")
    h = f.int("num_attention_heads", "heads")
    v["n_heads"] = h
    _attention(f, r)
    _experts(f, r)
    _dense_layers(f, r, n_layers)
    _sliding(f, r, n_layers)
    if f.str("topk_method") == "noaux_tc":
        biases = (n_layers - v["n_dense_layers"]) * v["n_experts"]
        r.notes.append(f"router score-correction biases ({biases:,})")
    v["vocab_size"] = f.int("vocab_size", "vocab")
    tied = f.bool("tie_word_embeddings", None)
    if tied is None:
        r.assume("tie_word_embeddings", "untied input and output embeddings assumed")
    v["tie_embeddings"] = bool(tied)
    if nested is not None:
        outer = top.bool("tie_word_embeddings", None)
        if outer is not None and outer != v["tie_embeddings"]:
            raise ValueError("tie_word_embeddings differs between the config and its "
                             "text_config")
    if f.bool("lm_head_bias", False):
        r.notes.append(f"output-head bias ({v['vocab_size']:,})")
    if top is not f and top.has("vision_config"):
        r.notes.append("vision encoder and projector (vision_config)")
    return r


# Fields whose presence means a layer the counts cannot represent, and why.
_UNREPRESENTABLE = {
    "hybrid_override_pattern": "Mamba (state-space) layers",
    "mamba_num_heads": "Mamba (state-space) layers",
    "o_lora_rank": "a low-rank grouped output projection",
    "hc_mult": "hyper-connections (several residual streams)",
    "attention_k_eq_v": "attention whose keys double as values",
    "global_head_dim": "global-attention layers of another head width",
    "swa_num_key_value_heads": "sliding-window layers with their own head counts",
    "num_attention_heads_per_layer": "layers with their own query-head counts (MoEConfig has "
                                     "one n_heads)",
    "index_n_heads": "a sparse-attention (DSA) indexer in every layer, whose weights (its own "
                     "query, key and head-weight projections) are not MoEConfig weights",
}


def _refuse_unrepresentable(f: Fields) -> None:
    for key, what in _UNREPRESENTABLE.items():
        value = f.raw(key)
        if value not in (None, False, 0):
            raise ValueError(f"{f.name(key)}={_short(value)}: {what}, which the counts cannot "
                             "represent")
    kinds = f.str_list("layer_types") or []
    other = sorted(set(kinds) - {"full_attention", "sliding_attention"})
    if other:
        raise ValueError(f"{f.name('layer_types')} has {', '.join(map(repr, other))} layers; "
                         "the counts represent full and sliding-window attention only")
    if not f.has("kv_lora_rank") and f.has("v_head_dim"):
        v_dim = f.int("v_head_dim", "width")
        if v_dim != f.int("head_dim", "width", None):
            raise ValueError(f"{f.name('v_head_dim')}={v_dim} differs from "
                             f"{f.name('head_dim')}: value heads of another width than "
                             "query/key heads are represented with MLA only")


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _attention(f: Fields, r: Reading) -> None:
    v, h = r.values, r.values["n_heads"]
    bias = f.bool("attention_bias", None)
    if f.has("kv_lora_rank"):
        q_lora = f.int("q_lora_rank", "width", None)
        v["mla"] = MLA(
            kv_lora_rank=f.int("kv_lora_rank", "width"),
            qk_nope_head_dim=f.int("qk_nope_head_dim", "width"),
            qk_rope_head_dim=f.int("qk_rope_head_dim", "width"),
            v_head_dim=f.int("v_head_dim", "width"), q_lora_rank=q_lora,
        )
        if bias:
            raise ValueError(f"{f.name('attention_bias')}=true is not supported with MLA "
                             "attention")
        # MLA has no grouped key/value heads to count; the field only mirrors the heads.
        f.int("num_key_value_heads", "heads", None)
        v["n_kv_heads"] = h
        return
    kv = f.int("num_key_value_heads", "heads", None)
    if kv is None:
        r.assume("num_key_value_heads", "as many key/value heads as query heads assumed")
    v["n_kv_heads"] = kv if kv is not None else h
    head_dim = f.int("head_dim", "width", None)
    if head_dim is None:
        r.assume("head_dim", "head width hidden_size / num_attention_heads assumed")
    v["head_dim"] = head_dim
    if bias is None:
        r.assume("attention_bias", "no attention biases assumed")
    v["attention_bias"] = bool(bias)


def _experts(f: Fields, r: Reading) -> None:
    v = r.values
    count = f.first_int(EXPERT_COUNT, "experts")
    if count is None:
        raise ValueError(
            f"config.json has no {f.name(EXPERT_COUNT[0])!r} (nor "
            f"{', '.join(EXPERT_COUNT[1:])}): no routed experts, so not an MoE configuration; "
            "for a dense model give MoEConfig fields")
    v["n_experts"] = count[1]
    per_token = f.first_int(EXPERTS_PER_TOKEN, "experts")
    if per_token is None:
        if not f.has("top_k"):
            raise ValueError(f"config.json has no {f.name(EXPERTS_PER_TOKEN[0])!r} (nor "
                             f"{', '.join(EXPERTS_PER_TOKEN[1:])}, top_k), which the count "
                             "needs")
        r.assume(EXPERTS_PER_TOKEN[0], "experts per token read from top_k")
        per_token = ("top_k", f.int("top_k", "experts"))
    else:
        f.read.add("top_k")  # beside an expert field it is the sampling setting
    v["top_k"] = per_token[1]
    if f.has("moe_intermediate_size"):
        v["d_expert"] = f.int("moe_intermediate_size", "width")
    else:
        r.assume("moe_intermediate_size", "expert width taken from intermediate_size")
        v["d_expert"] = f.int("intermediate_size", "width")
    n_shared = f.first_int(("n_shared_experts", "num_shared_experts"), "experts", low=0)
    width = f.int("shared_expert_intermediate_size", "width", None, low=0)
    if width:
        v["n_shared"] = 1 if n_shared is None else n_shared[1]
        v["d_shared"] = width
        if n_shared is None:
            r.assume("n_shared_experts",
                     "one shared expert of shared_expert_intermediate_size assumed")
    elif n_shared is not None:
        v["n_shared"] = n_shared[1]
    else:
        r.assume("n_shared_experts", "no shared experts assumed")
    mtp = f.int("num_nextn_predict_layers", "layers", 0, low=0)
    if mtp:
        r.notes.append(f"multi-token-prediction module ({mtp} layer(s); not part of the main "
                       "model)")


def _dense_layers(f: Fields, r: Reading, n_layers: int) -> None:
    """Which layers are dense; every rule is range-checked before the loop over layers."""
    v = r.values
    rules = []
    if f.has("first_k_dense_replace"):
        first = f.int("first_k_dense_replace", "layers", low=0)
        rules.append(lambda i: i >= first)
    if isinstance(f.data.get("moe_layer_freq"), list):
        # One 0/1 per layer (MiMo): 1 marks an MoE layer.
        flags = f.int_list("moe_layer_freq", "layers") or []
        if len(flags) != n_layers or set(flags) - {0, 1}:
            raise ValueError(f"{f.name('moe_layer_freq')} as a list must hold one 0 or 1 per "
                             f"layer ({n_layers})")
        rules.append(lambda i: flags[i] == 1)
    elif f.has("moe_layer_freq"):
        freq = f.int("moe_layer_freq", "layers")
        rules.append(lambda i: i % freq == 0)
    if f.has("decoder_sparse_step"):
        step = f.int("decoder_sparse_step", "layers")
        rules.append(lambda i: (i + 1) % step == 0)
    mlp_only = f.int_list("mlp_only_layers", "layers")
    if mlp_only:
        dense_set = set(mlp_only)
        rules.append(lambda i: i not in dense_set)
    mlp_kinds = f.str_list("mlp_layer_types")
    if mlp_kinds is not None:
        # One "dense" or "sparse" per layer (Laguna).
        if len(mlp_kinds) != n_layers or set(mlp_kinds) - {"dense", "sparse"}:
            raise ValueError(f"{f.name('mlp_layer_types')} must hold one 'dense' or 'sparse' "
                             f"per layer ({n_layers})")
        rules.append(lambda i: mlp_kinds[i] == "sparse")
    moe_layers = f.int_list("moe_layers", "layers")
    if moe_layers is not None:
        moe_set = set(moe_layers)
        rules.append(lambda i: i in moe_set)
    elif f.has("interleave_moe_layer_step"):
        inter = f.int("interleave_moe_layer_step", "layers")
        rules.append(lambda i: i % inter == inter - 1)
    if not any(f.has(k) for k in _DENSE_PATTERN):
        r.assume("first_k_dense_replace",
                 f"no dense-layer pattern ({', '.join(_DENSE_PATTERN)}): every layer assumed "
                 "MoE")
    dense = [i for i in range(n_layers) if not all(rule(i) for rule in rules)]
    if dense and dense != list(range(len(dense))):
        r.layout = (f"{len(dense)} dense layers {dense[:3]}{'...' if len(dense) > 3 else ''} "
                    "interleaved with MoE layers (counts depend only on their number)")
    v["n_dense_layers"] = len(dense)
    # The dense-FFN width is read (and checked) even when no layer is dense.
    for key in ("intermediate_size_mlp", "dense_intermediate_size", "intermediate_size"):
        if f.has(key):
            width = f.int(key, "width")
            v["d_ff"] = width if dense else 0
            break
    else:
        if dense:
            raise ValueError(f"config.json has no {f.name('intermediate_size')!r}, the width "
                             f"of its {len(dense)} dense layers")


def _sliding(f: Fields, r: Reading, n_layers: int) -> None:
    kinds = f.str_list("layer_types")
    if kinds is None:
        return
    if len(kinds) != n_layers:
        raise ValueError(f"{f.name('layer_types')} lists {len(kinds)} layers, "
                         f"{f.name('num_hidden_layers')} is {n_layers}")
    n_sliding = sum(k == "sliding_attention" for k in kinds)
    if n_sliding:
        r.values["sliding_window"] = f.int("sliding_window", "width")
        r.values["n_sliding_layers"] = n_sliding
