"""Tests of moelaws.comprehensive: the joint law, its optima, the baselines, the tables and the
synthetic refit."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import optimize

from moelaws import arch, conventions
from moelaws import comprehensive as cl
from moelaws.comprehensive import recovery, transcribe
from moelaws.comprehensive import tables as comprehensive_tables

P = cl.table2()
PAPER_TEXT = "comprehensive-moe-scaling-law.txt"


def hand_loss(N, D, Na, G, S, p=P):
    A = p["e"] * G + p["f"] / G + p["m"] * S**2 + p["n"] * S
    B = N ** -p["alpha"] + p["k"] * Na ** -p["alpha"] + p["h"] * Na / N
    return (A * B + p["a"] / N ** p["alpha"] + p["b"] / D ** p["beta"]
            + p["c"] / Na ** p["alpha"] + p["eps"])


# --- the law --------------------------------------------------------------------------------


def test_table2_constants():
    assert P["f"] == 7.2446 and P["n"] == -3.2363 and P["eps"] == 1.8182
    assert tuple(P) == cl.CONSTANT_NAMES
    P2 = cl.table2()
    P2["e"] = 0.0
    assert cl.table2()["e"] == 0.1577


def test_loss_value_and_broadcast():
    N, D, Na = 2.4e9, 50e9, 476e6
    assert cl.loss(N, D, Na, 10, 0.2) == pytest.approx(hand_loss(N, D, Na, 10, 0.2), rel=1e-12)
    # A 2.4B model trained on 50B tokens: a plausible LM loss around 2.6.
    assert 2.4 < float(cl.loss(N, D, Na, 10, 0.2)) < 2.8
    out = cl.loss(np.array([1e9, 2e9])[:, None], 1e10, 1e8, np.array([2.0, 7.0, 20.0]), 0.3)
    assert out.shape == (2, 3)
    assert out[1, 1] < out[0, 1]  # more total parameters, lower loss


def test_loss_override_and_invalid():
    base = cl.loss(1e9, 1e10, 1e8, 7, 0.3)
    assert cl.loss(1e9, 1e10, 1e8, 7, 0.3, {"eps": P["eps"] + 1}) == pytest.approx(base + 1)
    for bad in (dict(N=0), dict(D=-1), dict(Na=2e9), dict(G=0), dict(S=1.5), dict(S=-0.1),
                dict(N=np.nan)):
        args = dict(N=1e9, D=1e10, Na=1e8, G=7, S=0.3) | bad
        with pytest.raises(ValueError):
            cl.loss(**args)
    with pytest.raises(ValueError, match="unknown constants"):
        cl.loss(1e9, 1e10, 1e8, 7, 0.3, {"zeta": 1.0})


def test_factors():
    assert cl.structure_factor(7, 0.31) == pytest.approx(
        7 * P["e"] + P["f"] / 7 + P["m"] * 0.31**2 + P["n"] * 0.31)
    assert cl.size_factor(1e9, 1e8) == pytest.approx(
        1e9 ** -P["alpha"] + P["k"] * 1e8 ** -P["alpha"] + P["h"] * 0.1)
    with pytest.raises(ValueError):
        cl.structure_factor(-1, 0.2)
    with pytest.raises(ValueError):
        cl.size_factor(1e8, 1e9)


def test_intermediate_laws():
    kw = dict(a=38.0, alpha=0.24, b=2.7e4, beta=0.47, eps=1.8)
    assert cl.loss_nd(1e9, 1e10, **kw) == pytest.approx(
        38 / 1e9**0.24 + 2.7e4 / 1e10**0.47 + 1.8)
    assert cl.loss_nd_na(1e9, 1e10, 1e8, c=31.0, h=0.05, **kw) == pytest.approx(
        cl.loss_nd(1e9, 1e10, **kw) + 31 / 1e8**0.24 + 0.05 * 0.1)
    assert cl.loss_na_marginal(1e8, c=2.0, gamma=0.5, h=1e-9, iota=1.0) == pytest.approx(
        2e-4 + 0.1 + 1.0)
    assert cl.loss_g_marginal(4.0, e=0.1, f=8.0, tau=2.0) == pytest.approx(0.4 + 2.0 + 2.0)
    assert cl.loss_s_marginal(0.5, m=4.0, n=-2.0, psi=1.0) == pytest.approx(1.0)
    keys = ("e", "f", "k", "h", "a", "alpha", "b", "beta", "c", "eps")
    assert cl.loss_nd_na_g(1e9, 1e10, 1e8, 5.0, **{k: P[k] for k in keys}) == pytest.approx(
        cl.loss(1e9, 1e10, 1e8, 5.0, 0.0))
    with pytest.raises(ValueError):
        cl.loss_nd(-1, 1e10, **kw)
    with pytest.raises(ValueError):
        cl.loss_na_marginal(0, c=1, gamma=1, h=1, iota=1)
    with pytest.raises(ValueError):
        cl.loss_nd_na(1e8, 1e10, 1e9, c=1, h=1, **kw)
    with pytest.raises(ValueError):
        cl.loss_g_marginal(0, e=1, f=1, tau=1)
    with pytest.raises(ValueError):
        cl.loss_s_marginal(2, m=1, n=1, psi=1)
    with pytest.raises(ValueError):
        cl.loss_nd_na_g(1e9, 1e10, 1e8, -2.0, **{k: P[k] for k in keys})


def test_size_factor_falls_with_N_and_rises_with_Na():
    """Eq. 11's m·φ falls with N (App. C.5 says m rises) and rises with N_a (App. C.5 agrees)."""
    t8 = cl.table8()
    el = cl.size_factor_elasticities(t8["N"], t8["Na"])
    assert np.max(el["N"]) < 0 < np.min(el["N_a"])
    # analytic elasticities against finite differences of log φ
    N, Na, eps = 2e9, 3e8, 1e-6
    for key, dN, dNa in (("N", np.exp(eps), 1.0), ("N_a", 1.0, np.exp(eps))):
        numeric = (np.log(cl.size_factor(N * dN, Na * dNa)) - np.log(cl.size_factor(N, Na))) / eps
        assert float(cl.size_factor_elasticities(N, Na)[key]) == pytest.approx(numeric, rel=1e-4)
    co = cl.marginal_coefficients([1e9, 2e9, 1e9], 5e10, [2e8, 2e8, 4e8])
    assert co["m"][1] < co["m"][0] < co["m"][2]  # m·φ: down with N, up with N_a
    assert co["n"][2] < co["n"][0] < co["n"][1]  # n·φ < 0: up with N, down with N_a
    # so the printed Table 3 order: gpt-oss-120b (smaller N, far smaller N_a) is the wider
    m = cl.industrial_models().set_index("model")
    phi = cl.size_factor(m["N"], m["Na"])
    lo, hi = cl.practical_G_range(m["N"], m["Na"], 1e-3)
    i, j = list(m.index).index("gpt-oss-120b"), list(m.index).index("Qwen3-235B-A22B")
    assert m["N"].iloc[i] < m["N"].iloc[j] and phi[i] < phi[j] and hi[i] - lo[i] > hi[j] - lo[j]
    t3 = cl.read_table("table3").set_index("model")
    width = t3["G_high"] - t3["G_low"]
    assert width["gpt-oss-120b"] > width["Qwen3-235B-A22B"]


