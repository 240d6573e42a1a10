"""The comprehensive paper's reproduced and side-by-side tables: the package, the interactive
renderer and the command line."""

from __future__ import annotations

import io
import subprocess

import pandas as pd
import pytest
from cli_runner import run_cli
from table_checks import check_side_by_side

from moelaws.claims import tables
from moelaws.comprehensive import data_tables as comprehensive_tables
from moelaws.data_tables import DATA_TABLES, data_csv, data_table

PAPER = "comprehensive"

SIDE_BY_SIDE = {
    "comprehensive-table-1": comprehensive_tables.comprehensive_table1,
    "comprehensive-appendix-h": comprehensive_tables.comprehensive_appendix_h,
    "comprehensive-table-3": comprehensive_tables.comprehensive_table3,
    "comprehensive-table-4": comprehensive_tables.comprehensive_table4,
    "comprehensive-optima": comprehensive_tables.comprehensive_optima,
    "comprehensive-eq33": comprehensive_tables.comprehensive_eq33,
}
"""Each side-by-side data table of the paper and the package function that builds it."""
OWN = ("comprehensive-table-8",)


def run(*args: str) -> subprocess.CompletedProcess[bytes]:
    return run_cli(*args, text=False)


def test_csv_round_trips_the_values() -> None:
    df = tables.reproduced_table("comprehensive", "Table 3")
    back = pd.read_csv(io.StringIO(tables.to_csv(df)), dtype={"paper value": str})
    assert back["ours"].tolist() == df["ours"].tolist()
    assert back["paper value"].tolist() == df["paper value"].tolist()


def test_data_tables() -> None:
    assert len(data_table("comprehensive-table-8")) == 450
    back = pd.read_csv(io.StringIO(data_csv("comprehensive-table-8")))
    assert len(back) == 450


def test_cli_data_writes_the_appendix_csv() -> None:
    proc = run("data", "comprehensive-table-8")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == data_csv("comprehensive-table-8").encode("utf-8")
    assert proc.stdout.count(b"\n") == 451


def test_side_by_side_tables_carry_the_paper_beside_ours() -> None:
    t3 = data_table("comprehensive-table-3")
    assert (t3["G range (0.01 grid)"] == t3["G range (paper)"]).sum() >= 8
    assert (t3["S range (0.001 grid)"] == t3["S range (paper)"]).sum() >= 8
    t4 = data_table("comprehensive-table-4")
    gap = (t4["theoretical % (ours, G=7, S=0.31)"] - t4["theoretical % (paper)"].astype(float))
    assert (gap.abs() <= 0.005).sum() == 8
    assert t4.loc[gap.abs() > 0.005, "model"].tolist() == ["Qwen3-30B-A3B"]
    h = data_table("comprehensive-appendix-h")
    assert (h["n_e (ours)"] == h["n_e (paper)"]).all()
    eq33 = data_table("comprehensive-eq33").set_index("constant")
    assert eq33.loc["exponent", "closed-form h → 0 limit"] == pytest.approx(0.158, abs=5e-4)


@pytest.mark.parametrize("name", sorted(SIDE_BY_SIDE))
def test_side_by_side_csv_is_the_package_frame(name: str, capsys) -> None:
    check_side_by_side(name, SIDE_BY_SIDE[name], capsys)


def test_its_data_tables_are_these() -> None:
    assert {name for name in DATA_TABLES if name.startswith(f"{PAPER}-")} == {*OWN, *SIDE_BY_SIDE}


def test_table1_configs_count_as_eq_2_and_3() -> None:
    """Table 1's models as MoEConfigs: the exact count (norms, routers and biases besides
    Eq. 2-3's weights) within 0.5 % of Eq. 2-3's N_a and N, at App. B's sequence length and
    vocabulary."""
    from moelaws import arch
    from moelaws.comprehensive.tables import SEQ_LEN, VOCAB_SIZE, table1_configs, table1_counts

    assert (SEQ_LEN, VOCAB_SIZE) == (2048, 128_256)
    configs, by_eq = table1_configs(), table1_counts()
    assert [c.name for c in configs] == list(by_eq["model"])
    for cfg, (_, row) in zip(configs, by_eq.iterrows(), strict=True):
        exact = arch.counts(cfg)
        assert exact.active / row["N_a (Eq. 2)"] - 1 == pytest.approx(0, abs=5e-3)
        assert exact.total / row["N (Eq. 3)"] - 1 == pytest.approx(0, abs=5e-3)
        assert (cfg.context_length, cfg.vocab_size) == (SEQ_LEN, VOCAB_SIZE)
