"""The papers' appendix data that the chapters show as interactive tables, one source each.

A chapter shows :func:`data_table` with :func:`moelaws.interactive_tables.interactive_table`,
and the book's build writes :func:`data_csv` of the same frame as its "Download CSV" file
(``book/_ext/moelaws_tables.py``), so the two cannot differ.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import pandas as pd

from moelaws.claims.tables import to_csv


@dataclass(frozen=True)
class DataTable:
    """One appendix table: its paper, what it is, where the paper prints it, how to load it."""

    paper: str
    caption: str
    source: str
    load: Callable[[], pd.DataFrame]
    highlight: Callable[[pd.DataFrame], pd.DataFrame] | None = None
    legend: str = ""


M_TOLERANCE = 0.05
"""Table 4's note: every appendix architecture's M lies within 5 % of its budget's target."""


def m_outside_target(df: pd.DataFrame) -> pd.DataFrame:
    """The ``M_dev`` cells of the holistic appendix more than :data:`M_TOLERANCE` off."""
    return pd.DataFrame({"M_dev": df["M_dev"].abs() > M_TOLERANCE}, index=df.index)


def _holistic_appendix() -> pd.DataFrame:
    from moelaws.holistic import analysis

    # M_dev first after the row's identity: it is the column the highlights are about.
    columns = ["table", "scale", "row", "M_dev", "M", "M_target", "d", "L_d", "d_d", "L_m", "d_m",
               "L", "N_a", "N", "M/N_a", "N/N_a"]
    return analysis.appendix_counts()[columns].reset_index(drop=True)


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
}
"""Every appendix-data table a chapter shows, by name."""


def data_table(name: str) -> pd.DataFrame:
    """The rows of appendix table ``name`` (a key of :data:`DATA_TABLES`).

    Raises
    ------
    ValueError
        If ``name`` is not a known data table.
    """
    if name not in DATA_TABLES:
        raise ValueError(f"unknown data table {name!r}; choose from {', '.join(DATA_TABLES)}")
    return DATA_TABLES[name].load()


def data_csv_name(name: str) -> str:
    """The file name of a data table's CSV download in the built book."""
    if name not in DATA_TABLES:
        raise ValueError(f"unknown data table {name!r}; choose from {', '.join(DATA_TABLES)}")
    return f"data-{name}.csv"


def data_csv(name: str) -> str:
    """A data table as CSV text (the bytes of its download)."""
    return to_csv(data_table(name))
