"""The holistic law's bad inputs (issues 19 and 25): each refused or flagged."""

from __future__ import annotations

from pathlib import Path

import pytest

from moelaws import holistic as h
from moelaws.validation import ExtrapolationWarning


def test_layer_counts_are_whole_numbers() -> None:
    heads = dict(n_q=16, n_kv=4, d_qkv=128)
    with pytest.raises(ValueError, match="L_m must be a whole number"):
        h.counts(2048, 1, 2.5, 1024, **heads)
    assert float(h.counts(2048, 1, 20.0, 1024, **heads).N) > 0


def test_non_finite_results_are_refused() -> None:
    with pytest.raises(ValueError, match="overflow"):
        h.counts(1e300, 1, 20, 1024, n_q=16, n_kv=4, d_qkv=128)
    with pytest.raises(ValueError, match="overflow"):
        h.resource_ratios(1e300, 1, 20, 1024, n_q=16, n_kv=4, d_qkv=128)


def test_a_number_where_a_record_belongs_is_a_type_error() -> None:
    with pytest.raises(TypeError, match="heads must be a HeadSettings"):
        h.design_report(1e20, heads=4)


def test_warns_far_outside_its_fitted_range_at_the_callers_line() -> None:
    with pytest.warns(ExtrapolationWarning) as caught:
        try:
            h.optimal_tokens(1e30)
        except ValueError:
            pass  # a design may also be infeasible there; the warning came first
    assert {Path(w.filename).name for w in caught if w.category is ExtrapolationWarning} == {
        Path(__file__).name}
