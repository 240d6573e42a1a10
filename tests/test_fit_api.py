"""moelaws.fit as a newcomer uses it: a DataFrame with named columns, default starts, natural
parameters, a converged flag, the published estimators, and the vectorised multi-start."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from moelaws import fit

TRUE = {"a": np.log(406.4), "b": np.log(410.7), "e": np.log(1.69), "alpha": 0.34, "beta": 0.28}


def frame(n: int = 120, noise: float = 0.0, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    data = pd.DataFrame({"N": 10 ** rng.uniform(7, 10, n), "D": 10 ** rng.uniform(9, 11.5, n)})
    data["loss"] = fit.chinchilla_law().predict(TRUE, data) * np.exp(rng.normal(0, noise, n))
    return data


def test_dataframe_with_defaults_recovers_natural_parameters() -> None:
    res = fit.fit_law(fit.chinchilla_law(), frame(), progress=False)
    assert len(res.starts) == 4500 and res.starts["polished"].sum() == fit.N_POLISH
    assert res.converged
    nat = res.natural
    assert nat["A"] == pytest.approx(406.4, rel=1e-2)
    assert nat["B"] == pytest.approx(410.7, rel=1e-2)
    assert nat["E"] == pytest.approx(1.69, rel=1e-4)
    assert nat["alpha"] == pytest.approx(0.34, abs=1e-3)
    assert nat["beta"] == pytest.approx(0.28, abs=1e-3)
    assert nat["A"] == pytest.approx(np.exp(res.params["a"]))


def test_swapped_columns_do_not_swap_alpha_and_beta() -> None:
    data = frame(80)
    starts = {"a": [5.0], "b": [5.0], "e": [0.0, 0.5], "alpha": [0.5], "beta": [0.5]}
    law = fit.chinchilla_law()
    straight = fit.fit_law(law, data[["N", "D", "loss"]], starts=starts, progress=False)
    swapped = fit.fit_law(law, data[["loss", "D", "N"]], "loss", starts, progress=False)
    assert swapped.params == pytest.approx(straight.params)
    assert swapped.params["alpha"] == pytest.approx(0.34, abs=2e-3)
    assert swapped.params["beta"] == pytest.approx(0.28, abs=2e-3)
    with pytest.raises(ValueError, match=r"input columns \['D'\]"):
        fit.fit_law(law, data.rename(columns={"D": "tokens"}), starts=starts)
    with pytest.raises(ValueError, match="output column"):
        fit.fit_law(law, data, "L", starts)


def test_vectorised_multistart_finds_the_full_polish_optimum() -> None:
    law = fit.chinchilla_law()
    data = frame(120, noise=0.01, seed=2)
    grid = {**fit.HOFFMANN_GRID, "a": [0.0, 10.0], "b": [5.0, 20.0]}
    fast = fit.fit_law(law, data, starts=grid, progress=False)
    full = fit.fit_law(law, data, starts=grid, n_polish=None, progress=False)
    assert full.starts["polished"].all()
    assert fast.loss == pytest.approx(full.loss, rel=1e-9)
    assert fast.loss <= full.starts["initial_loss"].min()


def test_converged_is_false_for_a_stopped_or_unmoved_fit() -> None:
    law = fit.chinchilla_law()
    data = frame(60, noise=0.01)
    start = np.array([[5.0, 5.0, 0.0, 0.5, 0.5]])
    stopped = fit.fit_law(law, data, starts=start, options={"maxiter": 2}, progress=False)
    assert not stopped.converged and stopped.grad_norm > 1e-4
    exact = frame(60)
    at_truth = fit.fit_law(law, exact, starts=np.array([list(TRUE.values())]), progress=False)
    assert not at_truth.converged, "the returned point is the start point"


def test_huber_likelihood_fits_a_scale() -> None:
    data = frame(240, noise=0.01, seed=1)
    res = fit.fit_law(fit.chinchilla_law(), data, loss="huber_likelihood", progress=False)
    assert fit.SCALE_NAME in res.params
    # δ = 1e-3 on r/σ puts every residual in the linear tails, where the likelihood is
    # Laplace's: its stationarity in σ gives σ = δ·mean|r|, and mean|r| ≈ 0.01·√(2/π) for
    # Gaussian noise of sd 0.01.
    mean_abs = np.abs(res.residuals(data, data["loss"])).mean()
    assert res.natural["sigma"] == pytest.approx(1e-3 * mean_abs, rel=1e-6)
    assert mean_abs == pytest.approx(0.01 * np.sqrt(2 / np.pi), rel=0.15)
    assert res.params["alpha"] == pytest.approx(0.34, abs=0.03)
    assert res.converged


def test_huber_likelihood_gradient_matches_finite_differences() -> None:
    law = fit.chinchilla_law()
    data = frame(40, noise=0.01)
    problem = fit._Problem(law, law.prepare(data[["N", "D"]].to_numpy()),
                           np.log(data["loss"].to_numpy()), 1e-3, "huber_likelihood",
                           "L-BFGS-B", None, {})
    p = np.array([6.0, 6.1, 0.5, 0.33, 0.29, np.log(0.02)])
    _, grad = problem.objective_and_grad(p)
    num = [(problem.objective(p + d) - problem.objective(p - d)) / 2e-7
           for d in np.eye(6) * 1e-7]
    assert grad == pytest.approx(num, rel=1e-4, abs=1e-4)


def test_huber_normaliser_matches_numerical_integral() -> None:
    from scipy import integrate, special

    delta = 0.5
    z, _ = integrate.quad(lambda x: np.exp(-special.huber(delta, x)), -np.inf, np.inf)
    assert fit.huber_log_normaliser(delta) == pytest.approx(np.log(z), rel=1e-8)


def test_unknown_inputs_are_rejected() -> None:
    law = fit.chinchilla_law()
    with pytest.raises(ValueError, match="loss must be"):
        fit.fit_law(law, frame(10), loss="l1")
    with pytest.raises(ValueError, match="n_polish"):
        fit.fit_law(law, frame(10), n_polish=0)
    no_defaults = fit.Law(law.names, law.log_predict)
    with pytest.raises(ValueError, match="default starts"):
        fit.fit_law(no_defaults, np.ones((3, 2)), np.ones(3))
    with pytest.raises(ValueError, match="no input names"):
        fit.fit_law(no_defaults, frame(10), "loss", np.ones((1, 5)))


def test_progress_bar_when_asked(capsys) -> None:
    fit.fit_law(fit.chinchilla_law(), frame(30), starts=np.array([[5.0, 5.0, 0.0, 0.5, 0.5]]),
                progress=True)
    assert "polishing starts" in capsys.readouterr().err


def test_bootstrap_bca_and_percentile() -> None:
    rng = np.random.default_rng(3)
    data = rng.exponential(2.0, 300)
    kw = dict(n_resamples=500, seed=1)
    bca = fit.bootstrap(lambda idx: {"mean": data[idx].mean()}, data.size, **kw)
    pct = fit.bootstrap(lambda idx: {"mean": data[idx].mean()}, data.size, method="percentile",
                        **kw)
    for res in (bca, pct):
        iv = res.intervals().loc["mean"]
        assert iv["low"] < data.mean() < iv["high"]
    # Same resamples, different intervals: BCa shifts towards the skewed (right) tail.
    assert bca.estimates.equals(pct.estimates)
    assert bca.intervals().loc["mean", "high"] > pct.intervals().loc["mean", "high"]
    flat = fit.bootstrap(lambda idx: {"one": 1.0}, 20, n_resamples=50)
    assert flat.intervals().loc["one", ["low", "high"]].tolist() == [1.0, 1.0]
    with pytest.raises(ValueError, match="method"):
        fit.bootstrap(lambda idx: {}, 5, method="normal")
