"""The holistic paper's statements checked against its own appendix tables and laws (the
paper against itself).

Everything here is computed from the transcribed tables (``moelaws.holistic.tables``) with the
paper's formulas (``moelaws.holistic.law``, ``moelaws.holistic.feasible``). Our power-law fits
of the laws the paper shows only as figures (Fig. 5b, Fig. 6b) are in
:mod:`moelaws.holistic.fits`.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from functools import lru_cache

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike

from moelaws.fit import fit_power_law
from moelaws.holistic.feasible import feasible_d_range
from moelaws.holistic.law import (
    EQ2_D_COEF,
    EQ2_D_EXP,
    EQ2_M_COEF,
    EQ2_M_EXP,
    N_EXPERTS,
    SEQ_LEN,
    TOP_K,
    VOCAB_SIZE,
    counts,
    optimal_flops_per_token,
    optimal_tokens,
    table4_heads,
)
from moelaws.holistic.tables import SCALES, appendix, read_table, table2

GRID_M_OVER_NA: tuple[int, ...] = (7, 8, 9, 11, 14, 17)
"""Sec. 5.2: the six sampled M/N_a values (outer order of Tables 9-14)."""
GRID_N_OVER_NA: tuple[int, ...] = (12, 16, 20, 22, 26, 30)
"""Sec. 5.2: the six sampled N/N_a values (inner order of Tables 9-14)."""
F4_CHOSEN_N_OVER_NA: dict[str, str] = {
    "1e18": "19", "3e18": "20", "1e19": "21", "3e19": "21", "1e20": "22", "3e20": "22",
}
"""App. F.4: the N/N_a chosen per scale for the later experiments, as printed."""
F4_FITTED_N_OVER_NA: dict[str, str] = {
    "1e18": "19.23", "3e18": "19.33", "1e19": "20.69", "3e19": "20.78", "1e20": "21.29",
    "3e20": "22.07",
}
"""App. F.4: the loss-fitted optimal N/N_a per scale, as printed (needs losses: not
recomputable)."""
SWEEP_TABLES: dict[str, int] = dict(zip(SCALES, range(16, 22), strict=True))
"""The hidden-size sweep (Sec. 6) of each scale."""
GRID_TABLES: dict[str, int] = dict(zip(SCALES, range(9, 15), strict=True))
"""The 6x6 grid (Sec. 5.2) of each scale."""


# --- Eq. 2 and Table 2 ----------------------------------------------------------------------


def eq2_table2() -> pd.DataFrame:
    """Table 2 side by side with Eq. 2 evaluated at its six budgets.

    Columns: printed C, M, D; our M (GFLOPs) and D (billions) rounded as Table 2 rounds them,
    the differences in units of the last printed digit, and M·D/C.
    """
    t2 = table2()
    m = optimal_flops_per_token(t2["C"].to_numpy()) / 1e9
    d = optimal_tokens(t2["C"].to_numpy()) / 1e9
    return pd.DataFrame(
        {
            "C (EFLOPs)": t2["C_EFLOPs_printed"],
            "M paper (GFLOPs)": t2["M_GFLOPs_printed"],
            "M Eq. 2 (GFLOPs)": m,
            "M diff (last digits)": (m - t2["M"] / 1e9) / 1e-4,
            "D paper (B tokens)": t2["D_billion_tokens_printed"],
            "D Eq. 2 (B tokens)": d,
            "D diff (last digits)": (d - t2["D"] / 1e9) / 1e-4,
            "M·D/C paper": t2["M"] * t2["D"] / t2["C"],
        }
    )


@lru_cache(maxsize=1)
def refit_eq2() -> dict[str, float]:
    """Our refit of Eq. 2 from Table 2's six rows.

    Log-space OLS of M and of D on C (free coefficient and exponent), and least squares for
    the coefficient alone with the exponent fixed at the printed value.
    """
    t2 = table2()
    c, m, d = (t2[k].to_numpy(dtype=float) for k in ("C", "M", "D"))
    fm, fd = fit_power_law(c, m), fit_power_law(c, d)
    return {
        "M_coef": fm.coef,
        "M_exp": fm.exponent,
        "M_exp_se": fm.exponent_se,
        "D_coef": fd.coef,
        "D_exp": fd.exponent,
        "D_exp_se": fd.exponent_se,
        "M_coef_at_printed_exp": float(np.exp(np.mean(np.log(m) - EQ2_M_EXP * np.log(c)))),
        "D_coef_at_printed_exp": float(np.exp(np.mean(np.log(d) - EQ2_D_EXP * np.log(c)))),
    }


def eq2_consistent_coefficients(quantity: str = "M", n_grid: int = 4001) -> pd.DataFrame:
    """Unrounded (coefficient, exponent) pairs that reproduce all six Table 2 entries.

    For each exponent b on a grid around the printed one (± one unit of its last digit), the
    interval of coefficients a for which a·C^b rounds to every printed Table 2 value (half a
    unit of the 4th decimal). Returns the exponents with a non-empty interval and its bounds.

    Raises
    ------
    ValueError
        If ``quantity`` is not ``"M"`` or ``"D"``.
    """
    if quantity not in ("M", "D"):
        raise ValueError("quantity must be 'M' or 'D'")
    t2 = table2()
    c = t2["C"].to_numpy(dtype=float)
    y = t2[quantity].to_numpy(dtype=float)
    half = 0.5e-4 * 1e9
    b0 = EQ2_M_EXP if quantity == "M" else EQ2_D_EXP
    b = np.linspace(b0 - 1e-4, b0 + 1e-4, n_grid)[:, None]
    lo = ((y - half) / c**b).max(axis=1)
    hi = ((y + half) / c**b).min(axis=1)
    keep = lo <= hi
    return pd.DataFrame({"exponent": b[keep, 0], "coef_min": lo[keep], "coef_max": hi[keep]})


def eq2_consistent_with_printed(quantity: str = "M") -> bool:
    """Whether some unrounded pair that prints as Eq. 2's coefficients reproduces Table 2."""
    frame = eq2_consistent_coefficients(quantity)
    coef = EQ2_M_COEF if quantity == "M" else EQ2_D_COEF
    exp = EQ2_M_EXP if quantity == "M" else EQ2_D_EXP
    coef_half = 0.5e-5 if quantity == "M" else 0.5e-4
    ok = (
        (frame["exponent"] >= exp - 0.5e-4)
        & (frame["exponent"] < exp + 0.5e-4)
        & (frame["coef_max"] >= coef - coef_half)
        & (frame["coef_min"] < coef + coef_half)
    )
    return bool(ok.any())


