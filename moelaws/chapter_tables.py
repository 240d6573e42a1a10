"""The chapters' side-by-side tables: a paper's printed numbers beside ours, with the columns
the claims registry does not have (intervals, units of the last digit, grid ends, inputs).

Each function builds one frame a chapter shows; :mod:`moelaws.data_tables` registers it by
name, so the chapter (through :func:`moelaws.interactive_tables.data_interactive_table`), the
command line (``moelaws data NAME``) and the book's "Download CSV" file all come from the same
function. The numbers are those the chapters computed inline before; only their home moved.
"""

from __future__ import annotations

import pandas as pd

from moelaws.validation import guard_public


def holistic_eq2_table2() -> pd.DataFrame:
    """Holistic Table 2 beside Eq. 2 at its six budgets, differences in last-digit units.

    See :func:`moelaws.holistic.checks.eq2_table2`.
    """
    from moelaws.holistic import checks

    return checks.eq2_table2().reset_index(drop=True)


EQ2_DIFF_COLUMNS = ("M diff (last digits)", "D diff (last digits)")
"""The columns of :func:`holistic_eq2_table2` in units of Table 2's last printed digit."""


def eq2_off_by_a_digit(df: pd.DataFrame) -> pd.DataFrame:
    """The difference cells of :func:`holistic_eq2_table2` whose value, rounded to Table 2's
    last printed digit, is not the printed one (more than half a unit of that digit off)."""
    return pd.DataFrame({c: df[c].round() != 0 for c in EQ2_DIFF_COLUMNS}, index=df.index)


def comprehensive_table1() -> pd.DataFrame:
    """Comprehensive Table 1's five models: printed sizes beside Eq. 2-3's counts (millions)."""
    from moelaws import comprehensive as cl

    t1 = cl.table1_counts()
    t1["N (Eq. 3), M"] = t1.pop("N (Eq. 3)") / 1e6
    t1["N_a (Eq. 2), M"] = t1.pop("N_a (Eq. 2)") / 1e6
    return t1.rename(columns={"total_printed": "N (paper)", "active_printed": "N_a (paper)"})


def comprehensive_appendix_h() -> pd.DataFrame:
    """Comprehensive App. H's sweep of N_a at fixed N: Eq. 35's n_e and Eq. 2's N_a beside the
    printed ones; the printed d_expert is an input (``u = d_expert/224``)."""
    from moelaws import comprehensive as cl

    h = cl.appendix_h_sweep()
    paper_h = cl.read_table("appendix_h")
    return pd.DataFrame({
        "d_expert (paper, input)": paper_h["d_expert"], "u = d_expert/224": h["u"],
        "v (Eq. 35)": h["v"], "n_e (ours)": h["n_routed"],
        "n_e (paper)": paper_h["n_routed"], "N_a (ours), M": h["N_a"] / 1e6,
        "N_a (paper)": paper_h["Na_printed"], "N (ours), M": h["N"] / 1e6,
    })


def comprehensive_table3() -> pd.DataFrame:
    """Comprehensive Table 3's practical G and S ranges (loss within 0.001 of the optimum):
    the exact roots, the extreme points of a 0.01 / 0.001 grid inside them, and the paper's."""
    from moelaws import comprehensive as cl

    models = cl.industrial_models()
    t3 = cl.read_table("table3", dtype=str)
    g_lo, g_hi = cl.practical_G_range(models["N"], models["Na"], 1e-3)
    s_lo, s_hi = cl.practical_S_range(models["N"], models["Na"], 1e-3)
    gg_lo, gg_hi = cl.practical_G_range(models["N"], models["Na"], 1e-3, resolution=0.01)
    sg_lo, sg_hi = cl.practical_S_range(models["N"], models["Na"], 1e-3, resolution=0.001)
    return pd.DataFrame({
        "model": models["model"],
        "G range (exact roots)": [f"[{a:.4f}, {b:.4f}]" for a, b in zip(g_lo, g_hi, strict=True)],
        "G range (0.01 grid)": [f"[{a:.2f}, {b:.2f}]" for a, b in zip(gg_lo, gg_hi, strict=True)],
        "G range (paper)": "[" + t3["G_low"] + ", " + t3["G_high"] + "]",
        "S range (exact roots)": [f"[{a:.5f}, {b:.5f}]" for a, b in zip(s_lo, s_hi, strict=True)],
        "S range (0.001 grid)": [f"[{a:.3f}, {b:.3f}]" for a, b in zip(sg_lo, sg_hi, strict=True)],
        "S range (paper)": "[" + t3["S_low"] + ", " + t3["S_high"] + "]",
    })


