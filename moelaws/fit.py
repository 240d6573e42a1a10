"""One fitting recipe for the whole book.

The careful replications (Hoffmann et al. 2022; Besiroglu et al. 2024, "Chinchilla scaling:
a replication attempt"; Porian et al. 2024; Li et al. 2025, "(Mis)fitting scaling laws")
converge on one recipe, implemented here once:

* power laws ``y = a·x^b`` (or ``E + a·x^b``) fitted by least squares in log space
  (statsmodels; :func:`fit_power_law`);
* sums of power laws fitted as ``log L = LogSumExp(...)`` with a robust loss on the log
  residuals from a grid of starts (:func:`fit_law`, :func:`chinchilla_law`,
  :data:`HOFFMANN_GRID`). The objective is evaluated at every start at once with NumPy and
  only the best few starts are polished with L-BFGS-B (``n_polish=None`` polishes all);
* bootstrap confidence intervals with a fixed seed for coefficients and derived quantities
  (:func:`bootstrap`, :func:`scipy.stats.bootstrap`: BCa or percentile);
* parameter recovery: simulate a law at given design points with noise, refit, and report how
  well each coefficient comes back (:func:`parameter_recovery`).

Estimators (``fit_law(..., loss=...)``) and the chapters that use them:

* ``"huber"``: ``Σ Huber_δ(log ŷ − log y)`` with δ = 1e-3 (Hoffmann et al. 2022,
  Approach 3). Used by Leverage (the Eq. 4 refit and the loss-curve fits, as the paper fits
  them, with BFGS) and Comprehensive (our refit of Eq. 11, L-BFGS-B with tight tolerances;
  the chapter's "fitting recipe" section).
* ``"huber_likelihood"``: ``−Σ log p(log y | log ŷ, σ)`` for a Huber density with a fitted
  scale σ (Besiroglu et al. 2024, arXiv:2404.10102). Available; no chapter uses it yet.
* ``"squared"``: ``½ Σ (log ŷ − log y)²``. Available; no chapter uses it yet.

Honesty: every entry point refuses, with a ``ValueError`` naming the reason, data and settings
that cannot determine a fit (too few distinct rows, a constant or duplicated input, inputs
outside the law's domain, bounds that do not match the parameters, counts above the caps in
:mod:`moelaws.fit_checks`), and :attr:`FitResult.converged` is True only for an optimiser
success at an interior, well-conditioned optimum (:class:`moelaws.fit_checks.FitDiagnostics`;
:attr:`FitResult.reason` says which check failed).

Power laws (:func:`fit_power_law`, OLS in log space, optionally above a fixed or fitted
offset) are used by Holistic (the Eq. 2 refit and our Fig. 5b/6b fits), Comprehensive (the
Eq. 33 form fitted to the derived L*(C)) and Allocation (the size law); Constrained fits its
Table 3 regressions (several regressors, not power laws of one variable) with statsmodels OLS
directly. Anatomy fits nothing.
"""

from __future__ import annotations

import itertools
import math
import numbers
import warnings
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from scipy import optimize, special

from moelaws import fit_checks as checks
from moelaws.fit_checks import (
    MAX_CONDITION,
    MAX_ITER,
    MAX_REPEATS,
    MAX_RESAMPLES,
    MAX_ROWS,
    MAX_STARTS,
    FitDiagnostics,
)

Array = np.ndarray

HOFFMANN_GRID: dict[str, Sequence[float]] = {
    "a": np.arange(0.0, 30.0, 5.0),
    "b": np.arange(0.0, 30.0, 5.0),
    "e": np.arange(-1.0, 1.5, 0.5),
    "alpha": np.arange(0.0, 2.5, 0.5),
    "beta": np.arange(0.0, 2.5, 0.5),
}
"""Hoffmann et al.'s grid of starts for the Chinchilla law in log parametrisation
(a = log A, b = log B, e = log E): 6 x 6 x 5 x 5 x 5 = 4500 starts."""

LOSSES: tuple[str, ...] = ("huber", "huber_likelihood", "squared")
"""The objectives :func:`fit_law` minimises (see the module docstring)."""

SCALE_NAME = "log_sigma"
"""The extra fitted parameter of ``loss="huber_likelihood"``: the log of the Huber scale σ."""

N_POLISH = 16
"""Starts polished with L-BFGS-B by default: the best ones by their initial objective."""

LBFGSB_OPTIONS: dict[str, float] = {"ftol": 1e-15, "gtol": 1e-10}
"""L-BFGS-B's stopping tolerances unless the caller gives others. SciPy's defaults
(``ftol ≈ 2.2e-9`` relative, ``gtol = 1e-5``) stop a Huber fit whose objective is ~1e-3 or
less well before the optimum (Besiroglu et al. 2024 trace Hoffmann et al.'s estimates to
that)."""


def _positive(name: str, x: Array) -> None:
    if np.any(~np.isfinite(x)) or np.any(x <= 0):
        raise ValueError(f"{name} must be finite and positive")


@dataclass(frozen=True)
class PowerLawFit:
    """``y = offset + coef · x^exponent`` fitted in log space, with standard errors and 95 %
    t-intervals (the ``offset`` is 0 unless the fit was given or fitted one)."""

    coef: float
    exponent: float
    log_coef_se: float
    exponent_se: float
    r2: float
    exponent_ci: tuple[float, float]
    coef_ci: tuple[float, float]
    n: int
    log_cov: tuple[tuple[float, float], tuple[float, float]]
    """Covariance of (log coef, exponent)."""
    dof: int
    """Residual degrees of freedom of the fit."""
    offset: float = 0.0

    def __call__(self, x: Array | float) -> Array:
        return self.offset + self.coef * np.asarray(x, dtype=float) ** self.exponent

    def band(self, x: Array | float, level: float = 0.95) -> tuple[Array, Array]:
        """The ``level`` confidence band of the fitted mean at ``x`` (t-interval of
        ``log a + b·log x`` mapped back through the offset; the offset is held fixed).

        Raises
        ------
        ValueError
            If ``level`` is not a number in (0, 1).
        """
        level = _finite_number("level", level)
        if not 0 < level < 1:
            raise ValueError(f"level must lie in (0, 1), got {level}")
        lx = np.log(np.asarray(x, dtype=float))
        cov = np.asarray(self.log_cov)
        se = np.sqrt(cov[0, 0] + 2 * cov[0, 1] * lx + cov[1, 1] * lx**2)
        half = float(special.stdtrit(self.dof, 0.5 + level / 2)) * se
        mid = np.log(self.coef) + self.exponent * lx
        return self.offset + np.exp(mid - half), self.offset + np.exp(mid + half)


