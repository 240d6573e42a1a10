"""Chapter 7 like for like: granularities at a fixed activated width, MLA counted by its
weights, verdicts only inside fitted domains, compute-optimal answers in one FLOP count."""

from __future__ import annotations

import math

import pytest

from moelaws import arch, conventions, papers
from moelaws import comprehensive as cl
from moelaws.compare import compute_optimal, granularity, mla
from moelaws.comprehensive.counting import comprehensive_counts
from moelaws.comprehensive.law import constants
from moelaws.comprehensive.tables import industrial_models
from moelaws.leverage.law import TABLE6

OUTSIDE = "outside what this law was fitted on"

# --- granularity -------------------------------------------------------------------------


def test_optima_from_the_papers_equations() -> None:
    # Eq. 4: the exponent's G part γ·(log2 G)² + β·log2 G is smallest at log2 G = −β/(2γ).
    g_star = 2 ** (-TABLE6["beta"] / (2 * TABLE6["gamma"]))
    # Eq. 12: e·G + f/G is smallest at √(f/e).
    p = constants()
    g_opt = math.sqrt(p["f"] / p["e"])
    table = granularity.optima()
    assert table.loc["leverage", "optimum (own definition)"] == pytest.approx(g_star)
    assert table.loc["comprehensive", "optimum (own definition)"] == pytest.approx(g_opt)
    assert g_star == pytest.approx(11.34, abs=0.01) and g_opt == pytest.approx(6.78, abs=0.01)


def test_translate_through_the_expert_width() -> None:
    # DeepSeek-V3: d/d_e = 3.5, 8 routed + 1 shared active: w = 9·2048/7168.
    cfg = arch.preset("DeepSeek-V3")
    w = (cfg.top_k + cfg.n_shared) * cfg.d_expert / cfg.d_model
    lev_g = conventions.granularity(cfg, "leverage")
    assert granularity.translate(lev_g, "leverage", "comprehensive", w) == pytest.approx(
        conventions.granularity(cfg, "comprehensive"))
    assert granularity.translate(lev_g, "leverage", "constrained", w) == pytest.approx(
        conventions.granularity(cfg, "constrained"))
    back = granularity.translate(granularity.translate(5.0, "comprehensive", "leverage", 3.0),
                                 "leverage", "comprehensive", 3.0)
    assert back == pytest.approx(5.0)
    with pytest.raises(ValueError, match="width"):
        granularity.translate(5.0, "leverage", "comprehensive", 0.0)
    with pytest.raises(ValueError, match="unknown granularity"):
        granularity.translate(5.0, "holistic", "leverage", 3.0)


def test_every_paper_varied_granularity_at_a_fixed_activated_width() -> None:
    widths = granularity.fitted_widths()
    # Table 9 rounds d_expert (e.g. 170 for 512/3), hence 2.98 rather than 3.
    assert widths.loc["leverage", "w low"] == pytest.approx(3.0, abs=0.02)
    assert widths.loc["leverage", "w high"] == pytest.approx(3.0)
    assert widths.loc["comprehensive", "w low"] == pytest.approx(10 / 3)
    assert widths.loc["comprehensive", "w high"] == pytest.approx(3.75)
    assert widths.loc["constrained", ["w low", "w high"]].tolist() == [2.0, 2.0]


def test_the_two_granularity_optima_conflict_inside_both_domains() -> None:
    cross = granularity.optimum_crosswalk(3.0)
    assert cross.loc["leverage", "G_comp = n_k+n_s"] == pytest.approx(17.0, abs=0.01)
    assert cross.loc["comprehensive", "G_lev = 2d/d_e"] == pytest.approx(4.52, abs=0.01)
    ratio = cross.loc["leverage", "G_comp = n_k+n_s"] / cross.loc["comprehensive",
                                                                   "G_comp = n_k+n_s"]
    assert ratio == pytest.approx(2.51, abs=0.01)
    inside = cross.loc[["leverage", "comprehensive"],
                       ["inside leverage's fitted G", "inside comprehensive's fitted G"]]
    assert inside.all().all()
    # A width far from both papers' would reconcile them: the conflict is at w = 3, not always.
    w_star = 2 * cl.optimal_G() / 11.337
    assert granularity.translate(11.337, "leverage", "comprehensive", w_star) == pytest.approx(
        cl.optimal_G(), rel=1e-4)


