"""The two Chinchilla-style fits of App. C.4 (Eq. 5): ``L = A·N^-α + B·D^-β + E``.

The paper fits Eq. 5 separately to the ``(n_exp, n_topk) = (128, 8)`` and ``(256, 16)``
configurations of Table 4 trained on 9B-50B tokens, and prints the coefficients in C.4. The
chapter checks whether those coefficients, as printed, give losses on the scale of the
paper's own measurements, and whether they support the claim that ``(128, 8)`` beats
``(256, 16)`` at equal ``N_total`` and ``D``.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike, NDArray

from moelaws.constrained.tables import half_unit

Array = NDArray[np.float64]

EXPERIMENT_TOKENS: tuple[float, float] = (9e9, 50e9)
"""Range of training tokens in the C.4 experiments ("from 9B to 50B tokens")."""


def _config_key(config: str | tuple[int, int]) -> str:
    key = f"{config[0]}/{config[1]}" if isinstance(config, tuple) else str(config)
    if key not in COEFFICIENTS:
        raise ValueError(f"config must be one of {sorted(COEFFICIENTS)} or their tuples, got "
                         f"{config!r}")
    return key


def chinchilla_loss(
    N_total: ArrayLike,
    D: ArrayLike,
    config: str | tuple[int, int],
    *,
    n_unit: float = 1.0,
    d_unit: float = 1.0,
    swap_exponents: bool = False,
) -> Array:
    """Eq. 5 with App. C.4's coefficients: ``A·(N/n_unit)^-α + B·(D/d_unit)^-β + E``.

    Parameters
    ----------
    N_total
        Non-embedding total parameters (positive).
    D
        Training tokens (positive).
    config
        ``"128/8"`` or ``"256/16"`` (or the tuples ``(128, 8)``, ``(256, 16)``).
    n_unit, d_unit
        Units in which the fit is read: ``n_unit=1e9`` means ``N`` in billions. The paper
        says ``D`` is "in tokens" and gives no unit for ``N``.
    swap_exponents
        Read the printed ``α`` as the exponent of ``D`` and ``β`` as that of ``N`` (a
        hypothesis the chapter tests; ``False`` is the paper as printed).

    Returns
    -------
    numpy.ndarray
        Predicted loss, broadcast over ``N_total`` and ``D``.

    Raises
    ------
    ValueError
        If ``config`` is unknown, or ``N_total``, ``D`` or a unit is not positive and finite.
    """
    key = _config_key(config)
    n = np.asarray(N_total, dtype=float)
    d = np.asarray(D, dtype=float)
    for name, arr in (("N_total", n), ("D", d)):
        if np.any(~np.isfinite(arr)) or np.any(arr <= 0):
            raise ValueError(f"{name} must be positive and finite")
    for name, unit in (("n_unit", n_unit), ("d_unit", d_unit)):
        if not (np.isfinite(unit) and unit > 0):
            raise ValueError(f"{name} must be positive and finite, got {unit!r}")
    return _eq5(n / n_unit, d / d_unit, COEFFICIENTS[key], swap_exponents)


def units_scan(
    N_range: tuple[float, float],
    D_range: tuple[float, float] = EXPERIMENT_TOKENS,
    units: Sequence[float] = (1.0, 1e3, 1e6, 1e9),
    *,
    swap_exponents: bool = False,
) -> pd.DataFrame:
    """Range of Eq. 5's predictions over an experimental box, for every choice of units.

    The extremes of a sum of decreasing power laws lie at the corners of the box, so the
    corners give the exact range.

    Parameters
    ----------
    N_range, D_range
        ``(min, max)`` of parameters and tokens (positive, min ≤ max).
    units
        Candidate units for both ``N`` and ``D`` (1 = raw counts, 1e9 = billions).
    swap_exponents
        As in :func:`chinchilla_loss`.

    Returns
    -------
    pandas.DataFrame
        One row per ``(config, n_unit, d_unit)`` with ``min_loss`` and ``max_loss``.

    Raises
    ------
    ValueError
        For empty or non-positive ranges or units.
    """
    for name, rng in (("N_range", N_range), ("D_range", D_range)):
        if len(rng) != 2 or not 0 < rng[0] <= rng[1]:
            raise ValueError(f"{name} must be (min, max) with 0 < min <= max, got {rng!r}")
    if len(units) == 0:
        raise ValueError("units must not be empty")
    n_corners = np.array([N_range[0], N_range[0], N_range[1], N_range[1]])
    d_corners = np.array([D_range[0], D_range[1], D_range[0], D_range[1]])
    rows = []
    for key in COEFFICIENTS:
        for nu in units:
            for du in units:
                loss = chinchilla_loss(n_corners, d_corners, key, n_unit=nu, d_unit=du,
                                       swap_exponents=swap_exponents)
                rows.append({"config": key, "n_unit": nu, "d_unit": du,
                             "min_loss": float(loss.min()), "max_loss": float(loss.max())})
    return pd.DataFrame(rows)


def loss_gap(
    N_total: ArrayLike,
    D: ArrayLike,
    *,
    swap_exponents: bool = False,
    n_unit: float = 1.0,
    d_unit: float = 1.0,
) -> Array:
    """``L_(128,8) − L_(256,16)`` at equal ``N_total`` and ``D`` (negative: (128, 8) wins).

    Parameters
    ----------
    N_total, D, swap_exponents, n_unit, d_unit
        As in :func:`chinchilla_loss`.

    Returns
    -------
    numpy.ndarray
        The gap, broadcast over the inputs.

    Raises
    ------
    ValueError
        As :func:`chinchilla_loss`.
    """
    kw = {"n_unit": n_unit, "d_unit": d_unit, "swap_exponents": swap_exponents}
    return chinchilla_loss(N_total, D, "128/8", **kw) - chinchilla_loss(N_total, D, "256/16", **kw)


def max_gap(
    N_range: tuple[float, float],
    D_range: tuple[float, float] = EXPERIMENT_TOKENS,
    *,
    n_points: int = 200,
    swap_exponents: bool = False,
) -> float:
    """Largest ``L_(128,8) − L_(256,16)`` on a log-spaced grid over the box (< 0: (128, 8)
    wins everywhere).

    Parameters
    ----------
    N_range, D_range
        ``(min, max)`` of parameters and tokens.
    n_points
        Grid points per axis (at least 2).
    swap_exponents
        As in :func:`chinchilla_loss`.

    Returns
    -------
    float
        The maximum gap.

    Raises
    ------
    ValueError
        For invalid ranges or ``n_points < 2``.
    """
    if n_points < 2:
        raise ValueError("n_points must be at least 2")
    for name, rng in (("N_range", N_range), ("D_range", D_range)):
        if len(rng) != 2 or not 0 < rng[0] <= rng[1]:
            raise ValueError(f"{name} must be (min, max) with 0 < min <= max, got {rng!r}")
    n = np.geomspace(*N_range, n_points)[:, None]
    d = np.geomspace(*D_range, n_points)[None, :]
    return float(loss_gap(n, d, swap_exponents=swap_exponents).max())


PRINTED: dict[str, dict[str, str]] = {
    "128/8": {"A": "28", "B": "229", "E": "1.08", "alpha": "0.28", "beta": "0.16"},
    "256/16": {"A": "564", "B": "640500", "E": "2.0", "alpha": "0.64", "beta": "0.36"},
}
"""App. C.4's coefficients exactly as printed ("B=640,500" without its thousands separator)."""