def _finite_number(name: str, value: object) -> float:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise ValueError(f"{name} must be a number, not {value!r:.40}")
    try:
        value = float(value)
    except OverflowError:
        raise ValueError(f"{name} must be finite (got an integer beyond float range)") from None
    if not math.isfinite(value):
        raise ValueError(f"{name} must be finite (got {value})")
    return value


def _power_law_data(x: object, y: object, offset: float) -> tuple[Array, Array]:
    x = checks.numeric_array("x", x)
    y = checks.numeric_array("y", y)
    if x.shape != y.shape or x.ndim != 1:
        raise ValueError("x and y must be 1-D arrays of the same length")
    checks.rows("x", x.size)
    _positive("x", x)
    if offset == 0:
        _positive("y", y)
    elif np.any(~np.isfinite(y)) or np.any(y <= offset):
        raise ValueError(f"y must be finite and above the offset ({offset:g})")
    if np.unique(x).size < 3:
        raise ValueError(f"a power-law fit needs at least 3 distinct x (2 parameters plus one, "
                         f"or the 3 of a free offset); got {np.unique(x).size}")
    return x, y


def _t_interval(value: float, se: float, dof: int) -> tuple[float, float]:
    half = float(special.stdtrit(dof, 0.975)) * se
    return value - half, value + half


def fit_power_law(
    x: Array | Sequence[float],
    y: Array | Sequence[float],
    offset: float = 0.0,
    free_offset: bool = False,
) -> PowerLawFit:
    """Fit ``y = offset + a·x^b`` in log space: ordinary least squares on
    ``log(y − offset) = log a + b·log x`` (:class:`statsmodels.regression.linear_model.OLS`),
    or, with ``free_offset``, least squares on ``log y`` with the offset fitted too.

    Parameters
    ----------
    x, y
        Finite, positive values of equal length (``y`` above ``offset``), with at least 3
        distinct ``x`` (two parameters plus one, so that the fit has a residual; with
        ``free_offset``, three parameters and no residual at 3 points, where the standard
        errors and intervals are NaN) and at most :data:`~moelaws.fit_checks.MAX_ROWS` points.
    offset
        The asymptote ``y`` approaches (``0``: a plain power law); with ``free_offset`` the
        start of its fit.
    free_offset
        Fit the offset as well (:func:`scipy.optimize.least_squares` on ``log y`` with tight
        tolerances, started from the fixed-offset fit). Its intervals are the Gauss-Newton
        (linearised) ones.

    Returns
    -------
    PowerLawFit
        Coefficient, exponent, their standard errors (of ``log a`` and ``b``) and 95 %
        t-intervals, R² in log space, the number of points and the offset.

    Raises
    ------
    ValueError
        For non-numeric, non-finite or non-positive values, ``y`` not above ``offset``,
        mismatched lengths, more than :data:`~moelaws.fit_checks.MAX_ROWS` points, or too few
        distinct ``x``.
    """
    offset = _finite_number("offset", offset)
    checks.flag("free_offset", free_offset)
    x, y = _power_law_data(x, y, offset)
    # statsmodels takes seconds to import and only this OLS needs it: chapters that fit no
    # power law do not pay for it. Its two modules, not statsmodels.api, which imports every
    # model besides (0.65 s more of CPU time beside pandas and scipy.stats).
    from statsmodels.regression.linear_model import OLS
    from statsmodels.tools.tools import add_constant

    ly = np.log(y - offset)
    ols = OLS(ly, add_constant(np.log(x), has_constant="add")).fit()
    if free_offset:
        return _free_offset_fit(x, y, offset, ols.params)
    ci = ols.conf_int(0.05)
    # An exact fit of a constant y leaves R² undefined (0/0); the line then explains all of it.
    r2 = float(ols.rsquared) if np.ptp(ly) > 0 else 1.0
    return PowerLawFit(
        coef=float(np.exp(ols.params[0])),
        exponent=float(ols.params[1]),
        log_coef_se=float(ols.bse[0]),
        exponent_se=float(ols.bse[1]),
        r2=r2,
        exponent_ci=(float(ci[1, 0]), float(ci[1, 1])),
        coef_ci=(float(np.exp(ci[0, 0])), float(np.exp(ci[0, 1]))),
        n=int(x.size),
        log_cov=_pair(ols.cov_params()),
        dof=int(ols.df_resid),
        offset=offset,
    )


def _pair(cov: Array) -> tuple[tuple[float, float], tuple[float, float]]:
    return ((float(cov[0, 0]), float(cov[0, 1])), (float(cov[1, 0]), float(cov[1, 1])))


def _free_offset_fit(x: Array, y: Array, offset: float, start: Array) -> PowerLawFit:
    lx, ly = np.log(x), np.log(y)

    def residuals(q: Array) -> Array:
        return np.log(q[0] + np.exp(q[1] + q[2] * lx)) - ly

    res = optimize.least_squares(
        residuals, [offset, start[0], start[1]], x_scale=[1.0, 10.0, 0.1],
        xtol=1e-14, ftol=1e-14, gtol=1e-14,
    )
    if not (res.success and np.all(np.isfinite(res.x))):
        raise ValueError(f"the free-offset power-law fit did not converge: {res.message}")
    dof = x.size - 3
    sigma2 = float(np.sum(res.fun**2)) / dof if dof > 0 else math.nan
    cov = sigma2 * np.linalg.pinv(res.jac.T @ res.jac)
    se = np.sqrt(np.clip(np.diag(cov), 0.0, None))
    total = float(np.sum((ly - ly.mean()) ** 2))
    r2 = 1.0 - float(np.sum(res.fun**2)) / total if total > 0 else 1.0
    lo_a, hi_a = _t_interval(float(res.x[1]), float(se[1]), dof)
    return PowerLawFit(
        coef=float(np.exp(res.x[1])),
        exponent=float(res.x[2]),
        log_coef_se=float(se[1]),
        exponent_se=float(se[2]),
        r2=r2,
        exponent_ci=_t_interval(float(res.x[2]), float(se[2]), dof),
        coef_ci=(float(np.exp(lo_a)), float(np.exp(hi_a))),
        n=int(x.size),
        log_cov=_pair(cov[1:, 1:]),
        dof=dof,
        offset=float(res.x[0]),
    )


