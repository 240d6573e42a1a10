"""The papers' appendix data that the chapters show as interactive tables, one source each.

A chapter shows :func:`data_table` with :func:`moelaws.interactive_tables.interactive_table`,
and the book's build writes :func:`data_csv` of the same frame as its "Download CSV" file
(``book/_ext/moelaws_tables.py``), so the two cannot differ.

The tables are :data:`DATA_TABLES` (the five papers' tables, not yet moved into their folders:
STYLE.md, issue 26) and those of every paper in the registry with a ``data_tables`` role
(:func:`all_data_tables`).
"""

from __future__ import annotations

import pandas as pd

from moelaws import chapter_tables, papers
from moelaws.claims.tables import to_csv
from moelaws.roles import DataTable
from moelaws.validation import guard_public

M_TOLERANCE = 0.05
"""Table 4's note: every appendix architecture's M lies within 5 % of its budget's target."""


def m_outside_target(df: pd.DataFrame) -> pd.DataFrame:
    """The ``M_dev`` cells of the holistic appendix more than :data:`M_TOLERANCE` off."""
    return pd.DataFrame({"M_dev": df["M_dev"].abs() > M_TOLERANCE}, index=df.index)


def _holistic_appendix() -> pd.DataFrame:
    from moelaws.holistic import checks

    # M_dev first after the row's identity: it is the column the highlights are about.
    columns = ["table", "scale", "row", "M_dev", "M", "M_target", "d", "L_d", "d_d", "L_m", "d_m",
               "L", "N_a", "N", "M/N_a", "N/N_a"]
    return checks.appendix_counts()[columns].reset_index(drop=True)


def _comprehensive_table8() -> pd.DataFrame:
    from moelaws import comprehensive

    return comprehensive.table8().reset_index(drop=True)


DATA_TABLES: dict[str, DataTable] = {
    "holistic-appendix": DataTable(
        paper="holistic",
        caption="The 667 published architectures, with M, N_a and N computed by Eq. 3",
        source="Tables 5-21 (App. F) for d, L_d, d_d, L_m, d_m, L; Eq. 3 and Table 4's heads "
               "for M, N_a, N; M_target from Table 4's budgets",
        load=_holistic_appendix,
        highlight=m_outside_target,
        legend="Highlighted: M_dev, the relative distance of our M (Eq. 3) from the budget's "
               "target M, exceeds the 5 % that Table 4's note states for every row.",
    ),
    "comprehensive-table-8": DataTable(
        paper="comprehensive",
        caption="The 450 experiment configurations, with the role of each row",
        source="Table 8 (N_a, N, D, G, S, mark); role from the mark and App. C.1",
        load=_comprehensive_table8,
    ),
    "holistic-eq2-table-2": DataTable(
        paper="holistic",
        caption="Table 2 (paper) vs ours: Eq. 2 at the six budgets, differences in units of "
                "the table's last printed digit",
        source="Table 2 (C, M, D as printed); ours from Eq. 2 with its printed coefficients",
        load=chapter_tables.holistic_eq2_table2,
        highlight=chapter_tables.eq2_off_by_a_digit,
        legend="Highlighted: a difference of more than half a unit of Table 2's last printed "
               "digit, i.e. our Eq. 2 value would not print as the paper's.",
    ),
    "comprehensive-table-1": DataTable(
        paper="comprehensive",
        caption="Table 1 (paper) vs ours: the five typical models' sizes counted by Eq. 2-3 "
                "(embeddings excluded)",
        source="Table 1 (architecture and printed N, N_a); ours from Eq. 2-3",
        load=chapter_tables.comprehensive_table1,
    ),
    "comprehensive-appendix-h": DataTable(
        paper="comprehensive",
        caption="App. H (paper) vs ours: N_a varied at fixed N by Eq. 35, with the printed "
                "d_expert as input",
        source="App. H's table (d_expert, n_e, N_a as printed); ours from Eq. 35 and Eq. 2-3",
        load=chapter_tables.comprehensive_appendix_h,
    ),
    "comprehensive-table-3": DataTable(
        paper="comprehensive",
        caption="Table 3 (paper) vs ours: the practical ranges of G and S (loss within 0.001 "
                "of the optimum) as exact roots, as grid ends, and as printed",
        source="Table 3 (printed ranges); ours from Eq. 11 with Table 2's constants at the "
               "N, N_a of Table 4's models",
        load=chapter_tables.comprehensive_table3,
    ),
    "comprehensive-table-4": DataTable(
        paper="comprehensive",
        caption="Table 4 (paper) vs ours: the theoretical (Eq. 14) and efficiency-aware "
                "(Algorithm 1) optimal activated ratios",
        source="Table 4 (printed N, ratios and N_a); ours from Eq. 14 and App. F's Algorithm 1 "
               "with Table 2's constants",
        load=chapter_tables.comprehensive_table4,
    ),
    "constrained-table-6-losses": DataTable(
        paper="constrained",
        caption="Table 6 (paper) vs ours: loss differences from the printed losses, with the "
                "interval their rounding allows",
        source="Table 6 (printed losses and loss differences); ours and the interval from the "
               "printed losses",
        load=chapter_tables.constrained_table6_losses,
        highlight=chapter_tables.inconsistent,
        legend="Highlighted: the printed difference lies outside the interval the rounded "
               "losses allow (consistent = no).",
    ),
    "constrained-table-7-losses": DataTable(
        paper="constrained",
        caption="Table 7 (paper) vs ours: loss differences with the interval their rounding "
                "allows, and the parameter differences by Eq. 1-2",
        source="Table 7 (printed losses, loss and parameter differences); ours from the printed "
               "losses and Eq. 1-2 with g = 4",
        load=chapter_tables.constrained_table7_losses,
        highlight=chapter_tables.inconsistent,
        legend="Highlighted: the printed difference lies outside the interval the rounded "
               "losses allow (consistent = no).",
    ),
    "constrained-reference-intervals": DataTable(
        paper="constrained",
        caption="Tables 6-7 (paper) vs ours: the unrounded reference losses that explain both "
                "printed columns of each group",
        source="Tables 6 and 7 (printed losses and loss differences, each within half a unit "
               "of its last digit)",
        load=chapter_tables.constrained_reference_intervals,
        highlight=chapter_tables.inconsistent,
        legend="Highlighted: no reference loss explains the group's printed columns "
               "(consistent = no).",
    ),
    "leverage-benchmark-averages": DataTable(
        paper="leverage",
        caption="Tables 7 and 2 (paper) vs ours: category and overall benchmark averages, "
                "ours the means of Table 7's per-benchmark scores",
        source="Table 7 (per-benchmark scores and averages) and Table 2 (averages)",
        load=chapter_tables.leverage_benchmark_averages,
    ),
    "leverage-activation-ratios": DataTable(
        paper="leverage",
        caption="The activation ratios the paper prints vs ours under the two readings of A",
        source="Sec. 1, 4.1, 5, Fig. 4b and App. E.1, F.1 (printed); ours from Tables 1, 8, 9 "
               "configurations",
        load=chapter_tables.leverage_activation_ratios,
    ),
    "comprehensive-optima": DataTable(
        paper="comprehensive",
        caption="Eq. 12-13 (paper) vs ours: the optimal granularity and shared-expert ratio",
        source="Sec. 5.2 (printed 6.78 and 0.31); ours from Eq. 12-13 with Table 2's constants",
        load=chapter_tables.comprehensive_optima,
    ),
    "comprehensive-eq33": DataTable(
        paper="comprehensive",
        caption="Eq. 33 (paper) vs ours: the compute-optimal loss law at N = 1T, G = 7, "
                "S = 0.31",
        source="Eq. 33 (printed constants); ours the closed-form h → 0 limit of Eq. 11 with "
               "Table 2's constants",
        load=chapter_tables.comprehensive_eq33,
    ),
    "constrained-table-4": DataTable(
        paper="constrained",
        caption="Table 4 (paper) vs ours: the cores' total parameters for (n_exp, n_topk) = "
                "(128, 8)",
        source="Table 4 (l, d and printed N_total); ours from Eq. 1 with g = 4",
        load=chapter_tables.constrained_table4,
    ),
}
"""The five papers' appendix-data and side-by-side tables, by name (see :func:`all_data_tables`)."""


