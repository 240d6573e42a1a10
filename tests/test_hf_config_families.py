"""How many model families the stored configs check, and the Hunyuan reader's quirks."""

from __future__ import annotations

import json
import shutil
import warnings
from dataclasses import replace
from pathlib import Path

import pytest

from moelaws import arch
from moelaws.arch import HFConfigWarning, from_hf_config
from moelaws.arch.hf_config import model_type_of, uncounted
from moelaws.arch.vendor_check import checked_families

ROOT = Path(__file__).resolve().parents[1] / "moelaws" / "data" / "hf_configs"
TABLE = arch.vendor_check_table()

# The families read and checked against a stated size (issue 25 asks for 20; refused families,
# such as Nemotron-H or Qwen3.5, do not count).
CHECKED = {"Klear", "bailing_moe", "dbrx", "deepseek", "deepseek_v2", "deepseek_v3", "dots1",
           "ernie4_5_moe", "glm4_moe",
           "gpt_oss", "hunyuan", "kimi_k2", "llama4", "minicpm", "minimax_m2", "mixtral",
           "phimoe", "qwen2_moe", "qwen3_moe", "smallthinker"}
MIN_CHECKED_FAMILIES = 20


def test_the_checked_families_are_the_read_ones_with_a_stated_size() -> None:
    families = checked_families(TABLE)
    assert len(families) >= MIN_CHECKED_FAMILIES
    assert set(families) == CHECKED
    refused = set(TABLE[TABLE["read by"] == "refused"]["model_type"])
    assert not refused & set(families)


def test_a_family_without_a_stated_size_or_a_reading_is_not_counted(tmp_path: Path) -> None:
    """The count can fail: take Hunyuan's sizes away, or make its config unreadable."""
    root = tmp_path / "hf_configs"
    shutil.copytree(ROOT, root)
    sources = json.loads((root / "sources.json").read_text(encoding="utf-8"))
    entry = next(e for e in sources["models"] if e["model"] == "Hunyuan-A13B")
    entry["stated_total_B"] = entry["stated_active_B"] = None
    (root / "sources.json").write_text(json.dumps(sources), encoding="utf-8")
    assert set(checked_families(arch.vendor_check_table(root))) == CHECKED - {"hunyuan"}
    # one family fewer is below the 20
    assert MIN_CHECKED_FAMILIES == 20 > len(CHECKED) - 1
    shutil.copytree(ROOT, root, dirs_exist_ok=True)
    config = root / "Hunyuan-A13B" / "config.json"
    config.write_text(json.dumps(json.loads(config.read_text()) | {"use_cla": True}))
    assert set(checked_families(arch.vendor_check_table(root))) == CHECKED - {"hunyuan"}


# --- Hunyuan (model_type "hunyuan", Tencent's remote code) -----------------------------------


def hunyuan() -> dict:
    return json.loads((ROOT / "Hunyuan-A13B" / "config.json").read_text(encoding="utf-8"))


def read(data: dict) -> arch.MoEConfig:
    with warnings.catch_warnings():
        warnings.simplefilter("error", HFConfigWarning)
        return from_hf_config(data)


def test_hunyuan_is_read_from_its_per_layer_lists_without_a_warning() -> None:
    cfg = read(hunyuan())
    assert (cfg.n_layers, cfg.d_model, cfg.n_heads, cfg.n_kv_heads) == (32, 4096, 32, 8)
    assert (cfg.n_experts, cfg.top_k, cfg.d_expert) == (64, 8, 3072)
    # use_mixed_mlp_moe: one shared MLP of intermediate_size x num_shared_expert per layer
    assert (cfg.n_shared, cfg.d_shared, cfg.n_dense_layers) == (1, 3072, 0)
    assert cfg.tie_embeddings and cfg.vocab_size == 128167
    assert "QK-norm weights (8,192)" in uncounted(cfg)  # 32 layers x 2 x head width 128


def test_hunyuan_shared_mlp_width_and_its_switch_change_the_count() -> None:
    base = arch.counts(read(hunyuan()), "exact")
    two = arch.counts(read(hunyuan() | {"num_shared_expert": [2] * 32}), "exact")
    per_layer = 3 * 4096 * 3072  # gate, up and down projections of one more 3072-wide MLP
    assert two.total - base.total == two.active - base.active == 32 * per_layer
    off = arch.counts(read(hunyuan() | {"use_mixed_mlp_moe": False}), "exact")
    assert base.total - off.total == 32 * per_layer


