"""Tests of moelaws.leverage: Eq. 1, 4, 5, Table 5, Algorithm 1, the tables and checks, the
recovery experiment and the toy runs' bookkeeping."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from moelaws import arch, conventions
from moelaws import leverage as lev
from moelaws.leverage import checks, recovery, tables, toy

# --- Eq. 1 and Eq. 4 --------------------------------------------------------------------------


def test_activation_hat_is_a_plus_a_start_with_table6():
    A = np.array([0.01, 0.1, 1.0])
    np.testing.assert_allclose(lev.activation_hat(A), A + 0.0163, rtol=1e-12)


def test_activation_hat_saturates_with_small_a_max():
    # Clark et al.'s transform: Â tends to A_max for large A and to A + A_start for small A.
    hat = lev.activation_hat([1e-6, 1.0], a_start=0.1, a_max=0.2)
    assert hat[0] == pytest.approx(0.1, rel=1e-4)
    assert 0.1 < hat[1] < 0.2


@pytest.mark.parametrize("A", [0.0, -0.1, 1.1, np.nan, np.inf])
def test_activation_hat_rejects_ratios_outside_unit_interval(A):
    with pytest.raises(ValueError):
        lev.activation_hat(A)


def test_activation_hat_rejects_bad_coefficients():
    with pytest.raises(ValueError):
        lev.activation_hat(0.5, a_start=0.2, a_max=0.1)
    with pytest.raises(ValueError):
        lev.activation_hat(0.5, a_start=0.0)


def test_headline_value_and_manual_formula():
    el = float(lev.efficiency_leverage(0.031, 12, 1e22))
    hat = 0.031 + 1 / (1 / 0.0163 - 1 / 5.28e16)
    exponent = 1.23 - 0.0761 * 22 + 0.0167 * math.log2(12) ** 2 - 0.117 * math.log2(12)
    assert el == pytest.approx(hat**exponent, rel=1e-10)
    assert el == pytest.approx(7.2449, abs=1e-4)


def test_efficiency_leverage_broadcasts_and_trends():
    A = np.array([0.01, 0.05, 0.2])[:, None]
    C = np.array([1e19, 1e21])[None, :]
    el = lev.efficiency_leverage(A, 8, C)
    assert el.shape == (3, 2)
    assert np.all(np.diff(el, axis=0) < 0)  # sparser is better
    assert np.all(np.diff(el, axis=1) > 0)  # more compute, more leverage


def test_efficiency_leverage_coefficients_and_bases_are_overridable():
    base = lev.efficiency_leverage(0.05, 4, 1e20)
    assert lev.efficiency_leverage(0.05, 4, 1e20, d=0.0) != pytest.approx(base)
    natural = lev.efficiency_leverage(0.05, 4, 1e20, log_base_c=math.e)
    assert natural > 500  # natural logs of C give absurd leverage


def test_dense_limit_is_close_to_but_not_exactly_one():
    assert checks.dense_limit() == pytest.approx(0.99123, abs=1e-5)


@pytest.mark.parametrize(
    "args", [(0.0, 4, 1e20), (1.5, 4, 1e20), (0.1, 0, 1e20), (0.1, -2, 1e20), (0.1, 4, 0.0),
             (0.1, 4, -1e20), (0.1, np.nan, 1e20)]
)
def test_efficiency_leverage_rejects_out_of_domain_inputs(args):
    with pytest.raises(ValueError):
        lev.efficiency_leverage(*args)


@pytest.mark.parametrize("base", [1.0, 0.0, -2.0])
def test_bad_logarithm_bases_are_rejected(base):
    with pytest.raises(ValueError):
        lev.efficiency_leverage(0.1, 4, 1e20, log_base_g=base)
    with pytest.raises(ValueError):
        lev.leverage_exponent(4, 1e20, log_base_c=base)


def test_optimal_granularity_matches_a_grid_search():
    g_star = float(lev.optimal_granularity(0.05))
    grid = np.geomspace(1, 100, 20001)
    best = grid[np.argmax(lev.efficiency_leverage(0.05, grid, 1e21))]
    assert g_star == pytest.approx(best, rel=1e-3)
    assert g_star == pytest.approx(2 ** (0.117 / (2 * 0.0167)), rel=1e-12)


def test_optimal_granularity_is_nan_where_eq4_has_no_maximum():
    out = lev.optimal_granularity(np.array([0.1, 1.0]))
    assert np.isfinite(out[0]) and np.isnan(out[1])  # Â(1) = 1.0163 > 1


def test_optimal_granularity_rejects_invalid_input():
    with pytest.raises(ValueError):
        lev.optimal_granularity(0.1, gamma=0.0)
    with pytest.raises(ValueError):
        lev.optimal_granularity(0.0)
    with pytest.raises(ValueError):
        lev.optimal_granularity(0.1, log_base_g=1.0)


def test_only_log10_c_and_log2_g_reproduce_the_claims():
    table = lev.log_base_analysis()
    assert len(table) == 9
    winners = table[table["all three"]]
    assert list(zip(winners["log base of C"], winners["log base of G"], strict=True)) == [
        ("10", "2")
    ]


def test_landscape_grid():
    frame = lev.landscape(1e22, A=[0.03, 0.1], G=[2, 8, 12])
    assert list(frame.columns) == ["A", "G", "C", "EL"]
    assert len(frame) == 6
    assert frame["EL"].iloc[0] == pytest.approx(float(lev.efficiency_leverage(0.03, 2, 1e22)))
    assert len(lev.landscape(1e21)) == 1600
    with pytest.raises(ValueError):
        lev.landscape(1e22, A=[0.0])


# --- Eq. 5 and Table 5 ------------------------------------------------------------------------


def test_optimal_hyperparameters_values_and_units():
    assert float(lev.optimal_learning_rate(1e20)) == pytest.approx(1.1576 * 1e20**-0.1529)
    tokens = float(lev.optimal_batch_size(1e20))
    assert tokens == pytest.approx(0.0694 * 1e20**0.3644)
    assert float(lev.optimal_batch_size(1e20, unit="sequences")) == pytest.approx(tokens / 4096)
    C = np.array([1e18, 1e21])
    np.testing.assert_allclose(lev.budget_for_learning_rate(lev.optimal_learning_rate(C)), C)
    np.testing.assert_allclose(
        lev.budget_for_batch_size(lev.optimal_batch_size(C, unit="sequences"),
                                  unit="sequences"), C)


@pytest.mark.parametrize(
    "call",
    [
        lambda: lev.optimal_learning_rate(0.0),
        lambda: lev.optimal_learning_rate(-1e20),
        lambda: lev.optimal_batch_size(-1.0),
        lambda: lev.optimal_batch_size(1e20, unit="samples"),
        lambda: lev.budget_for_learning_rate(0.0),
        lambda: lev.budget_for_batch_size(-5),
        lambda: lev.compute_optimal_allocation(0.0, "moe"),
        lambda: lev.compute_optimal_allocation(1e20, "sparse"),
        lambda: lev.compute_optimal_budget(-1.0, "dense"),
    ],
)
def test_budget_laws_reject_invalid_input(call):
    with pytest.raises(ValueError):
        call()


def test_compute_optimal_allocation_multiplies_to_c():
    C = np.array([1e18, 1e20, 1e22])
    for family in ("moe", "dense"):
        alloc = lev.compute_optimal_allocation(C, family)
        np.testing.assert_allclose(alloc.M * alloc.D / C, 1.0, atol=8e-4)
        np.testing.assert_allclose(lev.compute_optimal_budget(alloc.M, family), C, rtol=1e-12)
    moe, dense = (lev.compute_optimal_allocation(1e20, f) for f in ("moe", "dense"))
    assert moe.M < dense.M and moe.D > dense.D


# --- Algorithm 1 ------------------------------------------------------------------------------


def _curve(C, alpha, beta, floor):
    return alpha * np.asarray(C) ** beta + floor


def test_fit_loss_curve_recovers_a_noiseless_curve():
    C = np.geomspace(1e17, 1e20, 6)
    points = np.column_stack([C, _curve(C, 80.0, -0.12, 1.9)])
    curve = lev.fit_loss_curve(points)
    assert curve.beta == pytest.approx(-0.12, rel=1e-3)
    assert curve.floor == pytest.approx(1.9, rel=1e-3)
    np.testing.assert_allclose(curve(C), points[:, 1], rtol=1e-5)
    frame = pd.DataFrame({"C": C, "loss": points[:, 1]})
    assert lev.fit_loss_curve(frame).floor == pytest.approx(curve.floor, rel=1e-6)


@pytest.mark.parametrize(
    "points",
    [
        [(1e18, 3.0), (1e19, 2.5)],
        [(1e18, 3.0), (1e19, 2.5), (1e20, 2.2)],
        [(1e18, 3.0), (1e19, 2.5), (1e20, 2.2), (1e20, 2.1)],
        [(1e18, 3.0), (1e19, -2.5), (1e20, 2.0)],
        [(0.0, 3.0), (1e19, 2.5), (1e20, 2.0)],
        np.ones((4, 3)),
        pd.DataFrame({"compute": [1, 2, 3], "loss": [3, 2, 1]}),
    ],
)
def test_fit_loss_curve_rejects_invalid_points(points):
    with pytest.raises(ValueError):
        lev.fit_loss_curve(points)


def test_leverage_from_loss_curves_recovers_a_known_leverage():
    # L_MoE(C) = L_dense(3C): the MoE reaches at C what the dense model reaches at 3C.
    C = np.geomspace(1e17, 1e20, 6)
    dense = np.column_stack([C, _curve(C, 50.0, -0.1, 1.5)])
    moe = np.column_stack([C, _curve(3 * C, 50.0, -0.1, 1.5)])
    res = lev.leverage_from_loss_curves(dense, moe, C)
    np.testing.assert_allclose(res.el, 3.0, rtol=1e-3)
    assert res.reason == ""
    assert list(res.to_frame().columns) == ["C", "target_loss", "C_dense", "EL", "reason"]


def test_leverage_is_nan_with_a_reason_below_the_dense_floor():
    C = np.geomspace(1e17, 1e20, 6)
    dense = np.column_stack([C, _curve(C, 50.0, -0.1, 1.5)])
    moe = np.column_stack([C, _curve(C, 50.0, -0.1, 1.0)])
    res = lev.leverage_from_loss_curves(dense, moe, [1e17, 1e25])
    assert np.isfinite(res.el[0]) and np.isnan(res.el[1])
    assert "floor" in res.reasons[1] and res.reasons[0] == ""
    assert "floor" in res.reason


def test_leverage_from_loss_curves_rejects_bad_budget():
    C = np.geomspace(1e17, 1e20, 4)
    pts = np.column_stack([C, _curve(C, 50.0, -0.1, 1.5)])
    with pytest.raises(ValueError):
        lev.leverage_from_loss_curves(pts, pts, 0.0)
    with pytest.raises(ValueError):
        lev.leverage_from_loss_curves(pts, pts, [1e18, -1e18])


# --- Tables 8-12, 2 and 7 ---------------------------------------------------------------------


def test_configuration_tables_have_every_row():
    cfg = tables.configs()
    assert cfg.groupby("table").size().to_dict() == {8: 48, 9: 36, 10: 36, 11: 24, 12: 30}
    assert not cfg["n_kv_heads"].isna().any()
    assert cfg.loc[cfg["table"] == 9, "n_kv_heads_inferred"].all()
    with pytest.raises(ValueError):
        tables.configs(7)


def test_metrics_of_known_rows():
    m = tables.metrics(tables.configs(8))
    last = m[(m["group"] == 2) & (m["E"] == 256)].iloc[0]
    assert last["A"] == pytest.approx(3 / 257)
    assert last["A_routed"] == pytest.approx(2 / 256)
    assert last["G"] == pytest.approx(2.0)
    assert last["S"] == pytest.approx(1 / 3)
    first = m[(m["group"] == 1)].iloc[0]
    assert first["G"] == pytest.approx(2.4)


def test_model_scale_matches_arch_leverage_convention_without_logits():
    cfg = arch.preset("MoE-mini")
    c = conventions.counts(cfg, "leverage")
    assert tables.model_scale(cfg) == pytest.approx(3 * (c.attention_flops + c.ffn_flops))
    assert tables.model_scale(cfg, shared_factor=6.0) > tables.model_scale(cfg)
    with pytest.raises(ValueError):
        tables.app_i_flops(cfg, shared_factor=0.0)


def test_table10_m_is_constant_only_with_swiglu_shared_experts():
    assert checks.spread(10, "M") > 0.1
    assert checks.spread(10, "M_swiglu", exclude=((4, 5),)) == pytest.approx(0.0, abs=1e-12)


def test_table7_averages_and_table2_agree():
    means = tables.category_means("category")
    assert means.loc["Code", "moe"] == pytest.approx(39.8125)
    overall = tables.category_means("overall")
    assert overall["dense"].iloc[0] == pytest.approx(44.0265, abs=1e-4)
    assert tables.category_means("of categories")["moe"].iloc[0] == pytest.approx(49.411, abs=1e-3)
    assert tables.benchmark_count() == 34
    t7 = tables.table7()
    printed = t7[t7["kind"] == "average"].set_index("category")
    t2 = tables.read_table("table2").set_index("model")
    for cat, col in {**tables.CATEGORIES, "All": "Overall Avg."}.items():
        assert printed.loc[cat, "dense_6_1b"] == t2.loc["Dense-6.1B", col]
        assert printed.loc[cat, "moe_mini"] == t2.loc["MoE-mini (A0.8B)", col]
    with pytest.raises(ValueError):
        tables.category_means("median")


# --- checks -------------------------------------------------------------------------------------


def test_residual_sd_from_rmse():
    assert checks.residual_sd_from_rmse() == pytest.approx(0.26719, abs=1e-5)
    assert checks.residual_sd_from_rmse(1.0, 10, 1.0, 10, 0.0, ddof=0) == pytest.approx(1.0)
    with pytest.raises(ValueError):
        checks.residual_sd_from_rmse(-0.1)


def test_moe_mini_summary():
    s = checks.moe_mini()
    assert s["A"] == pytest.approx(13 / 385)
    assert s["G"] == pytest.approx(2 * 2048 / 384)
    assert s["EL_config"] < 7 < s["EL_config_routed"]
    assert s["M_ratio"] == pytest.approx(6.2007, abs=1e-4)


def test_moe_mini_flops_attention_explains_the_ratio_gap():
    """App. I: attention 0.92 vs 3.29 GFLOPs/token (43 % vs 25 %), so M's ratio < N_a's."""
    f = checks.moe_mini_flops()
    # Eq. 10 per token by hand: L·(2·d²·(1 + 2·n_kv/n_h) + 4·s·d)
    mini = 20 * (2 * 2048**2 * (1 + 2 * 4 / 16) + 4 * 4096 * 2048) / 1e9
    dense = 28 * (2 * 4096**2 * (1 + 2 * 8 / 32) + 4 * 4096 * 4096) / 1e9
    assert f.loc["MoE-mini", "attention"] == pytest.approx(mini)
    assert f.loc["Dense-6.1B", "attention"] == pytest.approx(dense)
    assert (round(mini, 2), round(dense, 2)) == (0.92, 3.29)
    assert f.loc["MoE-mini", "attention share"] == pytest.approx(0.435, abs=5e-4)
    assert f.loc["Dense-6.1B", "attention share"] == pytest.approx(0.25)
    r = f.loc["dense / MoE"]
    assert r["M"] == pytest.approx(checks.moe_mini()["M_ratio"])
    assert r["M"] == pytest.approx(6.20, abs=0.005) and r["N_a"] == pytest.approx(7.28, abs=0.005)
    assert r["attention"] < r["M"] < 7 < r["N_a"] < r["ffn"]


def test_hyperparameter_checks():
    hp = checks.hyperparameters()
    assert len(hp) == 30
    t8 = hp[hp["table"] == 8]
    assert t8["C from B / C_max"].between(1.8, 1.9).all()
    assert checks.hyperparameter(8, 1, "B") == pytest.approx(0.0694 * 2e18**0.3644 / 4096)
    with pytest.raises(ValueError):
        checks.hyperparameter(8, 1, "lr")
    with pytest.raises(ValueError):
        checks.hyperparameter(8, 9, "eta")
    with pytest.raises(ValueError):
        checks.allocation_ratio(1e20, "N")


def test_table5_consistency():
    t5 = checks.table5()
    assert (abs(t5["coefficient product"] - 1) <= t5["rounding bound"]).all()
    np.testing.assert_allclose(t5["exponent sum"], 1.0, atol=1e-12)


# --- recovery (ours) ---------------------------------------------------------------------------


def test_eq4_law_matches_efficiency_leverage_and_its_gradient():
    law = recovery.eq4_law()
    X = recovery.experiment_points()[["A", "G", "C"]].to_numpy()
    np.testing.assert_allclose(
        law.predict(recovery.truth(), X), lev.efficiency_leverage(X[:, 0], X[:, 1], X[:, 2]),
        rtol=1e-10,
    )
    F = law.prepare(X)
    p = recovery.truth() + np.array([0.1, 0.01, 0.01, 0.01, 0.2, -30.0])
    _, jac = law.log_value_and_jacobian(p, F)
    numeric = np.column_stack([
        (law.log_predict(p + e * 1e-6, F) - law.log_predict(p - e * 1e-6, F)) / 2e-6
        for e in np.eye(6)
    ])
    np.testing.assert_allclose(jac, numeric, atol=1e-6)


def test_design_and_simulation():
    d = recovery.experiment_points()
    assert len(d) == 19 * 12
    assert d["A"].min() == pytest.approx(2 / 256)
    assert len(recovery.experiment_points(activation="sec2.1")) == 228
    s = recovery.simulate(d, seed=3)
    assert (s["EL"] > 0).all() and not s["EL"].equals(s["EL_true"])
    with pytest.raises(ValueError):
        recovery.experiment_points([1e20, -1.0])
    with pytest.raises(ValueError):
        recovery.experiment_points(activation="shared")
    with pytest.raises(ValueError):
        recovery.simulate(d, noise_sd=-1)


def test_refit_recovers_table6_from_noiseless_points():
    data = recovery.simulate(recovery.experiment_points(), noise_sd=0.0)
    res = recovery.refit(data)
    coef = res.coefficients
    for name in ("a", "d", "gamma", "beta", "a_start"):
        assert coef[name] == pytest.approx(lev.TABLE6[name], rel=1e-3)
    good = res.goodness()
    assert good["train RMSE"] < 1e-3 and good["R2"] > 0.999999
    assert good["train points"] + good["validation points"] == 228
    with pytest.raises(ValueError):
        recovery.refit(data, split=0.5)


def test_the_bootstrap_refits_with_the_fits_own_huber_threshold(monkeypatch):
    data = recovery.simulate(recovery.experiment_points(), seed=0)
    res = recovery.refit(data, delta=0.05)
    assert res.delta == 0.05
    seen = []
    real = recovery.fit_law

    def recording(*args, **kwargs):
        seen.append(kwargs.get("delta"))
        return real(*args, **kwargs)

    monkeypatch.setattr(recovery, "fit_law", recording)
    recovery.bootstrap_coefficients(res, n_resamples=3, seed=0)
    assert len(seen) >= 3 and set(seen) == {0.05}


# --- toy runs (bookkeeping only; training is tested in test_torchmoe) ---------------------------


@pytest.mark.parametrize("design", list(toy.DESIGNS))
def test_toy_configs_have_equal_active_flops(design):
    cfgs = toy.configs(103, design)
    budgets = toy.DESIGNS[design]
    assert len(cfgs) == len(budgets) * (1 + len(toy.EXPERTS))
    for d, steps in budgets:
        same = [(cfg, s) for cfg, s in cfgs.values() if cfg.d_model == d and s == steps]
        assert len(same) == 1 + len(toy.EXPERTS)
        flops = {tables.model_scale(cfg, shared_factor=6.0) for cfg, _ in same}
        assert len(flops) == 1


def test_toy_rejects_invalid_arguments():
    with pytest.raises(ValueError):
        toy.configs(0)
    with pytest.raises(ValueError):
        toy.configs(103, "huge")
    with pytest.raises(ValueError):
        toy.load_runs("huge")
    assert toy.family_name(0) == "dense" and toy.family_name(8) == "MoE E=8"


def test_toy_leverage_table_on_synthetic_runs():
    C = np.geomspace(1e12, 1e14, 4)
    rows = []
    for seed in (0, 1):
        for e, shift in ((0, 1.0), (8, 2.0)):
            for c in C:
                rows.append({"family": toy.family_name(e), "seed": seed, "flops": c,
                             "val_loss": float(_curve(shift * c, 30.0, -0.1, 1.2)),
                             "n_experts": e, "A": 1.0 if e == 0 else 3 / 9})
    table = toy.leverage_table(pd.DataFrame(rows))
    assert set(table["seed"]) == {"0", "1", "pooled"}
    np.testing.assert_allclose(table["EL"], 2.0, rtol=1e-3)


# --- review corrections (2026-11-24): MoE-mini at its trained compute, Table 10's sharing ------


def test_moe_mini_does_not_reach_seven_at_its_trained_compute() -> None:
    from moelaws.leverage import checks

    budgets = checks.moe_mini_budgets()
    trained = float(budgets["trained C"].iloc[0])
    # App. I's non-embedding FLOPs per token (6.36 GFLOPs) times 1T tokens, well below 1e22
    assert 6.3e21 < trained < 6.4e21
    assert (budgets["EL at trained C"] < 7).all()
    assert budgets.loc["E_a/E", "EL at 1e22"] > 7 > budgets.loc["Sec. 2.1 A", "EL at 1e22"]
    assert budgets.loc["Sec. 2.1 A", "C for EL = 7"] / trained == pytest.approx(1.61, abs=0.01)
    # App. I's Eq. 12 counts the logits, 2 d V forward FLOPs per token: 3 x 2 x 2048 x 126464.
    with_logits = float(budgets["trained C, logits"].iloc[0])
    assert with_logits - trained == pytest.approx(3 * 2 * 2048 * 126_464 * 1e12, rel=1e-12)
    assert budgets.loc["E_a/E", "EL at trained C, logits"] == pytest.approx(7.05, abs=0.01)
    assert (budgets["EL at trained C, logits"] > budgets["EL at trained C"]).all()
    flops = checks.moe_mini_flops()
    assert flops.loc["dense / MoE", "M, logits"] == pytest.approx(5.4, abs=0.05)
    assert flops.loc["dense / MoE", "M"] == pytest.approx(6.2, abs=0.05)
    for _, row in budgets.iterrows():
        assert float(lev.efficiency_leverage(row["A"], row["G"], row["C for EL = 7"])) == (
            pytest.approx(7.0, abs=1e-9))


def test_table10_sharing_spread_depends_on_the_activation_reading() -> None:
    from moelaws.leverage import checks

    by_a, by_routed = (checks.table10_sharing_leverage(a) for a in ("A", "A_routed"))
    assert by_a.max() - by_a.min() < 0.1
    assert by_routed.loc[0.833] == pytest.approx(7.81, abs=0.01)
    assert by_routed.loc[0.0] == pytest.approx(4.59, abs=0.01) == by_a.loc[0.0]


def test_efficiency_leverage_is_swept_by_the_property_tests() -> None:
    from test_properties import LAWS

    assert "leverage.efficiency_leverage" in {name for name, *_ in LAWS}


def test_read_table_reads_every_listed_table_as_a_fresh_copy():
    for name in tables.TABLES:
        first = tables.read_table(name)
        assert len(first) > 0
        first.columns = ["edited"] * first.shape[1]  # a caller's edit must not reach the next
        assert "edited" not in tables.read_table(name).columns
    with pytest.raises(ValueError, match="unknown table"):
        tables.read_table("refit_recovery")


def test_attention_share_readings_of_table12() -> None:
    """Review (2026-11-29): App. F.4's 20-50 % under four readings of attention's share."""
    from moelaws.leverage import checks

    readings = checks.attention_share_readings(12)
    assert list(readings.columns) == ["min", "max"]
    assert tuple(readings.index) == checks.ATTENTION_READINGS
    lo, hi = readings["min"].to_numpy(), readings["max"].to_numpy()
    np.testing.assert_allclose(lo, [0.300, 0.420, 0.104, 0.166], atol=1e-3)
    np.testing.assert_allclose(hi, [0.457, 0.841, 0.281, 0.385], atol=1e-3)
    # The usual pricing of the projections gives a larger share than App. I's printed one.
    assert (readings.iloc[3] > readings.iloc[2]).all()
    with pytest.raises(ValueError):
        checks.attention_share_readings(7)
