"""The papers' granularities translated into one another at a fixed activated width.

The papers that use a letter for expert granularity (their adapter's role ``granularity``,
:class:`moelaws.roles.Granularity`) mean different things by it: the leverage paper's
``G = 2·d/d_e`` (Sec. 2.1) and the constrained paper's ``g = d/d_e`` (Sec. 1) are width
ratios, the comprehensive paper's ``G = n_k + n_s`` (Eq. 2) is the number of activated
experts (routed plus shared), any width.

They are tied together by the **activated expert width** per token, relative to the model
width, ``w = (activated experts)·d_e/d``: with ``x = d/d_e``, each definition is ``x`` times
a factor of w (``G_lev = 2x``, ``g = x``, ``G_comp = w·x``). Every paper varied its
granularity at a fixed ``w`` (leverage Table 9 and constrained Table 6 keep FLOPs per token
fixed, the comprehensive paper keeps N_a fixed while G moves, Sec. 4.3), so each paper's
optimum is an optimum *at its w*, and two optima can be compared once both are put at the
same w. :func:`fitted_widths` reads each paper's w from its transcribed experiment table;
:func:`translate` converts; :func:`optimum_crosswalk` puts every paper's optimum (the
leverage optimum of Eq. 4, the comprehensive optimum of Eq. 12, the constrained ablation's
best g of Table 6) in every definition at one w, with each paper's fitted range.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from moelaws import papers
from moelaws.roles import Granularity


def _defining() -> tuple[papers.Paper, ...]:
    return papers.having("granularity")


def definitions() -> dict[str, str]:
    """Each paper's definition of its granularity, by paper id, in reading order."""
    return {p.id: p.granularity.definition for p in _defining()}


def _role(paper: str) -> Granularity:
    for p in _defining():
        if p.id == paper:
            return p.granularity
    raise ValueError(f"unknown granularity convention {paper!r}; choose from "
                     f"{', '.join(p.id for p in _defining())}")


def _check_width(w: float) -> float:
    if not (isinstance(w, (int, float)) and math.isfinite(w) and w > 0):
        raise ValueError(f"the activated width w must be a positive number, got {w!r}")
    return float(w)


def translate(value: float | np.ndarray, source: str, target: str,
              w: float) -> float | np.ndarray:
    """A granularity in ``source``'s definition expressed in ``target``'s, at activated width w.

    Through ``x = d/d_e``: ``G_lev = 2x``, ``g_con = x``, ``G_comp = w·x`` (each paper's
    factor is its role's ``per_width``).

    Parameters
    ----------
    value
        Granularity in the source paper's definition (positive).
    source, target
        Ids of papers with a ``granularity`` role (``"leverage"``, ``"comprehensive"``,
        ``"constrained"``).
    w
        Activated expert width per token over the model width, ``(activated experts)·d_e/d``.

    Raises
    ------
    ValueError
        For an unknown paper, a non-positive value or width.
    """
    source_role, target_role = _role(source), _role(target)
    w = _check_width(w)
    arr = np.asarray(value, dtype=float)
    if np.any(~np.isfinite(arr)) or np.any(arr <= 0):
        raise ValueError("a granularity must be positive and finite")
    out = arr / source_role.per_width(w) * target_role.per_width(w)
    return float(out) if out.ndim == 0 else out


def fitted_widths() -> pd.DataFrame:
    """The activated width w at which each paper varied its granularity, from its tables.

    Leverage: Table 9, ``(E_a + E_s)·d_expert/d_model``. Comprehensive: Table 1's five model
    sizes, ``(n_k + n_s)·d_expert/d_hidden`` (its G sweeps hold N_a, hence w, fixed; Table 1
    is the only table that prints widths). Constrained: Table 6, ``n_topk/g``.

    Returns
    -------
    pandas.DataFrame
        One row per paper: ``w low``, ``w high``, ``source``.
    """
    rows = []
    for paper in _defining():
        widths, source = paper.granularity.widths()
        rows.append({"paper": paper.id, "w low": float(widths.min()),
                     "w high": float(widths.max()), "source": source})
    return pd.DataFrame(rows).set_index("paper")


def fitted_sparsities() -> pd.DataFrame:
    """The sparsity at which the papers that swept their granularity did so.

    The laws of G assume that the optimal granularity does not depend on sparsity; neither
    tested that at the other's sparsity. Leverage: Table 9's activation ratio
    ``A = (E_a + E_s)/(E + E_s)`` (Sec. 2.1; E grows with G, so A is fixed). Comprehensive:
    ``N_a/N`` of Table 8's granularity sweeps (its rows marked for the marginal G fit).

    Returns
    -------
    pandas.DataFrame
        One row per paper with a sweep: ``measure``, ``low``, ``median``, ``high``,
        ``source``.
    """
    rows = []
    for paper in _defining():
        if paper.granularity.sweep_sparsity is None:
            continue
        measure, values, source = paper.granularity.sweep_sparsity()
        rows.append({"paper": paper.id, "measure": measure, "low": float(values.min()),
                     "median": float(values.median()), "high": float(values.max()),
                     "source": source})
    return pd.DataFrame(rows).set_index("paper")


