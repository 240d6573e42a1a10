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
    assert len(res) == 14
    for r in res:
        tol = r.claim.tol
        assert r.ours_low < r.claim.paper_value + tol and r.ours_high > r.claim.paper_value - tol
        assert not (r.ours_low >= r.claim.paper_value - tol
                    and r.ours_high <= r.claim.paper_value + tol)


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
