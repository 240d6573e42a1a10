"""The paper against itself: App. C.3's worked example (Algorithm 1 under Qwen3-235B-A22B's
memory and inference budgets), Eq. 3 on Table 7's printed losses, and App. C.4's Eq. 5
coefficients over their printed rounding.

The paper prints the routine's answer as ``(l, d, n_exp, n_topk) = (94, 4096, 128, 7)`` with
234B total and 21.7B active parameters, and Qwen3-235B-A22B as ``(83, 5312, 128, 8)`` with
``g = 2.7``. The model's published configuration is ``(94, 4096, 128, 8)`` with expert width
1536 (``g = 4096/1536 ≈ 2.67``). This module runs the routine under several readings of "the
same constraints" and of the pseudocode's open choices, so the chapter can show which reading
produces the printed numbers.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

import numpy as np
import pandas as pd
from numpy.typing import NDArray

from moelaws import arch
from moelaws.arch.counting import exact_counts
from moelaws.constrained import chinchilla, tables
from moelaws.constrained.counting import constrained_counts
from moelaws.constrained.design import DEFAULT_EXPERTS, DEFAULT_GAMMAS, Design, optimize
from moelaws.constrained.law import relative_loss, total_params

MODEL = "Qwen3-235B-A22B"

PAPER_ROUTINE = {"l": 94, "d": 4096, "n_exp": 128, "n_topk": 7, "total_B": 234.0,
                 "active_B": 21.7}
"""The routine's answer as printed in App. C.3."""

PAPER_QWEN3 = {"l": 83, "d": 5312, "n_exp": 128, "n_topk": 8, "g": 2.7}
"""Qwen3-235B-A22B's configuration as printed in App. C.3."""

K_ALIGN = 64
"""Alignment of ``d`` in our reproduction (the paper does not state it; 64 divides 5312)."""


def budgets(reading: str = "nominal") -> tuple[float, float]:
    """Qwen3-235B-A22B's memory and inference budgets under one reading.

    Parameters
    ----------
    reading
        ``"nominal"``: the model's name, 235B and 22B. ``"exact with embeddings"`` and
        ``"exact"``: every weight of the published configuration, with or without embeddings
        (:func:`moelaws.arch.counts`, ``"exact"``). ``"Eq. 1-2"``: the paper's own counts of
        the configuration, ``g = d/d_exp``.

    Returns
    -------
    tuple of float
        ``(total_budget, active_budget)`` in parameters.

    Raises
    ------
    ValueError
        If ``reading`` is unknown.
    """
    cfg = arch.preset(MODEL)
    if reading == "nominal":
        return 235e9, 22e9
    if reading == "exact with embeddings":
        return (float(arch.total_params(cfg, embeddings=True)),
                float(arch.active_params(cfg, embeddings=True)))
    if reading in ("exact", "Eq. 1-2"):
        c = exact_counts(cfg) if reading == "exact" else constrained_counts(cfg)
        return float(c.total), float(c.active)
    raise ValueError(f"unknown reading {reading!r}; choose from {READINGS}")


READINGS: tuple[str, ...] = ("nominal", "exact with embeddings", "exact", "Eq. 1-2")


def qwen3_granularity() -> float:
    """Qwen3-235B-A22B's ``g = d / d_exp`` from its published configuration."""
    cfg = arch.preset(MODEL)
    return cfg.d_model / cfg.d_expert


@lru_cache(maxsize=1)
def routine_design() -> Design:
    """Algorithm 1 with our default reading: nominal budgets, ``k_align = 64``, ``Γ = (32, 64)``,
    ``n_exp ≤ 128``, ``g = 4`` (the pseudocode's 0.75)."""
    total, active = budgets("nominal")
    return optimize(total, active, K_ALIGN)


GAMMA_GRIDS: dict[str, tuple[float, ...]] = {
    "{32, 64}": DEFAULT_GAMMAS,
    "32, 40, ..., 64": tuple(float(x) for x in range(32, 65, 8)),
    "32, 33, ..., 64": tuple(float(x) for x in range(32, 65)),
}


