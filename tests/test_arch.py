"""Configurations, counting conventions and ratios of ``moelaws.arch``."""

from __future__ import annotations

import pytest

from moelaws import arch, conventions, papers
from moelaws.arch import MLA, MoEConfig

TINY = MoEConfig(n_layers=2, d_model=8, n_heads=2, n_kv_heads=1, d_ff=16, n_experts=4, top_k=2,
                 n_shared=1, d_expert=4, n_dense_layers=1, vocab_size=10, context_length=6)


def test_exact_counts_of_a_tiny_config_by_hand() -> None:
    # attention: q 8x8, k and v 8x4 each (1 kv head of width 4), o 8x8 -> 64+32+32+64 = 192
    assert arch.attention_weights(TINY) == 192
    c = arch.counts(TINY, "exact")
    dense_ffn = 3 * 8 * 16
    expert = 3 * 8 * 4
    router = 8 * 4
    norms = 8 * (2 * 2 + 1)
    assert c.total == 2 * 192 + dense_ffn + (4 + 1) * expert + router + norms
    assert c.active == 2 * 192 + dense_ffn + (2 + 1) * expert + router + norms
    assert c.embedding == 2 * 10 * 8
    attention_flops = 2 * (2 * 192 + 2 * 6 * 2 * (4 + 4))
    ffn_flops = 2 * (dense_ffn + 3 * expert + router)
    assert c.attention_flops == attention_flops
    assert c.ffn_flops == ffn_flops
    assert c.logits_flops == 2 * 8 * 10
    assert c.compute_per_token == 3 * (attention_flops + ffn_flops + 2 * 8 * 10)
    assert arch.flops(TINY, training=False) == c.forward_flops


def test_context_flops_by_hand() -> None:
    """The exact count's context term (scores and mixing over all 6 keys, 2 layers, 2 heads of
    width 4): the part of its attention FLOPs that is not projections; a sliding-window layer
    counts its window."""
    assert arch.counting.context_flops(TINY) == 2 * 6 * 2 * 2 * (4 + 4)
    exact = arch.counts(TINY, "exact")
    assert exact.attention_flops - arch.counting.context_flops(TINY) == 2 * 2 * 192
    windowed = TINY.replace(sliding_window=2, n_sliding_layers=1)
    assert arch.counting.context_flops(windowed) == 2 * 2 * (4 + 4) * (6 + 2)


def test_tied_embeddings_and_biases() -> None:
    assert arch.embedding_params(TINY.replace(tie_embeddings=True)) == 80
    biased = TINY.replace(attention_bias=True, expert_bias=True)
    assert arch.attention_weights(biased) - arch.attention_weights(TINY) == 8 + 2 * 4 + 8
    extra = arch.total_params(biased) - arch.total_params(TINY)
    # attention biases in both layers; expert biases (2·d_e + d) for 5 experts; router bias
    assert extra == 2 * 24 + 5 * (2 * 4 + 8) + 4


def test_mla_attention_weights_of_deepseek_v3() -> None:
    cfg = arch.preset("DeepSeek-V3")
    m = cfg.mla
    q = 7168 * 1536 + 1536 + 1536 * 128 * 192
    kv = 7168 * (512 + 64) + 512 + 512 * 128 * (128 + 128)
    o = 128 * 128 * 7168
    assert m is not None and arch.attention_weights(cfg) == q + kv + o


def test_dense_model_counts() -> None:
    cfg = arch.preset("Dense-6.1B")
    assert arch.total_params(cfg) == arch.active_params(cfg)
    assert arch.activation_ratio(cfg) == 1.0
    for paper_id in papers.ids("granularity"):
        with pytest.raises(ValueError, match="dense"):
            conventions.granularity(cfg, paper_id)


def test_ratios_of_moe_mini() -> None:
    cfg = arch.preset("MoE-mini")
    assert arch.activation_ratio(cfg) == pytest.approx(13 / 385)
    assert arch.sharing_ratio(cfg) == pytest.approx(1 / 13)


def test_sliding_window_layers_see_only_their_window() -> None:
    # layer 1 full (6 keys), layer 2 a 2-key window: scores + values 2*2*(4+4) per key
    windowed = TINY.replace(sliding_window=2, n_sliding_layers=1)
    c = arch.counts(windowed, "exact")
    assert c.attention_flops == 2 * (2 * 192) + 2 * 2 * (4 + 4) * (6 + 2)
    assert (c.total, c.active) == (arch.total_params(TINY), arch.active_params(TINY))
    # a window wider than the context changes nothing
    wide = TINY.replace(sliding_window=64, n_sliding_layers=2)
    assert arch.flops(wide) == arch.flops(TINY)
    with pytest.raises(ValueError, match="sliding_window"):
        TINY.replace(n_sliding_layers=1)
    with pytest.raises(ValueError, match="n_sliding_layers"):
        TINY.replace(sliding_window=2, n_sliding_layers=3)


