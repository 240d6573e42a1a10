"""Chapter 04's Vega expressions of the comprehensive law, evaluated like JavaScript and compared
with the law."""

from __future__ import annotations

import math

import numpy as np
import pytest

from moelaws import comprehensive as comp
from moelaws.comprehensive import views as comp_views
from moelaws.vega_expr import evaluate

REL = 1e-12


def close(a: float, b: float, rel: float = REL) -> bool:
    return math.isclose(a, b, rel_tol=rel, abs_tol=0.0)


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
