"""The efficiency-leverage law of Tian et al. (2025): Eq. 1 (the saturating transform of the
activation ratio) and Eq. 4 (the joint law in A, G and C) with the Table 6 coefficients.

Eq. 4 reads

    EL(A, G, C) = Â^(α + γ·(log G)² + β·log G),   α = a + d·log C,

and never says which logarithms it uses. Evaluating the paper's own statements under every
combination of bases (:func:`log_base_analysis`) singles out **log10 for C** and **log2 for G**:
only that pair gives EL > 7 at A = 3.1 %, G = 12, C = 1e22 (Sec. 1, Sec. 4.2.3) together with
an optimal granularity "between 8 and 12" (Sec. 1) and an EL "typically under 10x" (App. C);
natural or binary logarithms of C put EL in the thousands. Those are the defaults here. The base of
Eq. 1's logarithm is immaterial (Eq. 1 and Eq. 4 are powers of Â).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence

import numpy as np
import pandas as pd

from moelaws.validation import finite, positive, warn_if_far_outside

ArrayLike = float | Sequence[float] | np.ndarray

TABLE6: dict[str, float] = {
    "a": 1.23,
    "d": -7.61e-2,
    "gamma": 1.67e-2,
    "beta": -1.17e-1,
    "a_start": 1.63e-2,
    "a_max": 5.28e16,
}
"""App. G, Table 6: the fitted coefficients of Eq. 4, as printed."""

LOG_BASE_C: float = 10.0
"""Base of log C in Eq. 4 (our determination; see :func:`log_base_analysis`)."""
LOG_BASE_G: float = 2.0
"""Base of log G in Eq. 4 (our determination; see :func:`log_base_analysis`)."""

BASES: dict[str, float] = {"e": math.e, "10": 10.0, "2": 2.0}
"""The candidate logarithm bases of :func:`log_base_analysis`."""


FITTED_RANGES: dict[str, tuple[float, float]] = {"C": (2e18, 6e20), "G": (1.3, 16.0)}
"""The range of each law input the paper fitted, from Tables 8-12.

A law evaluated more than :data:`moelaws.validation.FAR_OUTSIDE_DECADES` decades outside
it warns; a test keeps it equal to the adapter's ``fitted_ranges``."""


def _activation(A: ArrayLike) -> np.ndarray:
    arr = finite("A", A)
    if np.any(arr <= 0) or np.any(arr > 1):
        raise ValueError("the activation ratio A must lie in (0, 1]")
    return arr


def _base(name: str, base: float) -> float:
    if not (math.isfinite(base) and base > 0 and base != 1):
        raise ValueError(f"{name} must be a positive number other than 1")
    return float(base)


def activation_hat(
    A: ArrayLike, *, a_start: float = TABLE6["a_start"], a_max: float = TABLE6["a_max"]
) -> np.ndarray:
    """Saturating transform Â of the activation ratio (Eq. 1, after Clark et al. 2022).

    ``1/Â = 1/(A + (1/A_start − 1/A_max)^(−1)) + 1/A_max``, with the lower bound of the
    activation ratio set to 0 as the paper does.

    Parameters
    ----------
    A
        Activation ratio(s) in (0, 1].
    a_start, a_max
        A_start and A_max (Table 6 by default), with ``0 < a_start < a_max``.

    Returns
    -------
    numpy.ndarray
        Â, same shape as ``A``. With Table 6's A_max = 5.28e16 the transform is, to 1e-16,
        ``Â = A + A_start``: Â(1) = 1.0163, not exactly 1.

    Raises
    ------
    ValueError
        If ``A`` is outside (0, 1] or the coefficients are not ``0 < a_start < a_max``.
    """
    A = _activation(A)
    if not (0 < a_start < a_max) or not math.isfinite(a_max):
        raise ValueError("need finite 0 < a_start < a_max")
    offset = 1.0 / (1.0 / a_start - 1.0 / a_max)
    return 1.0 / (1.0 / (A + offset) + 1.0 / a_max)