def test_structure_term_moves_the_loss_by_hundredths_at_the_papers_sizes():
    """A(G, S)·φ over G in [2, 20], S in [0, 0.8]: ~0.056 nats at 247M/48M, ~0.0085 at 1T."""
    grid = np.meshgrid(np.linspace(2, 20, 181), np.linspace(0, 0.8, 81))
    spread = np.ptp(cl.structure_factor(*grid))
    small, large = spread * cl.size_factor(247e6, 48e6), spread * cl.size_factor(1e12, 32e9)
    assert small == pytest.approx(0.0565, abs=5e-4) and large == pytest.approx(0.0085, abs=1e-4)


def test_marginal_coefficients_rebuild_the_law():
    co = cl.marginal_coefficients(2e9, 2e10, 3e8, S=0.2)
    G = np.array([2.0, 5.0, 13.0])
    assert co["e"] * G + co["f"] / G + co["tau"] == pytest.approx(cl.loss(2e9, 2e10, 3e8, G, 0.2))
    assert co["f"] / co["e"] == pytest.approx(P["f"] / P["e"])
    with pytest.raises(ValueError):
        cl.marginal_coefficients(1e8, 1e10, 1e9)


def test_read_constants_invalid():
    with pytest.raises(ValueError):
        cl.read_constants("table9")


# --- optima ---------------------------------------------------------------------------------


