"""The papers' granularities translated into one another at a fixed activated width.

Three papers use a letter for expert granularity and mean three different things:

* leverage (Sec. 2.1): ``G = 2·d/d_e``, a width ratio;
* comprehensive (Eq. 2): ``G = n_k + n_s``, the number of activated experts (routed plus
  shared), any width;
* constrained (Sec. 1): ``g = d/d_e``, a width ratio.

They are tied together by the **activated expert width** per token, relative to the model
width, ``w = (activated experts)·d_e/d``: with ``x = d/d_e``, ``G_lev = 2x``, ``g = x`` and
``G_comp = w·x``. Every paper varied its granularity at a fixed ``w`` (leverage Table 9 and
constrained Table 6 keep FLOPs per token fixed, the comprehensive paper keeps N_a fixed while
G moves, Sec. 4.3), so each paper's optimum is an optimum *at its w*, and two optima can be
compared once both are put at the same w. :func:`fitted_widths` reads each paper's w from its
transcribed experiment table; :func:`translate` converts; :func:`optimum_crosswalk` puts the
leverage optimum (Eq. 4), the comprehensive optimum (Eq. 12) and the constrained ablation's
best g (Table 6) in every definition at one w, with each paper's fitted range.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

DEFINITIONS: dict[str, str] = {
    "leverage": "G = 2·d/d_e (width ratio, Sec. 2.1)",
    "comprehensive": "G = n_k + n_s (activated experts, Eq. 2)",
    "constrained": "g = d/d_e (width ratio, Sec. 1)",
}
"""Each paper's definition of its granularity."""

PAPERS: tuple[str, ...] = tuple(DEFINITIONS)


def _check_paper(paper: str) -> None:
    if paper not in DEFINITIONS:
        raise ValueError(f"unknown granularity convention {paper!r}; choose from "
                         f"{', '.join(PAPERS)}")


def _check_width(w: float) -> float:
    if not (isinstance(w, (int, float)) and math.isfinite(w) and w > 0):
        raise ValueError(f"the activated width w must be a positive number, got {w!r}")
    return float(w)


def translate(value: float | np.ndarray, source: str, target: str,
              w: float) -> float | np.ndarray:
    """A granularity in ``source``'s definition expressed in ``target``'s, at activated width w.

    Through ``x = d/d_e``: ``G_lev = 2x``, ``g_con = x``, ``G_comp = w·x``.

    Parameters
    ----------
    value
        Granularity in the source paper's definition (positive).
    source, target
        ``"leverage"``, ``"comprehensive"`` or ``"constrained"``.
    w
        Activated expert width per token over the model width, ``(activated experts)·d_e/d``.

    Raises
    ------
    ValueError
        For an unknown paper, a non-positive value or width.
    """
    _check_paper(source)
    _check_paper(target)
    w = _check_width(w)
    arr = np.asarray(value, dtype=float)
    if np.any(~np.isfinite(arr)) or np.any(arr <= 0):
        raise ValueError("a granularity must be positive and finite")
    per_width = {"leverage": 2.0, "constrained": 1.0, "comprehensive": w}
    out = arr / per_width[source] * per_width[target]
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
    from moelaws.comprehensive.tables import read_table
    from moelaws.constrained.tables import load
    from moelaws.leverage.tables import load_configs

    t9 = load_configs(9)
    lev = (t9["E_a"] + t9["E_s"]) * t9["d_expert"] / t9["d_model"]
    t1 = read_table("table1")
    comp = (t1["n_activated_routed"] + t1["n_shared"]) * t1["d_expert"] / t1["d_hidden"]
    t6 = load("table6")
    con = t6["n_topk"].astype(float) / t6["g"].astype(float)
    rows = [
        ("leverage", lev, "Table 9: (E_a + E_s)·d_expert/d_model"),
        ("comprehensive", comp, "Table 1: (n_k + n_s)·d_expert/d_hidden"),
        ("constrained", con, "Table 6: n_topk/g"),
    ]
    return pd.DataFrame(
        [{"paper": p, "w low": float(v.min()), "w high": float(v.max()), "source": s}
         for p, v, s in rows]).set_index("paper")


