"""The papers' appendix data that the chapters show as interactive tables, one source each.

A chapter shows :func:`data_table` with :func:`moelaws.interactive_tables.interactive_table`,
and the book's build writes :func:`data_csv` of the same frame as its "Download CSV" file
(``book/_ext/moelaws_pages.py``), so the two cannot differ.

The tables are those of every paper in the registry with a ``data_tables`` role
(:func:`all_data_tables`; each paper's live in its folder, e.g.
:mod:`moelaws.comprehensive.data_tables`); :data:`DATA_TABLES` holds those of the book's own
papers (:data:`moelaws.papers.ADAPTERS`), without any added for a while with
:func:`moelaws.papers.registered`.
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from moelaws import papers
from moelaws.claims.tables import to_csv
from moelaws.roles import DataTable
from moelaws.validation import guard_public


def _tables_of(chosen: tuple[papers.Paper, ...]) -> dict[str, DataTable]:
    tables: dict[str, DataTable] = {}
    for paper in chosen:
        if paper.data_tables is None:
            continue
        for name, spec in paper.data_tables().items():
            if name in tables:
                raise ValueError(f"data table {name!r} of paper {paper.id!r} is already taken")
            if spec.paper != paper.id:
                raise ValueError(f"data table {name!r} of paper {paper.id!r} names paper "
                                 f"{spec.paper!r}")
            tables[name] = spec
    return tables


def __getattr__(name: str) -> Any:
    # DATA_TABLES is built on first use: the adapters' tables import the papers' packages,
    # which importing this module should not.
    if name == "DATA_TABLES":
        # registry() lists the papers of ADAPTERS first, then those added with registered().
        return _tables_of(papers.registry()[:len(papers.ADAPTERS)])
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def all_data_tables() -> dict[str, DataTable]:
    """Every appendix-data and side-by-side table a chapter shows, by name.

    The ``data_tables`` role of each paper in the registry (:mod:`moelaws.papers`), in reading
    order; :data:`DATA_TABLES` is the part of the book's own papers.

    Raises
    ------
    ValueError
        If a paper's table reuses a name already taken, or names another paper.
    """
    return _tables_of(papers.registry())


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
