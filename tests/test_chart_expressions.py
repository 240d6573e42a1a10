"""Every in-browser formula of the book is generated from its law: each Vega expression the
chapters' kernel-free charts evaluate is run by :func:`moelaws.vega_expr.evaluate` at several
points and compared with the NumPy law it stands for, and a changed constant in the law changes
the expression's value."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from moelaws import allocation as al
from moelaws import comprehensive as comp
from moelaws import constrained as con
from moelaws import leverage as lev
from moelaws.allocation import views as al_views
from moelaws.allocation.extended_loss import READINGS
from moelaws.comprehensive import views as comp_views
from moelaws.constrained import law as con_laws
from moelaws.constrained import views as con_views
from moelaws.leverage import law as lev_law
from moelaws.leverage import views as lev_views
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


# Chapter 00: N_total / N_active over n_exp (Eq. 1 over Eq. 2 of the constrained paper).
@pytest.mark.parametrize(("n_exp", "topk", "gran"),
                         [(8, 2, 4.0), (64, 8, 2.0), (256, 1, 0.25), (512, 16, 8.0)])
def test_total_active_ratio_expression_is_eq1_over_eq2(n_exp, topk, gran):
    got = evaluate(con_views.total_active_ratio_expression(),
                   {"topk": topk, "gran": gran}, {"n_exp": n_exp})
    want = float(con.total_params(3, 512, n_exp, gran) / con.active_params(3, 512, topk, gran))
    assert close(got, want)


def test_total_active_ratio_expression_follows_the_constants(monkeypatch):
    args = ({"topk": 2, "gran": 4.0}, {"n_exp": 64})
    before = evaluate(con_views.total_active_ratio_expression(), *args)
    monkeypatch.setattr(con_laws, "ATTENTION_WEIGHTS", 5.0)
    after = evaluate(con_views.total_active_ratio_expression(), *args)
    assert not close(after, before, 1e-6)
    assert close(after, float(con.total_params(1, 1, 64) / con.active_params(1, 1, 2)))


# Chapter 05: Eq. 3 at the largest core both budgets allow, against design.landscape.
@pytest.mark.parametrize(("log_total", "log_active"),
                         [(11.25, 10.25), (9.0, 8.5), (12.0, 7.0), (10.0, 10.0)])
def test_budget_loss_expression_is_the_landscape(log_total, log_active):
    experts = [2, 8, 64, 1024]
    table = con.landscape(10.0**log_total, 10.0**log_active, experts, 64)
    expr = con_views.budget_loss_expression("pow(10, log_total)", "pow(10, log_active)")
    env = {"log_total": log_total, "log_active": log_active}
    for row in table.sample(12, random_state=0).itertuples():
        got = evaluate(expr, env, {"n_exp": row.n_exp, "n_topk": row.n_topk})
        assert close(got, row.loss, 1e-12)


def test_budget_loss_expression_follows_eq3_exponents(monkeypatch):
    expr_args = ("pow(10, log_total)", "pow(10, log_active)")
    env, datum = {"log_total": 11.0, "log_active": 10.0}, {"n_exp": 32, "n_topk": 4}
    before = evaluate(con_views.budget_loss_expression(*expr_args), env, datum)
    monkeypatch.setitem(con_laws.EXPONENTS, "n_exp", 0.05)
    after = evaluate(con_views.budget_loss_expression(*expr_args), env, datum)
    assert not close(after, before, 1e-6)
    table = con.landscape(1e11, 1e10, [32], 4).set_index(["n_exp", "n_topk"])
    assert close(after, float(table.loc[(32, 4), "loss"]))
    with pytest.raises(ValueError):
        con_views.relative_loss_expression("1", exponents={"N_total": -0.05})


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


# Chapter 04: the joint law of Eq. 11 (comprehensive.views.loss_expression).
@pytest.mark.parametrize(("N", "ratio", "D", "G", "S"),
                         [(1e11, 0.1, 1e12, 8.0, 0.11), (3e9, 0.5, 1e10, 1.0, 0.0),
                          (3e12, 0.02, 3e13, 32.0, 0.9)])
def test_comprehensive_loss_expression_is_eq11(N, ratio, D, G, S):
    got = evaluate(comp_views.loss_expression(), {"N": N, "Na": ratio * N, "D": D, "G": G,
                                                   "S": S})
    assert close(got, float(comp.loss(N, D, ratio * N, G, S)), 1e-12)


def test_comprehensive_loss_expression_follows_its_constants():
    env = {"N": 1e11, "Na": 1e10, "D": 1e12, "G": 8.0, "S": 0.1}
    base = evaluate(comp_views.loss_expression(), env)
    other = evaluate(comp_views.loss_expression(params={"eps": 1.0}), env)
    assert not close(base, other, 1e-6)
    assert np.isfinite(base)


def _calculations(spec) -> list[tuple[str, str]]:
    found: list[tuple[str, str]] = []

    def walk(node) -> None:
        if isinstance(node, dict):
            if "calculate" in node:
                found.append((node["as"], node["calculate"]))
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(spec)
    return found


@pytest.mark.parametrize(("logN", "ratio", "Gs", "Ss"),
                         [(11.0, 0.1, 8.0, 0.11), (9.5, 0.3, 2.0, 0.3), (12.3, 0.03, 20.0, 0.5)])
def test_comprehensive_explorer_ranges_are_the_optima_module(logN, ratio, Gs, Ss):
    calcs = _calculations(comp_views.explorer_chart(threshold=1e-3).to_dict())
    bands = [expr for name, expr in calcs if name in ("lo", "hi")]
    theory = next(expr for name, expr in calcs if name == "x" and expr.startswith("pow("))
    env = {"logN": logN, "ratio": ratio, "Gs": Gs, "Ss": Ss}
    N = 10.0**logN
    g_lo, g_hi = comp.practical_G_range(N, ratio * N, 1e-3)
    s_lo, s_hi = comp.practical_S_range(N, ratio * N, 1e-3)
    want = [float(g_lo), float(g_hi), max(0.0, float(s_lo)), min(0.9, float(s_hi))]
    for expr, value in zip(bands, want, strict=True):
        assert close(evaluate(expr, env), value, 1e-12)
    assert close(evaluate(theory, env), float(comp.optimal_active_ratio(N, Gs, Ss)), 1e-12)
