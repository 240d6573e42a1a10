"""Reproduced tables: moelaws.claims.tables, the interactive renderer and the command line."""

from __future__ import annotations

import dataclasses
import math
import subprocess

import pandas as pd
import pytest
from book_extensions import load_extension
from cli_runner import run_cli

from moelaws import claims, papers
from moelaws.claims import tables
from moelaws.cli import main
from moelaws.data_tables import DATA_TABLES, data_table
from moelaws.interactive_tables import (
    claims_summary,
    claims_table,
    interactive_table,
)

FIRST, LAST = papers.ids("claims")[0], papers.ids("claims")[-1]
"""Two papers that stand for any in the checks of what every paper's tables do alike."""


def run(*args: str) -> subprocess.CompletedProcess[bytes]:
    return run_cli(*args, text=False)


# --- the one source: reproduced_table and list_tables ----------------------------------------


def test_table_of_reads_the_leading_table_reference() -> None:
    assert tables.table_of("Table 7, Qwen3-30B-A3B") == "Table 7"
    assert tables.table_of("Table 10 caption ('E_a + E_s = 12'), row 5") == "Table 10"
    assert tables.table_of("Sec. 4.3: '10 distinct configurations' (Tables 5-8)") == ""
    assert tables.table_of("App. H, Table 4") == ""


@pytest.mark.parametrize("text", ["Table 6", "6", "table-6", "TABLE_6", " table 6 "])
def test_normalise_table(text: str) -> None:
    assert tables.normalise_table(text) == "Table 6"


@pytest.mark.parametrize("text", ["", "Sec. 3", "Table", "Table six"])
def test_normalise_table_rejects_non_tables(text: str) -> None:
    with pytest.raises(ValueError, match="paper table"):
        tables.normalise_table(text)


def test_reproduced_table_all_papers() -> None:
    everything = tables.reproduced_table()
    assert len(everything) == len(claims.all_claims())
    assert everything["paper"].unique().tolist() == claims.registered_papers()