# --- every appendix row with its counts -----------------------------------------------------


@lru_cache(maxsize=1)
def _appendix_counts() -> pd.DataFrame:
    frame = appendix()
    t4 = read_table("table4").set_index("scale")
    parts = []
    for scale, rows in frame.groupby("scale", sort=False):
        heads = table4_heads(scale)
        c = counts(
            rows["d"].to_numpy(), rows["L_d"].to_numpy(), rows["L_m"].to_numpy(),
            rows["d_m"].to_numpy(), **heads.as_kwargs(),
        )
        parts.append(
            rows.assign(
                d_qkv=heads.d_qkv, N_q=heads.n_q, N_kv=heads.n_kv, N_a=c.N_a, N=c.N, M=c.M,
                M_target=float(t4.loc[scale, "M_GFLOPs"]) * 1e9,
            )
        )
    out = pd.concat(parts).sort_index()
    out["M_dev"] = out["M"] / out["M_target"] - 1
    out["M/N_a"] = out["M"] / out["N_a"]
    out["N/N_a"] = out["N"] / out["N_a"]
    return out


def appendix_counts() -> pd.DataFrame:
    """Every appendix row with M, N_a, N (Eq. 3, Table 4 heads of its scale), the target M of
    its scale (Table 2/4), the relative deviation ``M_dev`` and the coordinates M/N_a, N/N_a."""
    return _appendix_counts().copy()