@pytest.mark.parametrize(
    ("change", "message"),
    [({"moe_topk": [8] * 31 + [4]}, "moe_topk must list one value per layer"),
     ({"moe_topk": [8] * 31}, "moe_topk must list one value per layer"),
     ({"use_cla": True}, "use_cla=true: cross-layer attention"),
     ({"use_mla": True}, "use_mla=true"),
     ({"kv_lora_rank": 512}, "kv_lora_rank is set without use_mla"),
     ({"moe_intermediate_size": [1536] * 32}, "the expert width is ambiguous"),
     ({"attention_head_dim": 64}, "attention_head_dim=64 differs"),
     ({"hidden_act": "gelu"}, "only SwiGLU"),
     ({"norm_type": "layer"}, "only RMS norms")],
)
def test_hunyuan_layouts_the_counts_cannot_represent_are_refused(change: dict,
                                                                 message: str) -> None:
    with pytest.raises(ValueError, match=message):
        from_hf_config(hunyuan() | change)


def test_hunyuan_unknown_fields_still_warn() -> None:
    with pytest.warns(HFConfigWarning, match="fields not understood.*some_new_field"):
        from_hf_config(hunyuan() | {"some_new_field": 1})


# --- SmallThinker (no model_type in its config; PowerInfer's remote code) --------------------


def smallthinker() -> dict:
    path = ROOT / "SmallThinker-21BA3B-Instruct" / "config.json"
    return json.loads(path.read_text(encoding="utf-8"))


def test_smallthinker_is_recognised_by_its_only_architecture() -> None:
    data = smallthinker()
    assert "model_type" not in data and model_type_of(data) == "smallthinker"
    assert model_type_of(data | {"architectures": ["SomethingElseForCausalLM"]}) is None
    assert model_type_of(data | {"architectures": ["SmallThinkerForCausalLM", "X"]}) is None
    with pytest.raises(ValueError, match="unsupported model_type None"):
        from_hf_config(data | {"architectures": ["SomethingElseForCausalLM"]})


def test_smallthinker_is_read_from_its_own_field_names() -> None:
    cfg = read(smallthinker())
    assert (cfg.n_layers, cfg.d_model, cfg.n_heads, cfg.n_kv_heads, cfg.head_dim) == (
        52, 2560, 28, 4, 128)
    assert (cfg.n_experts, cfg.top_k, cfg.d_expert, cfg.n_shared) == (64, 6, 768, 0)
    assert (cfg.sliding_window, cfg.n_sliding_layers) == (4096, 39)  # [0, 1, 1, 1] x 13
    assert not cfg.tie_embeddings
    c = arch.counts(cfg, "exact")
    # with both embeddings: 21.507B (the same project's test gives 21.507B for the shipped
    # safetensors, a third party's figure)
    assert (c.total + c.embedding) / 1e9 == pytest.approx(21.5066, abs=1e-4)
    assert c.total / 1e9 == pytest.approx(20.7287, abs=1e-4)


