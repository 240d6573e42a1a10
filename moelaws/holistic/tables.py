"""The holistic paper's published tables, as transcribed under ``moelaws/data/holistic``.

Table 2 (six compute-optimal (C, M, D) points), Table 4 (head settings per compute scale) and
the 667 appendix architectures of Tables 5-21 (see the README next to the CSVs for their
provenance). :func:`read_table` returns a table as transcribed; :func:`table2` and
:func:`appendix` add base-unit columns. All return fresh copies, so callers may modify them.
"""

from __future__ import annotations

from functools import lru_cache

import pandas as pd

from moelaws.paper_data import read_csv

SCALES: tuple[str, ...] = ("1e18", "3e18", "1e19", "3e19", "1e20", "3e20")
"""The paper's six compute scales, as printed (FLOPs)."""

SECTION_OF_TABLE: dict[int, str] = {
    **{t: "4.3" for t in range(5, 9)},
    **{t: "5.2" for t in range(9, 15)},
    15: "5.3",
    **{t: "6" for t in range(16, 22)},
}
"""Which experiment each appendix table lists (App. F.3): Sec. 4.3 median-proxy validation,
Sec. 5.2 6x6 grids, Sec. 5.3 extra M/N_a samples, Sec. 6 hidden-dimension sweeps."""


TABLES: dict[str, str] = {
    "table2": "table2_compute_optimal.csv",
    "table4": "table4_scale_settings.csv",
    "appendix": "appendix_architectures.csv",
}
"""The transcribed tables, by name, and their files."""

_DTYPES: dict[str, object] = {
    "table2": str,
    "table4": {"scale": str},
    "appendix": {"scale": str, "section": str},
}


@lru_cache(maxsize=len(TABLES))
def _read(name: str) -> pd.DataFrame:
    return read_csv("holistic", TABLES[name], dtype=_DTYPES[name])


def read_table(name: str) -> pd.DataFrame:
    """One transcribed table, as printed (a fresh copy).

    Parameters
    ----------
    name
        ``"table2"`` (printed numbers as strings), ``"table4"`` (M target, head and training
        settings per scale) or ``"appendix"`` (Tables 5-21).

    Raises
    ------
    ValueError
        If ``name`` is not one of :data:`TABLES`.
    """
    if name not in TABLES:
        raise ValueError(f"unknown table {name!r}; choose from {sorted(TABLES)}")
    return _read(name).copy()


def table2() -> pd.DataFrame:
    """Table 2: the six compute-optimal (C, M, D) combinations, in base units.

    Columns ``C_EFLOPs_printed``, ``M_GFLOPs_printed``, ``D_billion_tokens_printed`` hold the
    numbers exactly as printed (strings); ``C`` (FLOPs), ``M`` (FLOPs per token) and ``D``
    (tokens) are the same numbers as floats in base units.
    """
    printed = _read("table2")
    frame = printed.rename(columns=lambda c: f"{c}_printed")
    frame["C"] = printed["C_EFLOPs"].astype(float) * 1e18
    frame["M"] = printed["M_GFLOPs"].astype(float) * 1e9
    frame["D"] = printed["D_billion_tokens"].astype(float) * 1e9
    frame.insert(0, "scale", SCALES)
    return frame


def appendix() -> pd.DataFrame:
    """Tables 5-21: the 667 appendix architectures, one row per trained configuration.

    Columns: ``table``, ``section``, ``scale`` (as printed), ``row`` (1-based within the
    table), ``d``, ``L_d``, ``d_d``, ``L_m``, ``d_m``, ``L`` (as printed), ``source_line``
    (line of the paper's text extraction the row was read from) and ``C`` (FLOPs).
    """
    frame = read_table("appendix")
    frame["C"] = frame["scale"].astype(float)
    return frame
