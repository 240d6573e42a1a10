"""The cross-paper comparison: tokens, fitted ranges, verdicts, recommendations, counts."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from moelaws import allocation as al
from moelaws import arch, conventions, papers
from moelaws import comprehensive as cl
from moelaws import constrained as con
from moelaws import holistic as h
from moelaws import leverage as lev
from moelaws.allocation.counting import expert_attention_ratio
from moelaws.compare import (
    compute_optimal,
    counting,
    granularity,
    mla,
    recommend,
    regimes,
    tokens,
    verdicts,
)
from moelaws.comprehensive.counting import comprehensive_counts
from moelaws.comprehensive.law import constants
from moelaws.constrained import paper as constrained_paper
from moelaws.leverage.law import TABLE6
from moelaws.leverage.tables import configs

# --- tokens and fitted ranges ----------------------------------------------------------------


def test_published_tokens_and_unpublished_ones() -> None:
    assert tokens.training_tokens("deepseek-v3").tokens == 14.8e12
    assert tokens.training_tokens("Kimi-K2").tokens == 15.5e12
    assert tokens.training_tokens("Qwen3-30B-A3B").tokens == 36e12
    assert tokens.training_tokens("MoE-mini").tokens == 1e12
    for name in ("Mixtral-8x7B", "gpt-oss-120b", "gpt-oss-20b"):
        assert tokens.training_tokens(name).tokens is None
    assert set(tokens.PUBLISHED_TOKENS) == set(arch.PRESETS)


def test_assumed_tokens_override_and_are_marked() -> None:
    tok = tokens.training_tokens("Mixtral-8x7B", {"mixtral-8x7b": 8e12})
    assert tok.tokens == 8e12 and tok.assumed
    with pytest.raises(ValueError, match="positive"):
        tokens.training_tokens("Mixtral-8x7B", {"Mixtral-8x7B": -1.0})
    with pytest.raises(ValueError, match="unknown preset"):
        tokens.training_tokens("GPT-5")


def test_fitted_ranges_come_from_the_tables() -> None:
    ranges = regimes.fitted_ranges()
    assert ranges["leverage"]["C"].low == 2e18 and ranges["leverage"]["C"].high == 6e20
    assert ranges["holistic"]["C"].high == 3e20
    assert ranges["comprehensive"]["N"].high == pytest.approx(30.249e9)
    assert ranges["allocation"]["S"].low == pytest.approx(14 / 17)


def test_flags() -> None:
    assert regimes.flags("holistic", C=1e20) == []
    (line,) = regimes.flags("holistic", C=1e24)
    assert "above the fitted range" in line
    assert regimes.flags("holistic", C=math.nan) == []
    assert regimes.flags("leverage", S=0.1) == []  # no range for S: ignored
    with pytest.raises(ValueError, match="unknown paper"):
        regimes.flags("chinchilla", C=1.0)


# --- verdicts equal what the chapter modules compute directly --------------------------------


def test_leverage_verdict_is_eq4_at_training_compute() -> None:
    cfg = arch.preset("DeepSeek-V3")
    row = papers.get("leverage").verdict(cfg, 14.8e12)
    C = conventions.counts(cfg, "leverage").compute_per_token * 14.8e12
    A = (8 + 1) / (256 + 1)
    G = 2 * 7168 / 2048
    assert row["C (FLOPs)"] == pytest.approx(C)
    assert row["EL"] == pytest.approx(float(lev.efficiency_leverage(A, G, C)))
    assert row["EL (A = E_a/E)"] == pytest.approx(float(lev.efficiency_leverage(8 / 256, G, C)))
    assert row["D_opt (Table 5)"] == pytest.approx(5.2232 * C**0.4905)
    assert any("above the fitted range" in f for f in row["flags"])
    assert "MLA" in row["caveat"]


def test_verdicts_without_tokens_are_nan_not_invented() -> None:
    cfg = arch.preset("Mixtral-8x7B")
    assert math.isnan(papers.get("leverage").verdict(cfg, None)["EL"])
    assert math.isnan(papers.get("allocation").verdict(cfg, None)["r*"])
    assert math.isnan(papers.get("holistic").verdict(cfg, None)["M_opt"])
    row = papers.get("comprehensive").verdict(cfg, None)
    assert math.isnan(row["ΔL to compute optimum at fixed N, C"])
    assert row["ΔL from G"] > 0  # G = 2 is far below G_opt: computable without D
    assert "unpublished" in row["caveat"]


def test_comprehensive_gaps_do_not_depend_on_tokens() -> None:
    cfg = arch.preset("Qwen3-30B-A3B")
    a = papers.get("comprehensive").verdict(cfg, 1e12)
    b = papers.get("comprehensive").verdict(cfg, 36e12)
    for key in ("ΔL from G", "ΔL from S", "ΔL to optimum at fixed N, D"):
        assert a[key] == pytest.approx(b[key], abs=1e-12)
    c = comprehensive_counts(cfg, attention="weights")
    direct = cl.loss(c.total, 36e12, c.active, 8, 0.0) - cl.loss(
        c.total, 36e12, c.active, cl.optimal_G(), 0.0)
    assert b["ΔL from G"] == pytest.approx(float(direct))
    assert b["S verdict"] == "below"  # no shared expert: S = 0 < S_opt − half-width
    assert b["N_a* at C"] == pytest.approx(float(cl.compute_optimal_active(
        36e12 * c.active, c.total, cl.optimal_G(), cl.optimal_S())))


def test_constrained_verdict_runs_algorithm_1_on_the_models_budgets() -> None:
    cfg = arch.preset("Qwen3-235B-A22B")
    row = papers.get("constrained").verdict(cfg, None)
    c = conventions.counts(cfg, "constrained")
    design = con.optimize(c.total, c.active, 64)
    assert row["routine (l, d, n_exp, n_topk)"] == (design.l, design.d, design.n_exp,
                                                    design.n_topk)
    assert row["real (l, d, n_exp, n_topk)"] == (94, 4096, 128, 8)
    expected = design.loss / float(con.relative_loss(c.total, 128, 8)) - 1
    assert row["Eq. 3 loss change"] == pytest.approx(expected)


def test_constrained_grid_extends_when_128_experts_cannot_fit() -> None:
    cfg = arch.preset("gpt-oss-120b")
    c = conventions.counts(cfg, "constrained")
    with pytest.raises(ValueError, match="no configuration fits"):
        con.optimize(c.total, c.active, 64)
    assert constrained_paper.expert_grid(cfg, c.total, c.active)[-1] == 256
    assert constrained_paper.expert_grid(arch.preset("Kimi-K2"), 1e12, 3e10)[-1] >= 512


def test_holistic_verdict_matches_the_design_pipeline() -> None:
    cfg = arch.preset("Qwen3-30B-A3B")
    row = papers.get("holistic").verdict(cfg, 36e12)
    C = conventions.counts(cfg, "holistic").compute_per_token * 36e12
    assert row["M_opt"] == pytest.approx(float(h.optimal_flops_per_token(C)))
    assert row["design d"] == h.design_report(C).config.d_model
    big = papers.get("holistic").verdict(arch.preset("DeepSeek-V3"), 14.8e12)
    assert math.isnan(big["design d"]) and math.isfinite(big["M_opt"])
    assert "design domain" in big["caveat"]


def test_allocation_verdict_is_eq1() -> None:
    cfg = arch.preset("OLMoE-1B-7B")
    row = papers.get("allocation").verdict(cfg, 5e12)
    split = al.flops_split(cfg)
    C = split["training_flops_per_token"] * 5e12
    assert row["S"] == pytest.approx(1 - 8 / 64)
    assert row["r*"] == pytest.approx(float(al.optimal_ratio(C, 1 - 8 / 64)))
    assert row["r = C_E/C_A"] == pytest.approx(expert_attention_ratio(cfg))


def test_dense_configurations_are_rejected() -> None:
    with pytest.raises(ValueError, match="dense"):
        papers.get("leverage").verdict(arch.preset("Dense-6.1B"), 1e12)


def test_question_table_and_tidy_verdicts() -> None:
    table = verdicts.question_table("allocation", assumed_tokens={"gpt-oss-20b": 5e12})
    assert list(table.index) == verdicts.moe_presets()
    assert math.isfinite(table.loc["gpt-oss-20b", "r*"])
    assert table.loc["gpt-oss-20b", "tokens source"].startswith("ASSUMED")
    assert math.isnan(table.loc["gpt-oss-120b", "r*"])
    tidy = verdicts.verdicts(["OLMoE-1B-7B", "MoE-mini"])
    assert set(tidy["paper"]) == set(papers.ids("verdict"))
    assert {"model", "paper", "quantity", "value", "convention", "caveat", "flags"} == set(tidy)
    el = tidy[(tidy["model"] == "MoE-mini") & (tidy["quantity"] == "EL")]["value"].item()
    assert el == pytest.approx(papers.get("leverage").verdict(arch.preset("MoE-mini"), 1e12)["EL"])
    assert (tidy["quantity"] == "G range (0.001) [low]").any()
    with pytest.raises(ValueError, match="unknown paper"):
        verdicts.question_table("chinchilla")


# --- recommendations -------------------------------------------------------------------------


def _by_paper(recs: list[recommend.Recommendation]) -> dict[str, recommend.Recommendation]:
    return {r.paper: r for r in recs}


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({}, "at least one budget"),
        ({"compute": -1.0}, "positive"),
        ({"compute": 0.0}, "positive"),
        ({"compute": math.inf}, "positive"),
        ({"compute": "1e22"}, "number"),
        ({"total_params": 1e9, "active_params": 2e9}, "exceeds"),
        ({"compute": 1e22, "sparsity": 1.0}, "sparsity"),
    ],
)
def test_recommend_rejects_bad_budgets(kwargs: dict, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        recommend.recommend(**kwargs)


def test_not_applicable_reasons() -> None:
    recs = _by_paper(recommend.recommend(compute=1e22))
    assert recs["constrained"].applicable is False
    assert "--total-params and --active-params" in recs["constrained"].reason
    assert "--total-params" in recs["comprehensive"].reason
    assert all(recs[p].applicable for p in ("leverage", "holistic", "allocation"))
    only_memory = _by_paper(recommend.recommend(total_params=3e11, active_params=2e10))
    assert "--compute" in only_memory["holistic"].reason
    assert only_memory["constrained"].applicable and only_memory["comprehensive"].applicable
    too_big = _by_paper(recommend.recommend(compute=1e26))
    assert not too_big["holistic"].applicable and "design domain" in too_big["holistic"].reason


def test_holistic_recommendation_hits_its_targets_within_5_percent() -> None:
    C = 1e22
    rec = _by_paper(recommend.recommend(compute=C))["holistic"]
    c = conventions.counts(rec.config, "holistic")
    m_opt = float(h.optimal_flops_per_token(C))
    assert c.compute_per_token == pytest.approx(m_opt, rel=0.05)
    assert c.compute_per_token / c.active == pytest.approx(float(h.optimal_m_over_na(C)),
                                                           rel=0.05)
    assert rec.checks["compute per token (holistic)"] == c.compute_per_token
    assert rec.ratios["N/N_a (holistic)"] == pytest.approx(float(h.chosen_n_over_na(C)),
                                                           rel=0.05)


def test_constrained_recommendation_fits_both_budgets() -> None:
    total, active = 235e9, 22e9
    rec = _by_paper(recommend.recommend(compute=1e24, total_params=total,
                                        active_params=active))["constrained"]
    c = conventions.counts(rec.config, "constrained")
    assert c.total <= total and c.active <= active
    assert c.total == rec.values["N_total (Eq. 1)"] and c.active == rec.values["N_active (Eq. 2)"]
    assert c.total > 0.9 * total
    # The paper's own Qwen3 example (App. C.3, our reading): (83, 5312, 128, 7).
    assert (rec.values["l"], rec.values["d"], rec.values["n_exp"], rec.values["n_topk"]) == (
        83, 5312, 128, 7)


def test_leverage_comprehensive_allocation_values() -> None:
    C, N = 1e23, 3e11
    recs = _by_paper(recommend.recommend(compute=C, total_params=N, active_params=2e10))
    lv = recs["leverage"].values
    assert lv["M_opt (FLOPs/token)"] == pytest.approx(0.1915 * C**0.5095)
    assert lv["G* = 2d/d_e"] == pytest.approx(2 ** (0.117 / (2 * 0.0167)))
    cp = recs["comprehensive"].values
    assert cp["N_a* at C (App. G)"] == pytest.approx(
        float(cl.compute_optimal_active(C / 6, N, 7.0, 0.31)))
    assert cp["given N_a/N verdict"] == "inside"
    assert recs["comprehensive"].config is None and "routed experts" in recs[
        "comprehensive"].open_fields
    assert recs["allocation"].values["r* = C_E/C_A"] == pytest.approx(
        float(al.optimal_ratio(C, 62 / 65)))
    assert any("above" in f for f in recs["allocation"].flags)


def test_recommendations_serialise_to_strict_json() -> None:
    recs = recommend.recommend(compute=1e21, total_params=5e10, active_params=4e9)
    text = json.dumps([r.as_dict() for r in recs], allow_nan=False)
    back = json.loads(text)
    assert [r["paper"] for r in back] == list(papers.ids("recommend"))
    assert back[1]["config"]["n_experts"] == 288


# --- counts under every convention -----------------------------------------------------------


def test_load_config_from_preset_and_json(tmp_path) -> None:
    cfg = arch.preset("DeepSeek-V3")
    assert counting.load_config("deepseek-v3") == cfg
    path = tmp_path / "ds.json"
    path.write_text(json.dumps(cfg.to_dict()))
    assert counting.load_config(str(path)) == cfg


@pytest.mark.parametrize(
    ("content", "match"),
    [
        ("{not json", "not valid JSON"),
        ('{"n_layers": 2, "d_model": 64, "n_heads": 4, "colour": 1}', "unknown configuration"),
        ('{"n_layers": -2, "d_model": 64, "n_heads": 4}', "n_layers"),
        ('{"n_layers": 2, "d_model": 64}', "invalid configuration"),
        ('[1, 2]', "JSON object"),
        ('{"n_layers": 2, "d_model": 64, "n_heads": 4, "mla": {"rank": 3}}', "invalid"),
    ],
)
def test_load_config_rejects_bad_json(tmp_path, content: str, match: str) -> None:
    path = tmp_path / "bad.json"
    path.write_text(content)
    with pytest.raises(ValueError, match=match):
        counting.load_config(str(path))


def test_load_config_missing_file_and_unknown_preset(tmp_path) -> None:
    with pytest.raises(ValueError, match="no such configuration file"):
        counting.load_config(str(tmp_path / "missing.json"))
    with pytest.raises(ValueError, match="Mixtral-8x7B"):
        counting.load_config("Mixtral-9x9B")


def test_counts_report_equals_arch_counts() -> None:
    cfg = arch.preset("Mixtral-8x7B")
    data = counting.counts_report(cfg)
    assert set(data["counts"]) == set(conventions.names())
    for conv in conventions.names():
        c = conventions.counts(cfg, conv)
        assert data["counts"][conv]["total"] == c.total
        assert data["counts"][conv]["active"] == c.active
    assert data["counts"]["constrained"]["forward_flops"] is None
    assert data["ratios"]["s = n_exp/n_topk (constrained)"] == 4.0
    assert np.isclose(data["ratios"]["r = C_E/C_A (allocation)"],
                      expert_attention_ratio(cfg))
    json.dumps(data, allow_nan=False)


# --- the chapter's card and calculator grid --------------------------------------------------


def test_convention_card_values_come_from_arch() -> None:
    from moelaws.compare import card

    cfg = arch.preset("DeepSeek-V3")
    table = card.convention_card(cfg)
    assert list(table.index) == list(papers.ids("card"))
    assert table.loc["comprehensive", "N_a (B)"] == pytest.approx(
        conventions.counts(cfg, "comprehensive").active / 1e9)
    assert table.loc["allocation", "r / sparsity value"] == pytest.approx(
        expert_attention_ratio(cfg))
    assert table.loc["constrained", "G value"] == 3.5
    with pytest.raises(ValueError, match="dense"):
        card.convention_card(arch.preset("Dense-6.1B"))


def test_calculator_grid_has_one_row_per_slider_setting() -> None:
    from moelaws.compare import calculator

    grid = calculator.calculator_grid(progress=False)
    n_c, n_n, n_r = len(calculator.LOG_C), len(calculator.LOG_N), len(calculator.ACTIVE_PCT)
    counts = grid["paper"].value_counts()
    assert counts["leverage"] == counts["holistic"] == counts["allocation"] == n_c
    assert counts["comprehensive"] == n_c * n_n and counts["constrained"] == n_n * n_r
    hol = grid[(grid["paper"] == "holistic") & (grid["kC"] == 2500)]
    assert hol["text"].item().startswith("not applicable")  # 1e25 is outside the domain
    lev_row = grid[(grid["paper"] == "leverage") & (grid["kC"] == 2200)]
    assert lev_row["D"].item() == pytest.approx(5.2232 * 1e22**0.4905)


def test_calculator_chart_binds_three_sliders_to_the_grid() -> None:
    from moelaws.compare import calculator

    grid = calculator.calculator_grid(progress=False)
    spec = calculator.calculator_chart(grid, papers.ids("calculator")).to_dict()
    params = {p["name"]: p for p in spec["params"]}
    assert set(params) == {"logC", "logN", "pct"}
    assert params["logC"]["bind"]["min"] == calculator.LOG_C[0]
    assert params["pct"]["bind"]["options"] == list(calculator.ACTIVE_PCT)
    with pytest.raises(ValueError, match="calculator_grid"):
        calculator.calculator_chart(grid.drop(columns="text"), papers.ids("calculator"))


def test_recommendation_table_lines_and_arch_checks() -> None:
    from moelaws.compare.report import recommendation_table

    recs = recommend.recommend(1e22)
    table = recommendation_table(recs)
    assert list(table.index) == [r.paper for r in recs]
    assert table.loc["constrained", "recommendation"].startswith("n/a: ")
    holistic = next(r for r in recs if r.paper == "holistic")
    assert f"N {holistic.checks['total'] / 1e9:.1f}B" in table.loc["holistic", "recommendation"]
    assert table.loc["leverage", "recommendation"].endswith("[!]")  # 1e22 > fitted 6e20
    with pytest.raises(ValueError, match="n_values"):
        recommendation_table(recs, n_values=0)


# --- like for like (chapter 7; moved whole from tests/test_like_for_like.py): granularities at
# a fixed activated width, MLA counted by its weights, compute-optimal answers in one FLOP count


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


def test_answers_spend_the_same_common_compute() -> None:
    table = compute_optimal.answers(1e23, 3.5e11)
    # Table 5 fits M and D separately, so its product is C to 0.1 %.
    assert table["6·N_a·D common / C"].to_numpy() == pytest.approx(1.0, abs=1e-3)
    assert table.loc["comprehensive", "κ = own compute per token / 6N_a"] == 1.0
    assert table.loc["holistic", "6·N_a·D own / C"] < 0.9  # its M counts attention too
    assert not table["own inside fitted or validated ranges"].any()


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
    assert table["own inside fitted or validated ranges"].all()
    assert table["common inside fitted or validated ranges"].all()
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


def test_g_sweeps_ran_at_different_sparsities() -> None:
    sp = granularity.fitted_sparsities()
    assert sp.loc["leverage", "low"] == sp.loc["leverage", "high"] == pytest.approx(3 / 65)
    assert sp.loc["comprehensive", "median"] == pytest.approx(0.1715, abs=1e-3)
    assert sp.loc["comprehensive", "median"] > 3 * sp.loc["leverage", "high"]


def test_leverage_side_cost_depends_on_the_activation_ratio() -> None:
    costs = [float(granularity.cross_costs(3.0, A=a).iloc[1]["cost"])
             for a in (0.031, 0.078, 0.2)]
    assert costs == pytest.approx([0.0858, 0.0671, 0.0440], abs=5e-4)


# --- the allocation paper's transcription of the leverage paper's Table 12 --------------------


def test_allocation_table12_equals_the_leverage_chapters_transcription() -> None:
    t12 = al.read_table("leverage_table12")
    leverage = configs(12)
    cols = ["n_layers", "d_model", "d_expert", "n_heads", "n_kv_heads"]
    assert (leverage[cols].to_numpy() == t12[cols].to_numpy()).all()


@pytest.mark.parametrize("convention", ["allocation", "leverage", "holistic"])
def test_sliding_window_layers_count_their_window_in_every_papers_context_terms(
        convention: str) -> None:
    """gpt-oss attends over a 128-token window in half its layers: each paper's context terms,
    generalised, count what each layer attends to (as the exact count does), and a model
    without such layers is counted as before. Checked against a full-context copy: the
    attention FLOPs fall by exactly the context term per key saved."""
    oss = arch.preset("gpt-oss-120b")
    assert oss.n_sliding_layers and oss.sliding_window < oss.context_length
    full = oss.replace(n_sliding_layers=0, sliding_window=None)
    saved_keys = oss.n_sliding_layers * (oss.context_length - oss.sliding_window)
    q_width = oss.n_heads * oss.attn_head_dim
    per_key = {"allocation": 4.0 * q_width, "leverage": 4.0 * oss.d_model,
               "holistic": 2.0 * q_width}[convention]
    windowed, whole = conventions.counts(oss, convention), conventions.counts(full, convention)
    assert whole.attention_flops - windowed.attention_flops == pytest.approx(
        per_key * saved_keys, rel=1e-12)
    assert windowed.total == whole.total and windowed.active == whole.active
    if convention == "allocation":  # and the literal d = d_model reading of App. C
        from moelaws.allocation.counting import expert_attention_ratio

        ratio = {cfg: expert_attention_ratio(cfg, attention="d_model") for cfg in (oss, full)}
        c_e = windowed.ffn_flops
        assert c_e / ratio[full] - c_e / ratio[oss] == pytest.approx(
            4.0 * oss.d_model * saved_keys, rel=1e-9)
    if convention == "holistic":  # M's attention term is 6 per key and query width
        assert (whole.compute_per_token - windowed.compute_per_token
                == pytest.approx(6.0 * q_width * saved_keys, rel=1e-12))