def optima() -> pd.DataFrame:
    """Each paper's optimal granularity in its own definition, computed from its material.

    Leverage: ``G* = 2^(−β/2γ)`` of Eq. 4 with Table 6's coefficients. Comprehensive:
    ``G_opt = √(f/e)`` of Eq. 12 with Table 2's constants. Constrained: the g with the lowest
    loss in each model of the Table 6 ablation (an ablation's best point, not a fitted law).

    Returns
    -------
    pandas.DataFrame
        Rows ``leverage``, ``comprehensive``, ``constrained (l=8, d=384)``,
        ``constrained (l=18, d=1024)``; columns ``paper``, ``optimum (own definition)``,
        ``how``.
    """
    rows = []
    for paper in _defining():
        for optimum in paper.granularity.optima():
            rows.append({"label": optimum["label"], "paper": paper.id,
                         "optimum (own definition)": optimum["optimum (own definition)"],
                         "how": optimum["how"]})
    return pd.DataFrame(rows).set_index("label")


def fitted_granularity_ranges() -> dict[str, tuple[float, float]]:
    """Each paper's fitted granularity range in its own definition.

    Leverage and comprehensive from their fitted ranges (Tables 8-12 and Table 8, as in
    :func:`moelaws.compare.regimes.fitted_ranges`); constrained: Eq. 3 was fitted at g = 4
    only (Sec. 2.1, Table 4), so its range is the single point 4.
    """
    return {p.id: p.granularity.fitted_range() for p in _defining()}


def optimum_crosswalk(w: float = 3.0) -> pd.DataFrame:
    """Every paper's optimal granularity in every paper's definition, at activated width w.

    Parameters
    ----------
    w
        Activated expert width over model width (default 3, the leverage paper's Table 9).

    Returns
    -------
    pandas.DataFrame
        One row per optimum of :func:`optima`; columns ``own value``, each paper's
        definition (``G_lev = 2d/d_e``, ``G_comp = n_k+n_s``, ``g = d/d_e``), ``d_e/d`` and,
        per paper fitted over a range of granularities (not at a single one), ``inside
        <paper>'s fitted G`` (whether the translated value lies in that paper's range of
        :func:`fitted_granularity_ranges`).

    Raises
    ------
    ValueError
        For a non-positive width.
    """
    w = _check_width(w)
    ranges = fitted_granularity_ranges()
    ranged = [p for p in _defining() if ranges[p.id][0] < ranges[p.id][1]]
    rows = []
    for label, row in optima().iterrows():
        value = row["optimum (own definition)"]
        out = {"label": label, "own value": value}
        for paper in _defining():
            out[paper.granularity.column] = translate(value, row["paper"], paper.id, w)
        out["d_e/d"] = 1.0 / (value / _role(row["paper"]).per_width(w))
        for paper in ranged:
            lo, hi = ranges[paper.id]
            out[f"inside {paper.id}'s fitted G"] = bool(
                lo <= out[paper.granularity.column] <= hi)
        rows.append(out)
    return pd.DataFrame(rows).set_index("label")


def cross_costs(w: float = 3.0, *, N: float = 2.4e9, Na: float = 4.76e8, S: float = 0.2,
                A: float = 0.031, C: float = 3e20) -> pd.DataFrame:
    """What each law says another's optimal granularity costs, at activated width w.

    For each pair of papers with a law of G (role ``granularity.price``): the comprehensive
    law (Eq. 11) prices the leverage optimum, translated to ``G_comp = w·G*/2``, as a loss
    excess over its own ``G_opt`` at (N, N_a, S) (D cancels); the leverage law (Eq. 4) prices
    the comprehensive optimum, translated to ``G_lev = 2·G_opt/w``, as a relative loss of
    efficiency leverage at (A, C). The defaults lie inside both fitted domains: Table 1's
    2.4B model (N_a = 476M, S = 0.2), and A = 3.1 % at 3e20 FLOPs (leverage Fig. 4b).

    Returns
    -------
    pandas.DataFrame
        One row per ordered pair, labelled ``<pricing paper> prices <other>'s optimum`` (the
        optimum priced in reading order: ``comprehensive prices leverage's optimum``, then
        ``leverage prices comprehensive's optimum``); columns ``other's optimum (own
        units)``, ``translated``, ``at own optimum``, ``at translated``, ``cost`` and
        ``unit``.

    Raises
    ------
    ValueError
        For a non-positive width or invalid law inputs.
    """
    w = _check_width(w)
    at = {"N": N, "Na": Na, "S": S, "A": A, "C": C}
    pricing = [p for p in _defining() if p.granularity.price is not None]
    rows = []
    for other in pricing:
        other_optimum = other.granularity.price.optimum(at)
        for paper in pricing:
            if paper is other:
                continue
            price = paper.granularity.price
            translated = translate(other_optimum, other.id, paper.id, w)
            own = price.value(price.optimum(at), at)
            at_other = price.value(translated, at)
            rows.append({"label": f"{paper.id} prices {other.id}'s optimum",
                         "other's optimum (own units)": other_optimum,
                         "translated": translated, "at own optimum": own,
                         "at translated": at_other, "cost": price.cost(own, at_other),
                         "unit": price.unit})
    return pd.DataFrame(rows).set_index("label")


__all__ = [
    "cross_costs",
    "definitions",
    "fitted_granularity_ranges",
    "fitted_sparsities",
    "fitted_widths",
    "optima",
    "optimum_crosswalk",
    "translate",
]


from moelaws.validation import guard_public  # noqa: E402

guard_public(globals(), __all__)
