"""The allocation paper's FLOP split (App. C) and sparsity, by hand."""

from __future__ import annotations

import pytest

from moelaws import arch, conventions
from moelaws.allocation.counting import expert_attention_ratio
from moelaws.arch import MoEConfig

SMALL_GQA = MoEConfig(n_layers=2, d_model=16, n_heads=4, n_kv_heads=2, n_experts=8, top_k=2,
                      n_shared=1, d_expert=8, vocab_size=10, context_length=5)


def test_allocation_flops_by_hand() -> None:
    alloc = conventions.counts(SMALL_GQA, "allocation")
    attn = 2 * 16**2 + 4 * 16**2 / 2 + 2 * 5 * 16 + 2 * 5 * 16 + 2 * 16**2
    assert alloc.attention_flops == 2 * attn
    assert alloc.ffn_flops == 2 * (2 * 16 * 8 + 6 * 16 * 8 * 3)
    ratio = alloc.ffn_flops / alloc.attention_flops
    assert expert_attention_ratio(SMALL_GQA) == pytest.approx(ratio)


def test_allocation_sparsity_of_moe_mini() -> None:
    assert conventions.sparsity(arch.preset("MoE-mini"), "allocation") == pytest.approx(
        1 - 13 / 385)


def test_allocation_sparsity_matches_the_papers_setup() -> None:
    # App. B.1: 1 shared + 2 routed active; E = 17, 33, 65, 129 experts in all
    expected = {17: 0.8235, 33: 0.9091, 65: 0.9538, 129: 0.9767}
    for total, s in expected.items():
        cfg = MoEConfig(n_layers=1, d_model=8, n_heads=1, n_experts=total - 1, top_k=2,
                        n_shared=1, d_expert=4)
        assert conventions.sparsity(cfg, "allocation") == pytest.approx(s, abs=5e-5)


def test_expert_attention_ratio_of_mla_models_under_three_readings() -> None:
    v3, kimi = arch.preset("DeepSeek-V3"), arch.preset("Kimi-K2")
    # convention: every MLA head a full 192-wide K/Q/V head, C_A inflated
    assert expert_attention_ratio(v3) == pytest.approx(0.439, abs=1e-3)
    # App. C literally with d = d_model: 8·d² + 4·n_ctx·d per layer
    d = 7168
    c_e = conventions.counts(v3, "allocation").ffn_flops
    assert expert_attention_ratio(v3, attention="d_model") == pytest.approx(
        c_e / (61 * (8 * d * d + 4 * 4096 * d)))
    # the real MLA attention: 2 x projection weights + 2·n_h·(192 + 128) per key
    real = 61 * (2 * arch.attention_weights(v3, norms=False) + 2 * 128 * 320 * 4096)
    assert expert_attention_ratio(v3, attention="exact") == pytest.approx(c_e / real)
    assert expert_attention_ratio(v3, attention="exact") == pytest.approx(1.12, abs=0.01)
    assert expert_attention_ratio(kimi, attention="exact") == pytest.approx(2.16, abs=0.01)
    # grouped-query attention with n_h·d_head = d_model: the three readings agree
    mixtral = arch.preset("Mixtral-8x7B")
    r = {a: expert_attention_ratio(mixtral, attention=a)
         for a in ("convention", "d_model", "exact")}
    assert r["convention"] == pytest.approx(r["d_model"]) == pytest.approx(r["exact"])
    with pytest.raises(ValueError, match="attention"):
        expert_attention_ratio(v3, attention="mla")