# --- the ±5 % statement on M (Table 4 note) -------------------------------------------------


def m_tolerance_by_table(tolerance: float = 0.05) -> pd.DataFrame:
    """Per appendix table: how many rows have M within ``tolerance`` of their scale's target.

    Columns: table, section, scales, rows, within, share, min/max relative deviation (%) and
    the largest absolute deviation (%).

    Raises
    ------
    ValueError
        If ``tolerance`` is not positive.
    """
    if not tolerance > 0:
        raise ValueError("tolerance must be positive")
    frame = _appendix_counts()
    grouped = frame.groupby("table")
    out = pd.DataFrame(
        {
            "section": grouped["section"].first(),
            "scales": grouped["scale"].agg(lambda s: ", ".join(dict.fromkeys(s))),
            "rows": grouped.size(),
            "within": grouped["M_dev"].agg(lambda s: int((s.abs() <= tolerance).sum())),
            "min dev (%)": grouped["M_dev"].min() * 100,
            "max dev (%)": grouped["M_dev"].max() * 100,
            "max |dev| (%)": grouped["M_dev"].agg(lambda s: s.abs().max()) * 100,
        }
    )
    out["share"] = out["within"] / out["rows"]
    return out.reset_index()


def max_abs_m_deviation(table: int) -> float:
    """Largest |M/M_target − 1| over one appendix table's rows, in percent.

    Raises
    ------
    ValueError
        If ``table`` is not one of Tables 5-21.
    """
    frame = _appendix_counts()
    rows = frame[frame["table"] == table]
    if rows.empty:
        raise ValueError(f"Table {table} is not an appendix architecture table (5-21)")
    return float(rows["M_dev"].abs().max() * 100)


def transcription_checks() -> dict[str, float]:
    """Checks that can catch a mistyped appendix row (Tables 5-21), unlike solving Eq. 3
    backwards from the row's own counts (which returns any tuple of numbers unchanged).

    Returns the number of rows, how many satisfy ``d_d = 3d`` and ``L = L_d + L_m`` (both
    redundant columns of every table), and the smallest and largest per-table median
    |M/N_a − grid value| (%) of the Sec. 5.2 grid rows (Tables 9-14).
    """
    frame = appendix()
    grid = grid_summary()["median |M/N_a dev| (%)"]
    return {
        "rows": float(len(frame)),
        "d_d = 3d": float((frame["d_d"] == 3 * frame["d"]).sum()),
        "L = L_d + L_m": float((frame["L"] == frame["L_d"] + frame["L_m"]).sum()),
        "grid median |M/N_a dev| min (%)": float(grid.min()),
        "grid median |M/N_a dev| max (%)": float(grid.max()),
    }


def m_tolerance_by_block(tolerance: float = 0.05) -> pd.DataFrame:
    """Like :func:`m_tolerance_by_table`, but per (table, scale) block: Table 15 pools six
    scales, so counting per table hides blocks that keep the band.

    Raises
    ------
    ValueError
        If ``tolerance`` is not positive.
    """
    if not tolerance > 0:
        raise ValueError("tolerance must be positive")
    grouped = _appendix_counts().groupby(["table", "scale"], sort=False)
    out = pd.DataFrame(
        {
            "rows": grouped.size(),
            "max |dev| (%)": grouped["M_dev"].agg(lambda s: s.abs().max()) * 100,
        }
    )
    out["within"] = out["max |dev| (%)"] <= tolerance * 100
    return out.reset_index()


# --- Sec. 4.3: ten configurations swept over d ----------------------------------------------


