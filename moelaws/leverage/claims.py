"""Claims of Tian et al. (2025), *Towards Greater Leverage: Scaling Laws for Efficient MoE
Language Models*: Eq. 4 and its headline, MoE-mini, Table 5, Eq. 5 against Tables 8-12, the
design of Tables 8-12, and the benchmark averages of Tables 2 and 7.

Table 1's parameter counts (N, N_a of MoE-mini and Dense-6.1B) are registered by chapter 0
(:mod:`moelaws.arch.claims`) and not repeated here.
"""

from __future__ import annotations

from collections.abc import Callable

from moelaws import arch
from moelaws.claim import Claim
from moelaws.leverage import checks, tables
from moelaws.leverage.law import efficiency_leverage, optimal_granularity

P = "leverage"
PCT = 100.0

_BASES = (
    "Eq. 4 with Table 6's coefficients and our logarithm bases (log10 for C, log2 for G), "
    "the only pair of bases that reproduces both this claim and the optimal granularity."
)
_ROUTED = (
    "The paper's quoted activation ratios of its experiment tables are E_a/E (routed experts "
    "only), not Sec. 2.1's (E_a + E_s)/(E + E_s)."
)
_DESIGN_TOL = 1e-9
_DESIGN_REASON = (
    "a design value (d_expert chosen for it), exact by construction; the printed integer "
    "tolerance of 0.5 would accept a different design."
)
_AVG_TOL = 0.1
_AVG_REASON = (
    "the average of scores printed to 0.1 can differ by up to 0.05 from the average of the "
    "unrounded scores, and the printed average is itself rounded to 0.1: 0.05 + 0.05."
)


def _moe_mini(key: str) -> Callable[[], float]:
    return lambda: checks.moe_mini()[key]


def _table7_average(category: str, model: str) -> Callable[[], float]:
    def compute() -> float:
        if category == "All":
            return float(tables.category_means("overall")[model].iloc[0])
        return float(tables.category_means("category").loc[category, model])

    return compute


def _g(table: int, column: str, how: str, group: int | None = None) -> Callable[[], float]:
    def compute() -> float:
        m = checks.table_metrics(table)
        if group is not None:
            m = m[m["group"] == group]
        return float(getattr(m[column], how)())

    return compute


def _e1_activation() -> float:
    cfg = arch.MoEConfig(n_layers=8, d_model=512, n_heads=8, n_experts=64, top_k=4,
                         n_shared=1, d_expert=512)
    return arch.activation_ratio(cfg) * PCT


def _table10_active_experts() -> float:
    m = checks.table_metrics(10)
    row = m[(m["group"] == 4) & (m["row"] == 5)].iloc[0]
    return float(row["E_a"] + row["E_s"])


def _table11_ffn_match() -> float:
    m = checks.table_metrics(11)
    return float((m["d_ffn"] / ((m["E_a"] + m["E_s"]) * m["d_expert"])).min())


def _overtraining(tables_: tuple[int, ...], how: str) -> Callable[[], float]:
    def compute() -> float:
        m = checks.all_metrics()
        return float(getattr(m[m["table"].isin(tables_)]["overtraining"], how)())

    return compute


def _max_budget() -> float:
    return float(checks.all_metrics()["C_max"].max())


_MOE_MINI_SEC5 = "Sec. 5, MoE-mini"
_T7 = "Table 7"
_CATEGORY_ROWS = [
    ("General Knowledge/Reasoning", "55.8", "56.2"),
    ("Professional Knowledge", "44.0", "44.7"),
    ("Language Understanding", "69.2", "71.6"),
    ("Code", "36.9", "39.8"),
    ("Math", "32.9", "34.7"),
    ("All", "44.0", "45.5"),
]