def test_gpt_oss_alternating_sliding_window_from_its_config() -> None:
    configs = arch.vendor_check.stored_configs_dir()
    oss = arch.from_hf_config(configs / "gpt-oss-120b")
    assert (oss.sliding_window, oss.n_sliding_layers) == (128, 18)
    full = oss.replace(sliding_window=None, n_sliding_layers=0)
    # 18 layers x (4096 - 128) keys x 2·64 heads·(64 + 64)
    saved = 18 * (4096 - 128) * 2 * 64 * (64 + 64)
    assert arch.flops(full, training=False) - arch.flops(oss, training=False) == saved
    assert arch.flops(oss, training=False) / 1e9 == pytest.approx(11.508, abs=1e-3)
    assert arch.flops(arch.preset("gpt-oss-20b"), training=False) / 1e9 == pytest.approx(
        8.045, abs=1e-3)
    # models without sliding-window layers keep the full-context count
    v3 = arch.from_hf_config(configs / "DeepSeek-V3")
    assert v3.n_sliding_layers == 0
    assert arch.flops(v3, training=False) / 1e9 == pytest.approx(93.717, abs=1e-3)


@pytest.mark.parametrize(
    ("field", "value", "match"),
    [
        ("n_layers", 0, "n_layers"),
        ("d_model", -8, "d_model"),
        ("n_heads", 3, "n_heads"),
        ("n_kv_heads", 3, "n_kv_heads"),
        ("top_k", 5, "top_k"),
        ("d_expert", 0, "d_expert"),
        ("n_dense_layers", 2, "n_dense_layers"),
        ("vocab_size", 0, "vocab_size"),
        ("n_shared", -1, "n_shared"),
        ("n_layers", 2.5, "n_layers"),
    ],
)
def test_invalid_configs_name_the_field(field: str, value: object, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        TINY.replace(**{field: value})


def test_dense_config_rejects_moe_fields() -> None:
    with pytest.raises(ValueError, match="dense"):
        MoEConfig(n_layers=1, d_model=8, n_heads=2, d_ff=16, top_k=2)
    with pytest.raises(ValueError, match="d_ff"):
        MoEConfig(n_layers=1, d_model=8, n_heads=2)


def test_mla_validation() -> None:
    with pytest.raises(ValueError, match=r"mla\.kv_lora_rank"):
        MLA(kv_lora_rank=0, qk_nope_head_dim=1, qk_rope_head_dim=1, v_head_dim=1)


def test_arch_counts_exactly_and_sends_a_paper_convention_to_the_registry() -> None:
    for name in conventions.names()[1:]:
        with pytest.raises(ValueError,
                           match=rf"moelaws\.conventions\.counts\(cfg, '{name}'\)"):
            arch.counts(TINY, name)
        with pytest.raises(ValueError, match="only the exact convention"):
            arch.total_params(TINY, name)
    assert arch.counts(TINY) == conventions.counts(TINY, "exact")


def test_unknown_convention_and_preset() -> None:
    with pytest.raises(ValueError, match="convention"):
        conventions.counts(TINY, "kaplan")
    with pytest.raises(ValueError, match="preset"):
        arch.preset("GPT-5")
    for role, of in (("granularity", conventions.granularity),
                     ("sparsity", conventions.sparsity)):
        without = [i for i in papers.ids() if i not in papers.ids(role)]
        assert without
        for paper_id in without:
            with pytest.raises(ValueError, match="convention"):
                of(TINY, paper_id)


def test_from_dict_round_trip_and_errors() -> None:
    cfg = arch.preset("DeepSeek-V3")
    assert MoEConfig.from_dict(cfg.to_dict()) == cfg
    with pytest.raises(ValueError, match="unknown configuration fields"):
        MoEConfig.from_dict({"n_layers": 1, "d_model": 8, "n_heads": 1, "d_ff": 4, "wings": 2})
    with pytest.raises(ValueError):
        MoEConfig.from_dict({"n_layers": 1})
    with pytest.raises(ValueError):
        MoEConfig.from_dict([1, 2])
    mla = cfg.to_dict()
    mla["mla"] = {**mla["mla"], "wings": 2}
    with pytest.raises(ValueError, match="wings"):
        MoEConfig.from_dict(mla)


def test_every_preset_counts_under_every_convention() -> None:
    for cfg in arch.PRESETS.values():
        assert cfg.source
        for conv in conventions.names():
            c = conventions.counts(cfg, conv)
            assert c.total >= c.active > 0
        table = conventions.table(cfg)
        assert list(table.index) == list(conventions.names())
    table = conventions.presets_table()
    assert list(table.index) == list(arch.PRESETS)


@pytest.mark.parametrize("field", ["tie_embeddings", "attention_bias", "expert_bias",
                                   "shared_expert_gate"])
@pytest.mark.parametrize("value", ["no", 1, 0, None, 1.0])
def test_config_flags_are_booleans_not_truthy_values(field: str, value: object) -> None:
    base = dict(n_layers=2, d_model=64, n_heads=4, n_experts=4, top_k=1, d_expert=32)
    assert MoEConfig(**base, **{field: True}).to_dict()[field] is True
    with pytest.raises(ValueError, match=f"{field} must be True or False"):
        MoEConfig(**base, **{field: value})