def test_each_law_prices_the_others_optimum() -> None:
    costs = granularity.cross_costs(3.0)
    comp, lev = costs.iloc[0], costs.iloc[1]
    assert comp["cost"] == pytest.approx(0.0143, abs=2e-4)  # nats, against a 0.001 tolerance
    assert lev["cost"] == pytest.approx(0.0858, abs=2e-3)  # fraction of EL lost
    assert comp["cost"] > 0.001 and lev["cost"] > 0.05


# --- MLA counted by its weights --------------------------------------------------------------


def test_mla_counted_as_multi_head_inflates_deepseek() -> None:
    cfg = arch.preset("DeepSeek-V3")
    eq2 = comprehensive_counts(cfg, attention="eq2").active
    weights = comprehensive_counts(cfg, attention="weights").active
    assert eq2 / 1e9 == pytest.approx(67.16, abs=0.01)
    assert weights / 1e9 == pytest.approx(35.59, abs=0.01)
    # With the embeddings, the paper's own Table 4 figure (37B, the model card's).
    table4 = industrial_models().set_index("model")
    printed = float(table4.filter(like="Deepseek", axis=0)["Na"].iloc[0])
    assert (weights + arch.counts(cfg, "exact").embedding) / printed == pytest.approx(1, abs=0.02)
    # For multi-head attention the two counts coincide (Eq. 2 is exact there).
    olmoe = arch.preset("OLMoE-1B-7B")
    assert olmoe.kv_heads == olmoe.n_heads and olmoe.mla is None
    assert comprehensive_counts(olmoe, attention="weights").active == comprehensive_counts(
        olmoe, attention="eq2").active
    with pytest.raises(ValueError, match="attention"):
        comprehensive_counts(cfg, attention="mha")


def test_deepseek_s_verdict_came_from_the_mla_count() -> None:
    verdict = papers.get("comprehensive").verdict
    cfg = arch.preset("DeepSeek-V3")
    eq2, weights = verdict(cfg, 14.8e12, attention="eq2"), verdict(cfg, 14.8e12)
    assert eq2["S position"] == "below" and weights["S position"] == "inside"
    assert weights["S verdict"] == OUTSIDE  # 669B parameters: far beyond Table 8
    assert not weights["in fitted domain (G, S, N_a/N)"]


# --- constrained: Eq. 3 only at g = 4 --------------------------------------------------------


# --- compute-optimal answers in one FLOP count ------------------------------------------------


def test_answers_spend_the_same_common_compute() -> None:
    table = compute_optimal.answers(1e23, 3.5e11)
    # Table 5 fits M and D separately, so its product is C to 0.1 %.
    assert table["6·N_a·D common / C"].to_numpy() == pytest.approx(1.0, abs=1e-3)
    assert table.loc["comprehensive", "κ = own compute per token / 6N_a"] == 1.0
    assert table.loc["holistic", "6·N_a·D own / C"] < 0.9  # its M counts attention too
    assert not table["own inside fitted domain"].any()


def test_the_spread_in_d_is_mostly_substance() -> None:
    table = compute_optimal.answers(1e23, 3.5e11)
    split = compute_optimal.disagreement_table(1e23, 3.5e11, table)
    d = split[split["quantity"] == "D (tokens)"].sort_values("ratio A/B (own)").iloc[-1]
    assert (d["paper A"], d["paper B"]) == ("comprehensive", "holistic")
    assert d["ratio A/B (own)"] == pytest.approx(1.817, abs=2e-3)
    assert d["part due to counting"] == pytest.approx(1.066, abs=2e-3)
    assert d["part due to substance"] == pytest.approx(1.705, abs=2e-3)
    assert (split["part due to counting"] * split["part due to substance"]).to_numpy() == (
        pytest.approx(split["ratio A/B (own)"].to_numpy()))


def test_inside_all_domains_the_papers_disagree_more() -> None:
    table = compute_optimal.answers(3e19, 1e9)
    assert table["own inside fitted domain"].all() and table["common inside fitted domain"].all()
    split = compute_optimal.disagreement_table(3e19, 1e9, table)
    d = split[split["quantity"] == "D (tokens)"].sort_values("ratio A/B (own)").iloc[-1]
    assert d["ratio A/B (own)"] == pytest.approx(4.49, abs=0.01)
    assert d["part due to counting"] == pytest.approx(1.19, abs=0.01)
    assert table.loc["leverage", "κ = own compute per token / 6N_a"] == pytest.approx(2.14,
                                                                                     abs=0.01)


def test_split_rejects_non_positive_values() -> None:
    with pytest.raises(ValueError, match="positive"):
        compute_optimal.split("D", "a", 1.0, 0.0, "b", 1.0, 1.0)
    with pytest.raises(ValueError, match="positive"):
        compute_optimal.answers(-1.0, 1e9)