def test_optimal_G_and_S():
    assert cl.optimal_G() == pytest.approx(6.77784, abs=1e-5)
    assert cl.optimal_S() == pytest.approx(0.314846, abs=1e-6)
    g = optimize.minimize_scalar(lambda x: float(cl.loss(1e10, 1e11, 1e9, x, 0.2)),
                                 bounds=(1, 30), method="bounded").x
    assert g == pytest.approx(cl.optimal_G(), abs=1e-4)
    with pytest.raises(ValueError):
        cl.optimal_G({"e": -0.1})
    with pytest.raises(ValueError):
        cl.optimal_S({"m": 0.0})


def test_practical_ranges_are_threshold_contours():
    N, Na = 671e9, 37e9
    lo, hi = cl.practical_G_range(N, Na, 1e-3)
    best = cl.loss(N, 1e12, Na, cl.optimal_G(), 0.2)
    assert cl.loss(N, 1e12, Na, lo, 0.2) - best == pytest.approx(1e-3, rel=1e-8)
    assert cl.loss(N, 1e12, Na, hi, 0.2) - best == pytest.approx(1e-3, rel=1e-8)
    slo, shi = cl.practical_S_range(N, Na, 1e-3)
    best_s = cl.loss(N, 1e12, Na, 7, cl.optimal_S())
    assert cl.loss(N, 1e12, Na, 7, slo) - best_s == pytest.approx(1e-3, rel=1e-8)
    assert cl.loss(N, 1e12, Na, 7, shi) - best_s == pytest.approx(1e-3, rel=1e-8)
    glo, ghi = cl.practical_G_range(N, Na, 1e-3, resolution=0.01)
    assert (float(glo), float(ghi)) == (4.20, 10.93)
    assert float(lo) < 4.20 and float(hi) > 10.93
    assert cl.practical_S_range(N, Na, 1e-3, resolution=0.001) == (0.095, 0.535)
    wide = cl.practical_S_range(1e7, 1e6, 1.0)
    assert (float(wide[0]), float(wide[1])) == (0.0, 1.0)  # clipped to [0, 1]


@pytest.mark.parametrize("fn", [cl.practical_G_range, cl.practical_S_range])
def test_practical_ranges_invalid(fn):
    with pytest.raises(ValueError):
        fn(1e9, 1e8, 0.0)
    with pytest.raises(ValueError):
        fn(1e9, 1e8, 1e-3, resolution=-0.01)
    with pytest.raises(ValueError):
        fn(1e8, 1e9)


def test_optimal_active_ratio_minimises_the_law():
    N = 235e9
    r = float(cl.optimal_active_ratio(N, 7, 0.31))
    num = optimize.minimize_scalar(lambda x: float(cl.loss(N, 1e12, x * N, 7, 0.31)),
                                   bounds=(0.01, 1.0), method="bounded",
                                   options={"xatol": 1e-10}).x
    assert r == pytest.approx(num, rel=1e-5)
    assert r == pytest.approx(0.2695, abs=1e-4)
    rs = cl.optimal_active_ratio(np.array([20e9, 1e12]))
    assert rs[0] > rs[1]
    assert float(cl.optimal_active_ratio(1e12)) == pytest.approx(0.2041, abs=1e-4)
    with pytest.raises(ValueError):
        cl.optimal_active_ratio(0.0)
    with pytest.raises(ValueError):
        cl.optimal_active_ratio(1e9, G=0.0)


def _algorithm1(N, threshold, G, S, n=200):
    """App. F's pseudo code, line by line."""
    step = 0.01 * N
    na_prev = step
    loss_prev = float(cl.loss(N, 1e11, na_prev, G, S))
    for _ in range(n):
        na_cur = na_prev + step
        if na_cur > N * (1 + 1e-9):
            return None
        loss_cur = float(cl.loss(N, 1e11, na_cur, G, S))
        if loss_prev - loss_cur < threshold:
            return na_cur
        na_prev, loss_prev = na_cur, loss_cur
    return None


def test_efficiency_aware_matches_algorithm_1():
    for N in (21e9, 355e9, 1e12):
        for thr in (1e-3, 5e-3, 2e-4):
            ours = float(cl.efficiency_aware_active_ratio(N, thr, 7, 0.31))
            assert ours * N == pytest.approx(_algorithm1(N, thr, 7, 0.31), rel=1e-9)
    vec = cl.efficiency_aware_active_ratio(np.array([21e9, 1e12]), 1e-3)
    assert vec == pytest.approx([0.22, 0.11])


