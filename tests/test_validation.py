"""moelaws.validation: the laws' shared domain checks."""

from __future__ import annotations

import numpy as np
import pytest

from moelaws import validation


def test_checks_return_float_arrays() -> None:
    out = validation.positive("C", [1, 2.5])
    assert out.dtype == float and out.tolist() == [1.0, 2.5]
    assert validation.non_negative("L_d", 0).item() == 0.0
    assert validation.finite("x", -3).item() == -3.0


@pytest.mark.parametrize(
    ("check", "value", "message"),
    [
        (validation.finite, "abc", "x must be numeric"),
        (validation.finite, [1.0, np.nan], "x must be finite"),
        (validation.positive, np.inf, "x must be finite"),
        (validation.positive, [1.0, 0.0], "x must be positive"),
        (validation.non_negative, -1e-9, "x must be non-negative"),
    ],
)
def test_checks_name_the_quantity(check, value, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        check("x", value)
