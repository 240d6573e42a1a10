"""The efficiency-leverage paper's reproduced and side-by-side tables: the package, the interactive
renderer and the command line."""

from __future__ import annotations

import json
import subprocess

import pytest
from cli_runner import run_cli
from table_checks import check_side_by_side

from moelaws import claims
from moelaws.claims import tables
from moelaws.data_tables import DATA_TABLES, data_table
from moelaws.interactive_tables import (
    chapter_claims_table,
)
from moelaws.leverage import data_tables as leverage_tables

PAPER = "leverage"

SIDE_BY_SIDE = {
    "leverage-benchmark-averages": leverage_tables.leverage_benchmark_averages,
    "leverage-activation-ratios": leverage_tables.leverage_activation_ratios,
}
"""Each side-by-side data table of the paper and the package function that builds it."""
OWN: tuple[str, ...] = ()


def run(*args: str) -> subprocess.CompletedProcess[bytes]:
    return run_cli(*args, text=False)


def test_cli_json_records() -> None:
    proc = run("reproduce", "--paper", "leverage", "--table", "Table 7", "--format", "json")
    assert proc.returncode == 0, proc.stderr
    records = json.loads(proc.stdout)
    df = tables.reproduced_table("leverage", "Table 7")
    assert [r["ours"] for r in records] == df["ours"].tolist()
    assert set(records[0]) == set(tables.COLUMNS)


def test_reproduced_table_whole_paper() -> None:
    whole = tables.reproduced_table("leverage")
    assert len(whole) == len(claims.all_claims("leverage"))
    assert (whole["table"] == "").any() and (whole["table"] == "Table 7").sum() == 12


def test_chapter_claims_table_has_every_claim_and_filters() -> None:
    rendered = chapter_claims_table("leverage")
    assert rendered.html.count("<tr>") == len(claims.all_claims("leverage")) + 1
    assert "&quot;filters&quot;: [0, 3, 9]" in rendered.html  # table, kind and status
    for name in tables.list_tables("leverage")["csv"]:
        assert f'data-csv="{name}"' in rendered.html


def test_side_by_side_tables_carry_the_paper_beside_ours() -> None:
    bench = data_table("leverage-benchmark-averages")
    gap = (bench["ours dense"] - bench["Table 7 dense"].astype(float)).abs()
    # Two dense averages (44.07, 32.96) print as 44.0 and 32.9: off by the inputs' rounding.
    assert bench.loc[gap > 0.05 + 1e-9, "category"].tolist() == ["Professional Knowledge",
                                                                 "Math"]
    assert gap.max() < 0.07
    assert (bench["Table 7 MoE-mini"] == bench["Table 2 MoE-mini"]).all()


@pytest.mark.parametrize("name", sorted(SIDE_BY_SIDE))
def test_side_by_side_csv_is_the_package_frame(name: str, capsys) -> None:
    check_side_by_side(name, SIDE_BY_SIDE[name], capsys)


def test_its_data_tables_are_these() -> None:
    assert {name for name in DATA_TABLES if name.startswith(f"{PAPER}-")} == {*OWN, *SIDE_BY_SIDE}