def comprehensive_table4() -> pd.DataFrame:
    """Comprehensive Table 4's optimal activated ratios (%): Eq. 14 at G = 7, S = 0.31 and at
    the exact optima, and Algorithm 1 at ΔLoss = 0.001 and 0.005, beside the printed ones."""
    from moelaws import comprehensive as cl

    models = cl.industrial_models()
    t4 = cl.read_table("table4", dtype=str)
    n = models["N"].to_numpy()
    theory = cl.optimal_active_ratio(n, 7, 0.31)
    theory_exact = cl.optimal_active_ratio(n)
    eff1 = cl.efficiency_aware_active_ratio(n, 1e-3, 7, 0.31)
    eff5 = cl.efficiency_aware_active_ratio(n, 5e-3, 7, 0.31)
    return pd.DataFrame({
        "model": models["model"], "N (B)": n / 1e9,
        "theoretical % (ours, G=7, S=0.31)": 100 * theory,
        "theoretical % (paper)": t4["theoretical_pct"],
        "N_a (ours), B": theory * n / 1e9, "N_a (paper)": t4["theoretical_Na_B"],
        "theoretical % at exact G_opt, S_opt": 100 * theory_exact,
        "eff. 0.001 % (ours)": 100 * eff1, "eff. 0.001 % (paper)": t4["practical_1e-3_pct"],
        "eff. 0.005 % (ours)": 100 * eff5, "eff. 0.005 % (paper)": t4["practical_5e-3_pct"],
    })


_LOSS_COLUMNS = ["l", "d", "n_exp", "n_topk", "loss", "loss_diff_pct", "ours", "lower", "upper",
                 "consistent", "status"]


def constrained_table6_losses() -> pd.DataFrame:
    """Constrained Table 6's loss differences (%): printed, ours from the printed losses, and
    the interval the losses' rounding allows (:func:`moelaws.constrained.tables.loss_diffs`)."""
    from moelaws.constrained import tables

    return tables.loss_diffs("table6")[["g", *_LOSS_COLUMNS]].reset_index(drop=True)


def constrained_table7_losses() -> pd.DataFrame:
    """Constrained Table 7's loss differences (as :func:`constrained_table6_losses`) and its
    N_active / N_total differences recomputed with Eq. 1-2."""
    from moelaws.constrained import tables

    return tables.loss_diffs("table7")[_LOSS_COLUMNS].join(tables.table7_param_diffs()[
        ["active_diff_pct", "ours_active_diff", "total_diff_pct", "ours_total_diff"]
    ]).reset_index(drop=True)


def constrained_reference_intervals() -> pd.DataFrame:
    """The unrounded reference losses of each group of constrained Tables 6-7 consistent with
    both printed columns (:func:`moelaws.constrained.tables.reference_loss_interval`)."""
    from moelaws.constrained import tables

    frame = pd.concat({"Table 6": tables.reference_loss_interval("table6"),
                       "Table 7": tables.reference_loss_interval("table7")},
                      names=["table", "group"])
    return frame.reset_index()


def inconsistent(df: pd.DataFrame) -> pd.DataFrame:
    """The ``consistent`` cells that are false: no unrounded values explain the printed ones."""
    return pd.DataFrame({"consistent": ~df["consistent"].astype(bool)}, index=df.index)


