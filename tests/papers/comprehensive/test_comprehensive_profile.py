"""recovery.profile: the least-squares misfit profiled over one of Eq. 11's fitted parameters."""

from __future__ import annotations

import numpy as np
import pytest

from moelaws import comprehensive as cl
from moelaws.comprehensive import recovery

SIGMA = 0.0025


@pytest.fixture(scope="module")
def fitting_points() -> np.ndarray:
    return recovery.experiment_points("fitting")


@pytest.mark.parametrize(("name", "constant"), [("alpha", "alpha"), ("beta", "beta"),
                                                ("log_eps", "eps")])
def test_profile_agrees_with_the_asymptotic_standard_error(fitting_points: np.ndarray,
                                                           name: str, constant: str) -> None:
    """On noise-free losses the profile is (to the law's curvature) the quadratic
    (Δ/SE)² of identifiability()'s standard error: about 1 one SE away, 1/4 half an SE away.
    A profile that refitted the held parameter too would be 0 everywhere; one in the wrong
    units (σ, not σ²) far off."""
    clean = recovery.simulate(fitting_points, 0.0, seed=0)
    se = recovery.identifiability(fitting_points, SIGMA).loc[constant, "se"]
    at = recovery.to_vector(cl.constants())[recovery.FIT_NAMES.index(name)]
    prof = recovery.profile(fitting_points, clean, name, at + se * np.array([-1.0, 0.0, 0.5, 1.0]),
                            noise_sd=SIGMA)
    chi2 = prof["delta_chi2"].to_numpy()
    assert chi2[1] == pytest.approx(0.0, abs=1e-6)
    assert 0.8 < chi2[0] < 1.25 and 0.8 < chi2[3] < 1.25
    assert 0.2 < chi2[2] < 0.32
    assert list(prof[name]) == pytest.approx(list(at + se * np.array([-1.0, 0.0, 0.5, 1.0])))


def test_the_k_profile_bounds_nothing_where_alphas_does(fitting_points: np.ndarray) -> None:
    """Chapter "A comprehensive joint law": at σ = 0.0025 (seed 0) no k over 13 decades is
    excluded at 95 %, and the optima barely move along the profile, while α 10 % below or 5 %
    above Table 2's value is excluded."""
    y = recovery.simulate(fitting_points, SIGMA, seed=0)
    p = cl.constants()
    k_prof = recovery.profile(fitting_points, y, "log_k",
                              np.log(p["k"]) + np.log(10.0) * np.arange(-6, 8), noise_sd=SIGMA)
    assert (k_prof["failures"] == "").all()
    assert (k_prof["fitted log_k"] == k_prof["log_k"]).all()
    assert 0.0 <= k_prof["delta_chi2"].min() < 1e-6
    assert k_prof["delta_chi2"].max() < 3.84
    assert k_prof["G_opt"].max() - k_prof["G_opt"].min() < 0.01
    alpha_prof = recovery.profile(fitting_points, y, "alpha", p["alpha"] * np.array([0.9, 1.05]),
                                  noise_sd=SIGMA)
    assert (alpha_prof["delta_chi2"] > 3.84).all()
    # With alpha held, the refits send k towards 0, where the k profile is lowest.
    assert (np.exp(alpha_prof["fitted log_k"]) < 1e-6).all()


def test_profile_refuses_what_it_cannot_do(fitting_points: np.ndarray) -> None:
    y = recovery.simulate(fitting_points, SIGMA, seed=0)
    with pytest.raises(ValueError, match="name must be one of"):
        recovery.profile(fitting_points, y, "k", [0.0], noise_sd=SIGMA)
    with pytest.raises(ValueError, match="non-empty"):
        recovery.profile(fitting_points, y, "log_k", [], noise_sd=SIGMA)
    with pytest.raises(ValueError, match="non-empty"):
        recovery.profile(fitting_points, y, "log_k", [np.nan], noise_sd=SIGMA)
    with pytest.raises(ValueError, match="noise_sd"):
        recovery.profile(fitting_points, y, "log_k", [0.0], noise_sd=0.0)