def test_efficiency_aware_none_and_invalid():
    # A tiny model's optimum lies above N_a = N: no step's gain falls below the threshold.
    assert np.isnan(cl.efficiency_aware_active_ratio(1e6, 1e-9))
    assert _algorithm1(1e6, 1e-9, cl.optimal_G(), cl.optimal_S()) is None
    with pytest.raises(ValueError):
        cl.efficiency_aware_active_ratio(1e9, 0.0)
    with pytest.raises(ValueError):
        cl.efficiency_aware_active_ratio(1e9, 1e-3, step=0.0)
    with pytest.raises(ValueError):
        cl.efficiency_aware_active_ratio(-1e9, 1e-3)


def test_compute_optimal_active_and_loss():
    N, C = 1e12, np.array([1e18, 1e22, 1e25])
    na = cl.compute_optimal_active(C, N, 7, 0.31)
    for c, x in zip(C, na, strict=True):
        num = optimize.minimize_scalar(
            lambda u, c=c: float(cl.loss(N, c / np.exp(u), np.exp(u), 7, 0.31)),
            bounds=(np.log(1e3), np.log(N)), method="bounded", options={"xatol": 1e-12}).x
        assert x == pytest.approx(np.exp(num), rel=1e-4)
    lstar = cl.compute_optimal_loss(C, N, 7, 0.31)
    assert np.all(np.diff(lstar) < 0)
    assert cl.compute_optimal_loss_eq32(C, N, 7, 0.31) == pytest.approx(lstar, rel=1e-12)
    # Enormous compute on a small model: the optimum is capped at N_a = N.
    assert float(cl.compute_optimal_active(1e40, 1e8)) == pytest.approx(1e8)
    with pytest.raises(ValueError):
        cl.compute_optimal_active(-1.0, 1e9)
    with pytest.raises(ValueError):
        cl.compute_optimal_loss(1e20, 0.0)
    with pytest.raises(ValueError):
        cl.compute_optimal_loss_eq32(1e20, 1e9, S=2.0)


def test_compute_optimal_asymptote_and_fit():
    asym = cl.compute_optimal_asymptote(1e12, 7, 0.31)
    assert asym["offset"] == pytest.approx(1.8730, abs=1e-4)
    assert asym["coef"] == pytest.approx(575.95, abs=0.01)
    assert asym["exponent"] == pytest.approx(0.158059, abs=1e-6)
    small = cl.fit_compute_optimal_power_law(1e14, 1e18)
    assert small["coef"] == pytest.approx(asym["coef"], rel=1e-3)
    assert small["exponent"] == pytest.approx(asym["exponent"], rel=1e-3)
    fixed = cl.fit_compute_optimal_power_law(1e14, 1e18, free_offset=False)
    assert fixed["offset"] == asym["offset"]
    large = cl.fit_compute_optimal_power_law(1e20, 1e24)
    assert large["exponent"] > 0.17 and large["max_active_ratio"] > 0.1
    with pytest.raises(ValueError):
        cl.fit_compute_optimal_power_law(1e20, 1e18)
    with pytest.raises(ValueError):
        cl.fit_compute_optimal_power_law(1e18, 1e20, n_points=2)
    with pytest.raises(ValueError):
        cl.compute_optimal_asymptote(-1.0)


# --- baselines ------------------------------------------------------------------------------


def test_loss_krajewski():
    t6 = cl.read_constants("table6")
    val = cl.loss_krajewski(1e9, 1e10, 8.0)
    assert val == pytest.approx(
        t6["c"] + (t6["g"] / 8 ** t6["gamma"] + t6["a"]) / 1e9 ** t6["alpha"]
        + t6["b"] / 1e10 ** t6["beta"])
    # The fitted g and γ leave G almost no effect.
    assert abs(cl.loss_krajewski(1e9, 1e10, 1.0) - cl.loss_krajewski(1e9, 1e10, 64.0)) < 1e-5
    with pytest.raises(ValueError):
        cl.loss_krajewski(1e9, 1e10, 0.0)
    with pytest.raises(ValueError):
        cl.loss_krajewski(1e9, 1e10, 2.0, {"zeta": 1})