@pytest.mark.parametrize(
    ("change", "message"),
    [({"hidden_act": "silu"}, "relu-gated"),
     ({"sliding_window_layout": [0, 1]}, "sliding_window_layout must hold one 0 or 1"),
     ({"rope_layout": [2] * 52}, "rope_layout must hold one 0 or 1"),
     ({"tie_word_embeddings": None}, "no 'tie_word_embeddings'")],
)
def test_smallthinker_layouts_it_cannot_read_are_refused(change: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        from_hf_config(smallthinker() | change)


# --- ERNIE 4.5 MoE (Baidu) --------------------------------------------------------------------


def ernie() -> dict:
    return json.loads((ROOT / "ERNIE-4.5-21B-A3B" / "config.json").read_text(encoding="utf-8"))


def test_ernie_shared_mlp_and_moe_layer_range() -> None:
    cfg = read(ernie())
    assert (cfg.n_experts, cfg.top_k, cfg.d_expert) == (64, 6, 1536)
    assert (cfg.n_shared, cfg.d_shared) == (1, 3072)  # 1536 x moe_num_shared_experts
    assert (cfg.n_dense_layers, cfg.d_ff) == (1, 12288)  # layer 0 (moe_layer_start_index 1)
    assert "router score-correction biases (1,728)" in uncounted(cfg)  # 27 x 64
    # -1 (or absent) ends the range at the last layer; an interval of 2 keeps odd layers
    assert read(ernie() | {"moe_layer_end_index": -1}).n_dense_layers == 1
    assert read(ernie() | {"moe_layer_interval": 2}).n_dense_layers == 14  # 1, 3, ..., 27 MoE
    assert read(ernie() | {"moe_num_shared_experts": 0}).n_shared == 0
    with pytest.raises(ValueError, match="use_bias=true"):
        from_hf_config(ernie() | {"use_bias": True})


def test_ernie_interleaved_dense_layers_are_recorded() -> None:
    cfg = read(ernie() | {"moe_layer_interval": 2})
    assert "interleaved with MoE layers" in cfg.source


# --- GLM-4.5 MoE (Zhipu) ----------------------------------------------------------------------


def glm() -> dict:
    return json.loads((ROOT / "GLM-4.5" / "config.json").read_text(encoding="utf-8"))


def test_glm_biases_on_q_k_v_only_and_uncounted_weights() -> None:
    cfg = read(glm())
    assert (cfg.n_experts, cfg.top_k, cfg.d_expert, cfg.n_shared) == (160, 8, 1536, 1)
    assert (cfg.n_dense_layers, cfg.d_ff) == (3, 12288)  # first_k_dense_replace
    assert (cfg.n_heads, cfg.n_kv_heads, cfg.head_dim) == (96, 8, 128)
    # o_proj has no bias (transformers' Glm4MoeAttention): MoEConfig's attention_bias would
    # count one, so the q/k/v biases are listed instead: 92 x (96 + 2 x 8) x 128
    assert not cfg.attention_bias
    text = uncounted(cfg)
    assert "q/k/v projection biases (1,318,912)" in text
    assert "QK-norm weights (23,552)" in text  # 92 x 2 x 128
    assert "router score-correction biases (14,240)" in text  # 89 MoE layers x 160
    assert "multi-token-prediction module (1 layer(s)" in text
    plain = read(glm() | {"attention_bias": False, "use_qk_norm": False})
    assert "q/k/v" not in uncounted(plain) and "QK-norm" not in uncounted(plain)
    assert arch.total_params(plain) == arch.total_params(cfg)


def test_glm_total_miss_cause_not_identified() -> None:
    """355B is reached only with GLM-4.5's multi-token-prediction layer, but the same vendor's
    GLM-5 matches its stated 744B only without its own (sources.json, chapter 0)."""
    row = TABLE.set_index(["model", "quantity"]).loc[("GLM-4.5", "total")]
    assert row["verdict"] == "miss"
    assert row["ours (B)"] == pytest.approx(351.24, abs=0.01)
    cfg = read(glm())
    mtp = arch.vendor_check.mtp_layer_params(cfg)
    assert mtp == (arch.total_params(replace(cfg, n_layers=cfg.n_layers + 1))
                   - arch.total_params(cfg) + 2 * cfg.d_model * cfg.d_model)
    assert (row["ours (B)"] * 1e9 + mtp) / 1e9 == pytest.approx(355.23, abs=0.01)
    glm5 = json.loads((ROOT / "GLM-5" / "config.json").read_text(encoding="utf-8"))
    cfg5, indexer = arch.vendor_check.dsa_main_model(glm5)
    assert indexer / 1e9 == pytest.approx(0.731, abs=1e-3)
    none = (arch.total_params(cfg5) + indexer) / 1e9
    both = none + arch.embedding_params(cfg5) / 1e9
    assert (none, both) == (pytest.approx(742.01, abs=0.01), pytest.approx(743.91, abs=0.01))
    assert abs(both - 744) <= 0.5  # without the MTP layer, with both embeddings
    assert none + arch.vendor_check.mtp_layer_params(cfg5) / 1e9 > 744.5  # with it, none fits
    with pytest.raises(ValueError, match="glm_moe_dsa"):
        arch.vendor_check.dsa_main_model(glm())
    with pytest.raises(ValueError, match="head_dim"):
        arch.vendor_check.dsa_main_model(glm5 | {"qk_head_dim": 128})
    with pytest.raises(ValueError, match="unexpected reader warning"):
        arch.vendor_check.dsa_main_model(glm5 | {"some_new_field": 1})


def test_the_two_21b_a3b_models_truncate_alike() -> None:
    """SmallThinker's and ERNIE-4.5's full checkpoints truncate to 21B and 3B; only their
    non-embedding totals (20.73B, 21.56B) fall on either side of 21.5B."""
    verdict = TABLE.set_index(["model", "quantity"])["verdict"]
    nonembedding = {}
    for model, c in (("SmallThinker-21BA3B-Instruct", read(smallthinker())),
                     ("ERNIE-4.5-21B-A3B", read(ernie()))):
        full_total = (arch.total_params(c) + arch.embedding_params(c)) / 1e9
        full_active = arch.vendor_check.active_countings(c)["both embeddings"] / 1e9
        assert (int(full_total), int(full_active)) == (21, 3), model
        nonembedding[model] = arch.total_params(c) / 1e9
    assert nonembedding["SmallThinker-21BA3B-Instruct"] < 21.5 < nonembedding["ERNIE-4.5-21B-A3B"]
    assert nonembedding["ERNIE-4.5-21B-A3B"] - 21.5 == pytest.approx(0.06, abs=0.005)
    assert verdict["SmallThinker-21BA3B-Instruct", "total"] == "consistent (inferred)"
    assert verdict["ERNIE-4.5-21B-A3B", "total"] == "miss"