def sec43_configurations() -> pd.DataFrame:
    """Tables 5-8 rows with a ``config`` number.

    The tables do not mark where one configuration ends. Each configuration's d sweep runs
    upwards and keeps M/N_a within a few percent, so a drop in d or a jump of M/N_a by more
    than 20 % starts the next one (sweeps continue across table breaks).
    """
    frame = _appendix_counts()
    rows = frame[frame["section"] == "4.3"].copy()
    jump = np.abs(np.log(rows["M/N_a"]).diff()) > np.log(1.2)
    rows["config"] = ((rows["d"].diff() < 0) | jump).cumsum() + 1
    return rows


def sec43_summary() -> pd.DataFrame:
    """Per Sec. 4.3 configuration: rows, median M/N_a and N/N_a, swept d range, layer counts."""
    rows = sec43_configurations()
    grouped = rows.groupby("config")
    return pd.DataFrame(
        {
            "tables": grouped["table"].agg(lambda s: ", ".join(map(str, dict.fromkeys(s)))),
            "rows": grouped.size(),
            "M/N_a": grouped["M/N_a"].median(),
            "N/N_a": grouped["N/N_a"].median(),
            "d min": grouped["d"].min(),
            "d max": grouped["d"].max(),
            "L": grouped["L"].agg(lambda s: ", ".join(map(str, sorted(set(s))))),
        }
    ).reset_index()


# --- Sec. 5.2: the 6x6 grids ----------------------------------------------------------------


