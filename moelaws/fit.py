"""One fitting recipe for the whole book.

The careful replications (Hoffmann et al. 2022; Besiroglu et al. 2024, "Chinchilla scaling:
a replication attempt"; Porian et al. 2024; Li et al. 2025, "(Mis)fitting scaling laws")
converge on one recipe, implemented here once:

* power laws ``y = a·x^b`` fitted by least squares in log space (:func:`fit_power_law`);
* sums of power laws fitted as ``log L = LogSumExp(...)`` with a Huber loss (δ = 1e-3) on the
  log residuals, minimised by L-BFGS from a full grid of starts, keeping every start's result
  (:func:`fit_law`, :func:`chinchilla_law`, :data:`HOFFMANN_GRID`);
* bootstrap confidence intervals with a fixed seed for coefficients and derived quantities
  (:func:`bootstrap`);
* parameter recovery: simulate a law at given design points with noise, refit, and report how
  well each coefficient comes back (:func:`parameter_recovery`).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from scipy import optimize

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


def _positive(name: str, x: Array) -> None:
    if np.any(~np.isfinite(x)) or np.any(x <= 0):
        raise ValueError(f"{name} must be finite and positive")


@dataclass(frozen=True)
class PowerLawFit:
    """``y = coef · x^exponent`` fitted in log space, with standard errors from OLS."""

    coef: float
    exponent: float
    log_coef_se: float
    exponent_se: float
    r2: float

    def __call__(self, x: Array | float) -> Array:
        return self.coef * np.asarray(x, dtype=float) ** self.exponent


def fit_power_law(x: Array | Sequence[float], y: Array | Sequence[float]) -> PowerLawFit:
    """Fit ``y = a·x^b`` by ordinary least squares on ``log y = log a + b·log x``.

    Parameters
    ----------
    x, y
        Positive values of equal length (at least 3 points).

    Raises
    ------
    ValueError
        For non-positive values, mismatched lengths or fewer than 3 points.
    """
    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=float)
    if x.shape != y.shape or x.ndim != 1:
        raise ValueError("x and y must be 1-D arrays of the same length")
    if x.size < 3:
        raise ValueError("a power-law fit needs at least 3 points")
    _positive("x", x)
    _positive("y", y)
    lx, ly = np.log(x), np.log(y)
    design = np.column_stack([np.ones_like(lx), lx])
    beta, *_ = np.linalg.lstsq(design, ly, rcond=None)
    resid = ly - design @ beta
    dof = max(x.size - 2, 1)
    sigma2 = resid @ resid / dof
    cov = sigma2 * np.linalg.inv(design.T @ design)
    ss_tot = ((ly - ly.mean()) ** 2).sum()
    r2 = 1.0 - (resid @ resid) / ss_tot if ss_tot > 0 else 1.0
    return PowerLawFit(
        coef=float(np.exp(beta[0])),
        exponent=float(beta[1]),
        log_coef_se=float(np.sqrt(cov[0, 0])),
        exponent_se=float(np.sqrt(cov[1, 1])),
        r2=float(r2),
    )


def huber_loss(residuals: Array, delta: float = 1e-3) -> float:
    """Sum of Huber losses of ``residuals`` with threshold ``delta`` (scipy's convention:
    ``r²/2`` inside, ``δ·(|r| − δ/2)`` outside)."""
    if delta <= 0:
        raise ValueError("delta must be positive")
    abs_r = np.abs(residuals)
    return float(np.where(abs_r <= delta, 0.5 * abs_r**2, delta * (abs_r - 0.5 * delta)).sum())


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
    """

    names: tuple[str, ...]
    log_predict: Callable[[Array, Array], Array]
    log_value_and_jacobian: Callable[[Array, Array], tuple[Array, Array]] | None = None
    features: Callable[[Array], Array] | None = None

    def prepare(self, X: Array) -> Array:
        X = np.atleast_2d(np.asarray(X, dtype=float))
        return self.features(X) if self.features is not None else X

    def predict(self, params: Array | Mapping[str, float], X: Array) -> Array:
        return np.exp(self.log_predict(self._vector(params), self.prepare(X)))

    def _vector(self, params: Array | Mapping[str, float]) -> Array:
        if isinstance(params, Mapping):
            return np.array([params[n] for n in self.names], dtype=float)
        return np.asarray(params, dtype=float)


def _lse3(t1: Array, t2: Array, t3: Array) -> tuple[Array, Array, Array, Array]:
    """log(e^t1 + e^t2 + e^t3) and the three softmax weights, without scipy's overhead
    (this runs thousands of times per fit)."""
    m = np.maximum(np.maximum(t1, t2), t3)
    w1, w2, w3 = np.exp(t1 - m), np.exp(t2 - m), np.exp(t3 - m)
    total = w1 + w2 + w3
    return m + np.log(total), w1 / total, w2 / total, w3 / total