def huber_loss(residuals: Array, delta: float = 1e-3) -> float:
    """Sum of Huber losses of ``residuals`` with threshold ``delta``
    (:func:`scipy.special.huber`: ``r²/2`` inside, ``δ·(|r| − δ/2)`` outside).

    Raises
    ------
    ValueError
        If ``delta`` is not a finite positive number, or ``residuals`` is not a non-empty
        one-dimensional array of finite numbers.
    """
    delta = checks.positive_number("delta", delta)
    if isinstance(residuals, (bool, np.bool_)):
        raise ValueError("residuals must be numbers, not a bool")
    try:
        r = checks.numeric_array("residuals", residuals)
    except OverflowError:
        raise ValueError("residuals must be finite (an integer beyond float range)") from None
    if r.ndim > 1 or r.size == 0 or r.size > checks.MAX_ROWS or not np.all(np.isfinite(r)):
        raise ValueError(f"residuals must be a non-empty 1-D array of at most "
                         f"{checks.MAX_ROWS} finite numbers, got shape {r.shape}")
    return float(special.huber(delta, r).sum())


def huber_log_normaliser(delta: float) -> float:
    """``log Z(δ)`` of the Huber density ``exp(−Huber_δ(x))/Z(δ)`` used by Besiroglu et al.
    (2024): ``Z(δ) = √(2π)·(1 − 2·Φ̄(δ)) + 2·exp(−δ²/2)/δ`` (Φ̄ the normal survival
    function; the Gaussian core plus two exponential tails).

    Raises
    ------
    ValueError
        If ``delta`` is not a finite positive number, or so small that ``Z(δ)`` overflows.
    """
    d = np.float64(checks.positive_number("delta", delta))
    with np.errstate(over="ignore", divide="ignore"):
        value = float(np.log(np.sqrt(2 * np.pi) * (1 - 2 * special.ndtr(-d))
                             + 2 * np.exp(-0.5 * d * d) / d))
    if not math.isfinite(value):
        raise ValueError(f"delta={float(d):g} is too small: log Z(delta) overflows")
    return value


@dataclass(frozen=True)
class Law:
    """A scaling law ``log y = log_predict(params, X)`` with named parameters.

    Parameters
    ----------
    names
        Parameter names, in the order of the parameter vector.
    log_predict
        ``(params: ndarray, X: ndarray) -> ndarray`` giving the predicted ``log y`` for each
        row of ``X`` (columns are the law's inputs).
    log_value_and_jacobian
        Optional ``(params, F) -> (log_pred, jac)`` with ``jac`` of shape
        ``(n_obs, n_params)``. With it the fit uses exact gradients (much faster over a grid
        of thousands of starts); without it, finite differences.
    features
        Optional transform applied once to ``X`` before fitting (e.g. ``np.log``), so that
        ``log_predict`` receives features ``F`` rather than raw inputs. Default: identity.
    inputs
        Names of the input columns, in the order of ``X``'s columns: a DataFrame given to
        :func:`fit_law` is matched by these names, never by position.
    output
        Name of the observed column (e.g. ``"loss"``), used when ``y`` is not given.
    default_starts
        The grid of starts (``{name: values}`` or an array of start vectors) that
        :func:`fit_law` uses when none is given.
    natural
        ``{name: value} -> {name: value}``: the parameters in their natural form (e.g.
        ``A = exp(a)``), for :attr:`FitResult.natural`.
    batched
        True when ``log_predict`` also accepts a 2-D array of parameter vectors (one per row)
        and returns one row of predictions per vector: the grid of starts is then screened in
        a single NumPy evaluation.
    positive_inputs
        Names (from :attr:`inputs`) of the inputs the law takes a log or a power of:
        :func:`fit_law` refuses data with a non-positive value there. Any input whose
        :attr:`features` are not finite is refused too.
    """

    names: tuple[str, ...]
    log_predict: Callable[[Array, Array], Array]
    log_value_and_jacobian: Callable[[Array, Array], tuple[Array, Array]] | None = None
    features: Callable[[Array], Array] | None = None
    inputs: tuple[str, ...] | None = None
    output: str | None = None
    default_starts: Mapping[str, Sequence[float]] | Array | None = None
    natural: Callable[[Mapping[str, float]], dict[str, float]] | None = None
    batched: bool = False
    positive_inputs: tuple[str, ...] = ()

    def prepare(self, X: Array) -> Array:
        X = np.atleast_2d(np.asarray(X, dtype=float))
        return self.features(X) if self.features is not None else X

    def predict(self, params: Array | Mapping[str, float], X: Array | pd.DataFrame) -> Array:
        if isinstance(X, pd.DataFrame):
            X = self._columns(X)
        return np.exp(self.log_predict(self._vector(params), self.prepare(X)))

    def _vector(self, params: Array | Mapping[str, float]) -> Array:
        if isinstance(params, Mapping):
            return np.array([params[n] for n in self.names], dtype=float)
        return np.asarray(params, dtype=float)

    def _columns(self, frame: pd.DataFrame) -> Array:
        """The input columns of ``frame`` in the law's order, matched by name."""
        if self.inputs is None:
            raise ValueError("this law has no input names; pass X as an array")
        duplicated = sorted({str(c) for c in frame.columns[frame.columns.duplicated()]})
        if duplicated:
            raise ValueError(f"the data have duplicate column names {duplicated}: which one "
                             "is meant is ambiguous")
        missing = [c for c in self.inputs if c not in frame.columns]
        if missing:
            raise ValueError(f"the data lack the input columns {missing}; this law needs "
                             f"{list(self.inputs)} (got {list(frame.columns)})")
        return frame[list(self.inputs)].to_numpy(dtype=float)


def _lse3(t1: Array, t2: Array, t3: Array) -> tuple[Array, Array, Array, Array]:
    """log(e^t1 + e^t2 + e^t3) and the three softmax weights, without scipy's overhead
    (this runs thousands of times per fit)."""
    m = np.maximum(np.maximum(t1, t2), t3)
    w1, w2, w3 = np.exp(t1 - m), np.exp(t2 - m), np.exp(t3 - m)
    total = w1 + w2 + w3
    return m + np.log(total), w1 / total, w2 / total, w3 / total


def _chinchilla_natural(p: Mapping[str, float]) -> dict[str, float]:
    return {"A": float(np.exp(p["a"])), "B": float(np.exp(p["b"])),
            "E": float(np.exp(p["e"])), "alpha": float(p["alpha"]), "beta": float(p["beta"])}


