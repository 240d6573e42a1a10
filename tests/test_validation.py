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


def test_helpers_check_their_own_arguments() -> None:
    """The checks' own parameters: a label, whole-number bounds, a mapping of defaults."""
    with pytest.raises(ValueError, match="x must be numeric"):
        validation.finite("x", 10**400)
    with pytest.raises(TypeError, match="name"):
        validation.finite(None, 2.0)
    with pytest.raises(ValueError, match="name"):
        validation.positive("", 2.0)
    with pytest.raises(ValueError, match="minimum"):
        validation.count("n", 3, minimum=float("nan"))
    with pytest.raises(ValueError, match="maximum"):
        validation.count("n", 3, minimum=5, maximum=4)
    assert validation.count("n", 3, minimum=1, maximum=4) == 3
    with pytest.raises(TypeError, match="defaults"):
        validation.constants("a", None)
    with pytest.raises(ValueError, match="default constant a"):
        validation.constants({"a": float("inf")}, None)
    with pytest.raises(TypeError, match="fn"):
        validation.documents_nan(3.0)


def test_guard_refuses_none_for_a_flag_or_a_string() -> None:
    @validation.public
    def f(x: float, flag: bool = True, label: str = "a", maybe: str | None = None) -> float:
        return x

    with pytest.raises(TypeError, match="flag"):
        f(1.0, flag=None)
    with pytest.raises(TypeError, match="label"):
        f(1.0, label=None)
    assert f(1.0, maybe=None) == 1.0
