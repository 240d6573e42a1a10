"""The comprehensive law's verdicts on real models only inside Table 8's domain, and the fitting
runs that bound it (moved whole from tests/test_like_for_like.py)."""

from __future__ import annotations

import pytest

from moelaws import comprehensive as cl
from moelaws.compare import verdicts

OUTSIDE = "outside what this law was fitted on"


def test_comprehensive_verdicts_only_inside_table8() -> None:
    table = verdicts.question_table("comprehensive")
    inside = table[table["in fitted domain (G, S, N_a/N)"]]
    assert list(inside.index) == ["Qwen3-30B-A3B", "gpt-oss-20b", "OLMoE-1B-7B"]
    assert (inside["S verdict"] == "below").all()
    assert inside.loc["gpt-oss-20b", "G verdict"] == "below"
    outside = table[~table["in fitted domain (G, S, N_a/N)"]]
    assert (outside[["G verdict", "S verdict", "N_a/N verdict"]] == OUTSIDE).all().all()


def test_comprehensive_fitting_runs_stop_at_3_4b() -> None:
    t8 = cl.table8()
    fitting = t8[t8["role"] != "validation"]
    assert fitting["N"].max() == pytest.approx(3.399e9)
    above = t8[t8["N"] > fitting["N"].max()]
    assert (above["role"] == "validation").all()
    assert (above["N"] == above["N"].max()).sum() == 1 and above["N"].max() == 30.249e9
