"""The comprehensive law's verdicts on real models only inside Table 8's domain, the fitting
runs that bound it, and MLA counted by its weights (moved whole from
tests/test_like_for_like.py)."""

from __future__ import annotations

import pytest

from moelaws import arch, papers
from moelaws import comprehensive as cl
from moelaws.compare import verdicts
from moelaws.comprehensive.counting import comprehensive_counts
from moelaws.comprehensive.tables import industrial_models

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


def test_mla_counted_as_multi_head_inflates_deepseek() -> None:
    cfg = arch.preset("DeepSeek-V3")
    eq2 = comprehensive_counts(cfg, attention="eq2").active
    weights = comprehensive_counts(cfg, attention="weights").active
    assert eq2 / 1e9 == pytest.approx(67.16, abs=0.01)
    assert weights / 1e9 == pytest.approx(35.59, abs=0.01)
    # With the embeddings, the paper's own Table 4 figure (37B, the model card's).
    table4 = industrial_models().set_index("model")
    printed = float(table4.filter(like="Deepseek", axis=0)["Na"].iloc[0])
    assert (weights + arch.counts(cfg, "exact").embedding) / printed == pytest.approx(1, abs=0.02)
    # For multi-head attention the two counts coincide (Eq. 2 is exact there).
    olmoe = arch.preset("OLMoE-1B-7B")
    assert olmoe.kv_heads == olmoe.n_heads and olmoe.mla is None
    assert comprehensive_counts(olmoe, attention="weights").active == comprehensive_counts(
        olmoe, attention="eq2").active
    with pytest.raises(ValueError, match="attention"):
        comprehensive_counts(cfg, attention="mha")


def test_deepseek_s_verdict_came_from_the_mla_count() -> None:
    verdict = papers.get("comprehensive").verdict
    cfg = arch.preset("DeepSeek-V3")
    eq2, weights = verdict(cfg, 14.8e12, attention="eq2"), verdict(cfg, 14.8e12)
    assert eq2["S position"] == "below" and weights["S position"] == "inside"
    assert weights["S verdict"] == OUTSIDE  # 669B parameters: far beyond Table 8
    assert not weights["in fitted domain (G, S, N_a/N)"]
