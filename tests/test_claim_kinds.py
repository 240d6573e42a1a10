"""Claim kinds, the undecidable status and the one rounding rule (issue "Right in depth")."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from moelaws import claims, papers
from moelaws.claims import report
from moelaws.claims.core import KINDS, STATUSES, Claim, ClaimResult, evaluate, tolerance_exceptions
from moelaws.rounding import status_of_interval

ROOT = Path(__file__).resolve().parents[1]
ALL = claims.all_claims()


def _claim(**kw: object) -> Claim:
    base: dict[str, object] = dict(paper=papers.ids()[0], ref="kinds", quantity="x", printed="1.50",
                                   compute=lambda: 1.5, kind="reproduction")
    base.update(kw)
    return Claim(**base)  # type: ignore[arg-type]


def test_every_claim_has_a_valid_kind() -> None:
    assert len(ALL) > 300
    assert {c.kind for c in ALL} <= set(KINDS)
    # Every kind is in use, and the printed numbers recomputed are one of the two large groups
    # (the other: the papers against themselves).
    counts = {k: sum(c.kind == k for c in ALL) for k in KINDS}
    assert all(counts.values()) and counts["reproduction"] > 150


def test_a_claim_without_a_kind_fails_to_construct_and_says_what_to_add() -> None:
    with pytest.raises(ValueError) as info:
        Claim(papers.ids()[0], "r", "q", "1", lambda: 1.0)
    message = str(info.value)
    assert f"{papers.ids()[0]}: r: q has no kind" in message
    for kind in KINDS:
        assert f'kind="{kind}"' in message


def test_an_unknown_kind_is_rejected() -> None:
    with pytest.raises(ValueError, match="not one of reproduction, consistency"):
        _claim(kind="reproduced")


@pytest.mark.parametrize(("low", "high", "status"), [
    (1.46, 1.54, "reproduced"),
    (1.40, 1.44, "discrepancy"),
    (1.56, 1.60, "discrepancy"),
    (1.40, 1.50, "undecidable"),
    (1.50, 1.60, "undecidable"),
])
def test_status_of_interval(low: float, high: float, status: str) -> None:
    # 1.5 printed with a tolerance of 0.05 accepts [1.45, 1.55].
    assert status_of_interval(low, high, 1.5, 0.05) == status


def test_status_of_interval_rejects_an_empty_interval() -> None:
    with pytest.raises(ValueError, match="empty"):
        status_of_interval(2.0, 1.0, 1.5, 0.005)


def test_evaluate_uses_the_interval_of_ours() -> None:
    inputs = ("kinds: a rounded input",)
    straddles = _claim(ours_range=lambda: (1.49, 1.52), inputs=inputs, expected="undecidable",
                       explanation="rounded inputs")
    r = evaluate(straddles)
    assert r.status == "undecidable" and r.ok and (r.ours_low, r.ours_high) == (1.49, 1.52)
    assert r.as_dict()["ours_range"] == [1.49, 1.52]
    # Perturbed: the same claim with a narrow interval is reproduced, a distant one is not,
    # and neither is then as expected.
    narrow = evaluate(replace(straddles, ours_range=lambda: (1.498, 1.502)))
    assert narrow.status == "reproduced" and not narrow.ok
    far = evaluate(replace(straddles, compute=lambda: 1.7, ours_range=lambda: (1.6, 1.8)))
    assert far.status == "discrepancy" and not far.ok
    # Our central value must lie in its own interval.
    outside = evaluate(replace(straddles, ours_range=lambda: (1.6, 1.8)))
    assert outside.status == "error" and "not inside" in outside.error


@pytest.mark.parametrize(("low", "high", "status"), [
    (-0.3, -0.1, "reproduced"),
    (0.1, 0.3, "discrepancy"),
    (-0.3, 0.3, "undecidable"),
])
def test_an_inequality_with_an_interval_is_decided_by_both_ends(low: float, high: float,
                                                              status: str) -> None:
    claim = _claim(printed="0", relation="<", compute=lambda: (low + high) / 2,
                   ours_range=lambda: (low, high), inputs=("kinds: a rounded input",),
                   expected=status, explanation="rounded inputs")
    result = evaluate(claim)
    assert result.status == status and result.ok


def test_ours_range_needs_inputs_and_the_printed_tolerance() -> None:
    with pytest.raises(ValueError, match="inputs"):
        _claim(ours_range=lambda: (1.4, 1.6))
    with pytest.raises(ValueError, match="no custom"):
        _claim(ours_range=lambda: (1.4, 1.6), inputs=("a",), tolerance=0.1,
               tolerance_reason="r")
    with pytest.raises(ValueError, match="only a claim with ours_range"):
        _claim(expected="undecidable", explanation="why")
    with pytest.raises(ValueError, match="needs an explanation"):
        _claim(ours_range=lambda: (1.4, 1.6), inputs=("a",), expected="undecidable")


def test_every_custom_tolerance_is_a_listed_exception_with_its_reason() -> None:
    exceptions = tolerance_exceptions()
    assert len(exceptions) == sum(c.tolerance is not None for c in ALL) > 0
    assert exceptions["reason"].str.strip().astype(bool).all()
    # No claim that propagates its inputs' rounding also widens its tolerance.
    assert not [c.key for c in ALL if c.ours_range is not None and c.tolerance is not None]


def _result(kind: str, status: str) -> ClaimResult:
    claim = _claim(kind=kind, expected="discrepancy" if status == "discrepancy" else "reproduced",
                   explanation="why")
    return ClaimResult(claim, 1.7 if status == "discrepancy" else 1.5, status)  # type: ignore[arg-type]


def test_discrepancies_with_the_paper_count_reproductions_only() -> None:
    res = [_result("reproduction", "discrepancy"), _result("consistency", "discrepancy"),
           _result("cross-paper", "discrepancy"), _result("derived", "discrepancy"),
           _result("reproduction", "reproduced")]
    assert report.discrepancies_with_the_paper(res) == 1
    grid = report.kind_status_counts(res)
    assert list(grid.columns) == [*STATUSES, "claims"]
    assert grid.loc["reproduction", "discrepancy"] == 1
    assert grid.loc["consistency", "discrepancy"] == 1
    assert grid.loc["all", "discrepancy"] == 4 and grid.loc["all", "claims"] == 5


def test_kind_status_counts_of_the_registry_add_up() -> None:
    res = claims.results()
    grid = report.kind_status_counts(res)
    assert grid.loc["all", "claims"] == len(res)
    assert (grid[list(STATUSES)].sum(axis=1) == grid["claims"]).all()
    assert report.discrepancies_with_the_paper(res) == grid.loc["reproduction", "discrepancy"]
    assert report.discrepancies_with_the_paper(res) < grid.loc["all", "discrepancy"]


def test_reproducibility_page_counts_discrepancies_from_reproductions_only() -> None:
    page = (ROOT / "book" / "reproducibility.md").read_text(encoding="utf-8")
    assert "report.discrepancies_with_the_paper(" in page
    assert "report.kind_status_counts(" in page
    # The headline no longer sums every kind's discrepancies as "discrepancies with the paper".
    assert "totals['discrepancy']} discrepancies with the" not in page