def chinchilla_law() -> Law:
    """Hoffmann et al.'s ``L(N, D) = E + A/N^α + B/D^β`` as
    ``log L = LogSumExp(a − α·log N, b − β·log D, e)`` with ``a = log A``, ``b = log B``,
    ``e = log E``. Inputs: columns ``[N, D]``."""

    def log_predict(p: Array, F: Array) -> Array:
        a, b, e, alpha, beta = p
        ln_n, ln_d = F[:, 0], F[:, 1]
        return _lse3(a - alpha * ln_n, b - beta * ln_d, np.full_like(ln_n, e))[0]

    def log_value_and_jacobian(p: Array, F: Array) -> tuple[Array, Array]:
        a, b, e, alpha, beta = p
        ln_n, ln_d = F[:, 0], F[:, 1]
        value, w1, w2, w3 = _lse3(a - alpha * ln_n, b - beta * ln_d, np.full_like(ln_n, e))
        return value, np.column_stack([w1, w2, w3, -w1 * ln_n, -w2 * ln_d])

    return Law(("a", "b", "e", "alpha", "beta"), log_predict, log_value_and_jacobian, np.log)


@dataclass
class FitResult:
    """Result of :func:`fit_law`: the best parameters and every start's outcome."""

    law: Law
    params: dict[str, float]
    loss: float
    starts: pd.DataFrame = field(repr=False)

    def predict(self, X: Array) -> Array:
        return self.law.predict(self.params, X)

    @property
    def spread(self) -> pd.DataFrame:
        """Spread of the fitted parameters over the starts whose loss is within 1e-6
        (relative) of the best: how well determined the optimum is."""
        best = self.starts["loss"].min()
        near = self.starts[self.starts["loss"] <= best * (1 + 1e-6) + 1e-12]
        return near[list(self.law.names)].agg(["min", "max", "std"])


def _grid(starts: Mapping[str, Sequence[float]] | Array, names: Sequence[str]) -> Array:
    if isinstance(starts, Mapping):
        missing = [n for n in names if n not in starts]
        if missing:
            raise ValueError(f"grid of starts lacks parameters {missing}")
        return np.array(list(itertools.product(*(starts[n] for n in names))), dtype=float)
    grid = np.atleast_2d(np.asarray(starts, dtype=float))
    if grid.shape[1] != len(names):
        raise ValueError(f"each start needs {len(names)} values")
    return grid


def fit_law(
    law: Law,
    X: Array,
    y: Array,
    starts: Mapping[str, Sequence[float]] | Array,
    *,
    delta: float = 1e-3,
    loss: str = "huber",
    method: str = "L-BFGS-B",
    bounds: Sequence[tuple[float | None, float | None]] | None = None,
    maxiter: int = 10_000,
    options: Mapping[str, float] | None = None,
) -> FitResult:
    """Fit ``law`` to ``(X, y)`` by minimising a loss on log residuals from every start.

    Parameters
    ----------
    law
        The law to fit (see :class:`Law`, :func:`chinchilla_law`).
    X
        Inputs, one row per observation.
    y
        Positive observations (e.g. losses).
    starts
        A grid as ``{name: values}`` (the Cartesian product is used) or an array of start
        vectors.
    delta
        Huber threshold on log residuals (1e-3 as in Hoffmann et al.).
    loss
        ``"huber"`` or ``"squared"``.
    method
        A :func:`scipy.optimize.minimize` method: ``"L-BFGS-B"`` (the book's default) or
        ``"BFGS"`` where a paper used it.
    options
        Extra options for the optimiser, e.g. ``{"ftol": 1e-15, "gtol": 1e-12}`` for
        L-BFGS-B. SciPy's default stopping tolerances can stop early on laws with many
        weakly identified constants (Besiroglu et al. show how much that distorts a fit):
        tighten them and compare ``.starts`` before trusting the best fit.

    Returns
    -------
    FitResult
        The best parameters and a DataFrame of every start (its initial values, fitted
        values, loss and convergence flag).

    Raises
    ------
    ValueError
        For non-positive ``y``, mismatched shapes, or an unknown loss.
    """
    X = np.atleast_2d(np.asarray(X, dtype=float))
    if X.shape[0] == 1 and np.asarray(y).size > 1:
        X = X.T
    F = law.prepare(X)
    y = np.asarray(y, dtype=float)
    if X.shape[0] != y.size:
        raise ValueError("X must have one row per observation")
    _positive("y", y)
    if loss not in ("huber", "squared"):
        raise ValueError("loss must be 'huber' or 'squared'")
    log_y = np.log(y)

    opts = {"maxiter": maxiter, **(options or {})}
    problem = _Problem(law, F, log_y, delta, loss, method, bounds, opts)
    grid = _grid(starts, law.names)
    rows = [problem.solve(p0) for p0 in grid]
    table = pd.DataFrame(rows)
    best = table.loc[table["loss"].idxmin()]
    return FitResult(law, {n: float(best[n]) for n in law.names}, float(best["loss"]), table)