def chinchilla_law() -> Law:
    """Hoffmann et al.'s ``L(N, D) = E + A/N^α + B/D^β`` (their Eq. 2) as
    ``log L = LogSumExp(a − α·log N, b − β·log D, e)`` with ``a = log A``, ``b = log B``,
    ``e = log E``. Inputs: columns ``[N, D]`` (a DataFrame's ``N`` and ``D`` columns, by
    name); output ``loss``; default starts :data:`HOFFMANN_GRID`."""

    def log_predict(p: Array, F: Array) -> Array:
        a, b, e, alpha, beta = (np.asarray(v)[..., None] for v in np.moveaxis(p, -1, 0))
        ln_n, ln_d = F[:, 0], F[:, 1]
        return _lse3(a - alpha * ln_n, b - beta * ln_d, e + np.zeros_like(ln_n))[0]

    def log_value_and_jacobian(p: Array, F: Array) -> tuple[Array, Array]:
        a, b, e, alpha, beta = p
        ln_n, ln_d = F[:, 0], F[:, 1]
        value, w1, w2, w3 = _lse3(a - alpha * ln_n, b - beta * ln_d, np.full_like(ln_n, e))
        return value, np.column_stack([w1, w2, w3, -w1 * ln_n, -w2 * ln_d])

    return Law(("a", "b", "e", "alpha", "beta"), log_predict, log_value_and_jacobian, np.log,
               inputs=("N", "D"), output="loss", default_starts=HOFFMANN_GRID,
               natural=_chinchilla_natural, batched=True, positive_inputs=("N", "D"))


@dataclass
class FitResult:
    """Result of :func:`fit_law`: the best parameters and every start's outcome.

    Attributes
    ----------
    params
        The fitted parameters as the law defines them (e.g. ``a = log A``); with
        ``loss="huber_likelihood"`` also :data:`SCALE_NAME`.
    loss
        The objective at ``params``.
    starts
        One row per start: its values (``start_*``), its initial objective
        (``initial_loss``), whether it was polished, and for polished ones the fitted values,
        ``loss`` and SciPy's ``converged`` flag.
    converged
        True only if every check of :class:`~moelaws.fit_checks.FitDiagnostics` passes at
        the best point: the optimiser reported success; the returned point is not the start
        it came from; the largest (projected) gradient component is small (``grad_tol``); no
        parameter is at or within :data:`~moelaws.fit_checks.BOUND_RTOL` of a bound (the
        optimum is interior); and the Jacobian of ``log ŷ`` with respect to the parameters has
        a condition number of at most :data:`~moelaws.fit_checks.MAX_CONDITION` (about
        6.7e7, so that the Gauss-Newton Hessian ``JᵀJ`` is not numerically singular). That
        last check is numerical, not a test of identifiability: a parameter the data barely
        determine can pass it (see :mod:`moelaws.fit_checks`).
    grad_norm
        That largest gradient component.
    reason
        ``""`` when converged, otherwise the failed checks in words.
    diagnostics
        Every check's value (:class:`~moelaws.fit_checks.FitDiagnostics`).
    """

    law: Law
    params: dict[str, float]
    loss: float
    starts: pd.DataFrame = field(repr=False)
    converged: bool = True
    grad_norm: float = 0.0
    reason: str = ""
    diagnostics: FitDiagnostics | None = field(default=None, repr=False)

    def predict(self, X: Array | pd.DataFrame) -> Array:
        return self.law.predict(self.params, X)

    @property
    def natural(self) -> dict[str, float]:
        """The parameters in natural form (for :func:`chinchilla_law`: ``A, B, E, alpha,
        beta``); the fitted scale σ is included as ``sigma`` for the Huber likelihood."""
        own = {n: self.params[n] for n in self.law.names}
        out = self.law.natural(own) if self.law.natural is not None else dict(own)
        if SCALE_NAME in self.params:
            out["sigma"] = float(np.exp(self.params[SCALE_NAME]))
        return out

    def residuals(self, X: Array | pd.DataFrame, y: Array) -> Array:
        """Log residuals ``log y − log ŷ`` at ``X``."""
        return np.log(np.asarray(y, dtype=float)) - np.log(self.predict(X))

    @property
    def spread(self) -> pd.DataFrame:
        """Spread of the fitted parameters over the polished starts whose loss is within 1e-6
        (relative) of the best: how well determined the optimum is."""
        best = self.starts["loss"].min()
        near = self.starts[self.starts["loss"] <= best + abs(best) * 1e-6 + 1e-12]
        return near[list(self.params)].agg(["min", "max", "std"])


def _grid(starts: Mapping[str, Sequence[float]] | Array, names: Sequence[str]) -> Array:
    if isinstance(starts, Mapping):
        missing = [n for n in names if n not in starts]
        if missing:
            raise ValueError(f"grid of starts lacks parameters {missing}")
        checks.grid_size(starts, names)
        grid = np.array(list(itertools.product(*(starts[n] for n in names))), dtype=float)
    else:
        grid = np.atleast_2d(checks.numeric_array("starts", starts))
        if grid.ndim != 2 or grid.shape[1] != len(names):
            raise ValueError(f"each start needs {len(names)} values")
        if len(grid) > MAX_STARTS:
            raise ValueError(f"{len(grid):,} starts; at most {MAX_STARTS:,} are accepted")
    if not np.all(np.isfinite(grid)):
        raise ValueError("every start must be finite")
    return grid


def _inputs(law: Law, X: Array | pd.DataFrame, y: Array | str | None) -> tuple[Array, Array]:
    """``X`` and ``y`` as arrays; DataFrame columns are matched by name, never by position."""
    if isinstance(X, pd.DataFrame):
        if y is None:
            if law.output is None:
                raise ValueError("give y (this law names no output column)")
            y = law.output
        columns = law._columns(X)
        if isinstance(y, str):
            if y in (law.inputs or ()):
                raise ValueError(f"y = {y!r} is also an input of the law ({list(law.inputs)}): "
                                 "a column cannot be both")
            if y not in X.columns:
                raise ValueError(f"the data lack the output column {y!r}")
            y = X[y].to_numpy(dtype=float)
        return columns, checks.numeric_array("y", y)
    if y is None or isinstance(y, str):
        raise ValueError("y must be an array unless X is a DataFrame")
    X = np.atleast_2d(checks.numeric_array("X", X))
    y = checks.numeric_array("y", y)
    if X.shape[0] == 1 and y.size > 1:
        X = X.T
    return X, y


def _labels(law: Law, n_columns: int) -> list[str]:
    if law.inputs is not None and len(law.inputs) == n_columns:
        return list(law.inputs)
    return [f"column {j}" for j in range(n_columns)]


