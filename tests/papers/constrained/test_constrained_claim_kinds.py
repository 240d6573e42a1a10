"""The constrained paper's claims of every kind, its undecidable rows above all (issue "Right in
depth")."""

from __future__ import annotations

import json

import pytest

from moelaws import claims
from moelaws.claims import tables
from moelaws.claims.core import KINDS
from moelaws.cli import main


def test_undecidable_claims_are_rows_whose_interval_straddles() -> None:
    res = [r for r in claims.results("constrained") if r.status == "undecidable"]
    rows = [r for r in res if r.claim.relation == "="]
    assert len(rows) == 14
    for r in rows:
        tol = r.claim.tol
        assert r.ours_low < r.claim.paper_value + tol and r.ours_high > r.claim.paper_value - tol
        assert not (r.ours_low >= r.claim.paper_value - tol
                    and r.ours_high <= r.claim.paper_value + tol)
    # And one inequality: the exchanged-exponent gap, whose sign the printed digits cannot fix.
    (gap,) = [r for r in res if r.claim.relation != "="]
    assert "exchanged" in gap.claim.quantity and gap.ours_low < 0 < gap.ours_high


def test_the_gap_interval_holds_every_corner_of_the_rounding_box(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """max_gap_rounding_range takes two corners on a monotonicity argument: every one of the
    2^10 corners must lie inside what it returns."""
    import itertools

    from moelaws.constrained import chinchilla
    from moelaws.constrained.claims import _n_range

    n_range = _n_range()
    low, high = chinchilla.max_gap_rounding_range(n_range, n_points=12, swap_exponents=True)
    printed = {k: dict(v) for k, v in chinchilla.COEFFICIENTS.items()}
    # The corners are written into a copy that stands in for the module's table (put back
    # by monkeypatch), never into the printed coefficients themselves.
    corner = {k: dict(v) for k, v in printed.items()}
    monkeypatch.setattr(chinchilla, "COEFFICIENTS", corner)
    names = [(k, n) for k in printed for n in printed[k]]
    gaps = []
    for signs in itertools.product((-1, 1), repeat=len(names)):
        for (k, n), sign in zip(names, signs, strict=True):
            corner[k][n] = printed[k][n] + sign * chinchilla.PRINTED_HALF_UNITS[k][n]
        gaps.append(chinchilla.max_gap(n_range, n_points=12, swap_exponents=True))
    assert max(gaps) > min(gaps)  # the corners reached the computation
    assert min(gaps) == pytest.approx(low, abs=1e-12)
    assert max(gaps) == pytest.approx(high, abs=1e-12)


def test_reproduce_json_gives_each_claims_kind(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["reproduce", "--paper", "constrained", "--json"]) == 0
    records = json.loads(capsys.readouterr().out)
    assert records and all(r["kind"] in KINDS for r in records)
    undecidable = [r for r in records if r["status"] == "undecidable"]
    assert undecidable and all(len(r["ours_range"]) == 2 for r in undecidable)


def test_reproduced_table_and_its_formats_have_a_kind_column(
    capsys: pytest.CaptureFixture[str]
) -> None:
    df = tables.reproduced_table("constrained", "Table 6")
    # Table 6's loss differences check the paper's printed differences against its own printed
    # losses: the paper against itself (review of chapter 5).
    assert "kind" in df.columns and set(df["kind"]) == {"consistency"}
    assert main(["reproduce", "--paper", "constrained", "--table", "6", "--format", "csv"]) == 0
    assert capsys.readouterr().out.splitlines()[0].split(",")[:5] == [
        "paper", "table", "reference", "quantity", "kind"]
    assert main(["reproduce", "--paper", "constrained", "--table", "6",
                 "--format", "markdown"]) == 0
    assert "| kind " in capsys.readouterr().out
