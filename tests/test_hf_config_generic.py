"""The generic reader: any model_type, every assumption a warning naming its field."""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import pytest

from moelaws import arch
from moelaws.arch import HFConfigWarning, from_hf_config
from moelaws.arch.hf_config import model_type_of

ROOT = Path(__file__).resolve().parents[1] / "moelaws" / "data" / "hf_configs"
REFINED = sorted(p.name for p in ROOT.iterdir() if (p / "config.json").is_file()
                 and model_type_of(json.loads((p / "config.json").read_text(encoding="utf-8")))
                 in arch.SUPPORTED_MODEL_TYPES)


def load(model: str) -> dict:
    return json.loads((ROOT / model / "config.json").read_text(encoding="utf-8"))


def renamed(data: dict) -> dict:
    out = data | {"model_type": "some_new_moe"}
    if isinstance(out.get("text_config"), dict):
        out["text_config"] = out["text_config"] | {"model_type": "some_new_moe_text"}
    return out


def generic(data: dict) -> tuple[arch.MoEConfig, list[str]]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", HFConfigWarning)
        cfg = from_hf_config(data)
    return cfg, [str(w.message) for w in caught if issubclass(w.category, HFConfigWarning)]


def sizes(cfg: arch.MoEConfig) -> tuple[float, float, float]:
    c = arch.counts(cfg, "exact")
    return c.total, c.active, c.embedding


# What a family does that no field states, so that the generic reader cannot see it; the
# refined config without it must count like the generic reading.
IMPLICIT = {
    "qwen2_moe": {"shared_expert_gate": False},  # the shared expert's sigmoid gate
    "gpt_oss": {"expert_bias": False},  # biases of every expert and router
    "llama4": {"n_shared": 0, "d_shared": None},  # one shared expert per MoE layer
    # attention_bias covers q, k and v but not o: the generic reading counts all four (the
    # refinement lists the q/k/v biases as uncounted, MoEConfig's flag would add o's)
    "glm4_moe": {"attention_bias": True},
}


@pytest.mark.parametrize("model", REFINED)
def test_a_refined_family_renamed_counts_the_same_through_the_generic_reader(model: str) -> None:
    data = load(model)
    refined = from_hf_config(data)
    model_type = model_type_of(data)
    if model_type == "dbrx":
        # DBRX names every field its own way (n_layers, d_model, ffn_config.moe_num_experts):
        # the generic reader finds none of the usual names and says which it missed first.
        with pytest.raises(ValueError, match="no 'num_hidden_layers'"):
            from_hf_config(renamed(data))
        return
    if model_type == "hunyuan":
        # Hunyuan names its experts per token moe_topk, a per-layer list (as are its expert
        # widths and shared-expert counts): the generic reader says which usual name it missed.
        with pytest.raises(ValueError, match="no 'num_experts_per_tok'"):
            from_hf_config(renamed(data))
        return
    if model_type == "ernie4_5_moe":
        # ERNIE names its shared experts and its MoE layer range its own way: the generic
        # reader cannot see them, and says so, naming the fields, rather than count silently.
        cfg, warned = generic(renamed(data))
        unknown = " ".join(w for w in warned if "fields not understood" in w)
        for key in ("moe_num_shared_experts", "moe_layer_start_index", "moe_layer_end_index"):
            assert key in unknown, key
        assert sizes(cfg) != sizes(refined)
        return
    if model_type == "smallthinker":
        # SmallThinker names its experts moe_num_primary_experts: the generic reader says which
        # usual name it missed.
        with pytest.raises(ValueError, match="no 'num_local_experts'"):
            from_hf_config(renamed(data))
        return
    cfg, warned = generic(renamed(data))
    implicit = IMPLICIT.get(model_type, {})
    assert sizes(cfg) == sizes(refined.replace(**implicit))
    if implicit:
        assert sizes(cfg) != sizes(refined)  # the refinement matters
    # Every assumption names the field whose absence it stands in for.
    for message in warned:
        assert ": no " in message or "fields not understood" in message
    assert cfg.mla == refined.mla and cfg.n_dense_layers == refined.n_dense_layers


def test_assumptions_are_one_warning_each_naming_the_field() -> None:
    data = renamed(load("Mixtral-8x7B-v0.1"))
    _, warned = generic(data)
    assert any("no moe_intermediate_size: expert width taken from intermediate_size" in w
               for w in warned)
    assert any("no n_shared_experts: no shared experts assumed" in w for w in warned)
    assert any("no first_k_dense_replace: no dense-layer pattern" in w for w in warned)
    assert not any("tie_word_embeddings" in w for w in warned)  # present in the file
    _, warned = generic({k: v for k, v in data.items() if k != "tie_word_embeddings"})
    assert any("no tie_word_embeddings: untied" in w for w in warned)


def test_the_refined_family_keeps_silent_about_its_own_defaults() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error", HFConfigWarning)
        from_hf_config(load("Mixtral-8x7B-v0.1"))


def test_dbrx_renamed_is_refused_naming_the_missing_field() -> None:
    dbrx = {"model_type": "some_new_moe", "d_model": 64, "n_heads": 4, "n_layers": 2,
            "vocab_size": 100, "ffn_config": {"moe_num_experts": 4}}
    with pytest.raises(ValueError, match="no 'num_hidden_layers'"):
        from_hf_config(dbrx)


