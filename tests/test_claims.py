"""Every registered claim has its expected status; the registry's own mechanics work."""

from __future__ import annotations

import math

import pytest

from moelaws import claims, papers
from moelaws.claims.core import Claim, evaluate, printed_tolerance

PAPER = papers.ids("claims")[0]
"""The paper whose claims stand for all in the generic checks (chapter 0's: the quickest)."""

ALL = claims.all_claims()


def test_registry_is_not_empty() -> None:
    assert len(ALL) >= 20
    assert PAPER in claims.registered_papers()


@pytest.mark.parametrize("claim", ALL, ids=[c.key for c in ALL])
def test_claim_has_expected_status(claim: Claim) -> None:
    result = evaluate(claim)
    assert result.status != "error", result.error
    assert result.ok, (
        f"{claim.key}: paper {claim.printed}, ours {result.ours:.6g}, |err| {result.abs_err:.3g}"
        f" vs tolerance {claim.tol:.3g}: {result.status}, expected {claim.expected}"
    )


@pytest.mark.parametrize(
    ("printed", "tol"),
    [("6.78", 0.005), ("671", 0.5), ("0.158", 0.0005), ("1.5e22", 0.05e22), ("−0.158", 0.0005)],
)
def test_printed_tolerance_is_half_a_unit_in_the_last_digit(printed: str, tol: float) -> None:
    assert printed_tolerance(printed) == pytest.approx(tol)


@pytest.mark.parametrize("bad", ["", "abc", "1,5", "nan", "inf"])
def test_printed_tolerance_rejects_non_numbers(bad: str) -> None:
    with pytest.raises(ValueError):
        printed_tolerance(bad)


def _claim(**kw) -> Claim:
    base = dict(paper=PAPER, ref="test", quantity="x", printed="6.78", compute=lambda: 6.78,
                kind="reproduction")
    base.update(kw)
    return Claim(**base)


def test_evaluate_within_and_outside_tolerance() -> None:
    assert evaluate(_claim(compute=lambda: 6.7849)).status == "reproduced"
    assert evaluate(_claim(compute=lambda: 6.7751)).status == "reproduced"
    assert evaluate(_claim(compute=lambda: 6.786)).status == "discrepancy"
    assert evaluate(_claim(compute=lambda: 6.7)).status == "discrepancy"


def test_inequality_claims() -> None:
    assert evaluate(_claim(printed="7", relation=">", compute=lambda: 7.2)).status == "reproduced"
    assert evaluate(_claim(printed="7", relation=">", compute=lambda: 6.9)).status == "discrepancy"
    assert evaluate(_claim(printed="7", relation="<=", compute=lambda: 7.0)).status == "reproduced"


def test_custom_tolerance_needs_reason() -> None:
    with pytest.raises(ValueError, match="reason"):
        _claim(tolerance=0.1)
    c = _claim(tolerance=0.1, tolerance_reason="read off a figure", compute=lambda: 6.85)
    assert evaluate(c).status == "reproduced"


def test_discrepancy_needs_explanation_and_is_checked() -> None:
    with pytest.raises(ValueError, match="explanation"):
        _claim(expected="discrepancy")
    c = _claim(expected="discrepancy", explanation="because", compute=lambda: 7.5)
    r = evaluate(c)
    assert r.status == "discrepancy" and r.ok
    unexpected = _claim(expected="discrepancy", explanation="because", compute=lambda: 6.78)
    assert not evaluate(unexpected).ok


def test_errors_are_reported_not_raised() -> None:
    r = evaluate(_claim(compute=lambda: 1 / 0))
    assert r.status == "error" and not r.ok and "ZeroDivisionError" in r.error
    assert evaluate(_claim(compute=lambda: math.nan)).status == "error"


def test_invalid_claims_are_rejected() -> None:
    # A claim names its paper freely; the registry refuses it when a paper hands it over.
    stray = papers.Paper(id="stray", title="t", label="l", docname="notebooks/99_stray",
                         claims=lambda: [_claim(paper="nonsense")])
    with papers.registered(stray), pytest.raises(ValueError, match="paper 'nonsense'"):
        claims.all_claims("stray")
    with pytest.raises(ValueError, match="relation"):
        _claim(relation="~")
    with pytest.raises(ValueError):
        _claim(printed="about seven")


def test_json_record_has_the_documented_keys() -> None:
    record = evaluate(_claim()).as_dict()
    for key in ("paper", "ref", "quantity", "paper_value", "ours", "abs_err", "rel_err",
                "tolerance", "status", "note"):
        assert key in record
    assert record["paper_value"] == 6.78 and record["abs_err"] == 0.0


def test_table_summary_and_check() -> None:
    df = claims.table(PAPER)
    assert len(df) == len(claims.all_claims(PAPER))
    assert set(df["status"]) <= {"reproduced", "discrepancy"}
    s = claims.summary(PAPER)
    assert int(s.loc[PAPER, "claims"]) == len(df)
    assert int(s.loc[PAPER, "unexpected"]) == 0
    assert len(claims.check(PAPER)) == len(df)


def test_check_raises_on_unexpected(monkeypatch: pytest.MonkeyPatch) -> None:
    bad = _claim(compute=lambda: 1.0)
    monkeypatch.setattr(claims.core, "all_claims", lambda paper=None: [bad])
    with pytest.raises(AssertionError, match="claims not as expected"):
        claims.core.check()


def test_unknown_paper_is_rejected() -> None:
    with pytest.raises(ValueError, match="unknown paper"):
        claims.all_claims("nope")
