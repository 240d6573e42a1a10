"""Chapter 06's Vega expressions of the allocation law, evaluated like JavaScript and compared with
the law."""

from __future__ import annotations

import itertools
import math

import pytest

from moelaws import allocation as al
from moelaws.allocation import views as al_views
from moelaws.allocation.extended_loss import READINGS
from moelaws.vega_expr import evaluate

REL = 1e-12


def close(a: float, b: float, rel: float = REL) -> bool:
    return math.isclose(a, b, rel_tol=rel, abs_tol=0.0)


# Chapter 06: Eq. 1's r*(C, S) and the r-dependent terms of Eq. 2 (the valley).
ALLOC_POINTS = list(itertools.product([17.0, 19.5, 21.5], [0.0, 0.8235, 0.9538, 0.98]))


@pytest.mark.parametrize(("logC", "S"), ALLOC_POINTS)
def test_optimal_ratio_expression_is_eq1(logC, S):
    got = evaluate(al_views.optimal_ratio_expression("logC", "S"), {"logC": logC, "S": S})
    assert close(got, float(al.optimal_ratio(10.0**logC, S)), 1e-12)


@pytest.mark.parametrize("reading", READINGS)
@pytest.mark.parametrize(("logC", "S"), ALLOC_POINTS[::3])
def test_valley_expression_is_eq2(reading, logC, S):
    n = 3.1e7
    r_star = al_views.optimal_ratio_expression("logC", "S")
    env = {"logC": logC, "S": S, "N": n, "D": 1e10}
    rs = float(al.optimal_ratio(10.0**logC, S))
    for r in (0.05, 0.4, 1.0, 7.5):
        dev = al_views.deviation_expression("datum.r", r_star, reading)
        R = float(al.deviation(r, rs, reading))
        terms = al.loss_terms(n, 1e10, S, r, R)
        got = evaluate(al_views.allocation_terms_expression("N", "S", "datum.r", dev), env,
                       {"r": r})
        assert close(got, float(terms["allocation"] + terms["efficiency"]), 1e-12)
        full = evaluate(al_views.loss_expression("N", "D", "S", "datum.r", dev), env, {"r": r})
        assert close(full, float(al.loss(n, 1e10, S, r, R)), 1e-12)


def test_allocation_expressions_follow_the_law_constants(monkeypatch):
    env = {"logC": 19.5, "S": 0.9}
    before = evaluate(al_views.optimal_ratio_expression(), env)
    monkeypatch.setattr(al.law, "BETA_R_COEF", 0.25)
    after = evaluate(al_views.optimal_ratio_expression(), env)
    assert not close(after, before, 1e-6)
    assert close(after, float(al.optimal_ratio(10**19.5, 0.9)))
    valley = al_views.allocation_terms_expression("1e7", "0.9", "datum.r", "0")
    other = al_views.allocation_terms_expression("1e7", "0.9", "datum.r", "0",
                                                 coefficients={"d": 0.5})
    assert not close(evaluate(valley, datum={"r": 1.0}), evaluate(other, datum={"r": 1.0}), 1e-6)
    with pytest.raises(ValueError):
        al_views.deviation_expression("1", "1", "cubic")