def reading_scan(
    readings: Sequence[str] = READINGS,
    k_aligns: Sequence[int] = (64, 128),
    max_experts: Sequence[int] = (128, 256, 1024),
    granularities: Sequence[str] = ("4 (Algorithm 1)", "d/d_exp of Qwen3"),
) -> pd.DataFrame:
    """Algorithm 1 under every combination of readings of its inputs and open choices.

    Returns
    -------
    pandas.DataFrame
        One row per combination: the reading, ``Γ``, ``k_align``, largest ``n_exp``, ``g``,
        and the design's ``l, d, n_exp, n_topk, gamma``, ``total (B)``, ``active (B)``, and
        ``matches printed totals`` (234B and 21.7B at the printed precision) and
        ``matches printed (l, d)`` (either printed pair).

    Raises
    ------
    ValueError
        For an unknown reading or granularity label.
    """
    g_values = {"4 (Algorithm 1)": 4.0, "d/d_exp of Qwen3": qwen3_granularity()}
    rows = []
    for reading in readings:
        total, active = budgets(reading)
        for gamma_name, gammas in GAMMA_GRIDS.items():
            for k in k_aligns:
                for top in max_experts:
                    experts = tuple(n for n in (2**i for i in range(1, 21)) if n <= top)
                    for g_name in granularities:
                        if g_name not in g_values:
                            raise ValueError(f"unknown granularity {g_name!r}")
                        g = g_values[g_name]
                        design = optimize(total, active, k, gammas=gammas, n_experts=experts, g=g)
                        rows.append({
                            "budgets": reading, "Γ": gamma_name, "k_align": k,
                            "max n_exp": top, "g": g_name, "l": design.l, "d": design.d,
                            "n_exp": design.n_exp, "n_topk": design.n_topk,
                            "gamma": design.gamma, "total (B)": design.total / 1e9,
                            "active (B)": design.active / 1e9,
                        })
    out = pd.DataFrame(rows)
    out["matches printed totals"] = ((out["total (B)"] - 234).abs() <= 0.5) & (
        (out["active (B)"] - 21.7).abs() <= 0.05
    )
    pairs = {(PAPER_ROUTINE["l"], PAPER_ROUTINE["d"]), (PAPER_QWEN3["l"], PAPER_QWEN3["d"])}
    out["matches printed (l, d)"] = [
        (a, b) in pairs for a, b in zip(out["l"], out["d"], strict=True)
    ]
    return out


def table7_against_eq3() -> pd.DataFrame:
    """Eq. 3's predicted loss differences for Table 7's rows, against the printed losses.

    Table 7 (Sec. 2.2) holds ``g = 4`` and both budgets within 4 %, so Eq. 3 (Sec. 3.2) can be
    evaluated on its rows directly: ``100·(L_Eq3/L_Eq3,ref − 1)`` relative to the reference
    ``(8, 336, 43, 4)``. It is an out-of-sample check of Eq. 3 against published losses, with
    two confounds: Table 7's runs use 4B tokens (Eq. 3's, 9B), and several rows have
    ``γ = d/l`` outside 32-64.

    Returns
    -------
    pandas.DataFrame
        :func:`~moelaws.constrained.tables.loss_diffs` for ``"table7"`` plus ``gamma``
        (``d/l``), ``eq3`` (Eq. 3's difference, %) and ``eq3_in_interval`` (Eq. 3's
        difference lies in the rounding interval of the printed losses).
    """
    t = tables.loss_diffs("table7")
    n_total = total_params(t["l"], t["d"], t["n_exp"], 4.0)
    pred = relative_loss(n_total, t["n_exp"], t["n_topk"])
    ref = pred[((t["l"] == 8) & (t["d"] == 336)).to_numpy()][0]
    t["gamma"] = t["d"] / t["l"]
    t["eq3"] = 100 * (pred / ref - 1)
    t["eq3_in_interval"] = (t["eq3"] >= t["lower"]) & (t["eq3"] <= t["upper"])
    return t


