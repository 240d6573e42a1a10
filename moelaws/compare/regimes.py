"""Where each law was fitted, so that its use on a real model can be flagged as extrapolation.

Ranges are computed from the transcribed experiment tables where the paper publishes them
(leverage Tables 8-12, comprehensive Table 8, constrained Table 4 with App. C.1's expert
counts, holistic Table 2's scales); the allocation paper prints no experiment table, so its
range is the one its text states.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

PAPERS: tuple[str, ...] = ("leverage", "holistic", "comprehensive", "constrained", "allocation")
"""The five papers, in the book's chapter order (short identifiers)."""

PAPER_LABELS: dict[str, str] = {
    "leverage": "Efficiency leverage (Tian et al. 2025)",
    "holistic": "Holistic laws (Wan et al. 2026)",
    "comprehensive": "Comprehensive joint law (anon. 2025)",
    "constrained": "Memory/inference-constrained design (Liew et al. 2025)",
    "allocation": "Expert-attention allocation (Li et al. 2026)",
}


@dataclass(frozen=True)
class Range:
    """A fitted interval of one quantity, with its unit and where it comes from."""

    quantity: str
    low: float
    high: float
    source: str

    def describe(self, value: float) -> str | None:
        """A one-line flag if ``value`` lies outside the range, else ``None``."""
        if not math.isfinite(value) or self.low <= value <= self.high:
            return None
        side = "above" if value > self.high else "below"
        return (f"{self.quantity} = {value:.3g} is {side} the fitted range "
                f"[{self.low:.3g}, {self.high:.3g}] ({self.source})")


@lru_cache(maxsize=1)
def fitted_ranges() -> dict[str, dict[str, Range]]:
    """Per paper, the fitted range of each quantity the verdicts check.

    Returns
    -------
    dict
        ``{paper: {quantity: Range}}``. Quantities: ``C`` (training FLOPs in that paper's
        count), ``N`` (total non-embedding parameters), ``D`` (tokens), ``G`` (that paper's
        granularity), ``S`` (allocation sparsity).
    """
    from moelaws import comprehensive as cl
    from moelaws import constrained as con
    from moelaws.constrained import tables as con_tables
    from moelaws.constrained.toy import PAPER_EXPERTS
    from moelaws.holistic.data import SCALES
    from moelaws.leverage import checks

    lev = checks.all_metrics()
    t8 = cl.table8()
    t4 = con_tables.load("table4")
    con_totals = [float(con.total_params(row.l, row.d, n)) for row in t4.itertuples()
                  for n, _ in PAPER_EXPERTS]
    scales = [float(s) for s in SCALES]
    return {
        "leverage": {
            "C": Range("C", float(lev["C_max"].min()), float(lev["C_max"].max()),
                       "Tables 8-12 training budgets"),
            "N": Range("N", float(lev["N"].min()), float(lev["N"].max()), "Tables 8-12"),
            "G": Range("G = 2d/d_e", float(lev["G"].min()), float(lev["G"].max()),
                       "Tables 8-12"),
        },
        "holistic": {
            "C": Range("C", min(scales), max(scales), "Table 2 scales"),
        },
        "comprehensive": {
            "N": Range("N", float(t8["N"].min()), float(t8["N"].max()), "Table 8"),
            "D": Range("D", float(t8["D"].min()), float(t8["D"].max()), "Table 8"),
            "G": Range("G = n_k+n_s", float(t8["G"].min()), float(t8["G"].max()), "Table 8"),
        },
        "constrained": {
            "N": Range("N_total", float(np.min(con_totals)), float(np.max(con_totals)),
                       "Table 4 cores x App. C.1 expert counts, 9B tokens each"),
        },
        "allocation": {
            "C": Range("C", 1e18, 1e21, "text: budgets up to 1e21 training FLOPs"),
            "S": Range("S", 14 / 17, 126 / 129, "App. B.1: E = 17 ... 129, 3 active"),
        },
    }


def flags(paper: str, **values: float) -> list[str]:
    """The out-of-range flags of one paper for the given quantities.

    Parameters
    ----------
    paper
        One of :data:`PAPERS`.
    **values
        Quantities named as in :func:`fitted_ranges` (those the paper has no range for are
        ignored; NaN values are never flagged).

    Returns
    -------
    list of str
        One line per quantity outside its fitted range.

    Raises
    ------
    ValueError
        For an unknown paper.
    """
    if paper not in PAPERS:
        raise ValueError(f"unknown paper {paper!r}; choose from {', '.join(PAPERS)}")
    ranges = fitted_ranges()[paper]
    out = []
    for name, value in values.items():
        if name in ranges and value is not None:
            line = ranges[name].describe(float(value))
            if line:
                out.append(line)
    return out
