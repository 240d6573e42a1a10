"""The allocation law's bad inputs (issues 19 and 25): each refused or flagged."""

from __future__ import annotations

from pathlib import Path

import pytest

from moelaws import allocation
from moelaws.validation import ExtrapolationWarning


def test_non_finite_results_are_refused() -> None:
    with pytest.raises(ValueError, match="not finite"):
        allocation.loss_terms(1e9, 1e10, 0.9, 1.0, 1e300)


def test_warns_far_outside_its_fitted_range_at_the_callers_line() -> None:
    with pytest.warns(ExtrapolationWarning) as caught:
        try:
            allocation.optimal_ratio(1e40, 0.9)
        except ValueError:
            pass  # a design may also be infeasible there; the warning came first
    assert {Path(w.filename).name for w in caught if w.category is ExtrapolationWarning} == {
        Path(__file__).name}


def test_attribute_and_key_errors_inside_a_law_become_value_errors() -> None:
    with pytest.raises(ValueError, match=r"table12_config: invalid arguments .*KeyError"):
        allocation.table12_config({})