def test_loss_abnar():
    t7 = cl.read_constants("table7")
    val = cl.loss_abnar(1e9, 1e10, 0.75)
    assert val == pytest.approx(
        t7["a"] / 1e9 ** t7["alpha"] + t7["b"] / 1e10 ** t7["beta"]
        + t7["c"] / 0.25 ** t7["lambda"] + t7["d"] / (0.25 ** t7["delta"] * 1e9 ** t7["gamma"])
        + t7["e"])
    assert cl.loss_abnar(1e9, 1e10, 0.9) > cl.loss_abnar(1e9, 1e10, 0.0)
    with pytest.raises(ValueError):
        cl.loss_abnar(1e9, 1e10, 1.0)
    with pytest.raises(ValueError):
        cl.loss_abnar(0.0, 1e10, 0.5)


# --- tables ---------------------------------------------------------------------------------


def test_table8_counts_roles_and_spot_rows():
    t = cl.table8()
    assert len(t) == 450 and list(t["row"]) == list(range(450))
    assert t["role"].value_counts().to_dict() == {"fitting": 268, "validation": 92,
                                                  "marginal_G": 90}
    assert list(t.loc[t["role"] == "fitting", "row"]) == list(range(268))
    assert t.loc[0, ["Na", "N", "D", "G", "S"]].tolist() == [48e6, 247e6, 10e9, 2.5, 0.2]
    assert t.loc[268, ["Na", "N", "G", "S", "role"]].tolist() == [22e6, 121e6, 1.0, 0.0,
                                                                  "marginal_G"]
    assert t.loc[427, ["Na", "N", "G", "S"]].tolist() == [566e6, 3964e6, 3.0, 0.33]
    assert t.loc[446, ["Na", "N", "D", "G", "role"]].tolist() == [3070e6, 30249e6, 50e9, 20.0,
                                                                  "validation"]
    assert (t["Na"] <= t["N"]).all()


def test_read_table_invalid():
    with pytest.raises(ValueError):
        cl.read_table("table99")


def test_table1_counts_match_arch():
    t1 = cl.read_table("table1")
    counts = cl.table1_counts()
    for i, r in t1.iterrows():
        cfg = arch.MoEConfig(
            n_layers=int(r.n_layers), d_model=int(r.d_hidden), n_heads=int(r.n_heads),
            head_dim=int(r.d_head), n_experts=int(r.n_routed), top_k=int(r.n_activated_routed),
            n_shared=int(r.n_shared), d_expert=int(r.d_expert), vocab_size=128256)
        c = conventions.counts(cfg, "comprehensive")
        assert counts["N (Eq. 3)"][i] == pytest.approx(c.total)
        assert counts["N_a (Eq. 2)"][i] == pytest.approx(c.active)
    assert counts["N (Eq. 3)"][4] == 3963617280 and counts["N_a (Eq. 2)"][0] == 47972352


def test_eq2_eq3_invalid():
    with pytest.raises(ValueError):
        cl.active_params_eq2(64, 8, 0, 384, 512, 12)
    with pytest.raises(ValueError):
        cl.total_params_eq3(64, 8, 5, 1.2, 32, 384, 512, 12)


def test_uv_construction():
    assert cl.uv_routed_factor(0.5, 0.2, 20, 128) == pytest.approx(130 / 64)
    h = cl.appendix_h_sweep()
    assert h["n_routed"].tolist() == pytest.approx([260, 128, 62, 29, 18])
    assert np.ptp(h["N"]) == pytest.approx(0.0, abs=1e-3)  # N held fixed
    assert h["N_a"].is_monotonic_increasing
    with pytest.raises(ValueError):
        cl.uv_routed_factor(40.0, 0.2, 20, 128)  # no routed experts left
    with pytest.raises(ValueError):
        cl.uv_routed_factor(0.0, 0.2, 20, 128)
    with pytest.raises(ValueError):
        cl.appendix_h_sweep((-1.0,))


def test_industrial_models():
    m = cl.industrial_models()
    assert len(m) == 9
    kimi = m.set_index("model").loc["Kimi-K2"]
    assert (kimi["N"], kimi["Na"], kimi["G"]) == (1e12, 32e9, 9.0)
    assert kimi["S"] == pytest.approx(1 / 9)


# --- transcription --------------------------------------------------------------------------


def test_parse_table8_synthetic_and_invalid():
    lines = ["Table 8: All configurations of experiments."]
    lines += [f"{2 * i} 48M 247M 10B 2.5 0.2 \\times {2 * i + 1} 99M 496M 20B 5 0.33 ✓"
              for i in range(225)]
    df = transcribe.parse_table8("\n".join(lines))
    assert len(df) == 450 and set(df["mark"]) == {"✗", "✓"}
    assert df.loc[1, "S"] == "0.33" and df.loc[0, "Na_M"] == 48
    with pytest.raises(ValueError, match="caption"):
        transcribe.parse_table8("no table here")
    with pytest.raises(ValueError, match=r"rows 0\.\.449"):
        transcribe.parse_table8("\n".join(lines[:-1]))