def _check_data(law: Law, X: Array, y: Array, n_params: int) -> Array:
    """The law's features of ``X`` after the data refusals of :mod:`moelaws.fit_checks`."""
    if X.ndim != 2 or y.ndim != 1:
        raise ValueError("X must be 2-D (one row per observation) and y 1-D")
    checks.rows("X", X.shape[0])
    if X.shape[0] != y.size:
        raise ValueError("X must have one row per observation")
    if law.inputs is not None and X.shape[1] != len(law.inputs):
        raise ValueError(f"X has {X.shape[1]} columns; the law's inputs are {list(law.inputs)}")
    checks.observations(y)
    labels = _labels(law, X.shape[1])
    unknown = [n for n in law.positive_inputs if n not in labels]
    if unknown:
        raise ValueError(f"the law's positive_inputs {unknown} are not among its inputs")
    positive = [labels.index(n) for n in law.positive_inputs]
    with np.errstate(all="ignore"):
        F = law.prepare(X)
    checks.refuse_unidentifiable_inputs(X, F, n_params, labels, positive)
    return F


def fit_law(
    law: Law,
    X: Array | pd.DataFrame,
    y: Array | str | None = None,
    starts: Mapping[str, Sequence[float]] | Array | None = None,
    *,
    delta: float = 1e-3,
    loss: str = "huber",
    method: str = "L-BFGS-B",
    bounds: Sequence[tuple[float | None, float | None]] | None = None,
    maxiter: int = 10_000,
    options: Mapping[str, float] | None = None,
    n_polish: int | None = N_POLISH,
    grad_tol: float = 1e-4,
    progress: bool | None = None,
) -> FitResult:
    """Fit ``law`` to ``(X, y)`` by minimising a loss on log residuals from a grid of starts.

    The objective is first evaluated at every start (in one NumPy evaluation for a
    :attr:`Law.batched` law); the ``n_polish`` best starts are then polished with the
    optimiser and the best polished point is returned.

    Parameters
    ----------
    law
        The law to fit (see :class:`Law`, :func:`chinchilla_law`).
    X
        Inputs, one row per observation: an array whose columns are in the law's order, or a
        DataFrame whose columns are matched by :attr:`Law.inputs` names (order irrelevant).
    y
        Positive observations (e.g. losses); with a DataFrame, a column name or ``None`` for
        the law's :attr:`Law.output` column.
    starts
        A grid as ``{name: values}`` (the Cartesian product is used) or an array of start
        vectors; default the law's :attr:`Law.default_starts` (Hoffmann et al.'s 4500-point
        grid for :func:`chinchilla_law`).
    delta
        Huber threshold (1e-3 as in Hoffmann et al.): on the log residual for ``"huber"``, on
        the residual divided by σ for ``"huber_likelihood"``.
    loss
        ``"huber"``: ``Σ Huber_δ(r)`` with ``r = log ŷ − log y`` (Hoffmann et al. 2022,
        Approach 3). ``"huber_likelihood"``: the negative log-likelihood of the residuals
        under a Huber density with a fitted scale σ,
        ``Σ [Huber_δ(r/σ) + log σ + log Z(δ)]`` (:func:`huber_log_normaliser`), as in
        Besiroglu et al. 2024 ("Chinchilla scaling: a replication attempt",
        arXiv:2404.10102, their replication code ``epoch-research/analyzing-chinchilla``);
        σ is the extra parameter :data:`SCALE_NAME`, started at each start's RMS residual.
        ``"squared"``: ``½ Σ r²``.
    method
        A :func:`scipy.optimize.minimize` method: ``"L-BFGS-B"`` (the book's default) or
        ``"BFGS"`` where a paper used it.
    bounds
        L-BFGS-B only: one ``(lo, hi)`` pair per parameter of :attr:`Law.names` (``None`` for
        no bound; the Huber likelihood's scale is unbounded), with ``lo < hi`` and every start
        inside. A fit that ends on (or within :data:`~moelaws.fit_checks.BOUND_RTOL` of) a
        bound is not ``converged``.
    maxiter
        Most optimiser iterations per start: a whole number in [1,
        :data:`~moelaws.fit_checks.MAX_ITER`]; ``options["maxiter"]`` overrides it.
    options
        Options for the optimiser; for L-BFGS-B they update :data:`LBFGSB_OPTIONS` (tight
        stopping tolerances: SciPy's defaults stop early on Huber objectives and on laws with
        many weakly identified constants, and Besiroglu et al. show how much that distorts a
        fit). Check :attr:`FitResult.converged` before trusting the best fit.
    n_polish
        How many of the best starts (by initial objective) to polish; ``None`` polishes every
        start (slow: the pre-vectorisation behaviour, kept for checks and benchmarks).
    grad_tol
        Largest (projected) gradient component at the returned point for
        :attr:`FitResult.converged`, times ``max(1, |objective|)`` (a likelihood's objective
        is in the hundreds and, with δ = 1e-3, nearly a sum of absolute values, whose
        gradient at the optimum does not vanish).
    progress
        Show a progress bar over the polished starts: ``None`` (default) shows one only once
        the fit has run for 5 seconds, ``True`` always, ``False`` never.

    Returns
    -------
    FitResult
        The best parameters (also :attr:`FitResult.natural`), the ``converged`` flag with its
        :attr:`FitResult.reason` and :attr:`FitResult.diagnostics`, and a DataFrame of every
        start. ``converged`` is True only if the optimiser reported success, the point moved
        from its start, the projected gradient is below ``grad_tol``, no parameter is at a
        bound, and the Jacobian of ``log ŷ`` at the optimum has a condition number of at most
        :data:`~moelaws.fit_checks.MAX_CONDITION` (``1/√ε ≈ 6.7e7``; a larger one makes the
        Gauss-Newton Hessian ``JᵀJ`` numerically singular). It does not say the data determine
        every parameter: the condition number ignores the noise and depends on the
        parametrisation, and a well-conditioned optimum can still have standard errors or
        bootstrap intervals (:func:`bootstrap`) many times a parameter's value.

    Raises
    ------
    ValueError
        Before any fitting, naming the reason (see :mod:`moelaws.fit_checks`):

        * data: mismatched shapes; more than :data:`~moelaws.fit_checks.MAX_ROWS` rows;
          non-finite or non-positive ``y``; a non-finite input; a non-positive value of an
          input in :attr:`Law.positive_inputs` (``N`` and ``D`` for :func:`chinchilla_law`)
          or any input whose features are not finite; an input with a single distinct value;
          two identical input columns; fewer distinct input rows than the fit's parameters
          plus one;
        * a DataFrame: duplicate column names, a missing input or output column, or ``y``
          naming one of the law's inputs;
        * settings: an unknown ``loss`` or ``method`` (``"L-BFGS-B"`` or ``"BFGS"``);
          ``bounds`` with another method, of the wrong length, with ``lo >= hi`` or a start
          outside them; ``delta`` or ``grad_tol`` not finite and positive; ``maxiter`` (or
          ``options["maxiter"]``) not a whole number in [1, :data:`~moelaws.fit_checks.MAX_ITER`];
          ``n_polish`` not a positive whole number or ``None``; ``progress`` not True, False
          or ``None``; a non-finite start or more
          than :data:`~moelaws.fit_checks.MAX_STARTS` starts; no starts for a law without
          defaults.

        A fit that runs but fails a convergence check is not refused: it returns
        ``converged=False`` with the :attr:`FitResult.reason`.
    """
    if not isinstance(law, Law):
        raise ValueError(f"law must be a moelaws.fit.Law, not {type(law).__name__}")
    if loss not in LOSSES:
        raise ValueError(f"loss must be one of {LOSSES}")
    if method not in checks.METHODS:
        raise ValueError(f"method must be one of {checks.METHODS}")
    delta = checks.positive_number("delta", delta)
    grad_tol = checks.positive_number("grad_tol", grad_tol)
    checks.flag("progress", progress, allow_none=True)
    maxiter = checks.whole("maxiter", maxiter, maximum=MAX_ITER)
    if options is not None and "maxiter" in options:
        checks.whole("options['maxiter']", options["maxiter"], maximum=MAX_ITER)
    if n_polish is not None:
        n_polish = checks.whole("n_polish (or None for every start)", n_polish,
                                maximum=MAX_STARTS)
    if bounds is not None and method != "L-BFGS-B":
        raise ValueError(f"bounds apply only to method='L-BFGS-B', not {method!r}")
    if starts is None:
        if law.default_starts is None:
            raise ValueError("this law has no default starts; pass starts")
        starts = law.default_starts
    X, y = _inputs(law, X, y)
    n_params = len(law.names) + (loss == "huber_likelihood")
    F = _check_data(law, X, y, n_params)
    base = _grid(starts, law.names)
    lo_hi = None
    if bounds is not None:
        lo_hi = checks.bounds_array(bounds, law.names)
        checks.starts_inside(base, *lo_hi, law.names)
    defaults = LBFGSB_OPTIONS if method == "L-BFGS-B" else {}
    opts = {**defaults, "maxiter": maxiter, **(options or {})}
    problem = _Problem(law, F, np.log(y), delta, loss, method, bounds, opts)
    grid = problem.with_scale(base)
    initial = problem.screen(grid)
    order = np.argsort(initial, kind="stable")
    chosen = order if n_polish is None else order[:n_polish]
    polished = {int(i): problem.solve(grid[i]) for i in _progress(chosen, progress)}

    names = problem.names
    fitted = np.full(grid.shape, np.nan)
    final = np.full(len(grid), np.nan)
    success = np.zeros(len(grid), dtype=bool)
    for i, res in polished.items():
        fitted[i], final[i], success[i] = res.x, res.fun, res.success
    table = pd.concat([
        pd.DataFrame(grid, columns=[f"start_{n}" for n in names]),
        pd.DataFrame(fitted, columns=list(names)),
        pd.DataFrame({"initial_loss": initial, "loss": final, "converged": success,
                      "polished": np.isin(np.arange(len(grid)), chosen)}),
    ], axis=1)
    best = int(table["loss"].idxmin())
    x = fitted[best]
    value = float(table.loc[best, "loss"])
    diagnostics = problem.diagnose(x, grid[best], polished[best], grad_tol * max(1, abs(value)),
                                   lo_hi)
    failures = diagnostics.failures()
    return FitResult(law, {n: float(v) for n, v in zip(names, x, strict=True)}, value, table,
                     not failures, diagnostics.grad_norm, "; ".join(failures), diagnostics)