def leverage_exponent(
    G: ArrayLike,
    C: ArrayLike,
    *,
    a: float = TABLE6["a"],
    d: float = TABLE6["d"],
    gamma: float = TABLE6["gamma"],
    beta: float = TABLE6["beta"],
    log_base_c: float = LOG_BASE_C,
    log_base_g: float = LOG_BASE_G,
) -> np.ndarray:
    """The exponent of Â in Eq. 4: ``a + d·log C + γ·(log G)² + β·log G``.

    Raises
    ------
    ValueError
        If ``G`` or ``C`` is not positive, or a base is not a valid logarithm base.
    """
    G = positive("the granularity G", G)
    C = positive("the compute budget C", C)
    log_c = np.log(C) / math.log(_base("log_base_c", log_base_c))
    log_g = np.log(G) / math.log(_base("log_base_g", log_base_g))
    return a + d * log_c + gamma * log_g**2 + beta * log_g


def efficiency_leverage(
    A: ArrayLike,
    G: ArrayLike,
    C: ArrayLike,
    *,
    a: float = TABLE6["a"],
    d: float = TABLE6["d"],
    gamma: float = TABLE6["gamma"],
    beta: float = TABLE6["beta"],
    a_start: float = TABLE6["a_start"],
    a_max: float = TABLE6["a_max"],
    log_base_c: float = LOG_BASE_C,
    log_base_g: float = LOG_BASE_G,
) -> np.ndarray:
    """Efficiency leverage of an MoE over its dense counterpart, Eq. 4.

    ``EL(A, G, C) = Â^(α + γ·(log G)² + β·log G)`` with ``α = a + d·log C`` and Â from
    Eq. 1 (:func:`activation_hat`). Inputs broadcast against each other.

    Parameters
    ----------
    A
        Activation ratio(s) in (0, 1] (Sec. 2.1: (E_a + E_s)/(E + E_s)).
    G
        Expert granularity 2·d_model/d_expert (> 0).
    C
        Training compute in FLOPs (> 0).
    a, d, gamma, beta, a_start, a_max
        Coefficients; Table 6 by default.
    log_base_c, log_base_g
        Bases of the logarithms of C and G. The paper does not state them; the defaults
        (10 and 2) are the only pair that reproduces its claims (:func:`log_base_analysis`).

    Returns
    -------
    numpy.ndarray
        EL, the broadcast shape of the inputs.

    Raises
    ------
    ValueError
        If ``A`` is outside (0, 1], ``G`` or ``C`` is not positive, or a coefficient or base
        is invalid.

    Warns
    -----
    ExtrapolationWarning
        For C or G far outside the range Tables 8-12 cover (see
        :data:`FITTED_RANGES`).
    """
    hat = activation_hat(A, a_start=a_start, a_max=a_max)
    exponent = leverage_exponent(
        G, C, a=a, d=d, gamma=gamma, beta=beta, log_base_c=log_base_c, log_base_g=log_base_g
    )
    warn_if_far_outside("leverage", "C", C, FITTED_RANGES["C"])
    warn_if_far_outside("leverage", "G", G, FITTED_RANGES["G"])
    return np.exp(exponent * np.log(hat))