def test_parse_table8_from_paper_matches_csv(tmp_path, paper_text):
    out = transcribe.write_table8(paper_text(PAPER_TEXT), tmp_path / "t8.csv")
    fresh = pd.read_csv(out)
    stored = cl.read_table("table8")
    pd.testing.assert_frame_equal(fresh, stored)


# --- recovery -------------------------------------------------------------------------------


def test_vector_roundtrip_and_invalid():
    v = recovery.to_vector(P)
    assert recovery.to_constants(v) == pytest.approx(P)
    assert recovery.to_constants(dict(zip(recovery.FIT_NAMES, v, strict=True))) == pytest.approx(P)
    with pytest.raises(ValueError):
        recovery.to_vector({**P, "e": -1.0})
    with pytest.raises(ValueError):
        recovery.to_vector({"e": 1.0})
    with pytest.raises(ValueError):
        recovery.to_constants(np.zeros(3))


def test_joint_law_value_and_jacobian():
    X = recovery.experiment_points("validation")
    law = recovery.joint_law()
    v = recovery.to_vector(P)
    assert law.predict(v, X) == pytest.approx(cl.loss(*X.T), rel=1e-12)
    F = law.prepare(X)
    p = v + 0.05
    _, jac = law.log_value_and_jacobian(p, F)
    eye = np.eye(len(p)) * 1e-6
    num = np.column_stack([(law.log_predict(p + d, F) - law.log_predict(p - d, F)) / 2e-6
                           for d in eye])
    assert jac == pytest.approx(num, abs=1e-7)


def test_design_and_simulate():
    assert recovery.experiment_points().shape == (268, 5)
    assert recovery.experiment_points("validation").shape == (92, 5)
    X = recovery.experiment_points("marginal_G")
    assert recovery.simulate(X, 0.0, 0) == pytest.approx(cl.loss(*X.T))
    noisy = recovery.simulate(X, 0.01, 3)
    assert np.std(np.log(noisy / cl.loss(*X.T))) == pytest.approx(0.01, rel=0.3)
    with pytest.raises(ValueError):
        recovery.experiment_points("test")
    with pytest.raises(ValueError):
        recovery.simulate(X, -0.1, 0)


def test_start_grid():
    grid = recovery.start_grid()
    assert grid.shape == (384, 12)
    sub = recovery.start_grid(n=5, seed=1)
    assert sub.shape == (5, 12) and all(any((g == s).all() for g in grid) for s in sub)
    # Never started at the truth.
    assert not np.any(np.all(np.isclose(grid, recovery.to_vector(P)), axis=1))
    with pytest.raises(ValueError):
        recovery.start_grid(n=0)


def test_derived():
    d = recovery.derived(P)
    assert d["G_opt"] == pytest.approx(cl.optimal_G())
    assert d["Na/N eff 1e-3 (1T)"] == pytest.approx(0.11)
    bad = recovery.derived({**P, "e": -0.1, "m": -1.0})
    assert np.isnan(bad["G_opt"]) and np.isnan(bad["S_opt"])


@pytest.mark.slow
def test_fit_constants_recovers_noise_free_truth():
    X = recovery.experiment_points()
    y = recovery.simulate(X, 0.0, 0)
    res = recovery.fit_constants(X, y, recovery.start_grid(n=2, seed=0))
    got = recovery.to_constants(res.params)
    assert res.loss < 1e-8
    assert recovery.derived(got)["G_opt"] == pytest.approx(cl.optimal_G(), rel=1e-2)
    assert got["alpha"] == pytest.approx(P["alpha"], rel=1e-2)
    with pytest.raises(ValueError):
        recovery.fit_constants(X, -y)
    with pytest.raises(ValueError):
        recovery.fit_constants(X[:10], y)


def test_identifiability():
    X = recovery.experiment_points()
    ident = recovery.identifiability(X, 0.0025)
    assert list(ident.index) == list(cl.CONSTANT_NAMES)
    # k multiplies a term ~1e-5 of the loss: hopeless; ε is pinned to ~2%.
    assert ident.loc["k", "rel_se"] > 100
    assert ident.loc["eps", "rel_se"] < 0.05
    with pytest.raises(ValueError):
        recovery.identifiability(X, 0.0)