def grid_assignment() -> pd.DataFrame:
    """Tables 9-14 rows with their grid point by position (M/N_a outer, N/N_a inner, as
    Sec. 5.2 lists them) and by nearness (nearest sampled value of each coordinate), and the
    relative deviations of the realised coordinates from the positional grid point."""
    frame = _appendix_counts()
    rows = frame[frame["section"] == "5.2"].copy()
    index = rows["row"].to_numpy() - 1
    rows["grid M/N_a"] = np.asarray(GRID_M_OVER_NA)[index // 6]
    rows["grid N/N_a"] = np.asarray(GRID_N_OVER_NA)[index % 6]
    for coord, grid in (("M/N_a", GRID_M_OVER_NA), ("N/N_a", GRID_N_OVER_NA)):
        values = rows[coord].to_numpy()[:, None]
        nearest = np.asarray(grid)[np.abs(np.log(values / np.asarray(grid))).argmin(axis=1)]
        rows[f"nearest {coord}"] = nearest
        rows[f"{coord} dev (%)"] = (rows[coord] / rows[f"grid {coord}"] - 1) * 100
    return rows


def grid_summary() -> pd.DataFrame:
    """Per grid table: distinct nearest grid cells, rows whose nearest cell is their positional
    cell, and the largest relative deviations of the realised coordinates (%)."""
    rows = grid_assignment()
    rows["cell"] = list(zip(rows["nearest M/N_a"], rows["nearest N/N_a"], strict=True))
    rows["match"] = (rows["nearest M/N_a"] == rows["grid M/N_a"]) & (
        rows["nearest N/N_a"] == rows["grid N/N_a"]
    )
    grouped = rows.groupby("table")
    return pd.DataFrame(
        {
            "scale": grouped["scale"].first(),
            "rows": grouped.size(),
            "distinct cells": grouped["cell"].nunique(),
            "positional = nearest": grouped["match"].sum(),
            "max |M/N_a dev| (%)": grouped["M/N_a dev (%)"].agg(lambda s: s.abs().max()),
            "median |M/N_a dev| (%)": grouped["M/N_a dev (%)"].agg(lambda s: s.abs().median()),
            "max |N/N_a dev| (%)": grouped["N/N_a dev (%)"].agg(lambda s: s.abs().max()),
            "median |N/N_a dev| (%)": grouped["N/N_a dev (%)"].agg(lambda s: s.abs().median()),
        }
    ).reset_index()


def grid_quantisation(tolerance: float = 0.05) -> pd.DataFrame:
    """Why M misses its ±5 % in Tables 9-14: with M/N_a = r exactly, Eq. 3 gives
    M = r/(r − 6)·6·S·N_q·d_qkv·L, so M can only move in steps of one layer.

    Adds, per grid row: the M that the grid value r and the row's L imply, the integer L that
    brings that M closest to the target, and whether any integer L gets within ``tolerance``.
    """
    rows = grid_assignment()
    r = rows["grid M/N_a"].to_numpy(dtype=float)
    per_layer = 6.0 * SEQ_LEN * rows["N_q"].to_numpy() * rows["d_qkv"].to_numpy() * r / (r - 6)
    target = rows["M_target"].to_numpy()
    rows["M at grid r, row L (dev %)"] = (per_layer * rows["L"].to_numpy() / target - 1) * 100
    best_L = np.maximum(np.round(target / per_layer), 1)
    rows["best L at grid r"] = best_L.astype(int)
    best_dev = per_layer * best_L / target - 1
    rows["best dev at grid r (%)"] = best_dev * 100
    rows["5% attainable at grid r"] = np.abs(best_dev) <= tolerance
    return rows


def grid_m_miss_breakdown(tolerance: float = 0.05) -> dict[str, int]:
    """How many Sec. 5.2 grid rows miss Table 4's ±``tolerance`` band on M, and how many of
    those sit in a (scale, M/N_a) pair where no integer L reaches the band at the exact grid
    value (quantisation forces the miss) versus one where some integer L would have.
    """
    rows = grid_quantisation(tolerance)
    out_of_band = rows["M_dev"].abs() > tolerance
    forced = out_of_band & ~rows["5% attainable at grid r"]
    return {
        "rows": len(rows),
        "out of band": int(out_of_band.sum()),
        "forced by whole layers": int(forced.sum()),
        "avoidable": int((out_of_band & ~forced).sum()),
    }


def majority_side(below: ArrayLike, above: ArrayLike) -> np.ndarray:
    """``"below"``, ``"above"`` or ``"tie"`` for counts of rows below and above a target."""
    below, above = np.asarray(below), np.asarray(above)
    return np.select([below > above, above > below], ["below", "above"], default="tie")


def m_sign_by_scale(tables: Iterable[int]) -> pd.DataFrame:
    """Per scale, the sign pattern of the M deviations of the rows of ``tables`` (appendix
    table numbers): rows below and above the target and the median, smallest and largest
    deviation (%), scales in their order of appearance.

    Raises
    ------
    ValueError
        If none of ``tables`` is an appendix table.
    """
    frame = _appendix_counts()
    rows = frame[frame["table"].isin(list(tables))]
    if rows.empty:
        raise ValueError("no appendix rows in the given tables")
    grouped = rows.groupby("scale", sort=False)["M_dev"]
    return pd.DataFrame(
        {
            "rows": grouped.size(),
            "below target": grouped.agg(lambda s: int((s < 0).sum())),
            "above target": grouped.agg(lambda s: int((s > 0).sum())),
            "median dev (%)": grouped.median() * 100,
            "min dev (%)": grouped.min() * 100,
            "max dev (%)": grouped.max() * 100,
        }
    ).reset_index()


def grid_m_sign_by_scale() -> pd.DataFrame:
    """:func:`m_sign_by_scale` of the Sec. 5.2 grids (Tables 9-14). Whole-layer quantisation
    scatters M on both sides of the target; a one-signed scale does not."""
    return m_sign_by_scale(GRID_TABLES.values())


# --- Sec. 6: the d sweeps and the optimal (M, N_a, N) they are built on ---------------------


@lru_cache(maxsize=1)
def _sweep_targets() -> pd.DataFrame:
    frame = _appendix_counts()
    records = []
    for scale, table in SWEEP_TABLES.items():
        rows = frame[frame["table"] == table]
        heads = table4_heads(scale)
        m = float(rows["M_target"].iloc[0])
        r, n = float(rows["M/N_a"].median()), float(rows["N/N_a"].median())
        n_a, n_tot = m / r, n * m / r
        rng = feasible_d_range(m, n_a, n_tot, **heads.as_kwargs())
        top = rows.loc[rows["d"].idxmax()]
        wide = feasible_d_range(m, n_a, float(rows["N/N_a"].min()) * n_a, **heads.as_kwargs())
        records.append(
            {
                "scale": scale,
                "C": float(scale),
                "table": table,
                "rows": len(rows),
                "M target": m,
                "M/N_a": r,
                "N/N_a": n,
                "N/N_a min": float(rows["N/N_a"].min()),
                "N/N_a max": float(rows["N/N_a"].max()),
                "N_a": n_a,
                "N": n_tot,
                "sweep d min": int(rows["d"].min()),
                "sweep d max": int(rows["d"].max()),
                "sweep d median": float(rows["d"].median()),
                "feasible d min": float(rng.d_min),
                "feasible d max": float(rng.d_max),
                "proxy d": float(rng.median),
                "feasible d max at N/N_a min": float(wide.d_max),
                "top row N_a dev (%)": float(top["N_a"] / n_a - 1) * 100,
                "top row N/N_a": float(top["N/N_a"]),
                "feasible d max at top row (N_a, N)": float(
                    feasible_d_range(m, top["N_a"], top["N"], **heads.as_kwargs()).d_max
                ),
                "L": ", ".join(map(str, sorted(set(rows["L"])))),
            }
        )
    return pd.DataFrame(records)


def sweep_targets() -> pd.DataFrame:
    """Per scale, the optimal (M, N_a, N) a d sweep (Tables 16-21) is built on, and d ranges.

    The target M is Table 2's; M/N_a and N/N_a are the medians of the sweep's rows (the rows
    scatter around them because layer counts and widths are integers). Columns give the
    sweep's d range and median, our feasible interval for the target (Table 4 heads, integer
    layers, M within 5 %), its midpoint (the median-d proxy), and the interval's upper end
    when N/N_a is allowed down to the sweep's smallest realised value or when N_a and N are
    those of the sweep's largest-d row (with the target M).
    """
    return _sweep_targets().copy()


def n_over_na_summary() -> pd.DataFrame:
    """Per scale: App. F.4's chosen and fitted N/N_a next to what Tables 15 and 16-21 realise.

    ``d_m step effect`` is the median change of N/N_a that moving d_m by half a hardware step
    (4) causes in the sweep's rows. ``L_d step effect`` is the median change that one more
    dense layer causes at the same d, L and N_a (d_m re-solved): (N_e - K)·d²/N_a, from
    Eq. 10-12 (N - N_a = 3·d·d_m·(N_e - K)·L_m, and a dense layer's 9d² of N_a taken from the
    experts' 27·d·d_m·L_m). ``sweep offset / ...`` are the sweep's median minus the chosen
    value in units of each. ``one more dense layer`` is the median N/N_a of the sweep's rows
    with L_d + 1 and L_m - 1 at the same d, L and N_a, d_m re-solved and rounded to a
    multiple of 8 (rows with L_m = 1 left out).
    """
    frame = _appendix_counts()
    records = []
    for scale, table in SWEEP_TABLES.items():
        sweep = frame[frame["table"] == table]
        extra = frame[(frame["table"] == 15) & (frame["scale"] == scale)]
        step = 3.0 * sweep["d"] * 4 * (N_EXPERTS - TOP_K) * sweep["L_m"] / sweep["N_a"]
        dense_step = (N_EXPERTS - TOP_K) * sweep["d"] ** 2 / sweep["N_a"]
        movable = sweep[sweep["L_m"] > 1]
        d_m_moved = 8 * np.round(
            (movable["d_m"] * movable["L_m"] - movable["d"] / 3) / (movable["L_m"] - 1) / 8
        )
        heads = table4_heads(scale)
        moved = counts(movable["d"].to_numpy(), movable["L_d"].to_numpy() + 1,
                       movable["L_m"].to_numpy() - 1, d_m_moved.to_numpy(),
                       **heads.as_kwargs())
        records.append(
            {
                "scale": scale,
                "F.4 chosen": float(F4_CHOSEN_N_OVER_NA[scale]),
                "F.4 fitted optimum": float(F4_FITTED_N_OVER_NA[scale]),
                "Table 15 median": float(extra["N/N_a"].median()),
                "Table 15 range": f"{extra['N/N_a'].min():.2f}-{extra['N/N_a'].max():.2f}",
                "sweep table": table,
                "sweep median": float(sweep["N/N_a"].median()),
                "sweep range": f"{sweep['N/N_a'].min():.2f}-{sweep['N/N_a'].max():.2f}",
                "d_m step effect": float(step.median()),
                "L_d step effect": float(dense_step.median()),
                "one more dense layer": float(np.median(moved.N / moved.N_a)),
            }
        )
    out = pd.DataFrame(records)
    offset = out["sweep median"] - out["F.4 chosen"]
    out["sweep offset / d_m step"] = offset / out["d_m step effect"]
    out["sweep offset / L_d step"] = offset / out["L_d step effect"]
    return out


def unembedding_share() -> pd.DataFrame:
    """Per scale: the FLOPs Eq. 3's M leaves out, as a share of Table 2's M_opt.

    The output projection (unembedding) costs 6·d·V training FLOPs per token (V = 152,064,
    Table 4), the same 6-per-parameter convention as Eq. 12's 6·N_a; the embedding lookup
    is not a matmul. Eq. 3 (App. A Eq. 10-12) counts neither. Columns: the d sweep's median
    d, 6dV/M_opt at it and over the sweep's d range, and the embedding plus unembedding
    parameters 2Vd over the sweep's median N_a.
    """
    frame = _appendix_counts()
    records = []
    for scale, table in SWEEP_TABLES.items():
        rows = frame[frame["table"] == table]
        m = float(rows["M_target"].iloc[0])
        d = rows["d"].to_numpy(dtype=float)
        median_d = float(np.median(d))
        records.append(
            {
                "scale": scale,
                "sweep median d": median_d,
                "6dV / M_opt at median d": 6 * median_d * VOCAB_SIZE / m,
                "6dV / M_opt, smallest d": 6 * d.min() * VOCAB_SIZE / m,
                "6dV / M_opt, largest d": 6 * d.max() * VOCAB_SIZE / m,
                "2Vd / N_a at median d": 2 * VOCAB_SIZE * median_d / float(rows["N_a"].median()),
            }
        )
    return pd.DataFrame(records)


def realised_n_over_na(scale: str, table: int) -> float:
    """Median N/N_a of one scale's rows in one appendix table.

    Raises
    ------
    ValueError
        If the table has no rows at that scale.
    """
    frame = _appendix_counts()
    rows = frame[(frame["table"] == table) & (frame["scale"] == scale)]
    if rows.empty:
        raise ValueError(f"Table {table} has no rows at scale {scale}")
    return float(rows["N/N_a"].median())


# --- Sec. 4.3 median proxy --------------------------------------------------------------


TABLE3_PRINTED: dict[str, float] = {
    "Pearson r": 0.9793, "Spearman rho": 0.9758, "Kendall tau": 0.9111, "R2": 0.9590,
    "Pearson p": 7.89e-7, "Spearman p": 1.47e-6, "Kendall p": 2.98e-5,
}
"""Table 3 (Sec. 4.3.1), as printed: proxy loss vs true minimum loss over n = 10."""


def table3_consistency(n: int = 10) -> dict[str, float]:
    """Table 3 against itself (the losses behind it are not published).

    With n = 10 untied pairs, R² must be r², Spearman's ρ = 1 − 6Σd²/(n(n² − 1)) with an
    integer Σd², and Kendall's τ = (concordant − discordant)/C(n, 2) with an integer number
    of discordant pairs. Returns the nearest admissible Σd² and discordant count, the ρ, τ and
    R² they imply, and the p-values scipy gives for the printed r and for a ranking with that
    ρ and τ (Pearson and Spearman: t-test; Kendall: exact).
    """
    from scipy import stats

    pairs = n * (n - 1) / 2
    sum_d2 = round((1 - TABLE3_PRINTED["Spearman rho"]) * n * (n * n - 1) / 6)
    discordant = round((1 - TABLE3_PRINTED["Kendall tau"]) * pairs / 2)
    r = TABLE3_PRINTED["Pearson r"]
    t_r = r * math.sqrt((n - 2) / (1 - r * r))
    rho = 1 - 6 * sum_d2 / (n * (n * n - 1))
    t_rho = rho * math.sqrt((n - 2) / (1 - rho * rho))
    # A ranking with exactly ``discordant`` inversions: adjacent swaps, each adding one.
    ranking = list(range(n))
    for i in range(discordant):
        ranking[2 * i], ranking[2 * i + 1] = ranking[2 * i + 1], ranking[2 * i]
    kendall = stats.kendalltau(range(n), ranking, method="exact")
    return {
        "R2 from r": r * r,
        "sum d^2": float(sum_d2),
        "rho from sum d^2": rho,
        "discordant pairs": float(discordant),
        "tau from discordant": (pairs - 2 * discordant) / pairs,
        "Kendall tau (scipy)": float(kendall.statistic),
        "Pearson p": float(2 * stats.t.sf(t_r, n - 2)),
        "Spearman p": float(2 * stats.t.sf(t_rho, n - 2)),
        "Kendall p": float(kendall.pvalue),
    }


def median_proxy_check() -> pd.DataFrame:
    """Tables 9-14: the printed d next to our median-d proxy of the row's grid target
    (M from Table 2, M/N_a and N/N_a the grid values of its position)."""
    rows = grid_assignment()
    proxies = np.empty(len(rows))
    for i, (_, row) in enumerate(rows.iterrows()):
        heads = table4_heads(row["scale"])
        n_a = row["M_target"] / row["grid M/N_a"]
        rng = feasible_d_range(
            row["M_target"], n_a, n_a * row["grid N/N_a"], **heads.as_kwargs()
        )
        proxies[i] = float(rng.median)
    rows["proxy d"] = proxies
    rows["d / proxy"] = rows["d"] / rows["proxy d"]
    return rows


def head_setting_scan(table: int) -> pd.DataFrame:
    """How well alternative head settings put a grid table's rows on the Sec. 5.2 grid.

    For d_qkv in {64, 128}, N_q in {2, ..., 32} (powers of two) and N_kv in {N_q/4, N_q/2,
    N_q}, the median |M/N_a / grid − 1| (%) over the table's rows and the median
    |M/M_target − 1| (%). Sorted by the first.

    Raises
    ------
    ValueError
        If ``table`` is not one of Tables 9-14.
    """
    if table not in GRID_TABLES.values():
        raise ValueError("head_setting_scan takes one of the grid Tables 9-14")
    rows = grid_assignment()
    rows = rows[rows["table"] == table]
    records = []
    for d_qkv in (64, 128):
        for n_q in (2, 4, 8, 16, 32):
            for n_kv in sorted({max(n_q // 4, 1), n_q // 2 or 1, n_q}):
                c = counts(
                    rows["d"].to_numpy(), rows["L_d"].to_numpy(), rows["L_m"].to_numpy(),
                    rows["d_m"].to_numpy(), d_qkv=d_qkv, n_q=n_q, n_kv=n_kv,
                )
                r_dev = np.abs(c.m_over_na / rows["grid M/N_a"].to_numpy() - 1)
                m_dev = np.abs(c.M / rows["M_target"].to_numpy() - 1)
                records.append(
                    {
                        "d_qkv": d_qkv, "N_q": n_q, "N_kv": n_kv,
                        "median |M/N_a dev| (%)": float(np.median(r_dev) * 100),
                        "median |M dev| (%)": float(np.median(m_dev) * 100),
                    }
                )
    return pd.DataFrame(records).sort_values("median |M/N_a dev| (%)").reset_index(drop=True)