def _progress(indices: Array, progress: bool | None) -> Iterable[int]:
    if progress is False:
        return indices
    from tqdm.auto import tqdm

    return tqdm(indices, desc="polishing starts", delay=0 if progress else 5.0, leave=False)


_SCREEN_CHUNK = 512
"""Starts evaluated together when screening (bounds the memory to chunk × observations)."""


@dataclass(frozen=True)
class _Problem:
    """One fitting problem: the objective, its gradient, screening and polishing."""

    law: Law
    F: Array
    log_y: Array
    delta: float
    loss: str
    method: str
    bounds: Sequence[tuple[float | None, float | None]] | None
    options: Mapping[str, float]

    @property
    def names(self) -> tuple[str, ...]:
        scale = (SCALE_NAME,) if self.loss == "huber_likelihood" else ()
        return (*self.law.names, *scale)

    def _log_pred(self, P: Array) -> Array:
        """Predictions for a 2-D array of parameter vectors, one row each."""
        if self.law.batched:
            return self.law.log_predict(P, self.F)
        return np.array([self.law.log_predict(p, self.F) for p in P])

    def with_scale(self, grid: Array) -> Array:
        """Start vectors for the objective: the huber likelihood's σ starts at each start's
        RMS log residual."""
        if self.loss != "huber_likelihood":
            return grid
        rms = np.empty(len(grid))
        for lo in range(0, len(grid), _SCREEN_CHUNK):
            with np.errstate(all="ignore"):
                r = self._log_pred(grid[lo:lo + _SCREEN_CHUNK]) - self.log_y
                rms[lo:lo + _SCREEN_CHUNK] = np.sqrt(np.mean(r**2, axis=-1))
        log_sigma = np.log(np.clip(np.nan_to_num(rms, nan=1.0, posinf=1.0), 1e-8, 1e3))
        return np.column_stack([grid, log_sigma])

    def _values(self, resid: Array, log_sigma: Array | float) -> Array:
        """The objective of rows of residuals (last axis: observations)."""
        if self.loss == "squared":
            return 0.5 * np.sum(resid**2, axis=-1)
        if self.loss == "huber":
            return np.sum(special.huber(self.delta, resid), axis=-1)
        sigma = np.exp(log_sigma)
        n = resid.shape[-1]
        z = resid / np.asarray(sigma)[..., None]
        return (np.sum(special.huber(self.delta, z), axis=-1)
                + n * (np.asarray(log_sigma) + huber_log_normaliser(self.delta)))

    def screen(self, grid: Array) -> Array:
        """The objective at every start, a chunk of starts per NumPy evaluation."""
        m = len(self.law.names)
        out = np.empty(len(grid))
        for lo in range(0, len(grid), _SCREEN_CHUNK):
            chunk = grid[lo:lo + _SCREEN_CHUNK]
            with np.errstate(all="ignore"):
                resid = self._log_pred(chunk[:, :m]) - self.log_y
                values = self._values(resid, chunk[:, m] if chunk.shape[1] > m else 0.0)
            out[lo:lo + _SCREEN_CHUNK] = np.where(np.isfinite(values), values, np.inf)
        return out

    def objective(self, p: Array) -> float:
        m = len(self.law.names)
        resid = self.law.log_predict(p[:m], self.F) - self.log_y
        return float(self._values(resid, p[m] if p.size > m else 0.0))

    def objective_and_grad(self, p: Array) -> tuple[float, Array]:
        assert self.law.log_value_and_jacobian is not None
        m = len(self.law.names)
        log_pred, jac = self.law.log_value_and_jacobian(p[:m], self.F)
        resid = log_pred - self.log_y
        if self.loss == "squared":
            return float(0.5 * resid @ resid), resid @ jac
        if self.loss == "huber":
            # d/dr of the Huber loss is r inside the threshold and δ·sign(r) outside.
            return float(self._values(resid, 0.0)), np.clip(resid, -self.delta, self.delta) @ jac
        log_sigma = p[m]
        z = resid / np.exp(log_sigma)
        psi = np.clip(z, -self.delta, self.delta)
        grad = np.append(psi @ jac / np.exp(log_sigma), resid.size - psi @ z)
        return float(self._values(resid, log_sigma)), grad

    def _bounds(self) -> Sequence[tuple[float | None, float | None]] | None:
        if self.method != "L-BFGS-B" or self.bounds is None:
            return None
        extra = [(None, None)] if self.loss == "huber_likelihood" else []
        return [*self.bounds, *extra]

    def solve(self, p0: Array) -> optimize.OptimizeResult:
        use_jac = self.law.log_value_and_jacobian is not None
        with np.errstate(all="ignore"):
            res = optimize.minimize(
                self.objective_and_grad if use_jac else self.objective, p0,
                jac=use_jac or None, method=self.method, bounds=self._bounds(),
                options=dict(self.options),
            )
        res.fun = float(res.fun) if np.isfinite(res.fun) else np.inf
        return res

    def projected_gradient(self, x: Array) -> Array:
        """The gradient at ``x``, zero for components held at a bound they push against."""
        with np.errstate(all="ignore"):
            if self.law.log_value_and_jacobian is not None:
                grad = self.objective_and_grad(x)[1]
            else:
                grad = optimize.approx_fprime(x, self.objective, 1e-8)
        bounds = self._bounds()
        if bounds is not None:
            lo = np.array([-np.inf if b[0] is None else b[0] for b in bounds])
            hi = np.array([np.inf if b[1] is None else b[1] for b in bounds])
            grad = np.where(((x <= lo) & (grad > 0)) | ((x >= hi) & (grad < 0)), 0.0, grad)
        return np.nan_to_num(grad, nan=np.inf)

    def diagnose(self, x: Array, start: Array, res: optimize.OptimizeResult, grad_limit: float,
                 lo_hi: tuple[Array, Array] | None) -> FitDiagnostics:
        """The convergence checks at the best point ``x`` (see :class:`FitResult`)."""
        grad = self.projected_gradient(x)
        m = len(self.law.names)
        at_bound: tuple[str, ...] = ()
        if lo_hi is not None:
            flags = checks.at_bounds(x[:m], *lo_hi)
            at_bound = tuple(n for n, f in zip(self.law.names, flags, strict=True) if f)

        def jacobian(p: Array) -> Array:
            if self.law.log_value_and_jacobian is not None:
                return self.law.log_value_and_jacobian(p, self.F)[1]
            return checks.finite_difference_jacobian(
                lambda q: self.law.log_predict(q, self.F), p)

        return FitDiagnostics(
            optimiser_success=bool(res.success), message=str(res.message),
            moved=not np.allclose(x, start, rtol=0, atol=1e-12),
            grad_norm=float(np.max(np.abs(grad))) if grad.size else 0.0,
            grad_limit=float(grad_limit), at_bound=at_bound,
            condition=checks.jacobian_condition(jacobian, x[:m]), max_condition=MAX_CONDITION,
        )


