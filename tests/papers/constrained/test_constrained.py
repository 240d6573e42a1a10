"""Tests of moelaws.constrained: laws, Algorithm 1, Eq. 5, tables, regression, toy helpers."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from moelaws.constrained import (
    active_params,
    active_total_ratio,
    active_total_ratio_slope,
    candidates,
    chinchilla,
    chinchilla_loss,
    continuous_optimal_experts,
    eq4_exponents,
    implied_granularity,
    landscape,
    optimize,
    optimize_grid,
    regression,
    relative_loss,
    relative_loss_sparsity,
    tables,
    total_params,
    toy,
)
from moelaws.constrained import checks as checks
from moelaws.constrained.design import log_budget_key

# --- Eq. 1-4, App. C.2 --------------------------------------------------------------------


def test_total_and_active_params_eq1_eq2():
    assert total_params(6, 288, 128, 4) == 49_766_400
    assert active_params(8, 336, 4, 4) == 8 * 336**2 * 7
    out = total_params(np.array([6, 8]), np.array([288, 384]), 128)
    np.testing.assert_allclose(out, [49_766_400, 117_964_800])
    # g divides the expert term only
    assert total_params(1, 10, 8, 2) == 100 * (4 + 12)


def test_total_active_ratio_falls_with_granularity_at_fixed_expert_counts():
    """Eq. 1-2 at n_exp = 256, n_topk = 8: coarser experts give the higher ratio (chapter 0)."""
    ratio = {g: float(total_params(1, 1, 256, g) / active_params(1, 1, 8, g)) for g in (2, 8)}
    assert ratio == pytest.approx({2: 388 / 16, 8: 100 / 7})
    assert ratio[2] > ratio[8]
    # only n_exp/g and n_topk/g matter: four times the experts at g = 8 is g = 2's ratio
    assert float(total_params(1, 1, 1024, 8) / active_params(1, 1, 32, 8)) == pytest.approx(
        ratio[2])


@pytest.mark.parametrize(
    "args",
    [(0, 64, 8, 4), (2, -1, 8, 4), (2, 64, 0.5, 4), (2, 64, 8, 0), (np.nan, 64, 8, 4)],
)
def test_counts_reject_out_of_domain(args):
    with pytest.raises(ValueError):
        total_params(*args)
    with pytest.raises(ValueError):
        active_params(*args)


def test_relative_loss_eq3_values_and_direction():
    assert relative_loss(1e9, 64, 8) == pytest.approx(1e9**-0.052 * 64**0.023 * 8**-0.018)
    assert relative_loss(2e9, 64, 8) < relative_loss(1e9, 64, 8)
    assert relative_loss(1e9, 128, 8) > relative_loss(1e9, 64, 8)
    assert relative_loss(1e9, 64, 16) < relative_loss(1e9, 64, 8)
    custom = relative_loss(1e9, 64, 8, {"N_total": -1.0, "n_exp": 0.0, "n_topk": 0.0})
    assert custom == pytest.approx(1e-9)


@pytest.mark.parametrize("args", [(0, 8, 2), (1e9, 0.5, 1), (1e9, 8, 0), (1e9, 8, 16)])
def test_relative_loss_rejects_out_of_domain(args):
    with pytest.raises(ValueError):
        relative_loss(*args)


def test_eq4_equals_eq3_and_exponents():
    n_exp = np.array([8.0, 64, 256])
    n_topk = np.array([1.0, 8, 16])
    np.testing.assert_allclose(
        relative_loss(3e8, n_exp, n_topk), relative_loss_sparsity(3e8, n_exp / n_topk, n_exp)
    )
    assert eq4_exponents() == pytest.approx({"N_total": -0.052, "s": 0.018, "n_exp": 0.005})
    assert eq4_exponents({"N_total": -1, "n_exp": 0.5, "n_topk": -0.2}) == pytest.approx(
        {"N_total": -1, "s": 0.2, "n_exp": 0.3}
    )


@pytest.mark.parametrize("args", [(0, 4, 8), (1e9, 0.5, 8), (1e9, 16, 8), (1e9, 2, 0.5)])
def test_relative_loss_sparsity_rejects_out_of_domain(args):
    with pytest.raises(ValueError):
        relative_loss_sparsity(*args)


def test_active_total_ratio_and_penalty_sign():
    assert active_total_ratio(64, 1) == pytest.approx(1.0)
    r = active_total_ratio(np.array([16, 64, 256]), 8)
    assert np.all(np.diff(r) < 0)
    # matches Eq. 2 / Eq. 1 for a concrete model
    assert active_total_ratio(128, 16, 4) == pytest.approx(
        active_params(3, 64, 8, 4) / total_params(3, 64, 128, 4)
    )
    n, s, g, h = 50.0, 4.0, 2.0, 1e-4
    numeric = (active_total_ratio(n + h, s, g) - active_total_ratio(n - h, s, g)) / (2 * h)
    assert active_total_ratio_slope(n, s, g) == pytest.approx(numeric, rel=1e-6)
    assert active_total_ratio_slope(n, s, g) < 0
    assert active_total_ratio_slope(n, 1.0, g) == 0


@pytest.mark.parametrize("args", [(0.5, 1, 4), (8, 0.5, 4), (8, 16, 4), (8, 2, 0)])
def test_active_total_ratio_rejects_out_of_domain(args):
    with pytest.raises(ValueError):
        active_total_ratio(*args)
    with pytest.raises(ValueError):
        active_total_ratio_slope(*args)


def test_implied_granularity_round_trip():
    total, active = total_params(10, 512, 128, 3.0), active_params(10, 512, 8, 3.0)
    assert implied_granularity(total, active, 128, 8) == pytest.approx(3.0)
    # the printed Qwen3 totals imply g close to Algorithm 1's 4
    assert implied_granularity(234e9, 21.7e9, 128, 7) == pytest.approx(4.03, abs=0.01)


@pytest.mark.parametrize(
    "args", [(1e9, 2e9, 128, 8), (1e9, 1e8, 8, 16), (1e9, 1e8, 8, 1), (0, 1e8, 8, 1)]
)
def test_implied_granularity_rejects_impossible(args):
    with pytest.raises(ValueError):
        implied_granularity(*args)


# --- Algorithm 1 --------------------------------------------------------------------------


def _literal_algorithm1(c_total, c_active, k, gammas, experts, g=4.0):
    """Algorithm 1 exactly as printed (python floats, halves rounded up)."""
    best, l_min = None, math.inf
    c = 3 / g
    for n in experts:
        for gamma in gammas:
            depth = math.floor((c_total / (gamma**2 * (4 + c * n))) ** (1 / 3))
            d = math.floor(gamma * depth / k + 0.5) * k
            while depth * d * d * (4 + c * n) > c_total:
                d -= k
            if depth < 1 or d <= 0:
                continue
            topk = min(n, math.floor((1 / c) * (c_active / (depth * d * d) - 4)))
            if topk >= 1:
                loss = (depth * d * d * (4 + c * n)) ** -0.052 * n**0.023 * topk**-0.018
                if loss < l_min:
                    l_min, best = loss, (depth, d, n, topk)
    return best


@pytest.mark.parametrize("seed", range(6))
def test_optimize_matches_literal_pseudocode(seed):
    rng = np.random.default_rng(seed)
    c_total = 10 ** rng.uniform(8, 12)
    c_active = c_total * 10 ** rng.uniform(-1.5, -0.3)
    k = int(rng.choice([8, 64, 128]))
    gammas = (32.0, 40.0, 48.0, 56.0, 64.0)
    experts = tuple(2**i for i in range(1, 10))
    design = optimize(c_total, c_active, k, gammas=gammas, n_experts=experts)
    ref = _literal_algorithm1(c_total, c_active, k, gammas, experts)
    assert (design.l, design.d, design.n_exp, design.n_topk) == ref
    assert design.total <= c_total and design.active <= c_active
    assert design.d % k == 0


def test_candidates_table_and_qwen3_example():
    table = candidates(235e9, 22e9, 64)
    assert list(table["n_exp"].unique()) == [2, 4, 8, 16, 32, 64, 128]
    # with N_active/N_total = 0.094 even one active expert of 32 is too many
    assert (table["feasible"] == (table["n_exp"] >= 64)).all()
    ok = table[table["feasible"]]
    assert (ok["total"] <= 235e9).all() and (ok["active"] <= 22e9).all()
    design = optimize(235e9, 22e9, 64)
    assert (design.l, design.d, design.n_exp, design.n_topk) == (83, 5312, 128, 7)
    assert design.total / 1e9 == pytest.approx(234.204, abs=1e-3)
    assert design.d_expert == 5312 / 4
    assert design.as_dict()["gamma"] == 64
    # with more experts allowed the routine prefers 256
    wide = optimize(235e9, 22e9, 64, n_experts=[2**i for i in range(1, 9)])
    assert wide.n_exp == 256


def test_candidates_marks_infeasible():
    table = candidates(1e6, 2e5, 64, gammas=[64.0])
    assert not table["feasible"].all()
    assert table.loc[~table["feasible"], "loss"].isna().all()


@pytest.mark.parametrize(
    "kwargs",
    [
        {"total_budget": -1.0},
        {"total_budget": np.inf},
        {"active_budget": 3e9},
        {"k_align": 0},
        {"k_align": 2.5},
        {"gammas": []},
        {"gammas": [0.0]},
        {"n_experts": [0]},
        {"n_experts": [1.5]},
        {"g": 0.0},
    ],
)
def test_optimize_rejects_invalid_inputs(kwargs):
    args = {"total_budget": 2e9, "active_budget": 2e8, "k_align": 64, **kwargs}
    with pytest.raises(ValueError):
        optimize(args.pop("total_budget"), args.pop("active_budget"), args.pop("k_align"),
                 **args)


def test_optimize_raises_when_nothing_fits():
    with pytest.raises(ValueError, match="no configuration fits"):
        optimize(1e4, 1e3, 64)


def test_optimize_grid():
    grid = optimize_grid([1e9, 1e4], [1e8, 1e10], 64)
    assert len(grid) == 4
    assert grid["feasible"].tolist() == [True, False, False, False]
    row = grid.iloc[0]
    assert row["total"] <= 1e9 and row["active"] <= 1e8
    with pytest.raises(ValueError):
        optimize_grid([], [1e8], 64)
    with pytest.raises(ValueError):
        optimize_grid([1e9], [1e8], 0)


def test_continuous_optimal_experts():
    c_total, c_active, g = 235e9, 22e9, 4.0
    n_star = float(continuous_optimal_experts(c_total, c_active, g))
    n = np.linspace(60, 1000, 18801)
    topk = (g / 3) * ((c_active / c_total) * (4 + 3 * n / g) - 4)
    loss = n**0.023 * topk**-0.018
    assert n_star == pytest.approx(n[np.argmin(loss)], rel=1e-3)
    assert 200 < n_star < 260
    with pytest.raises(ValueError):
        continuous_optimal_experts(1e9, 2e9)
    with pytest.raises(ValueError):
        continuous_optimal_experts(1e9, 1e8, exponents={"n_exp": 0.01, "n_topk": -0.02})
    with pytest.raises(ValueError):
        continuous_optimal_experts(1e9, 1e8, g=0)


def test_landscape():
    land = landscape(1e10, 1e9, [8, 64, 256], max_topk=32)
    assert land["rel_loss"].min() == pytest.approx(1.0)
    assert (land["n_topk"] <= land["n_exp"]).all()
    assert (land["total"] <= 1e10 * (1 + 1e-12)).all()
    assert (land["active"] <= 1e9 * (1 + 1e-12)).all()
    assert set(land["binding"]) == {"memory", "inference"}
    with pytest.raises(ValueError):
        landscape(1e10, 1e9, [8], max_topk=0)
    with pytest.raises(ValueError):
        landscape(1e9, 1e10, [8], max_topk=2)


def test_log_budget_key():
    assert log_budget_key([1e9, 10**9.25]).tolist() == [900, 925]
    with pytest.raises(ValueError):
        log_budget_key(0)


# --- Qwen3 example ------------------------------------------------------------------------


def test_qwen3_budgets_and_scan():
    assert checks.budgets("nominal") == (235e9, 22e9)
    total, active = checks.budgets("Eq. 1-2")
    assert total == pytest.approx(94 * 4096**2 * (4 + 3 * 128 * 1536 / 4096))
    assert active == pytest.approx(94 * 4096**2 * (4 + 3 * 8 * 1536 / 4096))
    assert checks.qwen3_granularity() == pytest.approx(8 / 3)
    with pytest.raises(ValueError):
        checks.budgets("guess")
    scan = checks.reading_scan(readings=["nominal"], k_aligns=[64], max_experts=[128, 256])
    assert len(scan) == 3 * 2 * 2
    hit = scan[scan["matches printed totals"]]
    assert set(zip(hit["l"], hit["d"], strict=True)) == {(83, 5312)}
    with pytest.raises(ValueError):
        checks.reading_scan(readings=["nominal"], granularities=["3"])


# --- Eq. 5 (App. C.4) ---------------------------------------------------------------------


def test_chinchilla_loss_values():
    expected = 28 * 1e8**-0.28 + 229 * 1e10**-0.16 + 1.08
    assert chinchilla_loss(1e8, 1e10, "128/8") == pytest.approx(expected)
    assert chinchilla_loss(1e8, 1e10, (128, 8)) == pytest.approx(expected)
    swapped = 28 * 1e8**-0.16 + 229 * 1e10**-0.28 + 1.08
    assert chinchilla_loss(1e8, 1e10, "128/8", swap_exponents=True) == pytest.approx(swapped)
    in_billions = 564 * 0.1**-0.64 + 640_500 * 10**-0.36 + 2.0
    assert chinchilla_loss(1e8, 1e10, "256/16", n_unit=1e9, d_unit=1e9) == pytest.approx(
        in_billions
    )


@pytest.mark.parametrize(
    "args, kwargs",
    [((1e8, 1e10, "64/4"), {}), ((0, 1e10, "128/8"), {}), ((1e8, -1, "128/8"), {}),
     ((1e8, 1e10, "128/8"), {"n_unit": 0}), ((1e8, 1e10, "128/8"), {"d_unit": np.nan})],
)
def test_chinchilla_loss_rejects_invalid(args, kwargs):
    with pytest.raises(ValueError):
        chinchilla_loss(*args, **kwargs)


def test_units_scan_and_gap():
    scan = chinchilla.units_scan((5e7, 3e9), units=(1.0, 1e9))
    assert len(scan) == 2 * 2 * 2
    raw = scan[(scan["n_unit"] == 1) & (scan["d_unit"] == 1)].set_index("config")
    assert raw.loc["128/8", "min_loss"] == pytest.approx(
        float(chinchilla_loss(3e9, 50e9, "128/8"))
    )
    assert (scan["min_loss"] > 3.3).all()  # no unit choice reaches the paper's loss scale
    assert chinchilla.max_gap((5e7, 3e9)) < 0
    assert chinchilla.loss_gap(1e8, 1e10, swap_exponents=True) < 0
    with pytest.raises(ValueError):
        chinchilla.units_scan((3e9, 5e7))
    with pytest.raises(ValueError):
        chinchilla.units_scan((5e7, 3e9), units=())
    with pytest.raises(ValueError):
        chinchilla.max_gap((5e7, 3e9), n_points=1)


# --- tables -------------------------------------------------------------------------------


def test_tables_load_and_table4():
    t4 = tables.table4_totals()
    assert len(t4) == 7
    np.testing.assert_array_equal(t4["ours"], t4["printed"])
    assert tables.read_table("table6")["loss"].iloc[2] == "2.960"  # kept as printed
    with pytest.raises(ValueError):
        tables.read_table("table9")


def test_half_unit():
    assert tables.half_unit("2.960") == pytest.approx(5e-4)
    assert tables.half_unit("1.7") == pytest.approx(0.05)
    with pytest.raises(ValueError):
        tables.half_unit("n/a")


def test_loss_diffs_intervals():
    t6 = tables.loss_diffs("table6")
    assert ((t6["lower"] <= t6["ours"]) & (t6["ours"] <= t6["upper"])).all()
    row = t6[(t6["l"] == 8) & (t6["g"] == 4)].iloc[0]
    assert row["ours"] == pytest.approx(100 * (2.960 / 2.945 - 1))
    assert row["lower"] == pytest.approx(100 * (2.9595 / 2.9455 - 1))
    assert row["printed"] == 0.48 and row["consistent"]
    # six of the eight non-reference differences are missed by the central value, not one
    others = t6[t6["half_width"] > 0]
    assert len(others) == 8 and (~others["central_matches"]).sum() == 6
    assert others.loc[others["printed"] == 1.7, "central_matches"].item()
    assert not row["central_matches"]
    t7 = tables.loss_diffs("table7")
    assert t7.loc[t7["loss_diff_pct"] == "0.00", "ref_loss"].item() == 3.19
    assert t7["consistent"].all()
    with pytest.raises(ValueError):
        tables.loss_diffs("table4")


def test_reference_loss_interval():
    ref = tables.reference_loss_interval("table6")
    assert ref["consistent"].all()
    lo, hi = ref.loc["8x384", ["lower", "upper"]]
    assert 2.9445 <= lo <= hi <= 2.9455
    with pytest.raises(ValueError):
        tables.reference_loss_interval("table4")


def test_table7_param_diffs():
    t = tables.table7_param_diffs()
    np.testing.assert_allclose(t["ours_gamma"], t["gamma"])
    np.testing.assert_allclose(t["ours_total_diff"], t["total_diff_pct"].astype(float),
                               atol=0.005)
    np.testing.assert_allclose(t["ours_active_diff"], t["active_diff_pct"].astype(float),
                               atol=0.005)


# --- Table 3 regression -------------------------------------------------------------------


def _synthetic_runs(noise: float, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    rows = []
    for depth, d in [(6, 288), (8, 384), (10, 640), (16, 1024)]:
        for n, k in toy.PAPER_EXPERTS:
            n_total = total_params(depth, d, n, 4)
            loss = 40 * relative_loss(n_total, n, k) * math.exp(noise * rng.normal())
            rows.append({"N_total": n_total, "N_active": active_params(depth, d, k, 4),
                         "n_exp": n, "n_topk": k, "loss": loss})
    return pd.DataFrame(rows)


def test_regression_recovers_eq3():
    data = _synthetic_runs(noise=1e-4)
    fit = regression.fit_spec(data, ("N_total", "n_exp", "n_topk"))
    np.testing.assert_allclose(fit.coefficients.to_numpy(), [-0.052, 0.023, -0.018], atol=1e-3)
    assert fit.r2 > 0.999
    assert (fit.pvalues < 0.05).all()
    assert fit.condition_number > fit.standardized_condition_number >= 1


def test_table3_frame():
    out = regression.table3(_synthetic_runs(noise=2e-3))
    assert list(out.index) == list(regression.SPECS)
    assert out.loc["log(N_total) + log(n_exp) + log(n_topk)", "paper R2"] == 0.985
    assert out["R2"].between(0, 1).all()
    # the true model beats both single-variable baselines
    best = out.loc["log(N_total) + log(n_exp) + log(n_topk)", "R2"]
    assert best > out.loc["log(N_total) only", "R2"] > out.loc["log(N_active) only", "R2"]
    with pytest.raises(ValueError):
        regression.table3(_synthetic_runs(0.0), alpha=1.5)


def test_regression_rejects_bad_data():
    data = _synthetic_runs(1e-3)
    with pytest.raises(ValueError):
        regression.log_features(data.drop(columns="loss"))
    with pytest.raises(ValueError):
        regression.log_features(data.assign(loss=0.0))
    with pytest.raises(ValueError):
        regression.fit_spec(data, ("N_total", "nonsense"))
    with pytest.raises(ValueError):
        regression.fit_spec(data.head(3), ("N_total", "n_exp", "n_topk"))


def test_regression_refuses_terms_the_runs_do_not_determine():
    """The seed-noise runs repeat two designs of equal sparsity: log(s) is constant there, so
    the specifications with it are not determined (numpy's SVD used to raise LinAlgError)."""
    seeds = toy.load_seed_runs()
    with pytest.raises(ValueError, match=r"constant here: \['s'\].*not determined"):
        regression.fit_spec(seeds, ("N_active", "s"))
    with pytest.raises(ValueError, match="not determined"):
        regression.table3(seeds)
    # collinear, no term constant: at top-2 only, log s = log n_exp - log 2
    top2 = _synthetic_runs(1e-3).query("n_topk == 2")
    with pytest.raises(ValueError, match="constant here: none"):
        regression.fit_spec(top2, ("n_exp", "s"))
    assert regression.fit_spec(top2, ("n_exp", "N_total")).r2 > 0.9
    assert regression.fit_spec(seeds, ("N_total",)).r2 >= 0


# --- toy helpers --------------------------------------------------------------------------


def test_toy_configs():
    cfgs = toy.configs(vocab_size=100)
    assert len(cfgs) == len(toy.TOY_CORES) * len(toy.PAPER_EXPERTS)
    cfg = cfgs[toy.label(2, 64, 256, 16)]
    assert (cfg.n_experts, cfg.top_k, cfg.d_expert, cfg.n_heads) == (256, 16, 16, 4)
    with pytest.raises(ValueError):
        toy.configs(100, cores=[(2, 50)])
    with pytest.raises(ValueError):
        toy.configs(100, experts=[(2, 4)])


def test_toy_load_runs(tmp_path):
    rows = [
        {"label": toy.label(2, 64, n, k), "seed": 0, "steps": toy.STEPS, "vocab_size": 100,
         "n_layers": 2, "d_model": 64, "n_experts": n, "top_k": k, "val_loss": 2.0 + n / 1e3,
         "n_params": 1, "wall_seconds": 1.0}
        for n, k in toy.PAPER_EXPERTS
    ]
    rows.append({**rows[0], "label": "other"})
    path = tmp_path / "runs.csv"
    pd.DataFrame(rows).to_csv(path, index=False)
    runs = toy.load_runs(path)
    assert len(runs) == len(toy.PAPER_EXPERTS)
    assert runs["N_total"].iloc[0] == total_params(2, 64, 32, 4)
    assert (runs["s"] == runs["n_exp"] / runs["n_topk"]).all()
    with pytest.raises(FileNotFoundError):
        toy.load_runs(tmp_path / "missing.csv")


def test_toy_load_seed_runs(tmp_path):
    rows = [
        {"label": toy.label(*run), "seed": seed, "steps": toy.STEPS, "vocab_size": 100,
         "n_layers": run[0], "d_model": run[1], "n_experts": run[2], "top_k": run[3],
         "val_loss": 2.0 + seed / 100, "n_params": 1, "wall_seconds": 1.0}
        for run in toy.SEED_CHECK for seed in toy.EXTRA_SEEDS
    ]
    path = tmp_path / "seeds.csv"
    pd.DataFrame(rows).to_csv(path, index=False)
    seeds = toy.load_seed_runs(path)
    assert set(seeds["seed"]) == {toy.SEED, *toy.EXTRA_SEEDS}
    assert len(seeds) == len(toy.SEED_CHECK) * (1 + len(toy.EXTRA_SEEDS))
    with pytest.raises(FileNotFoundError):
        toy.load_seed_runs(tmp_path / "missing.csv")


def test_toy_load_curves(tmp_path):
    curves = toy.load_curves()
    assert set(curves["label"]) == set(toy.load_runs()["label"])
    last = curves.sort_values("step").groupby("label").tail(1).set_index("label")["val_loss"]
    runs = toy.load_runs().set_index("label")["loss"]
    np.testing.assert_allclose(last.loc[runs.index], runs, rtol=1e-5)
    with pytest.raises(FileNotFoundError):
        toy.load_curves(tmp_path / "missing.curves.csv")


def test_table7_against_eq3_confirms_the_many_expert_gap():
    # Review ch05 #14: Eq. 3 predicts the (103, 16) rows better than the (43, 4) reference,
    # the printed losses make them worse, and the mid-depth (32, 2) row agrees.
    t = checks.table7_against_eq3().set_index(["l", "d"])
    assert t.loc[(8, 336), "eq3"] == 0
    many = t[t["n_exp"] == 103]
    assert (many["eq3"] < -0.4).all() and (many["lower"] > 1.2).all()
    assert not many["eq3_in_interval"].any()
    assert t.loc[(8, 384), "eq3_in_interval"] and 0.5 < t.loc[(8, 384), "eq3"] < 0.53
    # Eq. 3 by hand for one row: (8, 224, 103, 16) against (8, 336, 43, 4), g = 4.
    def eq3(l_, d_, n, k):
        return (l_ * d_**2 * (4 + 3 * n / 4)) ** -0.052 * n**0.023 * k**-0.018
    by_hand = 100 * (eq3(8, 224, 103, 16) / eq3(8, 336, 43, 4) - 1)
    assert t.loc[(8, 224), "eq3"] == pytest.approx(by_hand, rel=1e-9)


def test_chinchilla_relative_gap_and_rounding_corners():
    box = (float(total_params(6, 288, 128)), float(total_params(16, 1024, 256)))
    lo, hi = checks.relative_gap_range(box, swap_exponents=True)
    # Review ch05 #5: (128, 8) lower everywhere, by 1.6-7.7 %, far above Eq. 4's 0.35 %.
    assert -0.08 < lo < -0.07 and -0.017 < hi < -0.015
    assert -hi / (2**0.005 - 1) > 4
    corners = checks.rounding_corners(float(total_params(8, 384, 128)), 9e9, "128/8",
                                      swap_exponents=True)
    central = float(chinchilla.chinchilla_loss(total_params(8, 384, 128), 9e9, "128/8",
                                               swap_exponents=True))
    assert corners.shape == (32,) and corners.min() < central < corners.max()
    assert corners.max() / central - 1 > 0.03
    with pytest.raises(ValueError):
        checks.relative_gap_range((2.0, 1.0))
    with pytest.raises(ValueError):
        checks.rounding_corners(-1.0, 9e9, "128/8")


def test_printed_qwen3_totals_need_a_reading_chosen_to_match():
    # Review ch05 #3: few readings give App. C.3's 234B/21.7B, all at g = 4 and n_exp <= 128,
    # and the literal integer grid over [32, 64] never does.
    scan = checks.reading_scan()
    hits = scan[scan["matches printed totals"]]
    assert 0 < len(hits) <= len(scan) // 10
    assert (hits["g"] == "4 (Algorithm 1)").all() and (hits["max n_exp"] == 128).all()
    assert (hits["Γ"] != "32, 33, ..., 64").all()


def test_optimize_is_swept_by_the_property_tests() -> None:
    from test_properties import LAWS

    assert "constrained.optimize" in {name for name, *_ in LAWS}


def test_read_table_reads_every_listed_table_as_a_fresh_copy():
    for name in tables.TABLES:
        first = tables.read_table(name)
        assert len(first) > 0
        first.columns = ["edited"] * first.shape[1]  # a caller's edit must not reach the next
        assert "edited" not in tables.read_table(name).columns
    with pytest.raises(ValueError, match="unknown table"):
        tables.read_table("refit_recovery")
