"""The allocation law's argument checks (issue 25): each refuses a bad value with an error that
names the parameter."""

from __future__ import annotations

import pytest

from moelaws import allocation


def test_allocation_checks() -> None:
    with pytest.raises(ValueError, match="coefficients"):
        allocation.loss(1e9, 1e11, 0.5, 1.0, 0.0, coefficients=[1.0])
    with pytest.raises(TypeError, match="draws"):
        allocation.optimal_ratio_draws(1e20, 0.5, None)
    with pytest.raises(TypeError, match="row"):
        allocation.table12_config(3.0)
