"""Generated summaries of the claims registry (moelaws.claims.report)."""

from __future__ import annotations

import math
import re

import pandas as pd
import pytest

from moelaws import claims, papers
from moelaws.claims import report
from moelaws.claims.core import Claim, ClaimResult

PAPER = papers.ids("claims")[0]
"""The paper whose claims stand for all in these checks (chapter 0's: the quickest)."""


def _result(status: str, expected: str = "reproduced", explanation: str = "") -> ClaimResult:
    claim = Claim(
        PAPER, "Table 9, row_x", "size *B*", "1.5", lambda: 1.5,
        expected=expected, explanation=explanation, kind="reproduction",  # type: ignore[arg-type]
    )
    return ClaimResult(claim, 1.7 if status == "discrepancy" else 1.5, status)  # type: ignore[arg-type]


def test_escape_markdown_escapes_markup_and_folds_lines() -> None:
    assert report.escape_markdown("a_b *c* | $x$\n  <d>") == r"a\_b \*c\* \| \$x\$ \<d\>"
    assert report.escape_markdown("plain text, 3.5 (B)") == "plain text, 3.5 (B)"


def test_format_value() -> None:
    assert report.format_value(3.3512) == "3.351"
    assert report.format_value(671.04) == "671"
    assert report.format_value(math.nan) == "nan"
    assert report.format_value(3.3512, "3.3") == "3.35"
    assert report.format_value(671.04, "671") == "671.0"
    assert report.format_value(1.698268, "1.6983") == "1.69827"
    assert report.format_value(1.523e22, "1.5e22") == "1.52e+22"
    assert report.format_value(-0.1583, "\u22120.158") == "-0.1583"


def test_counts() -> None:
    res = [
        _result("reproduced"),
        _result("discrepancy", "discrepancy", "why"),
        _result("discrepancy"),
    ]
    assert report.counts(res) == {
        "claims": 3, "reproduced": 1, "discrepancy": 2, "undecidable": 0, "error": 0,
        "unexpected": 1,
    }


def test_summary_markdown_matches_the_registry() -> None:
    text = report.summary_markdown(PAPER)
    res = claims.results(PAPER)
    n = report.counts(res)
    head = re.match(r"\*\*(\d+) claims checked: (\d+) reproduced, (\d+) discrepanc", text)
    assert head is not None, text
    assert [int(g) for g in head.groups()] == [n["claims"], n["reproduced"], n["discrepancy"]]
    listed = [line for line in text.splitlines() if line.startswith("- ")]
    discrepancies = [r for r in res if r.status == "discrepancy"]
    assert len(listed) == len({r.claim.explanation for r in discrepancies}) >= 1
    for r in discrepancies:
        (line,) = [x for x in listed if report.escape_markdown(r.claim.explanation) in x]
        assert f"ours {report.format_value(r.ours, r.claim.printed)}" in line
    assert "expected status." in text


@pytest.mark.parametrize("paper", papers.ids("claims"))
def test_summary_counts_each_status_by_kind_of_comparison(paper: str) -> None:
    text = report.summary_markdown(paper)
    res = claims.results(paper)
    seen = 0
    for label, status in (("reproduced", "reproduced"), ("discrepancies", "discrepancy"),
                          ("undecidable", "undecidable")):
        if not any(r.status == status for r in res):
            assert f"Of the {label}," not in text
            continue
        kinds = re.search(rf"Of the {label}, by kind of comparison: ([^.]*)\.", text)
        assert kinds is not None, text
        tally = {phrase: int(n) for n, phrase in re.findall(r"(\d+) ([^;]+)", kinds.group(1))}
        expected = pd.Series([r.claim.kind for r in res if r.status == status]).value_counts()
        assert tally == {report._KIND_PHRASES[k]: int(n) for k, n in expected.items()}
        seen += 1
    assert seen >= 2


def test_summary_markdown_groups_claims_that_share_an_explanation(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    fake = [_result("discrepancy", "discrepancy", "same cause")] * 3 + [_result("reproduced")]
    monkeypatch.setattr(report, "results", lambda paper: fake)
    text = report.summary_markdown(PAPER)
    listed = [line for line in text.splitlines() if line.startswith("- ")]
    assert len(listed) == 1
    assert listed[0].count("paper 1.5, ours 1.70") == 3
    assert listed[0].endswith(": same cause")


def test_summary_markdown_lists_unexpected_outcomes(monkeypatch: pytest.MonkeyPatch) -> None:
    fake = [_result("reproduced"), _result("discrepancy")]
    monkeypatch.setattr(report, "results", lambda paper: fake)
    text = report.summary_markdown(PAPER)
    assert "1 claim does not have the expected status" in text
    assert "Not as expected:" in text
    assert "status discrepancy, expected reproduced" in text
    assert r"Table 9, row\_x: size \*B\*" in text


def test_summary_markdown_for_a_paper_without_claims(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(report, "results", lambda paper: [])
    assert report.summary_markdown(papers.ids("claims")[-1]).startswith("No claims are registered")


def test_registry_table_has_one_row_per_claim() -> None:
    table = report.registry_table(PAPER)
    assert len(table) == len(claims.all_claims(PAPER))
    assert set(table["status"]) <= {"reproduced", "discrepancy", "error"}
    assert (table["as expected"] == "yes").all()


def test_overview_covers_every_paper() -> None:
    table = report.overview()
    assert list(table.index) == list(papers.ids("claims"))
    assert table.loc[PAPER, "claims"] == len(claims.all_claims(PAPER))


@pytest.mark.parametrize("func", [report.summary_markdown, report.registry_table])
def test_unknown_paper_is_rejected(func) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(ValueError, match="unknown paper id"):
        func("no-such-paper")