@dataclass(frozen=True)
class BootstrapResult:
    """Bootstrap intervals of each statistic (from :func:`scipy.stats.bootstrap`)."""

    estimates: pd.DataFrame
    point: dict[str, float]
    confidence_level: float
    low: dict[str, float] = field(default_factory=dict)
    high: dict[str, float] = field(default_factory=dict)
    method: str = "percentile"

    def intervals(self) -> pd.DataFrame:
        """One row per statistic: the point estimate and the interval's ends."""
        return pd.DataFrame({"estimate": pd.Series(self.point), "low": pd.Series(self.low),
                             "high": pd.Series(self.high)}).loc[list(self.point)]


def bootstrap(
    statistic: Callable[[Array], Mapping[str, float]],
    n_obs: int,
    *,
    n_resamples: int = 1000,
    confidence_level: float = 0.95,
    seed: int = 0,
    method: str = "BCa",
    progress: bool = False,
) -> BootstrapResult:
    """Non-parametric bootstrap over observations with :func:`scipy.stats.bootstrap`: the
    statistic is computed on resampled row indices.

    Parameters
    ----------
    statistic
        ``indices -> {name: value}``: refits on the rows ``indices`` and returns coefficients
        and derived quantities (e.g. an optimum).
    n_obs
        Number of observations.
    n_resamples, confidence_level, seed
        Resamples (Besiroglu et al. use 4000), interval level, and the fixed seed.
    method
        ``"BCa"`` (bias-corrected and accelerated; the default; its jackknife evaluates the
        statistic ``n_obs`` more times, so an expensive refit may prefer ``"percentile"``),
        ``"percentile"`` or ``"basic"``. Where a BCa end is undefined (e.g. every resample
        gives the same value) the percentile interval is reported for that statistic. A
        statistic that is NaN in some resample (e.g. an optimum that does not exist for
        those coefficients) gets a NaN interval rather than one over the other resamples.

    Returns
    -------
    BootstrapResult
        Every resample's statistics and the intervals (``.intervals()``).

    Raises
    ------
    ValueError
        Before any resampling: ``n_obs`` not a whole number in [2,
        :data:`~moelaws.fit_checks.MAX_ROWS`]; ``n_resamples`` not a whole number in [1,
        :data:`~moelaws.fit_checks.MAX_RESAMPLES`] (100,000); a negative or non-integer seed;
        ``confidence_level`` outside (0, 1); an unknown method; ``progress`` not True or
        False.
    """
    if not callable(statistic):
        raise ValueError("statistic must be a function of row indices")
    n_obs = checks.whole("n_obs", n_obs, minimum=2, maximum=MAX_ROWS)
    n_resamples = checks.whole("n_resamples", n_resamples, maximum=MAX_RESAMPLES)
    checks.whole("seed", seed, minimum=0, maximum=2**63 - 1)
    if not (isinstance(confidence_level, numbers.Real) and 0 < confidence_level < 1):
        raise ValueError("confidence_level must be in (0, 1)")
    if method not in ("BCa", "percentile", "basic"):
        raise ValueError("method must be 'BCa', 'percentile' or 'basic'")
    checks.flag("progress", progress)
    # scipy.stats takes about 0.5 s to import and only the bootstrap needs it: the t quantiles
    # and the normal tail above come from scipy.special (what scipy.stats itself calls).
    from scipy import stats

    point = {k: float(v) for k, v in statistic(np.arange(n_obs)).items()}
    keys = list(point)
    bar = None
    if progress:
        from tqdm.auto import tqdm

        bar = tqdm(total=n_resamples + (n_obs if method == "BCa" else 0), desc="bootstrap")

    def vector(idx: Array) -> Array:
        if bar is not None:
            bar.update()
        values = statistic(np.asarray(idx, dtype=int))
        return np.array([values[k] for k in keys], dtype=float)

    index = np.arange(n_obs)
    kwargs = dict(n_resamples=n_resamples, confidence_level=confidence_level,
                  vectorized=False, rng=np.random.default_rng(seed))
    with np.errstate(all="ignore"), warnings.catch_warnings():
        # A degenerate BCa interval is replaced by the percentile one below.
        warnings.simplefilter("ignore", stats.DegenerateDataWarning)
        res = stats.bootstrap((index,), vector, method=method, **kwargs)
        low = np.asarray(res.confidence_interval.low, dtype=float).reshape(len(keys))
        high = np.asarray(res.confidence_interval.high, dtype=float).reshape(len(keys))
        bad = ~(np.isfinite(low) & np.isfinite(high))
        if method == "BCa" and bad.any():
            # BCa is undefined for a degenerate (constant) distribution: fall back per statistic.
            again = stats.bootstrap((index,), vector, method="percentile",
                                    bootstrap_result=res, **{**kwargs, "n_resamples": 0})
            low = np.where(bad, np.reshape(again.confidence_interval.low, len(keys)), low)
            high = np.where(bad, np.reshape(again.confidence_interval.high, len(keys)), high)
    if bar is not None:
        bar.close()
    dist = np.asarray(res.bootstrap_distribution, dtype=float).reshape(len(keys), -1)
    estimates = pd.DataFrame(dist.T, columns=keys)
    return BootstrapResult(estimates, point, confidence_level, dict(zip(keys, low, strict=True)),
                           dict(zip(keys, high, strict=True)), method)