COEFFICIENTS: dict[str, dict[str, float]] = {
    key: {name: float(text) for name, text in printed.items()} for key, printed in PRINTED.items()
}
"""App. C.4's fitted coefficients, as printed, keyed by ``"n_exp/n_topk"``."""

PRINTED_HALF_UNITS: dict[str, dict[str, float]] = {
    key: {name: half_unit(text) for name, text in printed.items()}
    for key, printed in PRINTED.items()
}
"""Half a unit of the last printed digit of each coefficient (:func:`tables.half_unit`)."""


def _eq5(n: Array, d: Array, p: dict[str, float], swap_exponents: bool) -> Array:
    alpha, beta = (p["beta"], p["alpha"]) if swap_exponents else (p["alpha"], p["beta"])
    return p["A"] * n**-alpha + p["B"] * d**-beta + p["E"]


def max_gap_rounding_range(
    N_range: tuple[float, float],
    D_range: tuple[float, float] = EXPERIMENT_TOKENS,
    *,
    n_points: int = 200,
    swap_exponents: bool = False,
) -> tuple[float, float]:
    """Least and greatest :func:`max_gap` as every printed coefficient of both fits moves
    within half a unit of its last printed digit (:data:`PRINTED_HALF_UNITS`).

    Each loss grows with A, B and E and, for N, D > 1, falls with its exponents, so the gap
    ``L_(128,8) − L_(256,16)`` is monotone in each of the ten coefficients, and so is its
    maximum over the grid: the extremes lie at the two corners of the rounding box where the
    (128, 8) fit is lowest and the (256, 16) fit highest, and the reverse.

    Parameters
    ----------
    N_range, D_range, n_points, swap_exponents
        As in :func:`max_gap`.

    Returns
    -------
    tuple of float
        ``(lowest, highest)`` maximum gap.

    Raises
    ------
    ValueError
        As :func:`max_gap`.
    """
    max_gap(N_range, D_range, n_points=2, swap_exponents=swap_exponents)  # validates
    n = np.geomspace(*N_range, n_points)[:, None]
    d = np.geomspace(*D_range, n_points)[None, :]

    def corner(key: str, up: bool) -> dict[str, float]:
        sign = 1.0 if up else -1.0
        return {name: value + (-sign if name in ("alpha", "beta") else sign)
                * PRINTED_HALF_UNITS[key][name] for name, value in COEFFICIENTS[key].items()}

    gaps = [float((_eq5(n, d, corner("128/8", up), swap_exponents)
                   - _eq5(n, d, corner("256/16", not up), swap_exponents)).max())
            for up in (False, True)]
    return min(gaps), max(gaps)