@pytest.mark.parametrize(
    ("paper", "table", "message"),
    [("nope", "Table 1", "unknown paper"), (LAST, "Table 99", "no claims in Table 99"),
     (None, "Table 6", "needs its paper"), (LAST, "Sec. 3", "paper table")],
)
def test_reproduced_table_bad_input(paper: str | None, table: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        tables.reproduced_table(paper, table)


def test_list_tables_covers_every_table_claim_once() -> None:
    listing = tables.list_tables()
    in_tables = [c for c in claims.all_claims() if tables.table_of(c.ref)]
    assert listing["claims"].sum() == len(in_tables)
    assert (listing["reproduced"] + listing["discrepancy"] + listing["undecidable"]
            + listing["error"] == listing["claims"]).all()


def test_csv_names() -> None:
    assert tables.csv_name() == "reproduce-all.csv"
    assert tables.csv_name(LAST) == f"reproduce-{LAST}.csv"
    assert tables.csv_name(LAST, "4") == f"reproduce-{LAST}-table-4.csv"


# --- command line ------------------------------------------------------------------------------


def test_cli_format_without_table_is_the_whole_paper() -> None:
    proc = run("reproduce", "--paper", FIRST, "--format", "csv")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == tables.to_csv(tables.reproduced_table(FIRST)).encode("utf-8")


@pytest.mark.parametrize(
    "args",
    [
        ["reproduce", "--paper", LAST, "--table", "Table 99"],
        ["reproduce", "--table", "Table 6"],
        ["reproduce", "--paper", FIRST, "--paper", LAST, "--table", "2"],
        ["reproduce", "--paper", LAST, "--table", "2", "--format", "xlsx"],
        ["tables", "--paper", "nope"],
    ],
)
def test_cli_bad_table_input_exits_2(args: list[str]) -> None:
    proc = run(*args)
    assert proc.returncode == 2
    assert b"Traceback" not in proc.stderr
    assert proc.stderr.startswith(b"moelaws: error:") or b"error:" in proc.stderr


def test_cli_tables_lists_each_papers_tables() -> None:
    proc = run("tables")
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout.decode()
    for row in tables.list_tables().itertuples(index=False):
        assert f"{row.table:<9} {row.claims:>3} claims" in out


def test_cli_table_exit_status_one_when_not_as_expected(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = claims.Claim(paper=FIRST, ref="Table 1, x", quantity="q", printed="1",
                       compute=lambda: 2.0, kind="reproduction")
    monkeypatch.setattr(tables, "results", lambda papers=None: [claims.evaluate(bad)])
    assert main(["reproduce", "--paper", FIRST, "--table", "1", "--format", "csv"]) == 1
    assert "discrepancy" in capsys.readouterr().out


# --- the interactive renderer ------------------------------------------------------------------


def test_claims_summary_buttons_filter_the_table() -> None:
    target = claims_table()
    html = claims_summary(target)
    summary = tables.reproduced_table()
    for paper, group in summary.groupby("paper"):
        n = int((group["status"] == "discrepancy").sum())
        if n:
            assert f"show {n} discrepanc" in html
            assert f"&quot;paper&quot;: &quot;{paper}&quot;" in html
    assert html.count(target.table_id) == (summary.groupby("paper")["status"]
                                           .apply(lambda s: (s == "discrepancy").any()).sum())


def test_interactive_table_rejects_unknown_columns() -> None:
    df = pd.DataFrame({"a": [1.0, 2.0]})
    with pytest.raises(ValueError, match="filter columns"):
        interactive_table(df, caption="c", source="s", filters=["b"])
    with pytest.raises(ValueError, match="highlighted columns"):
        interactive_table(df, caption="c", source="s",
                          highlight=lambda d: pd.DataFrame({"b": [True, False]}))
    with pytest.raises(ValueError, match="page_length"):
        interactive_table(df, caption="c", source="s", page_length=0)


def test_interactive_table_escapes_text_and_sorts_formatted_numbers() -> None:
    df = pd.DataFrame({"name": ["<b>x</b>"], "v": [math.pi]})
    rendered = interactive_table(df, caption="a & b", source="Eq. 1",
                                 display={"v": lambda r: f"{r['v']:.2f}"})
    assert "&lt;b&gt;x&lt;/b&gt;" in rendered.html and "a &amp; b" in rendered.html
    assert f'data-order="{math.pi!r}">3.14<' in rendered.html


def test_data_tables() -> None:
    # Each paper's folder checks that its own data tables are exactly those named after it.
    assert all(name.split("-")[0] in papers.ids() for name in DATA_TABLES)
    with pytest.raises(ValueError, match="unknown data table"):
        data_table("nope")


def test_cli_data_refuses_an_unknown_table() -> None:
    bad = run("data", "nope")
    assert bad.returncode == 2 and bad.stderr.startswith(b"moelaws: error: unknown data table")


def test_build_hook_writes_every_download(tmp_path) -> None:
    ext = load_extension("moelaws_pages")
    written = {p.name: p for p in ext.write_downloads(tmp_path)}
    listing = tables.list_tables()
    expected = {"reproduce-all.csv", *(tables.csv_name(p) for p in claims.registered_papers()),
                *listing["csv"], *(f"data-{name}.csv" for name in DATA_TABLES)}
    assert set(written) == expected
    row = listing.iloc[0]
    assert written[row["csv"]].read_bytes() == tables.to_csv(
        tables.reproduced_table(row["paper"], row["table"])).encode("utf-8")
    # The hook evaluates the claims once and selects each table from them: each paper's file
    # and the whole registry's are what evaluating that paper alone gives.
    for paper in [None, *claims.registered_papers()]:
        assert written[tables.csv_name(paper)].read_bytes() == tables.to_csv(
            tables.reproduced_table(paper)).encode("utf-8"), paper
    assert all(p.parent == tmp_path / "_static" / "download" for p in written.values())


def test_tables_from_claims_already_evaluated_are_the_same_tables() -> None:
    evaluated = claims.results()
    pd.testing.assert_frame_equal(tables.list_tables(evaluated=evaluated), tables.list_tables())
    with pytest.raises(ValueError, match="no claims in Table 99; its tables: Table"):
        tables.reproduced_table(LAST, "Table 99", evaluated=evaluated)
    # What is passed is what is shown (not evaluated again).
    first = evaluated[0]
    changed = [dataclasses.replace(first, status="error"), *evaluated[1:]]
    shown = tables.reproduced_table(first.claim.paper, evaluated=changed)
    assert shown["status"].iloc[0] == "error" != first.status