# --- MLA in the leverage and allocation counts (review of chapter 7, finding 1) ----------


def test_mla_recount_moves_only_mla_models() -> None:
    for name, cfg in arch.PRESETS.items():
        if not cfg.is_moe or cfg.mla is not None:
            continue
        assert mla.attention_flops(cfg, "allocation") == pytest.approx(
            conventions.counts(cfg, "allocation").attention_flops, rel=1e-12), name
        assert mla.attention_flops(cfg, "leverage") == pytest.approx(
            conventions.counts(cfg, "leverage").attention_flops, rel=1e-12), name


def test_deepseek_mla_attention_by_hand() -> None:
    ds = arch.preset("DeepSeek-V3")
    # Real projection shapes (config.json): q_a, q_b, kv_a, kv_b, o; context terms at 4096.
    weights = (7168 * 1536 + 1536 * 128 * 192 + 7168 * 576 + 512 * 128 * 256
               + 128 * 128 * 7168)
    mixing = 2 * 4096 * 128 * 192 + 2 * 4096 * 128 * 128
    assert mla.attention_flops(ds, "allocation") / 61 == pytest.approx(2 * weights + mixing,
                                                                     rel=1e-12)
    assert 2 * weights + mixing == pytest.approx(0.709e9, rel=2e-3)
    # App. I: no output projection, printed 4·s·d context term.
    lev_layer = 2 * (weights - 128 * 128 * 7168) + 4 * 4096 * 7168
    assert mla.attention_flops(ds, "leverage") / 61 == pytest.approx(lev_layer, rel=1e-12)
    # Read as d·n_h·d_head, App. C counts 2.55x this attention.
    assert conventions.counts(ds, "allocation").attention_flops / mla.attention_flops(
        ds, "allocation") == pytest.approx(2.553, abs=2e-3)


def test_mla_recount_changes_the_allocation_headline() -> None:
    t = mla.real_attention_table(["DeepSeek-V3", "Kimi-K2", "Qwen3-30B-A3B"])
    assert t.loc["DeepSeek-V3", "r (as printed)"] == pytest.approx(0.439, abs=1e-3)
    assert t.loc["DeepSeek-V3", "r (real MLA)"] == pytest.approx(1.122, abs=1e-3)
    assert t.loc["DeepSeek-V3", "attention share (real MLA)"] == pytest.approx(0.471, abs=1e-3)
    assert 1 / t.loc["DeepSeek-V3", "r/r* (as printed)"] == pytest.approx(8.40, abs=0.01)
    assert 1 / t.loc["DeepSeek-V3", "r/r* (real MLA)"] == pytest.approx(3.09, abs=0.01)
    assert t.loc["Kimi-K2", "r/r* (real MLA)"] == pytest.approx(0.669, abs=1e-3)
    # Without MLA nothing moves, so Qwen3-30B-A3B sets the new top of "more expert compute".
    assert t.loc["Qwen3-30B-A3B", "r/r* (real MLA)"] == t.loc["Qwen3-30B-A3B", "r/r* (as printed)"]
    assert t["r/r* (real MLA)"].idxmin() == "Qwen3-30B-A3B"
    # The leverage M of DeepSeek-V3 and its EL (Eq. 4) at 14.8T tokens.
    assert t.loc["DeepSeek-V3", "M (real MLA)"] / 1e9 == pytest.approx(192.5, abs=0.1)
    assert t.loc["DeepSeek-V3", "EL (real MLA)"] == pytest.approx(11.69, abs=0.01)


# --- fitted sparsity of the G sweeps and the comprehensive fitting rows (findings 3, 5) ---


def test_g_sweeps_ran_at_different_sparsities() -> None:
    sp = granularity.fitted_sparsities()
    assert sp.loc["leverage", "low"] == sp.loc["leverage", "high"] == pytest.approx(3 / 65)
    assert sp.loc["comprehensive", "median"] == pytest.approx(0.1715, abs=1e-3)
    assert sp.loc["comprehensive", "median"] > 3 * sp.loc["leverage", "high"]


def test_leverage_side_cost_depends_on_the_activation_ratio() -> None:
    costs = [float(granularity.cross_costs(3.0, A=a).iloc[1]["cost"])
             for a in (0.031, 0.078, 0.2)]
    assert costs == pytest.approx([0.0858, 0.0671, 0.0440], abs=5e-4)

