"""The allocation paper's published tables, and the leverage paper's Table 12 it relies on.

Transcriptions live in ``moelaws/data/allocation/`` (see its README for provenance): Table 1
(Eq. 2's fitted coefficients), Table 2 (App. B.1's settings per "activated parameter" label)
and the efficiency-leverage paper's Table 12 (the configurations behind those labels).
"""

from __future__ import annotations

from functools import lru_cache

import pandas as pd

from moelaws.paper_data import read_csv

TABLES: dict[str, str] = {
    "table1": "table1.csv",
    "table2": "table2.csv",
    "leverage_table12": "leverage_table12.csv",
}
"""The transcribed tables, by name, and their files."""

_DTYPES: dict[str, object] = {"table1": {"printed": str}, "table2": None,
                              "leverage_table12": None}


@lru_cache(maxsize=len(TABLES))
def _read(name: str) -> pd.DataFrame:
    return read_csv("allocation", TABLES[name], dtype=_DTYPES[name])


def read_table(name: str) -> pd.DataFrame:
    """One transcribed table, as printed (a fresh copy).

    Parameters
    ----------
    name
        ``"table1"`` (one row per Eq. 2 coefficient, ``printed`` as a string), ``"table2"``
        (App. B.1: label, layers, heads, batch size in sequences, learning rate) or
        ``"leverage_table12"`` (the leverage paper's Table 12, six groups: ``eta_printed`` is
        the table's value, ``eta`` corrects three exponent typos, 9.5e-3, 8.1e-3 and 7.0e-3
        for groups 4-6, which are 9.5e-4, 8.1e-4 and 7.0e-4 in the same paper's Table 11;
        groups 1-5 carry Table 2's five labels in order, group 6 has no Table 2 label).

    Raises
    ------
    ValueError
        If ``name`` is not one of :data:`TABLES`.
    """
    if name not in TABLES:
        raise ValueError(f"unknown table {name!r}; choose from {sorted(TABLES)}")
    return _read(name).copy()


__all__ = ["TABLES", "read_table"]
