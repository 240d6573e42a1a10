"""The comprehensive paper's counting convention and granularity, by hand."""

from __future__ import annotations

from moelaws import arch, conventions
from moelaws.arch import MoEConfig

SMALL = MoEConfig(n_layers=3, d_model=16, n_heads=4, n_experts=8, top_k=2, n_shared=1,
                  d_expert=8, vocab_size=10)
"""A small configuration with a shared expert."""


def test_comprehensive_convention_by_hand() -> None:
    comp = conventions.counts(SMALL, "comprehensive")
    assert comp.active == (4 * 4 * 4 + 3 * 3 * 8) * 16 * 3  # Eq. 2, G = 3
    assert comp.total == (4 * 4 * 4 + 3 * 8 * (1 + 8)) * 16 * 3  # Eq. 3, S·G = 1
    assert comp.compute_per_token == comp.active


def test_comprehensive_granularity_of_moe_mini() -> None:
    assert conventions.granularity(arch.preset("MoE-mini"), "comprehensive") == 13
