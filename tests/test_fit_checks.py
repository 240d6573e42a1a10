"""An honest fit: moelaws.fit refuses what cannot determine a fit, and ``converged`` means an
interior, well-conditioned optimum. Each refusal is paired with a valid neighbour that passes,
so that a check that refused everything (or nothing) would fail here."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from moelaws import fit, fit_checks

TRUE = {"a": np.log(406.4), "b": np.log(410.7), "e": np.log(1.69), "alpha": 0.34, "beta": 0.28}
START = np.array([[5.0, 5.0, 0.0, 0.5, 0.5]])
LAW = fit.chinchilla_law()


def frame(n: int = 40, noise: float = 0.01, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    data = pd.DataFrame({"N": 10 ** rng.uniform(7, 10, n), "D": 10 ** rng.uniform(9, 11.5, n)})
    data["loss"] = LAW.predict(TRUE, data) * np.exp(rng.normal(0, noise, n))
    return data


def quick(data, y=None, **kwargs):
    return fit.fit_law(LAW, data, y, kwargs.pop("starts", START), progress=False, **kwargs)


# --- data ------------------------------------------------------------------------------------

def test_distinct_rows_must_exceed_the_parameters() -> None:
    data = frame(6)
    quick(data)  # 6 distinct rows, 5 parameters: accepted
    five = pd.concat([data.iloc[:5]] * 8, ignore_index=True)  # 40 rows, 5 distinct
    with pytest.raises(ValueError, match="5 distinct input rows cannot determine 5"):
        quick(five)
    with pytest.raises(ValueError, match="2 distinct input rows"):
        quick(data.iloc[:2])  # the outside probe's 2-row fit (it reported converged=True)
    # The huber likelihood fits one more parameter (its scale), so 6 rows are then too few.
    with pytest.raises(ValueError, match="6 distinct input rows cannot determine 6"):
        quick(data, loss="huber_likelihood")


def test_an_input_with_one_distinct_value_is_refused() -> None:
    data = frame()
    quick(data.assign(N=data["N"].round(-6)))
    with pytest.raises(ValueError, match="input N has a single distinct value"):
        quick(data.assign(N=1e9))


@pytest.mark.parametrize("column", ["N", "D"])
@pytest.mark.parametrize("value, match", [(np.nan, "non-finite"), (np.inf, "non-finite"),
                                          (0.0, "must be positive"),
                                          (-1e9, "must be positive")])
def test_inputs_the_law_takes_logs_of_must_be_finite_and_positive(column, value, match) -> None:
    data = frame()
    quick(data)
    bad = data.copy()
    bad.loc[3, column] = value
    with pytest.raises(ValueError, match=f"input {column} .*{match}|input {column} has"):
        quick(bad)


def test_a_law_without_declared_positive_inputs_is_still_refused_outside_its_domain() -> None:
    plain = fit.Law(LAW.names, LAW.log_predict, features=np.log)
    data = frame()
    X, y = data[["N", "D"]].to_numpy(copy=True), data["loss"].to_numpy()
    fit.fit_law(plain, X, y, START, progress=False)
    X[0, 1] = -X[0, 1]
    with pytest.raises(ValueError, match=r"features .* not finite.*column 1"):
        fit.fit_law(plain, X, y, START, progress=False)


@pytest.mark.parametrize("value, match", [(np.nan, "non-finite"), (np.inf, "non-finite"),
                                          (0.0, "positive"), (-2.0, "positive")])
def test_observations_must_be_finite_and_positive(value, match) -> None:
    data = frame()
    quick(data)
    bad = data.copy()
    bad.loc[0, "loss"] = value
    with pytest.raises(ValueError, match=match):
        quick(bad)


def test_duplicate_columns_are_refused() -> None:
    data = frame()
    quick(data)
    with pytest.raises(ValueError, match="N and D are identical columns"):
        quick(data.assign(D=data["N"]))  # the probe's duplicated N column (beta = -88.5)
    with pytest.raises(ValueError, match=r"duplicate column names \['D'\]"):
        quick(pd.concat([data, data[["D"]] * 2], axis=1))


def test_dataframe_columns_are_checked_by_name() -> None:
    data = frame()
    quick(data, "loss")
    with pytest.raises(ValueError, match=r"lack the input columns \['D'\]"):
        quick(data.drop(columns="D"))
    with pytest.raises(ValueError, match="y = 'D' is also an input"):
        quick(data, "D")


def test_array_length_is_capped() -> None:
    n = fit_checks.MAX_ROWS + 1
    X = np.ones((n, 2))
    with pytest.raises(ValueError, match="at most 1,000,000"):
        fit.fit_law(LAW, X, np.ones(n), START)
    with pytest.raises(ValueError, match="at most 1,000,000"):
        fit.fit_power_law(np.ones(n), np.ones(n))


# --- settings --------------------------------------------------------------------------------

def test_bounds_must_match_the_parameters_and_hold_the_starts() -> None:
    data = frame()
    good = [(0.0, 20.0), (0.0, 20.0), (-2.0, 2.0), (0.01, 2.0), (0.01, 2.0)]
    assert quick(data, bounds=good).converged
    with pytest.raises(ValueError, match="bounds has 1 pairs; the law has 5"):
        quick(data, bounds=[(0.0, 20.0)])  # the probe: one bound applied to all five
    with pytest.raises(ValueError, match="bounds has 6 pairs"):
        quick(data, bounds=[*good, (0.0, 1.0)])
    with pytest.raises(ValueError, match="bound of alpha has lo >= hi"):
        quick(data, bounds=[*good[:3], (0.5, 0.5), good[4]])
    with pytest.raises(ValueError, match="bound of beta must hold numbers"):
        quick(data, bounds=[*good[:4], (np.nan, 1.0)])
    with pytest.raises(ValueError, match=r"outside the bounds .*alpha = 0.5"):
        quick(data, bounds=[*good[:3], (0.01, 0.4), good[4]])
    with pytest.raises(ValueError, match="only to method='L-BFGS-B'"):
        quick(data, bounds=good, method="BFGS")
    assert quick(data, bounds=[*good[:3], (None, 2.0), (0.01, None)]).converged


@pytest.mark.parametrize("delta", [0.0, -1e-3, np.nan, np.inf, "1e-3", True, None])
def test_delta_must_be_finite_and_positive(delta) -> None:
    quick(frame(), delta=1e-3)
    with pytest.raises(ValueError, match="delta"):
        quick(frame(), delta=delta)


@pytest.mark.parametrize("maxiter", [0, -5, 2.5, 100.0, True, "100", 10**9])
def test_maxiter_must_be_a_positive_whole_number_below_the_cap(maxiter) -> None:
    quick(frame(), maxiter=100)
    with pytest.raises(ValueError, match="maxiter"):
        quick(frame(), maxiter=maxiter)
    with pytest.raises(ValueError, match=r"options\['maxiter'\]"):
        quick(frame(), options={"maxiter": maxiter})


def test_other_settings_are_checked() -> None:
    data = frame()
    quick(data, n_polish=1, grad_tol=1e-4)
    for kwargs, match in [({"n_polish": 1.5}, "n_polish"), ({"grad_tol": np.nan}, "grad_tol"),
                          ({"method": "Nelder-Mead"}, "method must be one of"),
                          ({"starts": START * np.nan}, "every start must be finite")]:
        with pytest.raises(ValueError, match=match):
            quick(data, **kwargs)
    with pytest.raises(ValueError, match=r"law must be a moelaws\.fit\.Law"):
        fit.fit_law("chinchilla", data, starts=START)
    huge = {n: np.linspace(0.1, 1.0, 100) for n in LAW.names}
    with pytest.raises(ValueError, match="10,000,000,000 points"):
        quick(data, starts=huge)  # refused from the grid's shape, before 1e10 starts are built


def test_bootstrap_counts_are_refused_before_any_resample() -> None:
    calls = []

    def statistic(idx):
        calls.append(len(idx))
        return {"mean": float(np.mean(idx))}

    fit.bootstrap(statistic, 10, n_resamples=5, method="percentile")
    assert calls
    calls.clear()
    for kwargs, match in [({"n_resamples": 10**9}, "at most 100,000"),
                          ({"n_resamples": 0}, "at least 1"),
                          ({"n_resamples": 5.0}, "whole number"),
                          ({"n_resamples": True}, "whole number"),
                          ({"seed": -1}, "seed"), ({"confidence_level": np.nan}, "confidence")]:
        with pytest.raises(ValueError, match=match):
            fit.bootstrap(statistic, 10, **kwargs)
    with pytest.raises(ValueError, match="n_obs must be at most"):
        fit.bootstrap(statistic, fit_checks.MAX_ROWS + 1)
    assert calls == [], "the statistic ran before a refusal"


def test_parameter_recovery_is_checked_before_any_simulation(monkeypatch) -> None:
    data = frame(30)
    X = data[["N", "D"]].to_numpy()
    table = fit.parameter_recovery(LAW, TRUE, X, noise_sd=0.005, starts=START, n_repeats=2)
    assert set(table["converged"]) <= {0.0, 0.5, 1.0}

    def no_fit(*args, **kwargs):
        raise AssertionError("fit_law ran before a refusal")

    monkeypatch.setattr(fit, "fit_law", no_fit)
    for kwargs, match in [({"n_repeats": 10**7}, "at most 10,000"),
                          ({"n_repeats": 0}, "at least 1"),
                          ({"noise_sd": np.nan}, "noise_sd"),
                          ({"X": X[:5]}, "5 distinct input rows")]:
        with pytest.raises(ValueError, match=match):
            fit.parameter_recovery(LAW, TRUE, **{"X": X, "noise_sd": 0.005, "starts": START,
                                                 **kwargs})
    with pytest.raises(ValueError, match="law must be"):
        fit.parameter_recovery(None, TRUE, X, noise_sd=0.005, starts=START)
    with pytest.raises(ValueError, match=r"true_params lack \['beta'\]"):
        fit.parameter_recovery(LAW, {k: v for k, v in TRUE.items() if k != "beta"}, X,
                               noise_sd=0.005, starts=START)


def test_power_law_needs_three_distinct_x() -> None:
    fit.fit_power_law([1.0, 2.0, 3.0], [1.0, 2.0, 3.5])
    with pytest.raises(ValueError, match="3 distinct x"):
        fit.fit_power_law([1.0, 1.0, 2.0, 2.0], [1.0, 1.1, 2.0, 2.1])
    with pytest.raises(ValueError, match="finite"):
        fit.fit_power_law([1.0, np.nan, 3.0], [1.0, 2.0, 3.0])


# --- what converged means ----------------------------------------------------------------

def test_converged_needs_an_interior_optimum() -> None:
    data = frame()
    inside = [(0.0, 20.0), (0.0, 20.0), (-2.0, 2.0), (0.01, 2.0), (0.01, 2.0)]
    free = quick(data, bounds=inside)
    assert free.converged and free.reason == "" and free.diagnostics.at_bound == ()
    # alpha = 0.34 is true; an upper bound of 0.3 holds the fit against it.
    held = quick(data, bounds=[*inside[:3], (0.01, 0.3), inside[4]],
                 starts=[[5.0, 5.0, 0.0, 0.25, 0.5]])
    assert held.params["alpha"] == pytest.approx(0.3)
    assert not held.converged
    assert held.diagnostics.at_bound == ("alpha",)
    assert "parameters at a bound: alpha" in held.reason


def test_loss_and_d_swapped_is_flagged_by_the_conditioning_check() -> None:
    """Swapped columns pass every refusal (both are positive, distinct and different), so the
    convergence checks must catch them: the best fit sends alpha to ~100, where the N term
    underflows to zero, its Jacobian columns vanish and the condition number is infinite."""
    data = frame(60)
    straight = fit.fit_law(LAW, data, progress=False)
    assert straight.converged
    assert straight.diagnostics.condition < fit_checks.MAX_CONDITION
    swapped = fit.fit_law(LAW, data.rename(columns={"D": "loss", "loss": "D"}), progress=False)
    assert swapped.diagnostics.optimiser_success, "SciPy alone would call it converged"
    assert not swapped.converged
    assert swapped.diagnostics.condition > fit_checks.MAX_CONDITION
    assert "ill-conditioned" in swapped.reason


def test_jacobian_condition_of_rank_deficient_and_well_posed_matrices() -> None:
    J = np.column_stack([np.ones(5), np.arange(5.0)])
    assert fit_checks.jacobian_condition(lambda p: J, np.zeros(2)) < 10
    collinear = np.column_stack([J, 2 * J[:, 1]])
    assert fit_checks.jacobian_condition(lambda p: collinear, np.zeros(3)) > 1e12
    assert fit_checks.jacobian_condition(lambda p: J[:1], np.zeros(2)) == np.inf


def test_converged_checks_the_conditioning_without_an_analytic_jacobian() -> None:
    plain = fit.Law(LAW.names, LAW.log_predict, features=np.log)
    data = frame()
    X, y = data[["N", "D"]].to_numpy(copy=True), data["loss"].to_numpy()
    res = fit.fit_law(plain, X, y, START, progress=False)
    assert res.converged
    assert res.diagnostics.condition == pytest.approx(
        fit_checks.jacobian_condition(
            lambda p: LAW.log_value_and_jacobian(p, np.log(X))[1],
            np.array(list(res.params.values()))), rel=1e-3)
