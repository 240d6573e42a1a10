"""The comprehensive law's bad inputs (issues 19 and 25): each refused or flagged."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from moelaws import comprehensive as cl
from moelaws.validation import ExtrapolationWarning


def test_user_supplied_constants_are_checked_like_inputs() -> None:
    m = cl.industrial_models()
    with pytest.raises(ValueError, match="not finite"):
        cl.practical_G_range(m["N"], m["Na"], 1e-3, {"e": -1})
    with pytest.raises(ValueError, match="alpha"):
        cl.loss(1e10, 1e11, 1e9, 8, 0.2, {"alpha": math.nan})
    with pytest.raises(ValueError, match="unknown"):
        cl.loss(1e10, 1e11, 1e9, 8, 0.2, {"alpah": 0.3})


def test_work_sizes_are_capped() -> None:
    with pytest.raises(ValueError, match="n_points must be at most"):
        cl.fit_compute_optimal_power_law(1e18, 1e20, n_points=10**9)
    with pytest.raises(ValueError, match="whole number"):
        cl.fit_compute_optimal_power_law(1e18, 1e20, n_points=10.5)


def test_dict_results_are_checked_finite() -> None:
    with pytest.raises(ValueError, match="not finite"):
        cl.compute_optimal_asymptote(1e10, G=1e-308)
    assert np.isfinite(cl.compute_optimal_asymptote(1e10)["offset"])


def test_warns_far_outside_its_fitted_range_at_the_callers_line() -> None:
    with pytest.warns(ExtrapolationWarning) as caught:
        cl.loss(1e20, 1e11, 1e9, 8, 0.1)
    assert {Path(w.filename).name for w in caught if w.category is ExtrapolationWarning} == {
        Path(__file__).name}
