"""The leverage paper's FLOP count and granularity, by hand."""

from __future__ import annotations

import pytest

from moelaws import arch, conventions
from moelaws.arch import MoEConfig

SMALL_GQA = MoEConfig(n_layers=2, d_model=16, n_heads=4, n_kv_heads=2, n_experts=8, top_k=2,
                      n_shared=1, d_expert=8, vocab_size=10, context_length=5)
"""Grouped-query attention and a shared expert."""


def test_leverage_flops_by_hand() -> None:
    lev = conventions.counts(SMALL_GQA, "leverage")
    attn = 2 * 16**2 * (1 + 2 / 2) + 4 * 5 * 16
    assert lev.attention_flops == 2 * attn
    assert lev.ffn_flops == 2 * (6 * 16 * 2 * 8 + 4 * 16 * 8)
    assert lev.compute_per_token == 3 * (2 * attn + lev.ffn_flops + 2 * 16 * 10)


def test_leverage_granularity_of_moe_mini() -> None:
    cfg = arch.preset("MoE-mini")
    assert conventions.granularity(cfg, "leverage") == pytest.approx(2 * 2048 / 384)
