"""The constrained paper's counting convention, granularity and sparsity, by hand."""

from __future__ import annotations

import math

import pytest

from moelaws import arch, conventions
from moelaws.arch import MoEConfig

SMALL = MoEConfig(n_layers=3, d_model=16, n_heads=4, n_experts=8, top_k=2, n_shared=1,
                  d_expert=8, vocab_size=10)


def test_constrained_convention_by_hand() -> None:
    con = conventions.counts(SMALL, "constrained")
    g = 16 / 8
    assert con.total == pytest.approx(3 * 16**2 * (4 + 3 * 9 / g))  # Eq. 1, shared counted
    assert con.active == pytest.approx(3 * 16**2 * (4 + 3 * 3 / g))
    assert math.isnan(con.compute_per_token)


def test_constrained_ratios_of_moe_mini() -> None:
    cfg = arch.preset("MoE-mini")
    assert conventions.granularity(cfg, "constrained") == pytest.approx(2048 / 384)
    assert conventions.sparsity(cfg, "constrained") == 32


def test_constrained_sparsity_in_the_presets_table() -> None:
    table = conventions.presets_table()
    assert table.loc["Mixtral-8x7B", "s = n_exp/n_topk (constrained)"] == 4
