"""The constrained law gives a verdict only at its fitted g = 4 (moved whole from
tests/test_like_for_like.py)."""

from __future__ import annotations

from moelaws import arch, papers
from moelaws.compare import verdicts

OUTSIDE = "outside what this law was fitted on"


def test_constrained_gives_no_verdict_off_its_fitted_g() -> None:
    table = verdicts.question_table("constrained")
    assert (table["Eq. 3 verdict"] == OUTSIDE).all()
    assert not table["in fitted domain"].any()
    # A model at g = 4 inside Table 4's sizes does get a verdict (the gate can open).
    small = arch.MoEConfig(name="g4", n_layers=8, d_model=384, n_heads=6, head_dim=64,
                           n_experts=128, top_k=8, d_expert=96, vocab_size=32000,
                           context_length=2048)
    row = papers.get("constrained").verdict(small)
    assert row["Eq. 3 verdict"] in ("routine better", "real model better")
    assert row["flags"] == []
