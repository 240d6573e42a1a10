"""Our fits of laws the holistic paper shows only as figures: the optimal M/N_a against C
(Fig. 5b) and the hidden-size ranges against C (Fig. 6b).

Each is a power law fitted with :func:`moelaws.fit.fit_power_law` to the six optimal
configurations of the d sweeps (Tables 16-21; :func:`moelaws.holistic.checks.sweep_targets`).
They are ours, not the paper's: its figures print no coefficients.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np
import pandas as pd

from moelaws.fit import PowerLawFit, fit_power_law
from moelaws.holistic.checks import sweep_targets


@lru_cache(maxsize=2)
def optimal_ratio_fit(offset: float = 6.0) -> PowerLawFit:
    """Ours: the optimal M/N_a against C, M/N_a = offset + a·C^b, from the six optimal
    configurations of the d sweeps (Tables 16-21;
    :func:`~moelaws.holistic.checks.sweep_targets`).

    The default offset 6 keeps the law inside Eq. 5's domain M/N_a > 6 when extrapolated;
    ``offset=0`` gives a plain power law.
    """
    targets = sweep_targets()
    return fit_power_law(targets["C"].to_numpy(), targets["M/N_a"].to_numpy(), offset)


def ratio_fit_r2_linear(offset: float) -> float:
    """R² of :func:`optimal_ratio_fit` measured on M/N_a itself (not on log(M/N_a − offset)),
    so that fits with different offsets compare on one scale."""
    targets = sweep_targets()
    y = targets["M/N_a"].to_numpy()
    fitted = optimal_ratio_fit(offset)(targets["C"].to_numpy())
    return float(1 - np.sum((y - fitted) ** 2) / np.sum((y - y.mean()) ** 2))


def ratio_fit_extrapolation(budgets: np.ndarray) -> pd.DataFrame:
    """Ours: how uncertain the M/N_a fit (Fig. 5b stand-in) is outside its fitted range
    1e18-3e20, and what that does to the layer count.

    Per budget: M/N_a from ``6 + a·C^b`` with the 95 % band of the mean (from the fit's
    covariance on six design points: a lower bound on the real uncertainty), the attention
    share 1 − 6/(M/N_a) of M at the band's ends (at fixed M, L is proportional to it:
    L = M(1 − 6/r)/(6·S·N_q·d_qkv), Eq. 3), the ratio of the two, and the plain power law's
    M/N_a (infeasible where it is ≤ 6, Eq. 5).
    """
    budgets = np.asarray(budgets, dtype=float)
    fit = optimal_ratio_fit(6.0)
    lo, hi = fit.band(budgets)
    share_lo, share_hi = 1 - 6 / lo, 1 - 6 / hi
    return pd.DataFrame(
        {
            "C": budgets,
            "M/N_a (6 + a C^b)": fit(budgets),
            "95% band low": lo,
            "95% band high": hi,
            "attention share low": share_lo,
            "attention share high": share_hi,
            "L high / L low": share_hi / share_lo,
            "M/N_a (a C^b)": optimal_ratio_fit(0.0)(budgets),
        }
    )


def d_range_fits() -> pd.DataFrame:
    """Ours: power laws d = a·C^b for the sweeps' smallest, median and largest d, and for our
    feasible interval's ends and midpoint at the same optimal configurations."""
    targets = sweep_targets()
    c = targets["C"].to_numpy()
    records = []
    for column in ("sweep d min", "sweep d median", "sweep d max", "feasible d min",
                   "proxy d", "feasible d max"):
        fit = fit_power_law(c, targets[column].to_numpy())
        records.append(
            {
                "quantity": column,
                "coef": fit.coef,
                "exponent": fit.exponent,
                "exponent 95% CI": f"[{fit.exponent_ci[0]:.3f}, {fit.exponent_ci[1]:.3f}]",
                "R2": fit.r2,
                "at 1e24": float(fit(1e24)),
            }
        )
    return pd.DataFrame(records)
