"""The efficiency-leverage law's bad inputs (issues 19 and 25): each refused or flagged."""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pytest

from moelaws import leverage as lev
from moelaws.validation import ExtrapolationWarning


@pytest.mark.parametrize(
    ("call", "quantity"),
    [
        (lambda: lev.efficiency_leverage(0.1, 1e300, 1e21), "G"),
        (lambda: lev.efficiency_leverage(0.1, 8, 1e300), "C"),
    ],
)
def test_laws_warn_far_outside_the_fitted_range(call, quantity: str) -> None:
    with pytest.warns(ExtrapolationWarning, match=f"{quantity} = "):
        call()


def test_no_warning_inside_the_range() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error", ExtrapolationWarning)
        lev.efficiency_leverage(0.1, 8, 1e22)


def test_non_finite_results_are_refused() -> None:
    # A documented NaN ("no maximum") is kept.
    assert np.isnan(lev.optimal_granularity(np.array([0.1, 1.0]))[1])


def test_warns_far_outside_its_fitted_range_at_the_callers_line() -> None:
    with pytest.warns(ExtrapolationWarning) as caught:
        lev.efficiency_leverage(0.03, 12, 1e30)
    assert {Path(w.filename).name for w in caught if w.category is ExtrapolationWarning} == {
        Path(__file__).name}


def test_arrays_longer_than_the_cap_are_refused() -> None:
    with pytest.raises(ValueError, match="G has 2,000,000 elements; at most 1,000,000"):
        lev.efficiency_leverage(0.1, np.full(2_000_000, 8.0), 1e21)


@pytest.mark.parametrize("value", [[], np.array([]), np.ones((0, 3))])
def test_empty_arrays_are_refused(value) -> None:
    with pytest.raises(ValueError, match="G is empty"):
        lev.efficiency_leverage(0.1, value, 1e21)
    grid = lev.efficiency_leverage(0.1, np.full((2, 3, 2), 8.0), 1e21)  # grids broadcast
    assert grid.shape == (2, 3, 2)


def test_a_non_string_where_a_string_belongs_is_refused() -> None:
    with pytest.raises(ValueError, match=r"family must be one of \['moe', 'dense'\], not 3"):
        lev.compute_optimal_budget(1e21, family=3)