def parameter_recovery(
    law: Law,
    true_params: Mapping[str, float],
    X: Array,
    *,
    noise_sd: float,
    starts: Mapping[str, Sequence[float]] | Array,
    n_repeats: int = 20,
    seed: int = 0,
    delta: float = 1e-3,
    method: str = "L-BFGS-B",
) -> pd.DataFrame:
    """Simulate ``law`` at design points ``X`` with multiplicative log-normal noise, refit, repeat.

    Each repeat draws ``log y = log_predict(true) + N(0, noise_sd²)`` and refits with
    :func:`fit_law`.

    Parameters
    ----------
    law, true_params
        The law and its true parameters (every name of :attr:`Law.names`, finite).
    X
        Design points, refused as by :func:`fit_law` (e.g. fewer distinct rows than
        parameters plus one).
    noise_sd
        Standard deviation of the log noise, finite and non-negative.
    starts, delta, method
        As for :func:`fit_law`.
    n_repeats
        Refits, a whole number in [1, :data:`~moelaws.fit_checks.MAX_REPEATS`] (10,000).
    seed
        Seeds the noise.

    Returns
    -------
    pandas.DataFrame
        One row per parameter with the true value, mean and standard deviation of the
        estimates, bias, relative RMSE, and the share of refits with
        :attr:`FitResult.converged` (the same for every row).

    Raises
    ------
    ValueError
        Before any simulation, for an invalid count, noise level, parameters or design.
    """
    if not isinstance(law, Law):
        raise ValueError(f"law must be a moelaws.fit.Law, not {type(law).__name__}")
    n_repeats = checks.whole("n_repeats", n_repeats, maximum=MAX_REPEATS)
    checks.whole("seed", seed, minimum=0, maximum=2**63 - 1)
    if isinstance(noise_sd, bool) or not isinstance(noise_sd, numbers.Real) or not (
            math.isfinite(noise_sd) and noise_sd >= 0):
        raise ValueError("noise_sd must be finite and non-negative")
    missing = [n for n in law.names if n not in true_params]
    if missing:
        raise ValueError(f"true_params lack {missing}")
    truth = law._vector(true_params)
    if not np.all(np.isfinite(truth)):
        raise ValueError("true_params must be finite")
    X = np.atleast_2d(checks.numeric_array("X", X))
    F = _check_data(law, X, np.ones(X.shape[0]), len(law.names))
    rng = np.random.default_rng(seed)
    with np.errstate(all="ignore"):
        clean = law.log_predict(truth, F)
    if not np.all(np.isfinite(clean)):
        raise ValueError("the law with true_params gives non-finite predictions at X")
    estimates, converged = [], []
    for _ in range(n_repeats):
        y = np.exp(clean + rng.normal(0.0, noise_sd, size=clean.shape))
        fit = fit_law(law, X, y, starts, delta=delta, method=method, progress=False)
        estimates.append([fit.params[n] for n in law.names])
        converged.append(fit.converged)
    est = np.array(estimates)
    denom = np.where(truth != 0, np.abs(truth), 1.0)
    return pd.DataFrame(
        {
            "true": truth,
            "mean": est.mean(axis=0),
            "sd": est.std(axis=0, ddof=1) if n_repeats > 1 else np.zeros_like(truth),
            "bias": est.mean(axis=0) - truth,
            "rel_rmse": np.sqrt(((est - truth) ** 2).mean(axis=0)) / denom,
            "converged": float(np.mean(converged)),
        },
        index=list(law.names),
    )