def fitted_sparsities() -> pd.DataFrame:
    """The sparsity at which the leverage and comprehensive papers swept their granularity.

    Both laws assume that the optimal granularity does not depend on sparsity; neither
    tested that at the other's sparsity. Leverage: Table 9's activation ratio
    ``A = (E_a + E_s)/(E + E_s)`` (Sec. 2.1; E grows with G, so A is fixed). Comprehensive:
    ``N_a/N`` of Table 8's granularity sweeps (its rows marked for the marginal G fit).

    Returns
    -------
    pandas.DataFrame
        One row per paper: ``measure``, ``low``, ``median``, ``high``, ``source``.
    """
    from moelaws.comprehensive.tables import table8
    from moelaws.leverage.tables import load_configs

    t9 = load_configs(9)
    lev = (t9["E_a"] + t9["E_s"]) / (t9["E"] + t9["E_s"])
    t8 = table8()
    sweeps = t8[t8["role"] == "marginal_G"]
    comp = sweeps["Na"] / sweeps["N"]
    rows = [
        ("leverage", "A = (E_a+E_s)/(E+E_s)", lev, "Table 9"),
        ("comprehensive", "N_a/N", comp, "Table 8, G-sweep rows"),
    ]
    return pd.DataFrame(
        [{"paper": p, "measure": m, "low": float(v.min()), "median": float(v.median()),
          "high": float(v.max()), "source": s} for p, m, v, s in rows]).set_index("paper")


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
    from moelaws.comprehensive.optima import optimal_G
    from moelaws.constrained.tables import load
    from moelaws.leverage.law import optimal_granularity

    rows = [
        {"label": "leverage", "paper": "leverage",
         "optimum (own definition)": float(optimal_granularity(0.031)),
         "how": "Eq. 4 with Table 6: G* = 2^(−β/2γ)"},
        {"label": "comprehensive", "paper": "comprehensive",
         "optimum (own definition)": optimal_G(), "how": "Eq. 12 with Table 2: √(f/e)"},
    ]
    t6 = load("table6")
    t6 = t6.assign(loss_value=t6["loss"].astype(float))
    for (layers, width), group in t6.groupby(["l", "d"], sort=True):
        best = group.loc[group["loss_value"].idxmin()]
        rows.append({"label": f"constrained (l={layers}, d={width})", "paper": "constrained",
                     "optimum (own definition)": float(best["g"]),
                     "how": "Table 6 ablation: lowest loss (seed noise 0.4 %)"})
    return pd.DataFrame(rows).set_index("label")


def fitted_granularity_ranges() -> dict[str, tuple[float, float]]:
    """Each paper's fitted granularity range in its own definition.

    Leverage and comprehensive from :func:`moelaws.compare.regimes.fitted_ranges` (Tables 8-12
    and Table 8); constrained: Eq. 3 was fitted at g = 4 only (Sec. 2.1, Table 4), so its range
    is the single point 4.
    """
    from moelaws.compare.regimes import fitted_ranges

    ranges = fitted_ranges()
    return {
        "leverage": (ranges["leverage"]["G"].low, ranges["leverage"]["G"].high),
        "comprehensive": (ranges["comprehensive"]["G"].low, ranges["comprehensive"]["G"].high),
        "constrained": (4.0, 4.0),
    }


