"""What :mod:`moelaws.fit` refuses, and what its ``converged`` flag checks.

Refusals (each a ``ValueError`` that names the reason), applied before anything is allocated:

* data: non-finite inputs or observations, non-positive observations (the fit is on
  ``log y``), non-positive values of an input the law takes a log or power of
  (:attr:`moelaws.fit.Law.positive_inputs`, or any input whose features are not finite), an
  input column with a single distinct value, two identical input columns, fewer distinct input
  rows than the fit has parameters plus one, more than :data:`MAX_ROWS` rows;
* settings: ``bounds`` of the wrong length, with ``lo >= hi`` or a start outside them;
  ``delta`` and ``grad_tol`` not finite and positive; ``maxiter`` not a positive whole number
  up to :data:`MAX_ITER`; more than :data:`MAX_STARTS` starts; ``n_resamples`` above
  :data:`MAX_RESAMPLES`; ``n_repeats`` above :data:`MAX_REPEATS`.

Convergence (:func:`diagnose`): a fit is ``converged`` only when the optimiser reports success,
the returned point moved from its start, the largest projected gradient component is small, no
parameter is at (or within :data:`BOUND_RTOL` of) a bound, and the condition number of the
Jacobian ``J`` of the predicted ``log y`` with respect to the parameters at the optimum is at
most :data:`MAX_CONDITION`. ``JᵀJ`` is the Gauss-Newton approximation of the objective's
Hessian, so a larger condition number means that Hessian is numerically singular.

The conditioning check is numerical, not a test of identifiability. It ignores the noise and
depends on how the parameters are written (a constant fitted as its log has a Jacobian column
proportional to the constant, so the condition number grows as that constant drifts towards
0). A parameter the data barely determine can pass it: in the comprehensive chapter's refit of
Eq. 11, ``log k`` has a standard error of several hundred at a well-conditioned point. Whether
the data determine a parameter is judged from its standard error ``σ·√diag((JᵀJ)⁻¹)`` at the
fit's noise level ``σ``, or from bootstrap intervals.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

Array = np.ndarray

MAX_ROWS = 1_000_000
"""Most observations a fit or a bootstrap accepts."""

MAX_STARTS = 100_000
"""Most starts a grid may hold (checked from the grid's shape before it is built)."""

MAX_ITER = 1_000_000
"""Largest ``maxiter`` for the optimiser."""

MAX_RESAMPLES = 100_000
"""Largest ``n_resamples`` of :func:`moelaws.fit.bootstrap`."""

MAX_REPEATS = 10_000
"""Largest ``n_repeats`` of :func:`moelaws.fit.parameter_recovery`."""

METHODS: tuple[str, ...] = ("L-BFGS-B", "BFGS")
"""Optimisers :func:`moelaws.fit.fit_law` accepts: gradient methods, whose success flag and
gradient the convergence checks read."""

BOUND_RTOL = 1e-5
"""A parameter within this fraction of its bound's interval width (of ``max(1, |bound|)`` for a
one-sided bound) is "at its bound": the optimum is not interior."""

MAX_CONDITION = 1.0 / math.sqrt(np.finfo(float).eps)
"""Largest condition number of the Jacobian of ``log ŷ`` at the optimum for a converged fit:
``1/√ε ≈ 6.7e7``, so that ``JᵀJ`` (the Gauss-Newton Hessian) has a condition number below
``1/ε``, the point where it is singular in double precision."""


def _describe(x: Any) -> str:
    text = repr(x)
    return text if len(text) <= 40 else text[:37] + "..."


def whole(name: str, value: Any, *, minimum: int = 1, maximum: int) -> int:
    """``value`` as an ``int`` in ``[minimum, maximum]``; bools, floats and strings are refused."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral):
        raise ValueError(f"{name} must be a whole number, not {_describe(value)}")
    value = int(value)
    if value < minimum:
        raise ValueError(f"{name} must be at least {minimum} (got {value})")
    if value > maximum:
        raise ValueError(f"{name} must be at most {maximum:,} (got {value:,})")
    return value


def positive_number(name: str, value: Any) -> float:
    """``value`` as a float, finite and > 0."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise ValueError(f"{name} must be a number, not {_describe(value)}")
    try:
        value = float(value)
    except OverflowError:
        raise ValueError(f"{name} must be finite (got an integer beyond float range)") from None
    if not (math.isfinite(value) and value > 0):
        raise ValueError(f"{name} must be finite and positive (got {value})")
    return value


def flag(name: str, value: Any, *, allow_none: bool = False) -> None:
    """``ValueError`` naming ``name`` unless ``value`` is True or False (or None if allowed):
    a truthy string or number where a switch belongs would silently switch it on."""
    if value is None and allow_none:
        return
    if not isinstance(value, (bool, np.bool_)):
        none = " or None" if allow_none else ""
        raise ValueError(f"{name} must be True or False{none}, not {_describe(value)}")


def numeric_array(name: str, x: Any) -> Array:
    """``x`` as a float array; strings, bools and objects are refused."""
    raw = np.asarray(x)
    if raw.dtype.kind not in "iuf":
        raise ValueError(f"{name} must be numeric, not {raw.dtype} ({_describe(x)})")
    return raw.astype(float)


def rows(name: str, n: int) -> None:
    if n > MAX_ROWS:
        raise ValueError(f"{name} has {n:,} rows; at most {MAX_ROWS:,} are accepted")


def observations(y: Array) -> None:
    """Observations for a fit on ``log y``: finite and positive."""
    if not np.all(np.isfinite(y)):
        raise ValueError(f"y has {int(np.sum(~np.isfinite(y)))} non-finite values")
    if np.any(y <= 0):
        raise ValueError("y must be positive (the fit is on log y); "
                         f"{int(np.sum(y <= 0))} values are not")


def refuse_unidentifiable_inputs(X: Array, F: Array, n_params: int, labels: Sequence[str],
           positive: Sequence[int]) -> None:
    """Refuse a design ``X`` (raw inputs) that cannot determine ``n_params`` parameters.

    ``F`` are the law's features of ``X``; ``positive`` the indices of the columns the law
    needs positive; ``labels`` the column names used in the messages.
    """
    for j, label in enumerate(labels):
        col = X[:, j]
        if not np.all(np.isfinite(col)):
            raise ValueError(f"input {label} has {int(np.sum(~np.isfinite(col)))} non-finite "
                             "values")
        if j in positive and np.any(col <= 0):
            raise ValueError(f"input {label} must be positive (the law takes its log or a "
                             f"power of it); {int(np.sum(col <= 0))} values are not")
    if not np.all(np.isfinite(F)):
        bad = [labels[j] for j in range(X.shape[1]) if np.any(X[:, j] <= 0)]
        hint = f" (non-positive values in {bad})" if bad else ""
        raise ValueError("the law's features of the inputs are not finite, so the inputs are "
                         f"outside its domain{hint}")
    for j, label in enumerate(labels):
        if np.unique(X[:, j]).size < 2:
            raise ValueError(f"input {label} has a single distinct value, so the parameters "
                             "of its term cannot be told apart")
    for i in range(X.shape[1]):
        for j in range(i + 1, X.shape[1]):
            if np.array_equal(X[:, i], X[:, j]):
                raise ValueError(f"inputs {labels[i]} and {labels[j]} are identical columns "
                                 "(a duplicated column, not two inputs)")
    distinct = np.unique(X, axis=0).shape[0]
    if distinct < n_params + 1:
        raise ValueError(f"{distinct} distinct input rows cannot determine {n_params} "
                         f"parameters: at least {n_params + 1} are needed")


def grid_size(starts: Mapping[str, Sequence[float]], names: Sequence[str]) -> None:
    """Refuse a ``{name: values}`` grid whose Cartesian product exceeds :data:`MAX_STARTS`,
    before it is built."""
    size = 1
    for n in names:
        k = np.size(starts[n])
        if k < 1:
            raise ValueError(f"the grid of starts has no values for {n}")
        size *= k
    if size > MAX_STARTS:
        raise ValueError(f"the grid of starts has {size:,} points; at most {MAX_STARTS:,} are "
                         "accepted")


def bounds_array(bounds: Sequence[Any], names: Sequence[str]) -> tuple[Array, Array]:
    """``bounds`` (one ``(lo, hi)`` per parameter, ``None`` for unbounded) as two arrays,
    refusing a wrong length, a NaN, or ``lo >= hi``."""
    if isinstance(bounds, (str, bytes)) or not isinstance(bounds, Sequence):
        raise ValueError("bounds must be a sequence of (lo, hi) pairs, one per parameter")
    if len(bounds) != len(names):
        raise ValueError(f"bounds has {len(bounds)} pairs; the law has {len(names)} "
                         f"parameters {list(names)}")
    lo, hi = np.empty(len(names)), np.empty(len(names))
    for k, (name, pair) in enumerate(zip(names, bounds, strict=True)):
        if isinstance(pair, (str, bytes)) or not isinstance(pair, Sequence) or len(pair) != 2:
            raise ValueError(f"the bound of {name} must be a (lo, hi) pair, not "
                             f"{_describe(pair)}")
        a, b = (-np.inf if pair[0] is None else pair[0]), (np.inf if pair[1] is None else pair[1])
        for v in (a, b):
            if isinstance(v, (bool, np.bool_)) or not isinstance(v, numbers.Real) or math.isnan(v):
                raise ValueError(f"the bound of {name} must hold numbers or None, not "
                                 f"{_describe(pair)}")
        if not a < b:
            raise ValueError(f"the bound of {name} has lo >= hi ({a}, {b})")
        lo[k], hi[k] = a, b
    return lo, hi


def starts_inside(grid: Array, lo: Array, hi: Array, names: Sequence[str]) -> None:
    outside = (grid < lo) | (grid > hi)
    if outside.any():
        i, j = np.argwhere(outside)[0]
        raise ValueError(f"{int(outside.any(axis=1).sum())} starts lie outside the bounds "
                         f"(e.g. start {int(i)}: {names[j]} = {grid[i, j]:g} not in "
                         f"[{lo[j]:g}, {hi[j]:g}])")


def at_bounds(x: Array, lo: Array, hi: Array) -> Array:
    """Which entries of ``x`` are at or within :data:`BOUND_RTOL` of a bound."""
    width = hi - lo
    tol_lo = np.where(np.isfinite(width), BOUND_RTOL * width, BOUND_RTOL * np.maximum(1, abs(lo)))
    tol_hi = np.where(np.isfinite(width), BOUND_RTOL * width, BOUND_RTOL * np.maximum(1, abs(hi)))
    with np.errstate(invalid="ignore"):
        return (x <= lo + tol_lo) | (x >= hi - tol_hi)


def jacobian_condition(jacobian: Callable[[Array], Array], x: Array) -> float:
    """Condition number (largest over smallest singular value) of the Jacobian ``jacobian(x)``
    (observations × parameters); infinite when it is rank-deficient or not finite."""
    with np.errstate(all="ignore"):
        J = np.asarray(jacobian(x), dtype=float)
    if J.ndim != 2 or J.shape[0] < J.shape[1] or not np.all(np.isfinite(J)):
        return math.inf
    s = np.linalg.svd(J, compute_uv=False)
    return float(s[0] / s[-1]) if s[-1] > 0 else math.inf


def finite_difference_jacobian(f: Callable[[Array], Array], x: Array) -> Array:
    """Central differences of ``f`` (a vector of predictions) at ``x``, one column per
    parameter, with steps ``1e-6·max(1, |x_j|)``."""
    cols = []
    for j in range(x.size):
        h = 1e-6 * max(1.0, abs(x[j]))
        step = np.zeros_like(x)
        step[j] = h
        cols.append((f(x + step) - f(x - step)) / (2 * h))
    return np.column_stack(cols)


@dataclass(frozen=True)
class FitDiagnostics:
    """The checks behind :attr:`moelaws.fit.FitResult.converged` at the best point.

    Attributes
    ----------
    optimiser_success, message
        SciPy's ``success`` flag and message for the best start.
    moved
        Whether the returned point differs from its start.
    grad_norm, grad_limit
        Largest projected gradient component, and the largest accepted.
    at_bound
        Names of parameters at (or within :data:`BOUND_RTOL` of) a bound.
    condition, max_condition
        Condition number of the Jacobian of ``log ŷ`` at the optimum, and
        :data:`MAX_CONDITION`.
    """

    optimiser_success: bool
    message: str
    moved: bool
    grad_norm: float
    grad_limit: float
    at_bound: tuple[str, ...]
    condition: float
    max_condition: float = MAX_CONDITION

    def failures(self) -> list[str]:
        """One sentence per failed check (empty when the fit converged)."""
        out = []
        if not self.optimiser_success:
            out.append(f"the optimiser reported failure ({self.message})")
        if not self.moved:
            out.append("the returned point is its start point")
        if not self.grad_norm <= self.grad_limit:
            out.append(f"the gradient is not small ({self.grad_norm:.3g} > "
                       f"{self.grad_limit:.3g})")
        if self.at_bound:
            out.append(f"parameters at a bound: {', '.join(self.at_bound)}")
        if not self.condition <= self.max_condition:
            out.append(f"ill-conditioned: the Jacobian of log y-hat has condition number "
                       f"{self.condition:.3g} > {self.max_condition:.3g}, so JᵀJ (the "
                       "Gauss-Newton Hessian) is numerically singular")
        return out
