"""The leverage paper's FLOP count and granularity, by hand."""

from __future__ import annotations

import pytest

from moelaws import arch, conventions
from moelaws.arch import MoEConfig
from moelaws.leverage.counting import context_flops

SMALL_GQA = MoEConfig(n_layers=2, d_model=16, n_heads=4, n_kv_heads=2, n_experts=8, top_k=2,
                      n_shared=1, d_expert=8, vocab_size=10, context_length=5)
"""Grouped-query attention and a shared expert."""


def test_leverage_flops_by_hand() -> None:
    lev = conventions.counts(SMALL_GQA, "leverage")
    attn = 2 * 16**2 * (1 + 2 / 2) + 4 * 5 * 16
    assert lev.attention_flops == 2 * attn
    assert lev.ffn_flops == 2 * (6 * 16 * 2 * 8 + 4 * 16 * 8)
    assert lev.compute_per_token == 3 * (2 * attn + lev.ffn_flops + 2 * 16 * 10)


def test_leverage_context_flops_by_hand() -> None:
    """App. I's context term 4·s·d per layer: the part of the attention FLOPs that is not
    projections; a sliding-window layer counts its window."""
    assert context_flops(SMALL_GQA) == 2 * 4 * 5 * 16
    lev = conventions.counts(SMALL_GQA, "leverage")
    assert lev.attention_flops - context_flops(SMALL_GQA) == 2 * 2 * 16**2 * (1 + 2 / 2)
    windowed = SMALL_GQA.replace(sliding_window=2, n_sliding_layers=1)
    assert context_flops(windowed) == 4 * (5 + 2) * 16


def test_leverage_granularity_of_moe_mini() -> None:
    cfg = arch.preset("MoE-mini")
    assert conventions.granularity(cfg, "leverage") == pytest.approx(2 * 2048 / 384)