@dataclass(frozen=True)
class _Problem:
    """One fitting problem; ``solve`` runs the optimiser from one start."""

    law: Law
    F: Array
    log_y: Array
    delta: float
    loss: str
    method: str
    bounds: Sequence[tuple[float | None, float | None]] | None
    options: Mapping[str, float]

    def objective(self, p: Array) -> float:
        resid = self.law.log_predict(p, self.F) - self.log_y
        if self.loss == "huber":
            return huber_loss(resid, self.delta)
        return float(0.5 * resid @ resid)

    def objective_and_grad(self, p: Array) -> tuple[float, Array]:
        assert self.law.log_value_and_jacobian is not None
        log_pred, jac = self.law.log_value_and_jacobian(p, self.F)
        resid = log_pred - self.log_y
        if self.loss == "huber":
            # d/dr of the Huber loss is r inside the threshold and δ·sign(r) outside.
            return huber_loss(resid, self.delta), np.clip(resid, -self.delta, self.delta) @ jac
        return float(0.5 * resid @ resid), resid @ jac

    def solve(self, p0: Array) -> dict[str, float | bool]:
        use_jac = self.law.log_value_and_jacobian is not None
        with np.errstate(all="ignore"):
            res = optimize.minimize(
                self.objective_and_grad if use_jac else self.objective, p0,
                jac=use_jac or None, method=self.method,
                bounds=self.bounds if self.method == "L-BFGS-B" else None,
                options=dict(self.options),
            )
        value = float(res.fun) if np.isfinite(res.fun) else np.inf
        names = self.law.names
        return {
            **{f"start_{n}": float(v) for n, v in zip(names, p0, strict=True)},
            **{n: float(v) for n, v in zip(names, res.x, strict=True)},
            "loss": value,
            "converged": bool(res.success),
        }


@dataclass(frozen=True)
class BootstrapResult:
    """Percentile intervals of each bootstrapped statistic."""

    estimates: pd.DataFrame
    point: dict[str, float]
    confidence_level: float

    def intervals(self) -> pd.DataFrame:
        lo = (1 - self.confidence_level) / 2
        q = self.estimates.quantile([lo, 1 - lo]).T
        q.columns = ["low", "high"]
        q.insert(0, "estimate", pd.Series(self.point))
        return q


def bootstrap(
    statistic: Callable[[Array], Mapping[str, float]],
    n_obs: int,
    *,
    n_resamples: int = 1000,
    confidence_level: float = 0.95,
    seed: int = 0,
    progress: bool = False,
) -> BootstrapResult:
    """Non-parametric bootstrap over observations: resample row indices with replacement.

    Parameters
    ----------
    statistic
        ``indices -> {name: value}``: refits on the rows ``indices`` and returns coefficients
        and derived quantities (e.g. an optimum).
    n_obs
        Number of observations.
    n_resamples, confidence_level, seed
        Resamples (Besiroglu et al. use 4000), interval level, and the fixed seed.

    Returns
    -------
    BootstrapResult
        Every resample's statistics and percentile intervals (``.intervals()``).
    """
    if n_obs < 2:
        raise ValueError("bootstrap needs at least 2 observations")
    if n_resamples < 1:
        raise ValueError("n_resamples must be positive")
    if not 0 < confidence_level < 1:
        raise ValueError("confidence_level must be in (0, 1)")
    rng = np.random.default_rng(seed)
    point = dict(statistic(np.arange(n_obs)))
    iterator = range(n_resamples)
    if progress:
        from tqdm.auto import tqdm

        iterator = tqdm(iterator, desc="bootstrap")
    rows = [dict(statistic(rng.integers(0, n_obs, n_obs))) for _ in iterator]
    return BootstrapResult(pd.DataFrame(rows), point, confidence_level)


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
    :func:`fit_law`. Returns one row per parameter with the true value, mean and standard
    deviation of the estimates, bias and relative RMSE.
    """
    if noise_sd < 0:
        raise ValueError("noise_sd must be non-negative")
    rng = np.random.default_rng(seed)
    X = np.atleast_2d(np.asarray(X, dtype=float))
    truth = law._vector(true_params)
    clean = law.log_predict(truth, law.prepare(X))
    estimates = []
    for _ in range(n_repeats):
        y = np.exp(clean + rng.normal(0.0, noise_sd, size=clean.shape))
        fit = fit_law(law, X, y, starts, delta=delta, method=method)
        estimates.append([fit.params[n] for n in law.names])
    est = np.array(estimates)
    denom = np.where(truth != 0, np.abs(truth), 1.0)
    return pd.DataFrame(
        {
            "true": truth,
            "mean": est.mean(axis=0),
            "sd": est.std(axis=0, ddof=1) if n_repeats > 1 else np.zeros_like(truth),
            "bias": est.mean(axis=0) - truth,
            "rel_rmse": np.sqrt(((est - truth) ** 2).mean(axis=0)) / denom,
        },
        index=list(law.names),
    )