BASE = {"model_type": "my_moe", "num_hidden_layers": 4, "hidden_size": 64,
        "num_attention_heads": 4, "num_key_value_heads": 2, "head_dim": 16,
        "num_experts": 8, "num_experts_per_tok": 2, "moe_intermediate_size": 32,
        "intermediate_size": 128, "vocab_size": 100, "tie_word_embeddings": False,
        "hidden_act": "silu", "attention_bias": False, "n_shared_experts": 0,
        "first_k_dense_replace": 1}


def test_a_complete_unknown_config_reads_without_a_warning() -> None:
    cfg, warned = generic(BASE)
    assert warned == []
    assert (cfg.n_dense_layers, cfg.d_ff, cfg.n_experts, cfg.top_k, cfg.n_shared) == (
        1, 128, 8, 2, 0)


@pytest.mark.parametrize(
    ("change", "field"),
    [({"num_experts": None, "n_routed_experts": 8}, None),
     ({"num_experts_per_tok": None, "moe_k": 2}, None),
     ({"num_experts": None, "moe_num_experts": 8}, None),
     ({"num_experts_per_tok": None, "top_k": 2}, "top_k"),
     ({"n_shared_experts": None, "num_shared_experts": 0}, None)],
)
def test_the_usual_alternative_names_read_alike(change: dict, field: str | None) -> None:
    cfg, warned = generic({k: v for k, v in (BASE | change).items() if v is not None})
    assert sizes(cfg) == sizes(generic(BASE)[0])
    assert bool(warned) == (field is not None)


def test_alternative_names_that_disagree_are_refused() -> None:
    with pytest.raises(ValueError, match=r"n_routed_experts and num_experts disagree \(4 vs 8\)"):
        from_hf_config(BASE | {"n_routed_experts": 4})


@pytest.mark.parametrize(
    ("change", "dense"),
    [({"decoder_sparse_step": 2, "first_k_dense_replace": None}, 2),
     ({"mlp_only_layers": [0, 3], "first_k_dense_replace": None}, 2),
     ({"interleave_moe_layer_step": 2, "first_k_dense_replace": None}, 2),
     ({"moe_layers": [1, 2], "first_k_dense_replace": None}, 2),
     ({"moe_layer_freq": [0, 1, 1, 0], "first_k_dense_replace": None}, 2),
     ({"mlp_layer_types": ["dense", "sparse", "sparse", "sparse"],
       "first_k_dense_replace": None}, 1),
     ({"first_k_dense_replace": 0}, 0)],
)
def test_dense_layer_patterns(change: dict, dense: int) -> None:
    cfg, _ = generic({k: v for k, v in (BASE | change).items() if v is not None})
    assert cfg.n_dense_layers == dense
    assert cfg.d_ff == (128 if dense else 0)


def test_shared_experts_and_mla() -> None:
    cfg, _ = generic(BASE | {"n_shared_experts": 2})
    assert (cfg.n_shared, cfg.shared_width) == (2, 32)
    cfg, warned = generic(BASE | {"n_shared_experts": None, "shared_expert_intermediate_size": 48})
    assert (cfg.n_shared, cfg.shared_width) == (1, 48)
    assert any("one shared expert" in w for w in warned)
    mla = {"kv_lora_rank": 16, "q_lora_rank": None, "qk_nope_head_dim": 8,
           "qk_rope_head_dim": 4, "v_head_dim": 8}
    cfg, _ = generic(BASE | mla)
    assert cfg.mla == arch.MLA(16, 8, 4, 8, None)


@pytest.mark.parametrize(
    ("change", "message"),
    [({"hidden_act": "gelu"}, "hidden_act='gelu': only SwiGLU"),
     ({"mlp_bias": True}, "mlp_bias=true"),
     ({"layer_types": ["linear_attention"] * 4}, "'linear_attention' layers"),
     ({"layer_types": ["full_attention"] * 3}, "layer_types lists 3 layers"),
     ({"hybrid_override_pattern": "MEME"}, "hybrid_override_pattern='MEME': Mamba"),
     ({"v_head_dim": 8}, "v_head_dim=8 differs from head_dim"),
     ({"mlp_layer_types": ["dense", "moe", "moe", "moe"]},
      "mlp_layer_types must hold one 'dense' or 'sparse' per layer"),
     ({"num_attention_heads_per_layer": [4, 8, 4, 8]},
      r"num_attention_heads_per_layer=\[4, 8, 4, 8\]: layers with their own query-head"),
     ({"index_n_heads": 32, "index_head_dim": 128}, "index_n_heads=32: a sparse-attention"),
     ({"num_experts": None}, "no 'num_local_experts'.*not an MoE configuration"),
     ({"kv_lora_rank": 16, "qk_nope_head_dim": 8, "qk_rope_head_dim": 4, "v_head_dim": 8,
       "attention_bias": True}, "attention_bias=true is not supported with MLA")],
)
def test_what_the_counts_cannot_represent_is_refused_naming_the_field(change, message) -> None:
    with pytest.raises(ValueError, match=message):
        from_hf_config({k: v for k, v in (BASE | change).items() if v is not None})


def test_a_nested_text_config_is_the_language_model() -> None:
    cfg, _ = generic({"model_type": "my_vlm", "text_config": BASE,
                      "vision_config": {"hidden_size": 8}})
    assert sizes(cfg) == sizes(generic(BASE)[0])
    assert "vision encoder" in arch.hf_config.uncounted(cfg)
    with pytest.raises(ValueError, match=r"text_config\.num_experts must be a JSON integer"):
        from_hf_config({"model_type": "my_vlm", "text_config": BASE | {"num_experts": "8"}})
