"""The book's fitting recipe recovers known coefficients from synthetic data."""

from __future__ import annotations

import numpy as np
import pytest
import statsmodels.api as sm

from moelaws import fit

TRUE = {"a": np.log(406.4), "b": np.log(410.7), "e": np.log(1.69), "alpha": 0.34, "beta": 0.28}


def chinchilla_data(n: int = 120, noise: float = 0.0, seed: int = 0):
    rng = np.random.default_rng(seed)
    X = np.column_stack([10 ** rng.uniform(7, 10, n), 10 ** rng.uniform(9, 11.5, n)])
    law = fit.chinchilla_law()
    y = law.predict(TRUE, X) * np.exp(rng.normal(0, noise, n))
    return law, X, y


def test_power_law_recovers_exact_coefficients() -> None:
    x = np.geomspace(1e18, 1e22, 9)
    p = fit.fit_power_law(x, 576.0 * x**-0.158)
    assert p.coef == pytest.approx(576.0, rel=1e-9)
    assert p.exponent == pytest.approx(-0.158, abs=1e-12)
    assert p.r2 == pytest.approx(1.0)
    assert p(1e20) == pytest.approx(576.0 * 1e20**-0.158)


def test_power_law_standard_errors_cover_the_truth() -> None:
    rng = np.random.default_rng(1)
    x = np.geomspace(1, 1e4, 50)
    y = 3.0 * x**0.5 * np.exp(rng.normal(0, 0.05, x.size))
    p = fit.fit_power_law(x, y)
    assert abs(p.exponent - 0.5) < 4 * p.exponent_se
    assert 0 < p.exponent_se < 0.01


@pytest.mark.parametrize("bad", [([1, 2, -3], [1, 2, 3]), ([1, 2], [1, 2]), ([1, 2, 3], [1, 2])])
def test_power_law_rejects_bad_input(bad) -> None:
    with pytest.raises(ValueError):
        fit.fit_power_law(*bad)


def test_huber_loss_values() -> None:
    assert fit.huber_loss(np.array([0.0005]), 1e-3) == pytest.approx(0.5 * 0.0005**2)
    assert fit.huber_loss(np.array([-0.01]), 1e-3) == pytest.approx(1e-3 * (0.01 - 0.0005))
    with pytest.raises(ValueError):
        fit.huber_loss(np.array([1.0]), 0.0)


def test_chinchilla_fit_recovers_noise_free_coefficients() -> None:
    law, X, y = chinchilla_data()
    starts = {"a": [5.0], "b": [5.0], "e": [0.0, 0.5], "alpha": [0.5], "beta": [0.5]}
    res = fit.fit_law(law, X, y, starts)
    for name, value in TRUE.items():
        assert res.params[name] == pytest.approx(value, abs=2e-3), name
    assert len(res.starts) == 2
    assert {"loss", "converged", "start_a"} <= set(res.starts.columns)
    assert res.predict(X) == pytest.approx(y, rel=1e-4)


def test_analytic_gradient_matches_finite_differences() -> None:
    law, X, _ = chinchilla_data(30)
    F = law.prepare(X)
    p = np.array([6.0, 6.1, 0.5, 0.3, 0.3])
    _, jac = law.log_value_and_jacobian(p, F)
    eps = 1e-6
    for j in range(5):
        dp = np.zeros(5)
        dp[j] = eps
        num = (law.log_predict(p + dp, F) - law.log_predict(p - dp, F)) / (2 * eps)
        assert jac[:, j] == pytest.approx(num, rel=1e-5, abs=1e-8)


def test_tighter_options_are_passed_to_the_optimiser() -> None:
    law, X, y = chinchilla_data(60, noise=0.01)
    start = np.array([[5.0, 5.0, 0.0, 0.5, 0.5]])
    loose = fit.fit_law(law, X, y, start, options={"maxiter": 3})
    tight = fit.fit_law(law, X, y, start, options={"ftol": 1e-15, "gtol": 1e-12})
    assert tight.loss < loose.loss


def test_fit_without_gradient_and_with_bfgs() -> None:
    law, X, y = chinchilla_data(60)
    plain = fit.Law(law.names, law.log_predict, features=np.log)
    starts = np.array([[5.5, 5.5, 0.4, 0.3, 0.3]])
    for method in ("L-BFGS-B", "BFGS"):
        res = fit.fit_law(plain, X, y, starts, method=method, loss="squared")
        assert res.params["alpha"] == pytest.approx(0.34, abs=5e-3), method


def test_fit_law_rejects_bad_input() -> None:
    law, X, y = chinchilla_data(10)
    with pytest.raises(ValueError, match="positive"):
        fit.fit_law(law, X, -y, {"a": [1], "b": [1], "e": [0], "alpha": [0.3], "beta": [0.3]})
    with pytest.raises(ValueError, match="lacks"):
        fit.fit_law(law, X, y, {"a": [1]})
    with pytest.raises(ValueError, match="loss"):
        fit.fit_law(law, X, y, np.ones((1, 5)), loss="l1")
    with pytest.raises(ValueError, match="one row"):
        fit.fit_law(law, X[:5], y, np.ones((1, 5)))