def test_identifiability_keeps_the_weakest_direction_of_an_ill_conditioned_jacobian():
    """At k = 2e-8 (where the chapter's live refit ends) J's condition number is ~2e12, so
    JᵀJ's is ~5e24: a pseudo-inverse of JᵀJ drops the k direction and reports log k as
    determined to 1e-7. The SVD of J keeps it: log k's SE is then ~1e7 and more."""
    X = recovery.experiment_points()
    at_truth = recovery.identifiability(X, 0.0025)
    tiny_k = recovery.identifiability(X, 0.0025, params={"k": 2e-8})
    # log k's Jacobian column is proportional to k, so its SE grows like 1/k.
    assert tiny_k.loc["k", "se"] == pytest.approx(
        at_truth.loc["k", "se"] * cl.constants()["k"] / 2e-8, rel=0.05)
    assert tiny_k.loc["k", "se"] > 1e7
    # The other constants barely notice k's value.
    assert tiny_k.loc["e", "se"] == pytest.approx(at_truth.loc["e", "se"], rel=0.05)


@pytest.mark.slow
def test_recovery_small_run():
    res = recovery.recovery(0.0025, n_resamples=2, starts=recovery.start_grid(n=1, seed=0))
    s = res["summary"]
    assert {"true", "estimate", "low", "high", "covers", "rel_error"} <= set(s.columns)
    assert s.loc["G_opt", "true"] == pytest.approx(cl.optimal_G())
    assert 0.0 < res["validation"]["MAE true law vs observed (validation)"][0] < 0.02
    with pytest.raises(ValueError):
        recovery.recovery(0.0025, n_resamples=1)
    rep = recovery.repeated_recovery(0.001, n_repeats=2, starts=recovery.start_grid(n=1, seed=0))
    assert rep.loc["eps", "rel_rmse"] < 0.05
    with pytest.raises(ValueError):
        recovery.repeated_recovery(0.001, n_repeats=1)


def test_cached_repeated_refits_are_what_the_code_computes_now():
    """The repeated refits chapter 4 reads from its cache (``regenerate_cache``'s settings, at
    the noise level of ex-04-k), run again: a change to the law, the simulation or the fit
    shows here, not only when someone regenerates the cache. ``k`` is the fit's ill-determined
    direction: moving the noise level by one part in 1e12 moved its summaries by 78 % and every
    other quantity's by at most 0.5 % (2026-11-29), so ``k`` is held to its verdict (an error
    of more than 100 %) and the others to 2 %."""
    sd = 0.0025
    cached = recovery.read_cache(recovery.REPEATS_CACHE).query("noise_sd == @sd")
    cached = cached.set_index("quantity")
    now = recovery.repeated_recovery(sd, n_repeats=int(cached["n_repeats"].iloc[0]), seed=0,
                                     starts=recovery.start_grid(n=24, seed=0)[:3])
    assert list(now.index) == list(cached.index)
    assert now.loc["k", "rel_rmse"] > 1 and cached.loc["k", "rel_rmse"] > 1
    rest = now.index.drop("k")
    for column in ("true", "mean", "median", "sd", "rel_rmse"):
        assert now.loc[rest, column].to_numpy() == pytest.approx(
            cached.loc[rest, column].to_numpy(), rel=0.02, abs=1e-12), column


def test_read_cache_invalid_name():
    with pytest.raises(ValueError):
        recovery.read_cache("other.csv")


# --- views ----------------------------------------------------------------------------------


def test_vega_expressions_match_the_law():
    from moelaws.comprehensive import views

    env = dict(N=3e9, Na=4e8, D=7e10, G=9.0, S=0.25)
    assert eval(views.loss_expression(), {"pow": pow}, env) == pytest.approx(
        float(cl.loss(3e9, 7e10, 4e8, 9.0, 0.25)), rel=1e-12)
    assert eval(views.phi_expression(), {"pow": pow}, env) == pytest.approx(
        float(cl.size_factor(3e9, 4e8)), rel=1e-12)
    with pytest.raises(ValueError):
        views.loss_expression(params={"zeta": 1.0})


