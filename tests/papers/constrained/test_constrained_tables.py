"""The constrained paper's reproduced and side-by-side tables: the package, the interactive
renderer and the command line."""

from __future__ import annotations

import json
import subprocess

import pytest
from cli_runner import run_cli
from table_checks import check_side_by_side

from moelaws import claims
from moelaws.claims import tables
from moelaws.constrained import data_tables as constrained_tables
from moelaws.data_tables import DATA_TABLES, data_csv, data_table
from moelaws.interactive_tables import (
    data_interactive_table,
)

PAPER = "constrained"

SIDE_BY_SIDE = {
    "constrained-table-4": constrained_tables.constrained_table4,
    "constrained-table-6-losses": constrained_tables.constrained_table6_losses,
    "constrained-table-7-losses": constrained_tables.constrained_table7_losses,
    "constrained-reference-intervals": constrained_tables.constrained_reference_intervals,
}
"""Each side-by-side data table of the paper and the package function that builds it."""
OWN: tuple[str, ...] = ()


def run(*args: str) -> subprocess.CompletedProcess[bytes]:
    return run_cli(*args, text=False)


def test_reproduced_table_columns_and_values() -> None:
    df = tables.reproduced_table("constrained", "Table 6")
    assert list(df.columns) == list(tables.COLUMNS)
    # Table 6 prints ten loss differences (two models x five granularities); the two best rows
    # are 0.00 by definition and are context, not claims.
    assert len(df) == 8
    assert set(df["table"]) == {"Table 6"}
    res = [r for r in claims.results("constrained") if r.claim.ref.startswith("Table 6")]
    assert df["reference"].tolist() == [r.claim.ref for r in res]
    assert df["ours"].tolist() == [r.ours for r in res]
    paper = df["paper value"].astype(float)
    assert (df["difference"] - (df["ours"] - paper)).abs().max() < 1e-12
    nonzero = paper != 0
    expected_rel = (df["ours"] - paper)[nonzero] / paper[nonzero].abs()
    assert (df.loc[nonzero, "relative difference"] - expected_rel).abs().max() < 1e-12
    assert df.loc[~nonzero, "relative difference"].isna().all()
    # Values keep the paper's printed digits.
    assert "0.21" in df["paper value"].tolist()
    # The g = 8 row is the best row of the small model (printed 0.00): a reference, not a claim.
    assert "0.00" not in df["paper value"].tolist()
    assert not df["reference"].str.contains("l=8, d=384, g=8,").any()


def test_cli_csv_is_the_package_csv_byte_for_byte() -> None:
    proc = run("reproduce", "--paper", "constrained", "--table", "Table 6", "--format", "csv")
    assert proc.returncode == 0, proc.stderr
    expected = tables.to_csv(tables.reproduced_table("constrained", "Table 6"))
    assert proc.stdout == expected.encode("utf-8")


def test_cli_null_for_undefined_relative_difference() -> None:
    proc = run("reproduce", "--paper", "constrained", "--format", "json")
    records = json.loads(proc.stdout)
    assert any(r["paper value"] == "0" and r["relative difference"] is None for r in records)


def test_cli_data_writes_a_side_by_side_table() -> None:
    proc = run("data", "constrained-table-7-losses")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == data_csv("constrained-table-7-losses").encode("utf-8")


def test_loss_interval_tables_highlight_only_inconsistent_rows() -> None:
    for name in ("constrained-table-6-losses", "constrained-table-7-losses",
                 "constrained-reference-intervals"):
        frame = data_table(name)
        assert frame["consistent"].all() and data_interactive_table(name).highlighted == ()
        broken = frame.assign(consistent=[False, *frame["consistent"].iloc[1:]])
        assert constrained_tables.inconsistent(broken)["consistent"].tolist() == [
            True, *[False] * (len(frame) - 1)]
    t6 = data_table("constrained-table-6-losses")
    printed = t6["loss_diff_pct"].astype(float)
    inside = (t6["lower"] <= printed) & (printed <= t6["upper"])
    assert (inside == t6["consistent"]).all()


def test_list_tables_covers_every_table_claim_once() -> None:
    constrained = tables.list_tables("constrained")
    assert constrained["table"].tolist() == ["Table 4", "Table 6", "Table 7"]
    # Each group's best row (difference 0 by definition) is a reference, not a claim.
    assert constrained["claims"].tolist() == [7, 8, 24]
    row = constrained.iloc[1]
    assert row["csv"] == "reproduce-constrained-table-6.csv"
    assert "Table 6, l=8, d=384, g=1, n_exp=32, n_topk=2" in row["references"]


def test_cli_tables_lists_each_papers_tables() -> None:
    proc = run("tables")
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout.decode()
    assert "== constrained:" in out and "Table 6, l=8, d=384" in out


def test_side_by_side_tables_carry_the_paper_beside_ours() -> None:
    core = data_table("constrained-table-4")
    assert (core["ours"] == core["N_total_128_8"].astype(int)).all()


@pytest.mark.parametrize("name", sorted(SIDE_BY_SIDE))
def test_side_by_side_csv_is_the_package_frame(name: str, capsys) -> None:
    check_side_by_side(name, SIDE_BY_SIDE[name], capsys)


def test_its_data_tables_are_these() -> None:
    assert {name for name in DATA_TABLES if name.startswith(f"{PAPER}-")} == {*OWN, *SIDE_BY_SIDE}