def test_bootstrap_interval_covers_the_mean() -> None:
    rng = np.random.default_rng(3)
    data = rng.normal(10.0, 1.0, 200)
    res = fit.bootstrap(lambda idx: {"mean": data[idx].mean()}, data.size, n_resamples=400, seed=7)
    iv = res.intervals()
    assert iv.loc["mean", "low"] < 10.0 < iv.loc["mean", "high"]
    assert iv.loc["mean", "high"] - iv.loc["mean", "low"] == pytest.approx(
        2 * 1.96 / np.sqrt(200), rel=0.25
    )
    again = fit.bootstrap(
        lambda idx: {"mean": data[idx].mean()}, data.size, n_resamples=400, seed=7
    )
    assert again.estimates.equals(res.estimates)
    with pytest.raises(ValueError):
        fit.bootstrap(lambda idx: {}, 1)


def test_parameter_recovery_reports_bias_and_spread() -> None:
    law, X, _ = chinchilla_data(80)
    starts = np.array([[6.0, 6.0, 0.5, 0.35, 0.3]])
    table = fit.parameter_recovery(law, TRUE, X, noise_sd=0.005, starts=starts, n_repeats=5)
    assert list(table.index) == list(law.names)
    assert (table["rel_rmse"] < 0.2).all()
    assert table.loc["alpha", "sd"] > 0
    exact = fit.parameter_recovery(law, TRUE, X, noise_sd=0.0, starts=starts, n_repeats=2)
    assert (exact["rel_rmse"] < 1e-2).all()
    with pytest.raises(ValueError):
        fit.parameter_recovery(law, TRUE, X, noise_sd=-1, starts=starts)


@pytest.mark.slow
def test_full_hoffmann_grid_polishes_only_the_best_starts() -> None:
    """A 5-parameter fit over Hoffmann et al.'s full grid screens all 4500 starts and polishes
    only the best :data:`fit.N_POLISH` (why it takes seconds). Its speed is measured by
    ``benchmarks/bench_fit.py``, never asserted here: a loaded machine must not fail a test."""
    law, X, y = chinchilla_data(240, noise=0.01)
    res = fit.fit_law(law, X, y, fit.HOFFMANN_GRID)
    assert len(res.starts) == 4500
    assert int(res.starts["polished"].sum()) == fit.N_POLISH
    assert res.starts["initial_loss"].notna().all()
    assert res.params["alpha"] == pytest.approx(0.34, abs=0.03)
    assert res.params["beta"] == pytest.approx(0.28, abs=0.03)


def test_power_law_with_an_offset_fixed_or_fitted() -> None:
    x = np.geomspace(1e14, 1e20, 25)
    y = 1.87 + 576.0 * x**-0.158
    fixed = fit.fit_power_law(x, y, offset=1.87)
    assert (fixed.offset, fixed.coef, fixed.exponent) == pytest.approx((1.87, 576.0, -0.158))
    assert fixed(1e22) == pytest.approx(1.87 + 576.0 * 1e22**-0.158)
    # Started from a wrong offset, the free fit finds the true one.
    free = fit.fit_power_law(x, y, offset=1.5, free_offset=True)
    assert (free.offset, free.coef, free.exponent) == pytest.approx(
        (1.87, 576.0, -0.158), rel=1e-6)
    assert free.dof == x.size - 3 and free.exponent_se < 1e-6
    with pytest.raises(ValueError, match="above the offset"):
        fit.fit_power_law(x, y, offset=3.0)
    with pytest.raises(ValueError, match="offset must be finite"):
        fit.fit_power_law(x, y, offset=np.nan)
    with pytest.raises(ValueError, match="free_offset must be True or False"):
        fit.fit_power_law(x, y, free_offset="yes")


def test_power_law_intervals_and_band_match_statsmodels() -> None:
    rng = np.random.default_rng(3)
    x = np.geomspace(1e18, 3e20, 6)
    y = 6.0 + 40.0 * x**-0.05 * np.exp(rng.normal(0, 0.02, x.size))
    p = fit.fit_power_law(x, y, offset=6.0)
    ols = sm.OLS(np.log(y - 6.0), sm.add_constant(np.log(x))).fit()
    ci = ols.conf_int(0.05)
    assert p.exponent_ci == pytest.approx(tuple(ci[1]))
    assert p.coef_ci == pytest.approx(tuple(np.exp(ci[0])))
    at = np.array([1e19, 1e24])
    band = ols.get_prediction(sm.add_constant(np.log(at), has_constant="add")).conf_int(
        alpha=0.05)
    lo, hi = p.band(at)
    assert lo == pytest.approx(6.0 + np.exp(band[:, 0])) and hi == pytest.approx(
        6.0 + np.exp(band[:, 1]))
    assert np.all(lo < p(at)) and np.all(p(at) < hi)
    # The t quantile is taken in double precision whatever float type gives the level.
    lo32, hi32 = p.band(at, level=np.float32(0.95))
    lo64, hi64 = p.band(at, level=float(np.float32(0.95)))
    assert np.array_equal(lo32, lo64) and np.array_equal(hi32, hi64)
    for level in (0, 1, -1, 1.5, float("nan"), "0.95"):
        with pytest.raises(ValueError, match="level"):
            p.band(at, level=level)