def optimal_granularity(
    A: ArrayLike = 0.031,
    *,
    gamma: float = TABLE6["gamma"],
    beta: float = TABLE6["beta"],
    a_start: float = TABLE6["a_start"],
    a_max: float = TABLE6["a_max"],
    log_base_g: float = LOG_BASE_G,
) -> np.ndarray:
    """The granularity that maximises Eq. 4 at activation ratio ``A``.

    With Â < 1 (every A below 1 − A_start) EL grows as the exponent falls, and the exponent's
    G-dependent part ``γ·(log G)² + β·log G`` is smallest at ``log G = −β/(2γ)``:
    ``G* = base^(−β/(2γ))``, the same at every compute budget and activation ratio (the
    paper's "independent of the total compute budget", Sec. 1). Where Â ≥ 1 Eq. 4 gives
    EL ≤ 1 and has no maximiser in G; the result is NaN there.

    Parameters
    ----------
    A
        Activation ratio(s) in (0, 1].
    gamma, beta, a_start, a_max, log_base_g
        Coefficients and the base of log G (Table 6 and base 2 by default).

    Returns
    -------
    numpy.ndarray
        G*, same shape as ``A`` (≈ 11.34 with the defaults).

    Raises
    ------
    ValueError
        If ``gamma`` is not positive (no interior maximum), ``A`` is outside (0, 1], or the
        base is invalid.
    """
    if not gamma > 0:
        raise ValueError("Eq. 4 has a maximum in G only for gamma > 0")
    hat = activation_hat(A, a_start=a_start, a_max=a_max)
    g_star = _base("log_base_g", log_base_g) ** (-beta / (2.0 * gamma))
    return np.where(hat < 1.0, g_star, np.nan)


def log_base_analysis(
    A: float = 0.031,
    G: float = 12.0,
    C: float = 1e22,
    *,
    bases: dict[str, float] | None = None,
) -> pd.DataFrame:
    """Evaluate the paper's claims under every combination of logarithm bases for C and G.

    The claims: EL above 7 at A = 3.1 %, G = 12, C = 1e22 (Sec. 1, Sec. 4.2.3), an optimal
    granularity between 8 and 12 (Sec. 1), and EL "typically under 10x" (App. C), which we
    test at the same point (the paper reports "over 7x" there, and validated it with a model
    that matched a dense one of about 7x its compute).

    Returns
    -------
    pandas.DataFrame
        One row per (base of log C, base of log G): EL at ``(A, G, C)``, G*, whether each
        claim holds, and whether all do.
    """
    bases = BASES if bases is None else bases
    rows = []
    for (name_c, base_c), (name_g, base_g) in itertools.product(bases.items(), repeat=2):
        el = float(efficiency_leverage(A, G, C, log_base_c=base_c, log_base_g=base_g))
        g_star = float(optimal_granularity(A, log_base_g=base_g))
        rows.append(
            {
                "log base of C": name_c,
                "log base of G": name_g,
                "EL(A, G, C)": el,
                "G*": g_star,
                "EL > 7": el > 7,
                "8 <= G* <= 12": 8 <= g_star <= 12,
                "EL < 10": el < 10,
            }
        )
    frame = pd.DataFrame(rows)
    frame["all three"] = frame["EL > 7"] & frame["8 <= G* <= 12"] & frame["EL < 10"]
    return frame


def landscape(
    C: float,
    A: ArrayLike | None = None,
    G: ArrayLike | None = None,
    **coefficients: float,
) -> pd.DataFrame:
    """Eq. 4 on a grid of activation ratios and granularities (Figure 1b).

    Parameters
    ----------
    C
        Compute budget in FLOPs.
    A, G
        Grid values; default 40 log-spaced A from 0.5 % to 100 % and G from 1 to 64.
    **coefficients
        Overrides passed to :func:`efficiency_leverage`.

    Returns
    -------
    pandas.DataFrame
        Long format: columns ``A``, ``G``, ``C``, ``EL``.
    """
    A = np.geomspace(0.005, 1.0, 40) if A is None else _activation(A).ravel()
    G = np.geomspace(1.0, 64.0, 40) if G is None else positive("G", G).ravel()
    grid_a, grid_g = np.meshgrid(A, G, indexing="ij")
    el = efficiency_leverage(grid_a, grid_g, C, **coefficients)
    return pd.DataFrame(
        {"A": grid_a.ravel(), "G": grid_g.ravel(), "C": float(C), "EL": el.ravel()}
    )
