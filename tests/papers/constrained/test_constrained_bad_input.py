"""The constrained-budget law's bad inputs (issues 19 and 25): each refused or flagged."""

from __future__ import annotations

import warnings
from pathlib import Path

import pytest

from moelaws import constrained as con
from moelaws.validation import ExtrapolationWarning


def test_a_numeric_string_is_refused_not_converted() -> None:
    with pytest.raises(ValueError, match="total_budget must be numeric"):
        con.optimize("1e9", 1e8, 64)


def test_laws_warn_far_outside_the_fitted_range() -> None:
    with pytest.warns(ExtrapolationWarning, match="N_total = "):
        con.optimize(1e40, 1e39, 64)


def test_no_warning_inside_the_range() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error", ExtrapolationWarning)
        con.optimize(3e9, 3e8, 64)


def test_mapping_arguments_are_checked_key_by_key() -> None:
    with pytest.raises(ValueError, match="unknown names \\['N_totl'\\]"):
        con.relative_loss(1e9, 8, 2, exponents={"N_totl": 9.0})
    with pytest.raises(ValueError, match="finite"):
        con.relative_loss(1e9, 8, 2, exponents={"N_total": float("nan")})
    partial = con.relative_loss(1e9, 8, 2, exponents={"N_total": -0.05})
    full = con.relative_loss(1e9, 8, 2, exponents={**con.EXPONENTS, "N_total": -0.05})
    assert partial == full != con.relative_loss(1e9, 8, 2)


def test_warns_far_outside_its_fitted_range_at_the_callers_line() -> None:
    with pytest.warns(ExtrapolationWarning) as caught:
        try:
            con.optimize(1e20, 1e9, 1)
        except ValueError:
            pass  # a design may also be infeasible there; the warning came first
    assert {Path(w.filename).name for w in caught if w.category is ExtrapolationWarning} == {
        Path(__file__).name}