def all_data_tables() -> dict[str, DataTable]:
    """Every appendix-data and side-by-side table a chapter shows, by name.

    :data:`DATA_TABLES`, then the ``data_tables`` role of each paper in the registry
    (:mod:`moelaws.papers`), in reading order.

    Raises
    ------
    ValueError
        If a paper's table reuses a name already taken, or names another paper.
    """
    tables = dict(DATA_TABLES)
    for paper in papers.having("data_tables"):
        for name, spec in paper.data_tables().items():
            if name in tables:
                raise ValueError(f"data table {name!r} of paper {paper.id!r} is already taken")
            if spec.paper != paper.id:
                raise ValueError(f"data table {name!r} of paper {paper.id!r} names paper "
                                 f"{spec.paper!r}")
            tables[name] = spec
    return tables


def data_spec(name: str) -> DataTable:
    """The :class:`~moelaws.roles.DataTable` named ``name`` (a key of :func:`all_data_tables`).

    Raises
    ------
    ValueError
        If ``name`` is not a known data table.
    """
    tables = all_data_tables()
    if name not in tables:
        raise ValueError(f"unknown data table {name!r}; choose from {', '.join(tables)}")
    return tables[name]


def data_table(name: str) -> pd.DataFrame:
    """The rows of appendix table ``name`` (a key of :func:`all_data_tables`).

    Raises
    ------
    ValueError
        If ``name`` is not a known data table.
    """
    return data_spec(name).load()


def data_csv_name(name: str) -> str:
    """The file name of a data table's CSV download in the built book."""
    data_spec(name)
    return f"data-{name}.csv"


def data_csv(name: str) -> str:
    """A data table as CSV text (the bytes of its download)."""
    return to_csv(data_table(name))


# Every public function checks its arguments' kinds (a frame, a name) and turns a frame without
# the expected columns (KeyError) into a ValueError naming the argument.
guard_public(globals(), [n for n, v in list(globals().items())
                         if not n.startswith("_") and callable(v) and not isinstance(v, type)
                         and getattr(v, "__module__", None) == __name__])
