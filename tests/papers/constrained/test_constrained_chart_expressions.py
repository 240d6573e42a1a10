"""The constrained paper's Vega expressions (chapters 00 and 05), evaluated like JavaScript and
compared with its law."""

from __future__ import annotations

import math

import pytest

from moelaws import constrained as con
from moelaws.constrained import law as con_laws
from moelaws.constrained import views as con_views
from moelaws.vega_expr import evaluate

REL = 1e-12


def close(a: float, b: float, rel: float = REL) -> bool:
    return math.isclose(a, b, rel_tol=rel, abs_tol=0.0)


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
