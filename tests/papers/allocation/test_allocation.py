"""Tests of moelaws.allocation: Eq. 1, App. A (Eq. 3-4), Eq. 2, App. B/C helpers, toy fits."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from moelaws import allocation as al
from moelaws import arch, conventions
from moelaws.allocation import checks, extended_loss, toy
from moelaws.allocation.counting import expert_attention_ratio

S4 = np.array([14 / 17, 30 / 33, 62 / 65, 126 / 129])
PARAMS = dict(alpha_A=2.0, alpha_E=3.0, gamma_A=0.5, gamma_E=0.3, mu_A=0.6, mu_E=0.7)


# --- Eq. 1 and Section 3.3 ------------------------------------------------------------------


def test_sparsity_from_experts_matches_paper_and_arch():
    np.testing.assert_allclose(al.sparsity_from_experts([17, 33, 65, 129]), S4)
    cfg = arch.MoEConfig(n_layers=2, d_model=64, n_heads=4, n_experts=32, top_k=2, n_shared=1,
                         d_expert=32)
    assert al.sparsity_from_experts(33) == pytest.approx(conventions.sparsity(cfg, "allocation"))


@pytest.mark.parametrize("e, a", [(4, 5), (4, 0), (float("nan"), 3)])
def test_sparsity_from_experts_rejects_bad_counts(e, a):
    with pytest.raises(ValueError):
        al.sparsity_from_experts(e, a)


def test_alpha_beta_values():
    # hand-computed: 6.7e-5 * (3/17)**-1.23 and 0.24 * (3/17)**0.21
    assert al.alpha_r(S4[0]) == pytest.approx(5.65806e-4, rel=1e-5)
    assert al.beta_r(S4[0]) == pytest.approx(0.166729, rel=1e-5)
    assert al.alpha_r(0.0) == pytest.approx(6.7e-5)
    assert al.beta_r(0.0) == pytest.approx(0.24)
    assert np.all(np.diff(al.alpha_r(S4)) > 0)  # α grows with sparsity
    assert np.all(np.diff(al.beta_r(S4)) < 0)


@pytest.mark.parametrize("fn", [al.alpha_r, al.beta_r])
@pytest.mark.parametrize("s", [-0.1, 1.0, 1.5, float("nan"), "x"])
def test_coefficients_reject_bad_sparsity(fn, s):
    with pytest.raises(ValueError):
        fn(s)


def test_optimal_ratio_values_and_broadcast():
    r = al.optimal_ratio(1e21, S4[0])
    assert r == pytest.approx(6.7e-5 * (3 / 17) ** -1.23 * 1e21 ** (0.24 * (3 / 17) ** 0.21))
    assert r == pytest.approx(1.7947, rel=1e-3)
    grid = al.optimal_ratio(np.array([[1e18], [1e20]]), S4)
    assert grid.shape == (2, 4)
    assert np.all(grid[1] > grid[0])


@pytest.mark.parametrize("C, S", [(0.0, 0.5), (-1.0, 0.5), (np.inf, 0.5), (1e20, 1.0)])
def test_optimal_ratio_rejects_out_of_domain(C, S):
    with pytest.raises(ValueError):
        al.optimal_ratio(C, S)


def test_compute_for_ratio_inverts_optimal_ratio():
    c = al.compute_for_ratio(1.5, S4[0])
    assert c == pytest.approx(3.41e20, rel=0.01)
    assert al.optimal_ratio(c, S4[0]) == pytest.approx(1.5)
    with pytest.raises(ValueError):
        al.compute_for_ratio(0.0, 0.5)


def test_crossover_compute():
    c = al.crossover_compute(S4[0], S4[3])
    assert c == pytest.approx(5.40e18, rel=0.01)
    assert al.optimal_ratio(c, S4[0]) == pytest.approx(al.optimal_ratio(c, S4[3]))
    with pytest.raises(ValueError):
        al.crossover_compute(0.5, 0.5)


def test_expert_fraction_and_inverse():
    np.testing.assert_allclose(al.expert_fraction([0.0, 1.0, 3.0]), [0.0, 0.5, 0.75])
    np.testing.assert_allclose(al.ratio_from_fraction([0.0, 0.5, 0.75]), [0.0, 1.0, 3.0])
    with pytest.raises(ValueError):
        al.expert_fraction(-0.1)
    with pytest.raises(ValueError):
        al.expert_fraction(np.inf)
    with pytest.raises(ValueError):
        al.ratio_from_fraction(1.0)


# --- Appendix A --------------------------------------------------------------------------------


def test_eq3_loss_value():
    expected = 2.0 * 100.0 ** (-0.3) + 3.0 * 200.0 ** (-0.21)
    assert al.eq3_loss(100.0, 200.0, **PARAMS) == pytest.approx(expected)


def test_elasticities():
    a, e = al.elasticities(0.5, 0.3, 0.6, 0.7)
    assert (a, e) == (pytest.approx(0.3), pytest.approx(0.21))


@pytest.mark.parametrize("bad", [dict(mu_A=1.0), dict(mu_E=0.0), dict(gamma_A=-1.0),
                                 dict(alpha_E=0.0), dict(alpha_A=np.nan)])
def test_capacity_parameters_validated(bad):
    params = {**PARAMS, **bad}
    with pytest.raises(ValueError):
        al.eq3_loss(1.0, 1.0, **params)
    with pytest.raises(ValueError):
        al.solve_optimality(1e6, **params)
    with pytest.raises(ValueError):
        al.eq4_coefficients(**params)


def test_solver_satisfies_condition_and_minimises_eq3():
    c = np.array([1e3, 1e9, 1e18])
    r = al.solve_optimality(c, **PARAMS)
    np.testing.assert_allclose(al.optimality_gap(r, c, **PARAMS), 0.0, atol=1e-10)
    np.testing.assert_allclose(al.minimise_eq3(c, **PARAMS), r, rtol=1e-5)
    # a = 0.3 > e = 0.21: the exact optimum grows with compute
    assert np.all(np.diff(r) > 0)


def test_optimality_gap_sign():
    r = float(al.solve_optimality(1e9, **PARAMS))
    assert al.optimality_gap(2 * r, 1e9, **PARAMS) > 0
    assert al.optimality_gap(r / 2, 1e9, **PARAMS) < 0
    with pytest.raises(ValueError):
        al.optimality_gap(0.0, 1e9, **PARAMS)


def test_eq4_as_printed_is_not_the_root():
    ar, br = al.eq4_coefficients(**PARAMS)
    a, e = 0.3, 0.21
    assert br == pytest.approx((e - a) / (a + e + 1))
    assert ar == pytest.approx((3.0 * e / (2.0 * a)) ** (1 / (a + e + 1)))
    c = np.array([1e6, 1e12])
    r4 = al.eq4_ratio(c, **PARAMS)
    np.testing.assert_allclose(r4, ar * c**br)
    assert np.all(np.abs(al.optimality_gap(r4, c, **PARAMS)) > 1.0)
    assert r4[1] < r4[0]  # Eq. 4 falls with C where the exact root rises


def test_local_exponent_matches_finite_difference_and_limits():
    c = 1e12
    r1, r2 = al.solve_optimality(np.array([c, c * 1.001]), **PARAMS)
    slope = math.log(r2 / r1) / math.log(1.001)
    exps = dict(gamma_A=0.5, gamma_E=0.3, mu_A=0.6, mu_E=0.7)
    assert al.local_exponent(r1, **exps) == pytest.approx(slope, rel=1e-3)
    assert al.local_exponent(0.0, **exps) == pytest.approx(0.09 / 1.21)
    assert al.local_exponent(1e12, **exps) == pytest.approx(0.09 / 1.3, rel=1e-6)
    with pytest.raises(ValueError):
        al.local_exponent(-1.0, **exps)


def test_capacity_parameters_for_eq4_round_trip():
    p = al.capacity_parameters_for_eq4(2.9e-3, 0.126)
    ar, br = al.eq4_coefficients(**p)
    assert (ar, br) == (pytest.approx(2.9e-3), pytest.approx(0.126))
    for bad in [dict(alpha_r=0.0, beta_r=0.1), dict(alpha_r=1e-3, beta_r=1.0),
                dict(alpha_r=1e-3, beta_r=0.1, mu=1.0), dict(alpha_r=1e-3, beta_r=0.1, a=0)]:
        with pytest.raises(ValueError):
            al.capacity_parameters_for_eq4(**bad)


def test_symbolic_check():
    out = al.symbolic_check()
    assert out["zero_when_equal"] is False
    import sympy as sp

    K, a = sp.symbols("K a", positive=True)
    expr = out["residual_eq4_equal_elasticities"]
    assert float(expr.subs({K: 1, a: 0.3})) == pytest.approx(0.0)
    assert abs(float(expr.subs({K: 2, a: 0.3}))) > 0.1


# --- Eq. 2 --------------------------------------------------------------------------------------


def test_table1_transcription():
    t = al.read_table("table1")
    assert list(t["name"]) == list(extended_loss.COEFFICIENT_NAMES)
    coef = extended_loss.table1_coefficients()
    assert coef["tau"] == 13.7354 and coef["d"] == 0.0499


def test_loss_value_by_hand():
    n, d, s, r, big_r = 3e7, 1e10, 62 / 65, 1.0, 0.5
    expected = (
        15.12 / n**0.6288 + 18.62 / d**0.0453
        + 39.55 * math.exp(big_r) * (1 - s) ** 0.0431 / n**0.4228 + 0.0499 * 0.5 + 13.7354
    )
    assert al.loss(n, d, s, r, big_r) == pytest.approx(expected)
    terms = al.loss_terms(n, d, s, r, big_r)
    assert sum(terms.values()) == pytest.approx(expected)
    assert al.loss(n, d, s, r, big_r, coefficients={"tau": 0.0}) == pytest.approx(
        expected - 13.7354)


@pytest.mark.parametrize("kw", [dict(N=0.0), dict(D=-1.0), dict(S=1.0), dict(r=-0.5),
                                dict(R=np.nan)])
def test_loss_rejects_out_of_domain(kw):
    args = {"N": 1e8, "D": 1e10, "S": 0.9, "r": 1.0, "R": 0.0, **kw}
    with pytest.raises(ValueError):
        al.loss(**args)


def test_loss_rejects_unknown_coefficient():
    with pytest.raises(ValueError, match=r"unknown Eq\. 2 coefficients"):
        al.loss(1e8, 1e10, 0.9, 1.0, 0.0, coefficients={"e": 1.0})


def test_deviation_readings():
    r, rs = np.array([0.5, 1.0, 2.0]), 1.0
    np.testing.assert_allclose(al.deviation(r, rs, "none"), 0.0)
    np.testing.assert_allclose(al.deviation(r, rs, "log-abs"), [math.log(2), 0, math.log(2)])
    np.testing.assert_allclose(al.deviation(r, rs, "log-squared"), [math.log(2) ** 2, 0,
                                                                     math.log(2) ** 2])
    np.testing.assert_allclose(al.deviation(r, rs, "squared"), [0.25, 0, 1.0])
    with pytest.raises(ValueError):
        al.deviation(r, rs, "cubic")
    with pytest.raises(ValueError):
        al.deviation(0.0, rs)


def test_uniform_loss():
    assert al.uniform_loss(128000) == pytest.approx(11.7597, abs=1e-4)
    with pytest.raises(ValueError):
        al.uniform_loss(1)


# --- App. C split, design, App. B / leverage Eq. 5 -----------------------------------------------


def _cfg(**kw):
    base = dict(n_layers=2, d_model=64, n_heads=4, head_dim=32, n_experts=16, top_k=2,
                n_shared=1, d_expert=64, vocab_size=100, context_length=64)
    return arch.MoEConfig(**{**base, **kw})


def test_flops_split_matches_arch():
    cfg = _cfg()
    s = al.flops_split(cfg)
    c = conventions.counts(cfg, "allocation")
    assert s["C_A"] == c.attention_flops and s["C_E"] == c.ffn_flops
    assert s["r"] == pytest.approx(expert_attention_ratio(cfg))
    assert s["expert_share"] == pytest.approx(s["r"] / (1 + s["r"]))
    assert s["S"] == pytest.approx(1 - 3 / 17)
    # by hand: per layer C_A = 128*(8*64 + 4*64) = 98304, C_E = 2*64*16 + 18*64*64 = 75776
    assert s["C_A"] == 2 * 98304 and s["C_E"] == 2 * 75776
    with pytest.raises(ValueError):
        al.flops_split(arch.MoEConfig(n_layers=2, d_model=64, n_heads=4, d_ff=128))


@pytest.mark.parametrize("r", [0.25, 1.0, 4.0])
def test_config_for_ratio_hits_target_at_fixed_compute(r):
    base = _cfg()
    budget = 2 * 98304.0
    cfg = al.config_for_ratio(base, r, flops_per_layer=budget)
    s = al.flops_split(cfg)
    assert s["r"] == pytest.approx(r, rel=0.1)
    assert (s["C_A"] + s["C_E"]) / cfg.n_layers == pytest.approx(budget, rel=0.01)
    assert cfg.d_model == base.d_model and cfg.n_heads == base.n_heads


def test_config_for_ratio_rejects_bad_input():
    with pytest.raises(ValueError):
        al.config_for_ratio(_cfg(), 0.0)
    with pytest.raises(ValueError):
        al.config_for_ratio(arch.MoEConfig(n_layers=2, d_model=64, n_heads=4, d_ff=64), 1.0)
    with pytest.raises(ValueError):
        al.config_for_ratio(_cfg(), 1.0, flops_per_layer=100.0)


def test_leverage_eq5_and_inverses():
    assert al.leverage_eta_opt(1e20) == pytest.approx(1.1576 * 1e20 ** -0.1529)
    assert al.leverage_batch_opt(1e20) == pytest.approx(0.0694 * 1e20 ** 0.3644)
    assert al.compute_for_eta(al.leverage_eta_opt(3e19)) == pytest.approx(3e19)
    assert al.compute_for_batch(al.leverage_batch_opt(3e19)) == pytest.approx(3e19)
    for fn in (al.leverage_eta_opt, al.leverage_batch_opt, al.compute_for_eta,
               al.compute_for_batch):
        with pytest.raises(ValueError):
            fn(0.0)


def test_tables_transcribed():
    t2 = al.read_table("table2")
    assert list(t2["label"]) == ["20M", "30M", "55M", "100M", "200M"]
    assert list(t2["batch_size"]) == [96, 160, 224, 320, 512]
    t12 = al.read_table("leverage_table12")
    # all six groups of the leverage Table 12, five rows each, as printed (group 5 ends at
    # 1184/680); tests/test_compare.py checks every row against the leverage chapter's own
    assert len(t12) == 30 and t12.groupby("group").size().tolist() == [5, 5, 5, 5, 5, 5]
    assert t12[t12["group"] == 5][["n_layers", "d_model", "d_expert"]].iloc[-1].tolist() == [
        16, 1184, 680]
    # Table 2 learning rates are Table 12's truncated to 1e-4 (after the exponent-typo fix);
    # group 6 (22 layers, 6e20 FLOPs) has no Table 2 label.
    first = t12.groupby("group")["eta"].first().to_numpy()
    np.testing.assert_allclose(np.floor(first[:5] * 1e4 + 1e-9) / 1e4, t2["learning_rate"])
    assert (t12.groupby("group")["B"].first().to_numpy()[:5] == t2["batch_size"]).all()
    # The third exponent typo: printed 7.0e-3, Table 11 7.0e-4 at 6e20.
    g6 = t12[t12["group"] == 6]
    assert (g6["eta_printed"] == 7.0e-3).all() and (g6["eta"] == 7.0e-4).all()
    assert (g6["B"] == 768).all() and (g6["max_training_flops"] == 6e20).all()


def test_table12_config_and_flops():
    row = al.read_table("leverage_table12").iloc[6]
    cfg = al.table12_config(row)
    assert (cfg.d_model, cfg.d_expert, cfg.n_kv_heads) == (512, 512, 2)
    assert conventions.sparsity(cfg, "allocation") == pytest.approx(62 / 65)
    f = al.table12_flops()
    assert len(f) == 30
    assert f["r"].min() == pytest.approx(0.2097, abs=1e-3)
    assert f[f["group"] <= 5]["r"].max() == pytest.approx(1.195, abs=1e-3)
    assert f["r"].max() == pytest.approx(1.40, abs=0.01)
    assert checks.compute_spread() < 1.003 < 1.05 < checks.compute_spread(
        "C_A+C_E printed")
    with pytest.raises(ValueError):
        checks.compute_spread("r")


def test_value_application_as_printed():
    cfg = _cfg()
    delta = al.flops_split(cfg)["C_A"] - checks.value_application_as_printed(cfg)
    assert delta == pytest.approx(2 * (2 * 64 * 128 - 2 * 64 * 128))  # n_ctx = d here
    cfg2 = _cfg(context_length=128)
    delta2 = al.flops_split(cfg2)["C_A"] - checks.value_application_as_printed(cfg2)
    assert delta2 == pytest.approx(2 * (2 * 128 * 128 - 2 * 64 * 128))


def test_hyperparameter_check():
    h = al.hyperparameter_check()
    assert len(h) == 5
    assert h["lr / eta"].between(0.85, 1.0).all()
    np.testing.assert_allclose(al.leverage_batch_opt(h["C from batch"]), h["batch_tokens"])


# --- toy helpers -----------------------------------------------------------------------------


def test_valley_fit_recovers_vertex():
    r = np.array(toy.RATIOS)
    loss = 2.0 + 0.1 * (np.log(r) - np.log(0.8)) ** 2
    fit = toy.valley_fit(r, loss)
    assert fit["r_star"] == pytest.approx(0.8)
    assert fit["loss_min"] == pytest.approx(2.0)
    assert fit["curvature"] == pytest.approx(0.1)
    assert math.isnan(toy.valley_fit(r, -loss)["r_star"])


@pytest.mark.parametrize("r, loss", [([1, 1, 2], [1, 2, 3]), ([0, 1, 2], [1, 2, 3]),
                                     ([1, 2], [1, 2]), ([1, 2, 3], [1, 2])])
def test_valley_fit_rejects_bad_input(r, loss):
    with pytest.raises(ValueError):
        toy.valley_fit(r, loss)


def test_toy_configs_fixed_compute():
    cfgs = toy.toy_configs()
    assert len(cfgs) == len(toy.RATIOS) * len(toy.EXPERTS)
    totals = [al.flops_split(c)["C_A"] + al.flops_split(c)["C_E"] for c in cfgs.values()]
    assert max(totals) / min(totals) < 1.01
    ratios = [al.flops_split(c)["r"] for c in cfgs.values()]
    np.testing.assert_allclose(ratios, list(toy.RATIOS) * 2, rtol=0.15)  # even head widths


def test_toy_optima_on_synthetic_curves():
    rows = []
    for e, s in ((17, 14 / 17), (65, 62 / 65)):
        for seed in (0, 1):
            for r in toy.RATIOS:
                for step in toy.CHECKPOINTS:
                    centre = 0.5 if e == 17 else 1.0
                    rows.append({"E": e, "S": s, "seed": seed, "r": r, "step": step,
                                 "C": step * 1e6,
                                 "val_loss": 1.0 + 0.05 * np.log(r / centre) ** 2})
    out = toy.toy_optima(pd.DataFrame(rows))
    assert len(out) == 2 * 3 * 3
    means = out[out["seed"] == "mean"].set_index("E")
    np.testing.assert_allclose(means.loc[17, "r_star"], 0.5)
    np.testing.assert_allclose(means.loc[65, "r_star"], 1.0)
    assert means["inside"].all()
    np.testing.assert_allclose(means.loc[17, "best_r"], 0.5)
    # an incomplete group (two ratios) is skipped rather than fitted
    partial = pd.DataFrame(rows).query("r <= 0.5")
    assert toy.toy_optima(partial).empty


def test_toy_cache_loads():
    runs = toy.load_runs()
    assert len(runs) == len(toy.RATIOS) * len(toy.EXPERTS) * len(toy.SEEDS)
    assert set(runs["E"]) == set(toy.EXPERTS)
    np.testing.assert_allclose(runs.groupby("r_target")["r"].mean().to_numpy(),
                               sorted(toy.RATIOS), rtol=0.15)
    curves = toy.load_curves()
    one = curves[curves["key"] == runs["key"].iloc[0]].sort_values("step")
    assert (np.diff(one["C"]) > 0).all()
    assert set(toy.CHECKPOINTS) <= set(one["step"])
    optima = toy.toy_optima(curves)
    means = optima[optima["seed"] == "mean"]
    assert len(means) == len(toy.EXPERTS) * len(toy.CHECKPOINTS)
    assert means["inside"].all() and means["r_star"].between(1, 16).all()


def test_toy_settings_and_base():
    s = toy.settings()
    assert s.lr_at(s.warmup_steps) == s.lr_at(s.steps - 1) == s.lr
    cfg = toy.base_config(17)
    assert (cfg.n_experts, cfg.n_shared, cfg.top_k) == (16, 1, 2)
    assert al.flops_split(cfg)["r"] < al.flops_split(cfg)["C_A"]  # sanity: a ratio, not FLOPs
    assert toy.flops_per_layer() == pytest.approx(2 * 4 * 32 * (8 * 64 + 4 * 64))


def test_toy_regenerate_passes_the_design_to_sweep(monkeypatch):
    pytest.importorskip("torch")
    from moelaws.torchmoe import runs as sweep_module

    seen = {}

    def fake_sweep(name, configs, **kw):
        seen.update(name=name, configs=configs, **kw)
        return pd.DataFrame()

    monkeypatch.setattr(sweep_module, "sweep", fake_sweep)
    toy.regenerate(progress=False)
    assert seen["name"] == toy.SWEEP_NAME and seen["seeds"] == toy.SEEDS
    assert len(seen["configs"]) == len(toy.RATIOS) * len(toy.EXPERTS)
    assert str(seen["cache_dir"]).endswith("data/allocation")


def test_config_for_ratio_default_budget_and_eq4_domain():
    base = _cfg()
    cfg = al.config_for_ratio(base, 1.0)
    before = al.flops_split(base)
    after = al.flops_split(cfg)
    assert after["C_A"] + after["C_E"] == pytest.approx(before["C_A"] + before["C_E"], rel=0.01)
    with pytest.raises(ValueError):
        al.eq4_ratio(0.0, **PARAMS)
    with pytest.raises(ValueError):
        al.minimise_eq3(-1.0, **PARAMS)


def test_range_minimum_is_the_corner():
    n = np.geomspace(1e7, 5e9, 7)[:, None, None, None]
    d = np.geomspace(1e9, 1e13, 7)[None, :, None, None]
    r = np.linspace(0.2, 1.5, 5)[None, None, None, :]
    grid = al.loss(n, d, S4[None, None, :, None], r, 0.0)
    corner = al.range_minimum(5e9, 1e13, float(S4[-1]), 0.2)
    assert corner == pytest.approx(grid.min())
    assert corner == pytest.approx(18.5446, abs=1e-3)
    with pytest.raises(ValueError, match="positive"):
        al.range_minimum(5e9, 1e13, 0.9, 0.2, coefficients={"beta": -0.1})


# --- Review fixes (chapter 6): direction below the threshold, rounding, shares, truncation ---


def test_least_ratio_sparsity_closed_form_and_direction():
    # Threshold exp(1.23 / (0.24 * 0.21)) = 3.97e10 FLOPs, typed independently of the module.
    assert al.least_ratio_threshold() == pytest.approx(math.exp(1.23 / 0.0504), rel=1e-12)
    assert al.least_ratio_threshold() == pytest.approx(3.97e10, rel=0.01)
    # Below it r* RISES with S everywhere (Section 2.3/6.1 read the opposite).
    s = np.linspace(0.3, 0.995, 200)
    assert np.all(np.diff(al.optimal_ratio(1e9, s)) > 0)
    assert al.least_ratio_sparsity(1e9) < 0
    # Above it the closed form is the numerical argmin over a fine S grid.
    for c in (2e18, 1e21, 1e25):
        fine = np.linspace(0.5, 0.9999, 400001)
        argmin = fine[np.argmin(al.optimal_ratio(c, fine))]
        assert float(al.least_ratio_sparsity(c)) == pytest.approx(argmin, abs=1e-5)
    np.testing.assert_allclose(al.least_ratio_sparsity(np.array([2e18, 1e21])),
                               [0.9258, 0.9615], atol=5e-4)


def test_rounding_draws_move_the_crossover_over_an_order_of_magnitude():
    draws = al.rounding_draws(n=20000, seed=0)
    assert draws["alpha_coef"].min() >= 6.65e-5 and draws["alpha_coef"].max() <= 6.75e-5
    assert draws["beta_exp"].min() >= 0.205 and draws["beta_exp"].max() <= 0.215
    cx = al.crossover_compute_draws(S4[0], S4[3], draws)
    lo, hi = np.percentile(cx, [2.5, 97.5])
    assert lo < float(al.crossover_compute(S4[0], S4[3])) < hi
    assert 1.5e18 < lo < 2.5e18 and 1.2e19 < hi < 2.0e19
    # The point values are the unperturbed law.
    point = {k: np.array([v]) for k, v in
             dict(alpha_coef=6.7e-5, alpha_exp=-1.23, beta_coef=0.24, beta_exp=0.21).items()}
    assert float(al.optimal_ratio_draws(2e18, S4[0], point)[0]) == pytest.approx(
        float(al.optimal_ratio(2e18, S4[0])), rel=1e-12)
    flip = al.optimal_ratio_draws(2e18, S4[0], draws) > al.optimal_ratio_draws(2e18, S4[3], draws)
    assert 0.01 < flip.mean() < 0.1
    with pytest.raises(ValueError):
        al.crossover_compute_draws(0.9, 0.9, draws)


def test_attention_share_at_optimum_with_logits_is_near_30_40():
    table = al.attention_share_at_optimum(float(S4[2]))
    assert list(table["group"]) == [1, 2, 3, 4, 5, 6]
    share = table["attention share with logits at r* (%)"]
    assert 29.5 < share.min() < 30.5 and 36 < share.max() < 37
    # On the C_A + C_E basis (logits left out) the same r* gives well above 40 %.
    assert (100 / (1 + table["r*"]) > 44).all()
    np.testing.assert_allclose(table["r* / r_max"].iloc[:4], [1.303, 1.118, 1.093, 1.017],
                               atol=2e-3)
    assert (table["C where r* = r_max"].iloc[:4] < table["max_training_flops"].iloc[:4]).all()


def test_table2_learning_rates_are_table12_cut_to_four_decimals():
    hp = al.hyperparameter_check()
    np.testing.assert_allclose(hp["table 12 eta truncated"], hp["learning_rate"], atol=1e-12)
    # Rounding half up after scaling differs (9.5e-4 -> 0.0010); rounding the binary 0.00095,
    # which lies just below the tie, would not, so the table cannot tell the two apart.
    rounded = np.round(hp["table 12 eta"] * 1e4) / 1e4
    assert not np.allclose(rounded, hp["learning_rate"])
    dev = hp["eta at C(batch) / table 12 eta"] - 1
    assert 0.03 < dev.min() < 0.05 and 0.11 < dev.max() < 0.12
    assert (hp["log2 B_opt(C from lr) / batch"].abs() < 0.5).all()


def test_optimal_ratio_is_swept_by_the_property_tests() -> None:
    from test_properties import LAWS

    assert "allocation.optimal_ratio" in {name for name, *_ in LAWS}


def test_read_table_reads_every_listed_table_as_a_fresh_copy():
    for name in al.TABLES:
        first = al.read_table(name)
        assert len(first) > 0
        first.columns = ["edited"] * first.shape[1]  # a caller's edit must not reach the next
        assert "edited" not in al.read_table(name).columns
    with pytest.raises(ValueError, match="unknown table"):
        al.read_table("refit_recovery")


def test_attention_share_at_optimum_follows_the_vocabulary():
    default = al.attention_share_at_optimum(float(S4[2]))["attention share with logits at r* (%)"]
    larger = al.attention_share_at_optimum(float(S4[2]), vocab_size=128_000)[
        "attention share with logits at r* (%)"]
    # More logits FLOPs leave a smaller share to attention in every group.
    assert (larger < default).all() and (default - larger).max() < 1