def optimum_crosswalk(w: float = 3.0) -> pd.DataFrame:
    """Every paper's optimal granularity in every paper's definition, at activated width w.

    Parameters
    ----------
    w
        Activated expert width over model width (default 3, the leverage paper's Table 9).

    Returns
    -------
    pandas.DataFrame
        One row per optimum of :func:`optima`; columns ``G_lev = 2d/d_e``,
        ``G_comp = n_k+n_s``, ``g = d/d_e``, ``d_e/d`` and, per paper with a fitted range,
        ``inside <paper>'s fitted G`` (whether the translated value lies in that paper's
        range of :func:`fitted_granularity_ranges`).

    Raises
    ------
    ValueError
        For a non-positive width.
    """
    w = _check_width(w)
    ranges = fitted_granularity_ranges()
    rows = []
    for label, row in optima().iterrows():
        value = row["optimum (own definition)"]
        out = {"label": label, "own value": value,
               "G_lev = 2d/d_e": translate(value, row["paper"], "leverage", w),
               "G_comp = n_k+n_s": translate(value, row["paper"], "comprehensive", w),
               "g = d/d_e": translate(value, row["paper"], "constrained", w)}
        out["d_e/d"] = 1.0 / out["g = d/d_e"]
        for paper in ("leverage", "comprehensive"):
            col = {"leverage": "G_lev = 2d/d_e", "comprehensive": "G_comp = n_k+n_s"}[paper]
            lo, hi = ranges[paper]
            out[f"inside {paper}'s fitted G"] = bool(lo <= out[col] <= hi)
        rows.append(out)
    return pd.DataFrame(rows).set_index("label")


def cross_costs(w: float = 3.0, *, N: float = 2.4e9, Na: float = 4.76e8, S: float = 0.2,
                A: float = 0.031, C: float = 3e20) -> pd.DataFrame:
    """What each law says the other's optimal granularity costs, at activated width w.

    The comprehensive law (Eq. 11) prices the leverage optimum, translated to
    ``G_comp = w·G*/2``, as a loss excess over its own ``G_opt`` at (N, N_a, S) (D cancels);
    the leverage law (Eq. 4) prices the comprehensive optimum, translated to
    ``G_lev = 2·G_opt/w``, as a relative loss of efficiency leverage at (A, C). The defaults
    lie inside both fitted domains: Table 1's 2.4B model (N_a = 476M, S = 0.2), and
    A = 3.1 % at 3e20 FLOPs (leverage Fig. 4b).

    Returns
    -------
    pandas.DataFrame
        Two rows (``comprehensive prices leverage's optimum``, ``leverage prices
        comprehensive's optimum``), columns ``other's optimum (own units)``, ``translated``,
        ``at own optimum``, ``at translated``, ``cost`` and ``unit``.

    Raises
    ------
    ValueError
        For a non-positive width or invalid law inputs.
    """
    from moelaws.comprehensive.law import loss
    from moelaws.comprehensive.optima import optimal_G
    from moelaws.leverage.law import efficiency_leverage, optimal_granularity

    w = _check_width(w)
    g_star, g_opt = float(optimal_granularity(A)), optimal_G()
    g_comp = translate(g_star, "leverage", "comprehensive", w)
    g_lev = translate(g_opt, "comprehensive", "leverage", w)
    l_own = float(loss(N, 1e11, Na, g_opt, S))
    l_other = float(loss(N, 1e11, Na, g_comp, S))
    el_own = float(efficiency_leverage(A, g_star, C))
    el_other = float(efficiency_leverage(A, g_lev, C))
    rows = [
        {"label": "comprehensive prices leverage's optimum", "other's optimum (own units)":
         g_star, "translated": g_comp, "at own optimum": l_own, "at translated": l_other,
         "cost": l_other - l_own, "unit": "nats of Eq. 11 loss"},
        {"label": "leverage prices comprehensive's optimum", "other's optimum (own units)":
         g_opt, "translated": g_lev, "at own optimum": el_own, "at translated": el_other,
         "cost": 1 - el_other / el_own, "unit": "fraction of Eq. 4 EL lost"},
    ]
    return pd.DataFrame(rows).set_index("label")


__all__ = [
    "DEFINITIONS",
    "PAPERS",
    "cross_costs",
    "fitted_granularity_ranges",
    "fitted_sparsities",
    "fitted_widths",
    "optima",
    "optimum_crosswalk",
    "translate",
]


from moelaws.validation import guard_public  # noqa: E402

guard_public(globals(), __all__)