def leverage_benchmark_averages() -> pd.DataFrame:
    """Leverage Tables 7 and 2's category and overall averages beside our means of Table 7's
    per-benchmark rows, for the dense model and MoE-mini."""
    from moelaws.leverage import tables

    t7 = tables.load_table7()
    printed = t7[t7["kind"] == "average"].set_index("category")[["dense_6_1b", "moe_mini"]]
    ours = pd.concat([tables.category_means("category"), tables.category_means("overall")])
    ours.index = [*tables.CATEGORIES, "All"]
    t2 = tables.load_table2().set_index("model")
    columns = [*tables.CATEGORIES.values(), "Overall Avg."]
    comparison = pd.DataFrame(
        {
            "Table 7 dense": printed["dense_6_1b"], "ours dense": ours["dense"],
            "Table 2 dense": [t2.loc["Dense-6.1B", c] for c in columns],
            "Table 7 MoE-mini": printed["moe_mini"], "ours MoE-mini": ours["moe"],
            "Table 2 MoE-mini": [t2.loc["MoE-mini (A0.8B)", c] for c in columns],
        }
    )
    return comparison.rename_axis("category").reset_index()



def leverage_activation_ratios() -> pd.DataFrame:
    """The activation ratios the leverage paper's text prints beside the two readings of A
    (Sec. 2.1's (E_a + E_s)/(E + E_s) and E_a/E), in %, with the reading each one matches."""
    from moelaws.leverage import checks

    mini = checks.moe_mini()
    t9 = checks.table_metrics(9)
    e1 = (4 + 1) / (64 + 1)
    rows = pd.DataFrame(
        [
            ("Sec. 4.1, App. F.1: Table 8's lowest A", "0.8 %", 3 / 257, 2 / 256, "E_a/E"),
            ("Fig. 4b: Table 9's A", "3.1 %", t9["A"].iloc[0], t9["A_routed"].iloc[0], "E_a/E"),
            ("Sec. 1: the headline model (MoE-mini)", "3.1 %", mini["A"], mini["A_routed"],
             "E_a/E"),
            ("Sec. 5: MoE-mini", "3.4 %", mini["A"], mini["A_routed"], "Sec. 2.1"),
            ("App. E.1: 4 of 64 plus one shared", "7.8 %", e1, 4 / 64, "(E_a+E_s)/E = 5/64"),
        ],
        columns=["where", "printed", "Sec. 2.1 A", "E_a/E", "matches"],
    )
    return rows.assign(**{"Sec. 2.1 A": 100 * rows["Sec. 2.1 A"], "E_a/E": 100 * rows["E_a/E"]}
                       ).rename(columns={"Sec. 2.1 A": "Sec. 2.1 A (%)", "E_a/E": "E_a/E (%)"})


def comprehensive_optima() -> pd.DataFrame:
    """Comprehensive Eq. 12-13's optimal G and S beside the printed 6.78 and 0.31."""
    from moelaws import comprehensive as cl

    return pd.DataFrame({"quantity": ["G_opt = √(f/e)", "S_opt = −n/(2m)"],
                         "ours": [cl.optimal_G(), cl.optimal_S()], "paper": ["6.78", "0.31"]})


def comprehensive_eq33() -> pd.DataFrame:
    """Comprehensive Eq. 33 (paper) beside our closed-form h → 0 limit at N = 1T, G = 7,
    S = 0.31."""
    from moelaws import comprehensive as cl

    frame = pd.DataFrame({"closed-form h → 0 limit": cl.compute_optimal_asymptote(1e12, 7, 0.31),
                          "Eq. 33 (paper)": {"offset": 1.87, "coef": 576, "exponent": 0.158}})
    return frame.rename_axis("constant").reset_index()


def constrained_table4() -> pd.DataFrame:
    """Constrained Table 4's cores: printed N_total beside Eq. 1's for (128, 8, g = 4)."""
    from moelaws.constrained import tables

    t4 = tables.table4_totals()
    return t4[["l", "d", "N_total_128_8", "ours"]].assign(
        **{"d/l": t4["d"] / t4["l"], "ours": t4["ours"].astype(int)}).reset_index(drop=True)


# Every public function checks its arguments' kinds (a frame, a name) and turns a frame without
# the expected columns (KeyError) into a ValueError naming the argument.
guard_public(globals(), [n for n, v in list(globals().items())
                         if not n.startswith("_") and callable(v) and not isinstance(v, type)
                         and getattr(v, "__module__", None) == __name__])
