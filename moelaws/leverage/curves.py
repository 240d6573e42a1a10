"""Efficiency leverage from loss curves: Algorithm 1 and App. K of the leverage paper.

Each model family's (compute, loss) points are fitted with ``L(C) = α·C^β + b`` (Huber loss
and BFGS, as the paper fits its laws); the MoE's fitted loss at ``C_MoE`` is the target, the
dense curve is inverted to find the compute that reaches it, and ``EL = C_dense / C_MoE``.
Where the target is at or below the dense curve's floor ``b`` the dense family can never reach
it, and EL is undefined (Alg. 1, line 7): we return NaN and say why.
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from moelaws.fit import FitResult, Law, fit_law
from moelaws.fit_checks import positive_number

ArrayLike = float | Sequence[float] | np.ndarray
Points = np.ndarray | pd.DataFrame | Sequence[tuple[float, float]]


def _loss_curve_law() -> Law:
    """``log L = log(exp(p + β·x) + exp(q))`` with ``x = ln(C/C_ref)``, ``p = ln α + β·ln
    C_ref`` and ``q = ln b``: the power law plus floor in a well-scaled parametrisation."""

    def value_and_jacobian(params: np.ndarray, F: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        p, beta, q = params
        x = F[:, 0]
        t1 = p + beta * x
        t2 = np.full_like(x, q)
        m = np.maximum(t1, t2)
        w1, w2 = np.exp(t1 - m), np.exp(t2 - m)
        total = w1 + w2
        w1, w2 = w1 / total, w2 / total
        return m + np.log(total), np.column_stack([w1, w1 * x, w2])

    return Law(
        ("p", "beta", "q"),
        lambda params, F: value_and_jacobian(params, F)[0],
        value_and_jacobian,
    )


@dataclass(frozen=True)
class LossCurve:
    """A fitted loss curve ``L(C) = alpha·C^beta + floor`` (App. K, step 2).

    Attributes
    ----------
    alpha, beta, floor
        The fitted α, β (negative for a falling curve) and b.
    n_points
        How many (C, loss) points were fitted.
    fit
        The underlying :class:`moelaws.fit.FitResult` (every start's outcome).
    """

    alpha: float
    beta: float
    floor: float
    n_points: int
    fit: FitResult = field(repr=False, compare=False)

    def __call__(self, C: ArrayLike) -> np.ndarray:
        C = np.asarray(C, dtype=float)
        if np.any(~np.isfinite(C)) or np.any(C <= 0):
            raise ValueError("the compute budget C must be finite and positive")
        return self.alpha * C**self.beta + self.floor

    def inverse(self, loss: ArrayLike) -> np.ndarray:
        """The compute at which the curve reaches ``loss``; NaN where it never does."""
        loss = np.asarray(loss, dtype=float)
        excess = loss - self.floor
        with np.errstate(all="ignore"):
            C = (excess / self.alpha) ** (1.0 / self.beta)
        ok = (excess > 0) & (self.beta < 0) & (self.alpha > 0)
        return np.where(ok, C, np.nan)


def _points(name: str, points: Points) -> tuple[np.ndarray, np.ndarray]:
    if isinstance(points, pd.DataFrame):
        missing = {"C", "loss"} - set(points.columns)
        if missing:
            raise ValueError(f"{name} needs columns 'C' and 'loss'")
        arr = points[["C", "loss"]].to_numpy(dtype=float)
    else:
        arr = np.asarray(points, dtype=float)
    if arr.ndim != 2 or arr.shape[1] != 2:
        raise ValueError(f"{name} must be (compute, loss) pairs")
    if arr.shape[0] < 4:
        # moelaws.fit refuses fewer distinct points than parameters plus one (a residual).
        raise ValueError(f"{name}: a loss curve has 3 parameters and needs at least 4 points")
    if np.any(~np.isfinite(arr)) or np.any(arr <= 0):
        raise ValueError(f"{name}: compute and loss must be finite and positive")
    return arr[:, 0], arr[:, 1]


def _starts(x: np.ndarray, loss: np.ndarray) -> np.ndarray:
    """Starts spread around the data: floors below the lowest loss, several slopes."""
    starts = []
    for frac, beta in itertools.product((0.3, 0.6, 0.85, 0.97), (-0.05, -0.15, -0.3, -0.6)):
        floor = frac * loss.min()
        # Put the start's curve through the mean excess over the floor at x = 0 (C = C_ref).
        p = np.log(max(np.exp(np.log(loss).mean()) - floor, 1e-6))
        starts.append((p, beta, np.log(floor)))
    return np.array(starts)


def fit_loss_curve(points: Points, *, delta: float = 1e-3) -> LossCurve:
    """Fit ``L(C) = α·C^β + b`` to (compute, loss) points (App. K, step 2).

    Huber loss (threshold ``delta``) on log residuals, minimised with BFGS from a grid of 16
    starts, as the paper fits its laws (Sec. 4.2.3, after Hoffmann et al. 2022).

    Parameters
    ----------
    points
        An ``(n, 2)`` array of (C, loss), a sequence of pairs, or a DataFrame with columns
        ``C`` and ``loss``; at least 4 distinct budgets (3 parameters plus one).
    delta
        Huber threshold on log residuals.

    Returns
    -------
    LossCurve
        The fitted curve; equal points and ``delta`` return the same (cached) object, so
        treat it, and its ``fit``, as read-only.

    Raises
    ------
    ValueError
        For fewer than 4 points (or 4 distinct budgets) or non-positive / non-finite values.
    """
    C, loss = _points("points", points)
    # Efficiency leverage fits the dense family's points once per MoE family it is compared
    # with, and charts refit them: the fit is deterministic, so equal points are fitted once.
    return _fitted_curve(C.tobytes(), loss.tobytes(), positive_number("delta", delta))


@functools.lru_cache(maxsize=64)
def _fitted_curve(C_bytes: bytes, loss_bytes: bytes, delta: float) -> LossCurve:
    C, loss = np.frombuffer(C_bytes).copy(), np.frombuffer(loss_bytes).copy()
    log_ref = float(np.log(C).mean())
    x = np.log(C) - log_ref
    fit = fit_law(_loss_curve_law(), x[:, None], loss, _starts(x, loss), delta=delta,
                  method="BFGS", progress=False)
    p, beta, q = fit.params["p"], fit.params["beta"], fit.params["q"]
    alpha = float(np.exp(p - beta * log_ref))
    return LossCurve(alpha, float(beta), float(np.exp(q)), int(C.size), fit)


@dataclass(frozen=True)
class LeverageResult:
    """EL by loss matching at each requested MoE budget (Algorithm 1).

    Attributes
    ----------
    C
        MoE compute budgets.
    el
        Efficiency leverage ``C_dense / C``; NaN where undefined.
    target_loss
        ``L_MoE(C)``, the loss the dense family must reach.
    c_dense
        The dense compute that reaches it (NaN where it cannot).
    reasons
        One string per budget: ``""`` where EL is defined, otherwise why not.
    dense, moe
        The two fitted loss curves.
    """

    C: np.ndarray
    el: np.ndarray
    target_loss: np.ndarray
    c_dense: np.ndarray
    reasons: tuple[str, ...]
    dense: LossCurve
    moe: LossCurve

    @property
    def reason(self) -> str:
        """Every distinct reason for an undefined EL, joined (``""`` if all are defined)."""
        return "; ".join(dict.fromkeys(r for r in self.reasons if r))

    def to_frame(self) -> pd.DataFrame:
        return pd.DataFrame(
            {
                "C": self.C.ravel(),
                "target_loss": self.target_loss.ravel(),
                "C_dense": self.c_dense.ravel(),
                "EL": self.el.ravel(),
                "reason": list(self.reasons),
            }
        )


def leverage_from_loss_curves(
    dense_points: Points, moe_points: Points, C: ArrayLike, *, delta: float = 1e-3
) -> LeverageResult:
    """Efficiency leverage of an MoE family over a dense family at budgets ``C`` (Alg. 1).

    Parameters
    ----------
    dense_points, moe_points
        (compute, loss) points of each family (see :func:`fit_loss_curve`).
    C
        MoE compute budget(s) in FLOPs (> 0).
    delta
        Huber threshold of the curve fits.

    Returns
    -------
    LeverageResult
        EL per budget, NaN where the MoE's loss is at or below the dense curve's floor (or
        the dense curve does not fall with compute), with the reason in ``.reasons``.

    Raises
    ------
    ValueError
        For invalid points or a non-positive budget.
    """
    C = np.asarray(C, dtype=float)
    if np.any(~np.isfinite(C)) or np.any(C <= 0):
        raise ValueError("the compute budget C must be finite and positive")
    dense = fit_loss_curve(dense_points, delta=delta)
    moe = fit_loss_curve(moe_points, delta=delta)
    target = moe(C)
    c_dense = dense.inverse(target)
    el = c_dense / C
    reasons = []
    for t in np.atleast_1d(target).ravel():
        if not (dense.beta < 0 and dense.alpha > 0):
            reasons.append(
                f"the dense curve does not fall with compute (alpha={dense.alpha:.3g}, "
                f"beta={dense.beta:.3g}), so it cannot be inverted"
            )
        elif t <= dense.floor:
            reasons.append(
                f"target loss {t:.4f} is at or below the dense curve's floor "
                f"b = {dense.floor:.4f}: no dense budget reaches it (Alg. 1, line 7)"
            )
        else:
            reasons.append("")
    return LeverageResult(C, el, target, c_dense, tuple(reasons), dense, moe)