def relative_gap_range(
    N_range: tuple[float, float],
    D_range: tuple[float, float] = chinchilla.EXPERIMENT_TOKENS,
    *,
    swap_exponents: bool = False,
    points: int = 61,
) -> tuple[float, float]:
    """Range of ``L(128, 8)/L(256, 16) − 1`` over a box of ``N_total`` and ``D`` (App. C.4).

    Compares the size of the C.4 fits' gap with Eq. 4's penalty for the same pair at equal
    ``N_total`` and sparsity, ``2^0.005 − 1``.

    Parameters
    ----------
    N_range, D_range
        ``(min, max)`` of parameters and tokens (positive, min ≤ max).
    swap_exponents
        As in :func:`~moelaws.constrained.chinchilla.chinchilla_loss`.
    points
        Grid points per axis (log-spaced, at least 2).

    Returns
    -------
    tuple of float
        ``(min, max)`` of the relative gap over the grid (a fraction, not percent).

    Raises
    ------
    ValueError
        For empty or non-positive ranges, or fewer than 2 points.
    """
    for name, rng in (("N_range", N_range), ("D_range", D_range)):
        if len(rng) != 2 or not 0 < rng[0] <= rng[1]:
            raise ValueError(f"{name} must be (min, max) with 0 < min <= max, got {rng!r}")
    if points < 2:
        raise ValueError(f"points must be at least 2, got {points}")
    n, d = np.meshgrid(np.geomspace(*N_range, points), np.geomspace(*D_range, points))
    kw = {"swap_exponents": swap_exponents}
    ratio = (chinchilla.chinchilla_loss(n, d, "128/8", **kw)
             / chinchilla.chinchilla_loss(n, d, "256/16", **kw) - 1)
    return float(ratio.min()), float(ratio.max())


def rounding_corners(
    N_total: float,
    D: float,
    config: str | tuple[int, int],
    *,
    swap_exponents: bool = False,
) -> NDArray[np.float64]:
    """Eq. 5's prediction at every corner of the printed coefficients' rounding (App. C.4).

    Each of ``A, B, E, α, β`` is moved by ± half a unit of its last printed digit
    (28 ± 0.5, 1.08 ± 0.005, 0.28 ± 0.005, ...), independently: 32 corners, a pessimistic
    bound since fitted coefficients are correlated.

    Parameters
    ----------
    N_total, D
        One point (positive).
    config
        As in :func:`~moelaws.constrained.chinchilla.chinchilla_loss`.
    swap_exponents
        As in :func:`~moelaws.constrained.chinchilla.chinchilla_loss`.

    Returns
    -------
    numpy.ndarray
        The 32 predicted losses.

    Raises
    ------
    ValueError
        If ``config`` is unknown or ``N_total`` or ``D`` is not positive and finite.
    """
    key = chinchilla._config_key(config)
    chinchilla.chinchilla_loss(N_total, D, key)  # validates the inputs
    p = chinchilla.COEFFICIENTS[key]
    half = {"A": 0.5, "B": 0.5, "E": 0.005 if key == "128/8" else 0.05, "alpha": 0.005,
            "beta": 0.005}
    names = list(half)
    out = []
    for signs in np.array(np.meshgrid(*[[-1, 1]] * len(names))).reshape(len(names), -1).T:
        c = {k: p[k] + s * half[k] for k, s in zip(names, signs, strict=True)}
        alpha, beta = (c["beta"], c["alpha"]) if swap_exponents else (c["alpha"], c["beta"])
        out.append(c["A"] * N_total ** -alpha + c["B"] * D ** -beta + c["E"])
    return np.array(out)


__all__ = [
    "DEFAULT_EXPERTS",
    "GAMMA_GRIDS",
    "K_ALIGN",
    "MODEL",
    "PAPER_QWEN3",
    "PAPER_ROUTINE",
    "READINGS",
    "budgets",
    "qwen3_granularity",
    "reading_scan",
    "relative_gap_range",
    "rounding_corners",
    "routine_design",
    "table7_against_eq3",
]
