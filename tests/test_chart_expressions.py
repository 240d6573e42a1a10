"""Every in-browser formula of the book is generated from its law: each Vega expression the
chapters' kernel-free charts evaluate is run by :func:`moelaws.vega_expr.evaluate` at several
points and compared with the NumPy law it stands for, and a changed constant in the law changes
the expression's value."""

from __future__ import annotations

import math

import pytest

from moelaws.vega_expr import evaluate, literal

REL = 1e-12


def close(a: float, b: float, rel: float = REL) -> bool:
    return math.isclose(a, b, rel_tol=rel, abs_tol=0.0)


# The evaluator itself: a test that cannot fail would prove nothing about the expressions.
def test_evaluator_runs_the_subset_like_javascript():
    env = {"x": 2.0}
    assert evaluate("pow(x, 3) + log(E) - sqrt(4) * -1", env) == 8.0 + 1.0 + 2.0
    assert evaluate("min(datum.a, 1) / max(2, 3)", datum={"a": 0.5}) == 0.5 / 3
    assert evaluate("log(8) / LN2") == pytest.approx(3.0, rel=1e-15)
    assert evaluate("abs(-2.5) - exp(0)") == 1.5


@pytest.mark.parametrize("bad", ["x ** 2", "__import__('os')", "x if x else 1", "foo(1)",
                                 "datum.missing", "y", "'a' + 1", "x[0]", "True"])
def test_evaluator_refuses_anything_outside_the_subset(bad):
    with pytest.raises(ValueError):
        evaluate(bad, {"x": 1.0})


def test_literal_round_trips_and_refuses_non_finite():
    for x in (6.7e-5, -0.052, 5.28e16, 1 / 3):
        assert float(literal(x)) == x
    with pytest.raises(ValueError):
        literal(float("nan"))

