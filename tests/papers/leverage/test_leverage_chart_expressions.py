"""Chapter 02's Vega expressions of the efficiency-leverage law, evaluated like JavaScript and
compared with the law."""

from __future__ import annotations

import itertools
import math

import pytest

from moelaws import leverage as lev
from moelaws.leverage import law as lev_law
from moelaws.leverage import views as lev_views
from moelaws.vega_expr import evaluate

REL = 1e-12


def close(a: float, b: float, rel: float = REL) -> bool:
    return math.isclose(a, b, rel_tol=rel, abs_tol=0.0)


# Chapter 02, Figure 1b: Eq. 4 over (A, G) with the compute slider log10C.
LEV_POINTS = list(itertools.product([0.005, 0.031, 13 / 385, 0.4, 1.0], [1.0, 2.0, 12.0, 64.0],
                                    [18.0, 22.0, 23.75]))


@pytest.mark.parametrize(("A", "G", "log10C"), LEV_POINTS)
def test_leverage_expression_is_eq4(A, G, log10C):
    expr = lev_views.efficiency_leverage_expression("datum.A", "datum.G", "pow(10, log10C)")
    got = evaluate(expr, {"log10C": log10C}, {"A": A, "G": G})
    assert close(got, float(lev.efficiency_leverage(A, G, 10.0**log10C)), 1e-12)


def test_leverage_expression_follows_table6_and_the_bases(monkeypatch):
    env, datum = {"log10C": 22.0}, {"A": 0.031, "G": 12.0}

    def value() -> float:
        return evaluate(lev_views.efficiency_leverage_expression(
            "datum.A", "datum.G", "pow(10, log10C)"), env, datum)

    before = value()
    monkeypatch.setitem(lev_law.TABLE6, "gamma", 2.0e-2)
    changed = value()
    assert not close(changed, before, 1e-6)
    assert close(changed, float(lev.efficiency_leverage(0.031, 12.0, 1e22, gamma=2.0e-2)))
    other_base = evaluate(lev_views.efficiency_leverage_expression(
        "datum.A", "datum.G", "pow(10, log10C)", log_base_c=math.e), env, datum)
    assert close(other_base, float(lev.efficiency_leverage(0.031, 12.0, 1e22, gamma=2.0e-2,
                                                           log_base_c=math.e)))
    with pytest.raises(ValueError):
        lev_views.efficiency_leverage_expression(coefficients={"zeta": 1.0})