CLAIMS: list[Claim] = [
    # --- Eq. 4: the headline and the optimal granularity ---------------------------------
    Claim(
        P, "Sec. 1 and Sec. 4.2.3, A = 3.1 %, G = 12, C = 1e22", "EL predicted by Eq. 4", "7",
        lambda: float(efficiency_leverage(**checks.HEADLINE)), relation=">",
        explanation=_BASES,
        kind="reproduction",
    ),
    Claim(
        P, "Sec. 1, key finding 2 ('between 8 and 12')", "optimal granularity G*, lower end",
        "8", lambda: float(optimal_granularity()), relation=">=",
        explanation="G* = 2^(-beta/(2 gamma)) = 11.34, independent of A and C.",
        kind="reproduction",
    ),
    Claim(
        P, "Sec. 1, key finding 2 ('between 8 and 12')", "optimal granularity G*, upper end",
        "12", lambda: float(optimal_granularity()), relation="<=",
        kind="reproduction",
    ),
    Claim(
        P, "Sec. 4.2.1 ('when A = 1, we have EL = 1'), at C = 1e22, G = 2",
        "EL of a dense model (A = 1) under Eq. 4", "1", checks.dense_limit,
        tolerance=0.001,
        tolerance_reason="the text states EL = 1 exactly; the printed rounding of A_start "
        "moves Eq. 4 at A = 1 by less than 1e-4.",
        expected="discrepancy",
        explanation="With A_max = 5.28e16 the transform is A-hat = A + A_start, so "
        "A-hat(1) = 1.0163 and EL(A = 1) = 1.0163^exponent = 0.991 at 1e22 FLOPs (0.998 at "
        "1e18). The saturating transform of Eq. 1 passes through 1 at A = 1 only for a "
        "particular A_max, which the fit did not impose.",
        kind="consistency",
    ),
    Claim(
        P, "App. C ('our MoE's EL is typically under 10x')",
        "largest Eq. 4 EL over the Tables 8-10 MoEs at their max training FLOPs", "10",
        lambda: checks.max_el_at_trained_budgets("A_routed"), relation="<",
        explanation="With A = E_a/E; with Sec. 2.1's A the largest is 5.0. " + _ROUTED,
        kind="consistency",
    ),
    Claim(
        P, "Sec. 4.2.3, residuals of the Eq. 4 fit",
        "residual standard deviation implied by the printed RMSEs and mean", "0.2803",
        checks.residual_sd_from_rmse, expected="discrepancy",
        explanation="sqrt((200 x 0.2169^2 + 24 x 0.5275^2 - 224 x 0.0273^2)/223) = 0.2672, "
        "not 0.2803; the train/validation RMSEs, the residual mean and the residual sd cannot "
        "all describe the same 224 residuals (the rounding of the inputs moves ours by 1e-4).",
        kind="consistency",
    ),
    # --- MoE-mini (Table 1 configuration) -------------------------------------------------
    Claim(
        P, _MOE_MINI_SEC5, "activation ratio A (%)", "3.4", lambda: checks.moe_mini()["A"] * PCT,
        explanation="A = (E_a + E_s)/(E + E_s) = 13/385 from Table 1.",
        kind="reproduction",
    ),
    Claim(
        P, "Sec. 1, the MoE designed from Eq. 4 (MoE-mini)", "activation ratio A (%)", "3.1",
        lambda: checks.moe_mini()["A"] * PCT, expected="discrepancy",
        explanation="Table 1 gives A = 13/385 = 3.38 % (as Sec. 5 says, 3.4 %). The "
        "introduction's 3.1 % is E_a/E = 12/384 = 3.125 %, routed experts only. " + _ROUTED,
        kind="reproduction",
    ),
    Claim(
        P, _MOE_MINI_SEC5, "granularity G = 2 d_model/d_expert", "12",
        lambda: checks.moe_mini()["G"], expected="discrepancy",
        explanation="Table 1: 2 x 2048/384 = 10.67. G = 12 needs d_expert = 341. In Table 9 "
        "the configuration with 384 experts and 12 active has G = 12 (E_a d_expert = "
        "2 d_model there), which may be where the label comes from; MoE-mini has "
        "E_a d_expert = 4608, not 4096.",
        kind="reproduction",
    ),
    Claim(
        P, "Sec. 5, MoE-mini at 1e22 FLOPs with the stated A = 3.4 %, G = 12",
        "EL predicted by Eq. 4", "7", _moe_mini("EL_text"), relation=">",
        expected="discrepancy",
        explanation="Eq. 4 gives 6.96 at A = 3.4 %, G = 12: just below 7. " + _BASES,
        kind="reproduction",
    ),
    Claim(
        P, "Sec. 5, MoE-mini at 1e22 FLOPs, A = 13/385 and G = 10.67 from Table 1",
        "EL predicted by Eq. 4", "7", _moe_mini("EL_config"), relation=">",
        expected="discrepancy",
        explanation="6.98 with Sec. 2.1's activation ratio; see the next claim for E_a/E.",
        kind="consistency",
    ),
    Claim(
        P, "Sec. 5, MoE-mini at 1e22 FLOPs, A = E_a/E = 12/384 and G = 10.67 from Table 1",
        "EL predicted by Eq. 4", "7", _moe_mini("EL_config_routed"), relation=">",
        explanation="7.22: the prediction exceeds 7 if the law's A is E_a/E, the convention "
        "of the introduction's 3.1 %. " + _ROUTED,
        kind="consistency",
    ),
    Claim(
        P, "Sec. 5.2 and App. H ('only about 13 %')",
        "MoE-mini active parameters / Dense-6.1B active parameters (%)", "13",
        lambda: checks.moe_mini()["active_ratio"] * PCT, expected="discrepancy",
        explanation="0.839B/6.107B = 13.7 %, which rounds to 14 % (the printed 0.85/6.11 "
        "gives 13.9 %).",
        kind="reproduction",
    ),
    Claim(
        P, "Sec. 5 ('active parameter count ... more than seven times')",
        "Dense-6.1B / MoE-mini active parameters", "7",
        lambda: 1.0 / checks.moe_mini()["active_ratio"], relation=">",
        kind="reproduction",
    ),
    Claim(
        P, "Sec. 5 ('training costs ... more than seven times those of MoE-mini')",
        "Dense-6.1B / MoE-mini training FLOPs per token M (App. I, non-embedding)", "7",
        _moe_mini("M_ratio"), relation=">", expected="discrepancy",
        explanation="App. I's own FLOP count gives 6.2x (5.4x with the logits): attention "
        "(Eq. 10) costs MoE-mini 0.92 GFLOPs per token and Dense-6.1B 3.29, only 3.6x more, "
        "because its 4·s·d score term grows with the width, not its square; it is 43 % of "
        "MoE-mini's non-embedding FLOPs and 25 % of the dense model's. Only 6 N_a (7.3x) "
        "exceeds 7.",
        kind="reproduction",
    ),
    Claim(
        P, "App. E.1, 4 of 64 experts active plus one shared", "activation ratio A (%)", "7.8",
        _e1_activation, expected="discrepancy",
        explanation="Sec. 2.1's definition gives 5/65 = 7.69 %; 7.8 % is (E_a + E_s)/E = "
        "5/64 = 7.81 %, a third convention.",
        kind="reproduction",
    ),
    # --- Table 5 ---------------------------------------------------------------------------
    *[
        Claim(
            P, f"Table 5, {fam} (C = M_opt D_opt, Eq. 6)",
            "product of the M_opt and D_opt coefficients", "1",
            lambda fam=fam: float(checks.table5().loc[fam, "coefficient product"]),
            tolerance=float(checks.table5().loc[fam, "rounding bound"]),
            tolerance_reason="propagated half-unit rounding of the two printed coefficients.",
            kind="consistency",
        )
        for fam in ("dense", "moe")
    ],
    *[
        Claim(
            P, f"Table 5, {fam} (C = M_opt D_opt, Eq. 6)",
            "sum of the M_opt and D_opt exponents", "1",
            lambda fam=fam: float(checks.table5().loc[fam, "exponent sum"]),
            tolerance=1e-4, tolerance_reason="two exponents printed to 4 decimals.",
            kind="consistency",
        )
        for fam in ("dense", "moe")
    ],
    Claim(
        P, "App. E.2 ('at any given compute budget, the optimal MoE model is computationally "
        "smaller'), at 3e17 FLOPs (lowest budget of App. E.1)",
        "M_opt(MoE) / M_opt(dense)", "1", lambda: checks.allocation_ratio(3e17, "M"),
        relation="<",
        explanation="The ratio falls with C (exponent 0.5095 < 0.5422): true above 1.8e14.",
        kind="reproduction",
    ),
    Claim(
        P, "App. E.2 ('... but trained on more data'), at 3e17 FLOPs",
        "D_opt(MoE) / D_opt(dense)", "1", lambda: checks.allocation_ratio(3e17, "D"),
        relation=">",
        kind="reproduction",
    ),
    # --- Eq. 5 against the printed hyper-parameters ---------------------------------------
    *[
        Claim(
            P, f"Table 8, group {g} (max training FLOPs {cmax})",
            "peak learning rate eta, Eq. 5 at the max training FLOPs", eta,
            lambda g=g: checks.hyperparameter(8, g, "eta"), expected="discrepancy",
            explanation="Eq. 5 reaches the printed eta only at 3.5x (smallest group) to 1.9x "
            "(largest) the max training FLOPs: the printed rates follow C^-0.136, not "
            "C^-0.1529.",
            kind="consistency",
        )
        for g, eta, cmax in ((1, "1.52e-3", "2e18"), (6, "7.0e-4", "6e20"))
    ],
    *[
        Claim(
            P, f"Table 8, group {g} (max training FLOPs {cmax})",
            "batch size B (sequences of 4,096 tokens), Eq. 5 at the max training FLOPs", b,
            lambda g=g: checks.hyperparameter(8, g, "B"), expected="discrepancy",
            explanation="Every printed B of Tables 8-11 is Eq. 5 at 1.80-1.88x the group's "
            "max training FLOPs (about 1.25x Eq. 5's batch at C_max).",
            kind="consistency",
        )
        for g, b, cmax in ((1, "98", "2e18"), (6, "795", "6e20"))
    ],
    *[
        Claim(
            P, f"Table 12, group {g} (max training FLOPs {cmax})",
            "peak learning rate eta, Eq. 5 at the max training FLOPs", eta,
            lambda g=g: checks.hyperparameter(12, g, "eta"), expected="discrepancy",
            explanation=f"Ten times Table 8's {t8} for the same budget: a misprint.",
            kind="consistency",
        )
        for g, eta, t8, cmax in (
            (4, "9.5e-3", "9.5e-4", "6e19"),
            (5, "8.1e-3", "8.1e-4", "2e20"),
            (6, "7.0e-3", "7.0e-4", "6e20"),
        )
    ],
    # --- what Tables 8-12 vary and hold fixed ----------------------------------------------
    Claim(
        P, "App. F.1 and Sec. 4.1 (Table 8: 'from 0.8 % to 100 %', '1/128 (0.8 %)')",
        "lowest activation ratio A (%)", "0.8", lambda: _g(8, "A", "min")() * PCT,
        expected="discrepancy",
        explanation="E = 256, E_a = 2, E_s = 1: Sec. 2.1 gives 3/257 = 1.17 %; 0.8 % is "
        "E_a/E = 2/256. " + _ROUTED,
        kind="consistency",
    ),
    Claim(
        P, "App. F.1 (Table 8: 'from 0.8 % to 100 %')", "highest activation ratio A (%)",
        "100", lambda: _g(8, "A", "max")() * PCT,
        kind="consistency",
    ),
    Claim(
        P, "Fig. 4a ('fixed granularity (G = 2)'), Table 8 group 1 (d_model = 384)",
        "granularity G", "2", _g(8, "G", "max", group=1), tolerance=_DESIGN_TOL,
        tolerance_reason=_DESIGN_REASON, expected="discrepancy",
        explanation="d_expert = 320 gives G = 768/320 = 2.4; the other groups have "
        "d_expert = d_model (G = 2), and Tables 9 and 11 use d_expert = 384 at this size.",
        kind="consistency",
    ),
    Claim(
        P, "Fig. 4a, Table 8 groups 2-6", "granularity G", "2",
        lambda: float(checks.table_metrics(8).query("group > 1")["G"].max()),
        tolerance=_DESIGN_TOL, tolerance_reason=_DESIGN_REASON,
        kind="consistency",
    ),
    Claim(
        P, "App. F.2 (Table 9: granularity 'from 2 to 16')", "lowest granularity G", "2",
        _g(9, "G", "min"), tolerance=_DESIGN_TOL, tolerance_reason=_DESIGN_REASON,
        kind="consistency",
    ),
    Claim(
        P, "App. F.2 (Table 9: granularity 'from 2 to 16')", "highest granularity G", "16",
        _g(9, "G", "max"), tolerance=_DESIGN_TOL, tolerance_reason=_DESIGN_REASON,
        kind="consistency",
    ),
    Claim(
        P, "Fig. 4b ('a fixed activation ratio (A = 3.1 %)'), Table 9",
        "activation ratio A (%)", "3.1", lambda: _g(9, "A", "max")() * PCT,
        expected="discrepancy",
        explanation="Sec. 2.1 gives 3/65 = 4.62 % for every Table 9 row; E_a/E = 2/64 = "
        "3.125 % reproduces 3.1 %. " + _ROUTED,
        kind="consistency",
    ),
    Claim(
        P, "App. F.2 (Table 9: 'keep computational cost (FLOPs) per token constant')",
        "largest within-group relative spread of M", "0", lambda: checks.spread(9, "M"),
        tolerance=0.01,
        tolerance_reason="d_expert is printed as an integer (e.g. 85 for 512/6), so M can be "
        "equal only up to the rounding of d_expert, at most 0.5/48 (1 %).",
        kind="consistency",
    ),
    Claim(
        P, "Table 10 caption ('E_a + E_s = 12'), group 4 (d_model = 768), row 5",
        "activated experts E_a + E_s", "12", _table10_active_experts, expected="discrepancy",
        explanation="Printed E_a = 11, E_s = 2 (13 experts); the other groups have 11 and 1. "
        "With E_s = 2 the intended row may be E_a = 10, the S = 16.7 % that App. F.3 reports "
        "as optimal at small budgets but no other Table 10 row has.",
        kind="consistency",
    ),
    Claim(
        P, "App. F.3 (Table 10: S 'from 0 %')", "lowest sharing ratio S (%)", "0",
        lambda: _g(10, "S", "min")() * PCT,
        kind="consistency",
    ),
    Claim(
        P, "App. F.3 (Table 10: S '... to 83.3 %')", "highest sharing ratio S (%)", "83.3",
        lambda: _g(10, "S", "max")() * PCT,
        kind="consistency",
    ),
    Claim(
        P, "App. F.3 ('we fix the total model size M'), Table 10, App. I as printed",
        "largest within-group relative spread of M", "0", lambda: checks.spread(10, "M"),
        tolerance=0.01, tolerance_reason="as for Table 9 (integer widths).",
        expected="discrepancy",
        explanation="App. I prices a shared expert at 4 d d_shared but a routed one at "
        "6 d d_expert, so trading routed for shared experts changes M by up to 16 %.",
        kind="consistency",
    ),
    Claim(
        P, "App. F.3 ('we fix the total model size M'), Table 10, shared experts at "
        "6 d d_shared, without the E_a + E_s = 13 row",
        "largest within-group relative spread of M", "0",
        lambda: checks.spread(10, "M_swiglu", exclude=((4, 5),)),
        tolerance=0.01, tolerance_reason="as for Table 9 (integer widths).",
        explanation="With a shared expert priced like a routed one, M is exactly constant: "
        "App. I's factor 4 for shared experts is most likely a misprint for 6.",
        kind="consistency",
    ),
    Claim(
        P, "App. F.4 (Table 11: dense layers 'set to match the total dimension of the "
        "activated experts')", "smallest d_ffn / ((E_a + E_s) d_expert)", "1",
        _table11_ffn_match, tolerance=1e-9,
        tolerance_reason="the text says the dimensions match exactly.",
        expected="discrepancy",
        explanation="d_ffn = 4 d_model (1280 for d_model = 384) while the three active "
        "experts total 3 d_model: ratios 1.11-1.33. M still changes by at most 1.3 % because "
        "only 1-3 of 60 layers are dense.",
        kind="consistency",
    ),
    Claim(
        P, "Sec. 4.1 ('we train each model on over three times its optimal number of "
        "tokens'), Tables 8, 9, 10 and 12",
        "smallest C_max / C*(M), with C* from Table 5's MoE M_opt", "3",
        _overtraining((8, 9, 10, 12), "min"), relation=">",
        explanation="M is the non-embedding FLOPs per token (Sec. 2.1); with the logits "
        "included the smallest models would fall below 3.",
        kind="consistency",
    ),
    Claim(
        P, "Sec. 4.1 (as above), Table 11 (60-layer models)",
        "largest C_max / C*(M), with C* from Table 5's MoE M_opt", "3",
        _overtraining((11,), "max"), relation=">", expected="discrepancy",
        explanation="The 60-layer models keep the shallow models' budgets, so they see 0.06-"
        "0.63 times their compute-optimal tokens: strongly under-trained, or the budget "
        "column was copied from Table 8.",
        kind="consistency",
    ),
    Claim(
        P, "Abstract and Sec. 1 ('over 300 models up to 28B parameters'), Tables 8-12",
        "largest total parameters N (B, non-embedding)", "28",
        lambda: float(checks.all_metrics()["N"].max()) / 1e9,
        explanation="Table 8, E = 256, d_model = 1280, 22 layers: 27.9B.",
        kind="consistency",
    ),
    Claim(
        P, "App. K ('All models ... for up to 3e20 FLOPs') vs Tables 8-12",
        "largest max training FLOPs in Tables 8-12", "3e20", _max_budget,
        expected="discrepancy",
        explanation="Every table lists a 6e20 group (d_model = 1280, 22 layers).",
        kind="consistency",
    ),
    Claim(
        P, "App. F.4 and Fig. 14 (attention FLOPs ratio 'within a broad range (20 %-50 %)'), "
        "Table 12", "lowest attention share of App. I forward FLOPs (%)", "20",
        lambda: _g(12, "attn_share", "min")() * PCT, expected="discrepancy",
        explanation="Attention / (attention + FFN + logits) of App. I spans 30.0-45.7 %; "
        "without the logits 42-84 %; the projections alone, of projections + FFN, 10-28 % as "
        "App. I prices them and 17-38 % priced 4d(n_h d_h)(1 + n_kv/n_h) "
        "(checks.attention_share_readings): no reading spans 20-50 %.",
        kind="consistency",
    ),
    Claim(
        P, "App. F.4 and Fig. 14 ('20 %-50 %'), Table 12",
        "highest attention share of App. I forward FLOPs (%)", "50",
        lambda: _g(12, "attn_share", "max")() * PCT, expected="discrepancy",
        explanation="See the previous claim.",
        kind="consistency",
    ),
    # --- Tables 7 and 2 ---------------------------------------------------------------------
    *[
        Claim(
            P, f"{_T7}, {cat if cat != 'All' else 'Overall'} average, {name}",
            "mean of the per-benchmark scores", printed,
            _table7_average(cat, col), tolerance=_AVG_TOL, tolerance_reason=_AVG_REASON,
            inputs=(f"{_T7}, {cat}: per-benchmark scores of {name}",),
            explanation=(
                "Mean of all 34 benchmarks; the mean of the five category means is 47.8/49.4."
                if cat == "All" else ""
            ),
            kind="reproduction",
        )
        for cat, dense, moe in _CATEGORY_ROWS
        for name, col, printed in (("Dense-6.1B", "dense", dense), ("MoE-mini", "moe", moe))
    ],
    Claim(
        P, "App. H ('a 1.5-point overall advantage')",
        "MoE-mini minus Dense-6.1B, mean over the 34 benchmarks", "1.5",
        lambda: float(tables.category_means("overall").eval("moe - dense").iloc[0]),
        tolerance=_AVG_TOL, tolerance_reason=_AVG_REASON,
        inputs=(f"{_T7}: per-benchmark scores of Dense-6.1B and MoE-mini",),
        kind="reproduction",
    ),
    Claim(
        P, "App. H (HumanEval-Plus: 'an impressive lead of over 16 points')",
        "MoE-mini minus Dense-6.1B on HumanEval-Plus", "16",
        lambda: float(tables.table7().query("metric == 'HumanEval-Plus'")
                      .eval("moe - dense").iloc[0]),
        relation=">",
        kind="reproduction",
    ),
]