def test_explorer_chart_has_bound_sliders():
    from moelaws.comprehensive import views

    spec = views.explorer_chart().to_dict()
    params = {p["name"]: p for p in spec["params"]}
    assert set(params) == {"logN", "ratio", "logD", "Gs", "Ss"}
    assert all(p["bind"]["input"] == "range" for p in params.values())
    with pytest.raises(ValueError):
        views.explorer_chart(threshold=0.0)


def test_industrial_chart():
    from moelaws.comprehensive import views

    spec = views.industrial_chart().to_dict()
    datasets = list(spec["datasets"].values())
    assert any(len(d) == 9 and "model" in d[0] for d in datasets)
    with pytest.raises(ValueError):
        views.industrial_chart(G=0.0)


def test_explore():
    from moelaws.comprehensive import views

    out = views.explore(11.0, 0.1, 12.0, 8.0, 0.11)
    assert out["loss"] == pytest.approx(float(cl.loss(1e11, 1e12, 1e10, 8.0, 0.11)))
    assert out["G_opt"] == pytest.approx(cl.optimal_G())
    assert out["efficiency-aware N_a/N (at G, S)"] == pytest.approx(0.16)
    with pytest.raises(ValueError):
        views.explore(11.0, 1.5, 12.0, 8.0, 0.11)


# --- review corrections (2026-11-24): what G and S cost, Table 4's joint rounding ------------


def test_structure_cost_is_the_loss_difference_from_the_optimum() -> None:
    rows = cl.table8().query("role == 'fitting'")
    cost = cl.structure_cost(rows["N"], rows["Na"], rows["G"], rows["S"])
    via_loss = (cl.loss(rows["N"], rows["D"], rows["Na"], rows["G"], rows["S"])
                - cl.loss(rows["N"], rows["D"], rows["Na"], cl.optimal_G(), cl.optimal_S()))
    np.testing.assert_allclose(cost["excess"], via_loss, rtol=0, atol=1e-12)
    # A few hundredths of a nat at the paper's sizes, not "a few thousandths".
    assert 0.03 < float(np.median(cost["term"])) < 0.04
    assert 0.14 < float(np.max(cost["term"])) < 0.16
    assert 0.07 < float(np.max(cost["excess"])) < 0.075
    at_1t = cl.structure_cost(1e12, 32e9, cl.optimal_G(), cl.optimal_S())
    assert float(at_1t["term"]) < 0.005 and float(at_1t["excess"]) == 0.0


def test_table4_rounding_explains_qwen_only_at_the_edge_of_the_box() -> None:
    from moelaws.comprehensive import checks

    box = checks.constant_box()
    assert box.loc["h", "low"] == pytest.approx(0.04495) and box.loc["h", "high"] == 0.04505
    joint = checks.joint_rounding_draws(4000, seed=0)
    assert 0.005 < joint["other_eight"] < 0.05
    assert joint["all_nine"] < 0.1 * joint["other_eight"]
    assert joint["qwen_alone"] > 5 * joint["other_eight"]


def test_table4_rounding_draws_evaluate_eq14_for_every_draw_at_once() -> None:
    from moelaws.comprehensive import checks
    from moelaws.comprehensive.tables import industrial_models

    box = checks.constant_box()
    N = industrial_models()["N"].to_numpy()
    rng = np.random.default_rng(1)
    draws = rng.uniform(box["low"].to_numpy(), box["high"].to_numpy(), (40, len(box)))
    at_once = checks.theoretical_ratios(N, draws, box.index)
    one_by_one = np.array([
        cl.optimal_active_ratio(N, 7.0, 0.31, dict(zip(box.index, row, strict=True)))
        for row in draws])
    np.testing.assert_allclose(at_once, one_by_one, rtol=1e-14, atol=0)
    # The columns are matched to the constants by name: a shuffled order gives other ratios.
    assert not np.allclose(checks.theoretical_ratios(N, draws, box.index[::-1]), one_by_one)


def test_loss_is_swept_by_the_property_tests() -> None:
    from test_properties import LAWS

    assert "comprehensive.loss" in {name for name, *_ in LAWS}


def test_read_table_reads_every_listed_table_as_a_fresh_copy():
    for name in comprehensive_tables.TABLES:
        first = comprehensive_tables.read_table(name)
        assert len(first) > 0
        first.columns = ["edited"] * first.shape[1]  # a caller's edit must not reach the next
        assert "edited" not in comprehensive_tables.read_table(name).columns
    with pytest.raises(ValueError, match="no transcribed table"):
        comprehensive_tables.read_table("refit_recovery")
