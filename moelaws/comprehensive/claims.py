"""Claims of the comprehensive MoE scaling-law paper (anonymous authors, "Towards a comprehensive
scaling law of Mixture-of-Experts"), computed by :mod:`moelaws.comprehensive`."""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable

import numpy as np
import pandas as pd

from moelaws import comprehensive as cl
from moelaws.claim import Claim

PAPER = "comprehensive"

# Table 4's theoretical column is reproduced with the rounded optima the paper recommends
# (G = 7, S = 0.31, Sec. 5.2 and App. G); the unrounded optima give values 0.01–0.02 higher.
TABLE4_G, TABLE4_S = 7.0, 0.31

# Eq. 33 is reproduced over the compute range of the paper's own experiments, where N_a*/N is
# far below 1% and the h·N_a/N term is negligible (see the chapter for the range dependence).
EQ33_RANGE = (1e16, 1e20)
EQ33_LARGE_RANGE = (1e20, 1e24)


@functools.cache
def _models() -> pd.DataFrame:
    return cl.industrial_models()


@functools.cache
def _ranges() -> dict[str, np.ndarray]:
    m = _models()
    g_lo, g_hi = cl.practical_G_range(m["N"], m["Na"], 1e-3, resolution=0.01)
    s_lo, s_hi = cl.practical_S_range(m["N"], m["Na"], 1e-3, resolution=0.001)
    return {"G_low": g_lo, "G_high": g_hi, "S_low": s_lo, "S_high": s_hi}


@functools.cache
def _ratios() -> dict[str, np.ndarray]:
    N = _models()["N"].to_numpy()
    return {
        "theoretical": cl.optimal_active_ratio(N, TABLE4_G, TABLE4_S),
        "practical_1e-3": cl.efficiency_aware_active_ratio(N, 1e-3, TABLE4_G, TABLE4_S),
        "practical_5e-3": cl.efficiency_aware_active_ratio(N, 5e-3, TABLE4_G, TABLE4_S),
    }


@functools.cache
def _eq33(lo: float, hi: float) -> dict[str, float]:
    return cl.fit_compute_optimal_power_law(lo, hi, N=1e12, G=7.0, S=0.31)


@functools.cache
def _table8() -> pd.DataFrame:
    return cl.table8()


@functools.cache
def _table1() -> pd.DataFrame:
    return cl.table1_counts()


@functools.cache
def _appendix_h() -> pd.DataFrame:
    return cl.appendix_h_sweep()


def _at(getter: Callable[[], object], *keys: object) -> Callable[[], float]:
    def compute() -> float:
        value = getter()
        for key in keys:
            value = value[key]  # type: ignore[index]
        return float(value)  # type: ignore[arg-type]

    return compute


CLAIMS: list[Claim] = [
    Claim(PAPER, "Eq. 12, Sec. 5.1", "optimal number of activated experts G_opt",
          "6.78", cl.optimal_G, kind="reproduction"),
    Claim(PAPER, "Eq. 13, Sec. 5.2", "optimal shared-expert ratio S_opt", "0.31", cl.optimal_S,
          kind="reproduction"),
]

# --- Table 3: efficiency-aware ranges of G and S (threshold 0.001) --------------------------
_T3 = cl.read_table("table3", dtype=str)
_T3_NOTE = (
    "Computed in closed form from Eq. 11 at the model's N and N_a (Table 4). The printed ends "
    "are the extreme points of a 0.01 grid in G (0.001 in S) inside the exact range, which is "
    "up to one grid step wider."
)
for i, row in _T3.iterrows():
    for col, what in (("G_low", "lower end of practical G range"),
                      ("G_high", "upper end of practical G range"),
                      ("S_low", "lower end of practical S range"),
                      ("S_high", "upper end of practical S range")):
        CLAIMS.append(Claim(
            PAPER, f"Table 3, {row['model']}", what, row[col],
            _at(_ranges, col, i), explanation=_T3_NOTE,
            kind="reproduction",
        ))

# --- Table 4: theoretical and efficiency-aware N_a/N -----------------------------------------
_T4 = cl.read_table("table4", dtype=str)
_T4_THEORY_NOTE = "Eq. 14 at G = 7, S = 0.31 and the N of Table 4's 'Na-N (Actual)' column."
_QWEN_NOTE = (
    "Ours is 40.049%, 0.009 points above the printed 40.04. The eight other models agree to "
    "the printed 0.01 point with the same formula and inputs, so the inputs are right; Table 2 "
    "prints h to 4 decimals (0.0450 ± 0.00005) and the ratio scales as h^(−1/(α+1)), so the "
    "rounding of h alone moves it by ±0.036 points. But every constant moves all nine rows: "
    "drawing all twelve constants within their printed rounding, about 2 % of draws reproduce "
    "the other eight rows and 0.05 % all nine (moelaws.comprehensive.checks), so rounding "
    "explains 40.04 only at the edge of the rounding box, or a typo does: the published "
    "material cannot tell which (truncating, "
    "not rounding, 40.049 would give 40.04 but 20.395 would then give 20.39, not the printed "
    "20.40)."
)
for i, row in _T4.iterrows():
    model = row["model"]
    theory_kw: dict[str, str] = {"explanation": _T4_THEORY_NOTE}
    if model == "Qwen3-30B-A3B":
        theory_kw = {"expected": "discrepancy", "explanation": _QWEN_NOTE}
    CLAIMS.append(Claim(
        PAPER, f"Table 4, {model}", "theoretical optimal N_a/N (%)", row["theoretical_pct"],
        lambda i=i: 100 * float(_ratios()["theoretical"][i]), **theory_kw,
        kind="reproduction",
    ))
    CLAIMS.append(Claim(
        PAPER, f"Table 4, {model}", "theoretical optimal N_a (B)", row["theoretical_Na_B"],
        lambda i=i: float(_ratios()["theoretical"][i] * _models()["N"][i] / 1e9),
        explanation=_T4_THEORY_NOTE,
        kind="reproduction",
    ))
    for thr, key in (("0.001", "practical_1e-3"), ("0.005", "practical_5e-3")):
        CLAIMS.append(Claim(
            PAPER, f"Table 4, {model}", f"efficiency-aware N_a/N at ΔLoss = {thr} (%)",
            row[f"{key}_pct"], lambda i=i, key=key: 100 * float(_ratios()[key][i]),
            explanation="Algorithm 1 (App. F), steps of 0.01·N.",
            kind="reproduction",
        ))
        CLAIMS.append(Claim(
            PAPER, f"Table 4, {model}", f"efficiency-aware N_a at ΔLoss = {thr} (B)",
            row[f"{key}_Na_B"],
            lambda i=i, key=key: float(_ratios()[key][i] * _models()["N"][i] / 1e9),
            explanation="Algorithm 1 (App. F) ratio times N.",
            kind="reproduction",
        ))

# --- Sec. 1 and Sec. 5.3: the quoted span of theoretical optima ------------------------------
CLAIMS += [
    Claim(PAPER, "Sec. 1, implication (b)", "theoretical optimal N_a/N at N = 1T (%)", "20",
          lambda: 100 * float(cl.optimal_active_ratio(1e12, TABLE4_G, TABLE4_S)),
          kind="reproduction"),
    Claim(PAPER, "Sec. 1, implication (b)", "theoretical optimal N_a/N at N = 20B (%)", "43",
          lambda: 100 * float(cl.optimal_active_ratio(20e9, TABLE4_G, TABLE4_S)),
          kind="reproduction"),
    Claim(PAPER, "Sec. 5.3", "theoretical optimal N_a/N at N = 30B (%)", "40.0",
          lambda: 100 * float(cl.optimal_active_ratio(30e9, TABLE4_G, TABLE4_S)),
          kind="reproduction"),
    Claim(PAPER, "Sec. 5.3", "theoretical optimal N_a/N at N = 671B (%)", "22.0",
          lambda: 100 * float(cl.optimal_active_ratio(671e9, TABLE4_G, TABLE4_S)),
          kind="reproduction"),
]

# --- Eq. 33: compute-optimal loss at N = 1T, G = 7, S = 0.31 --------------------------------
_EQ33_NOTE = (
    "L*(C) derived numerically from Eq. 11 (optimum over N_a at D = C/N_a), then "
    "L* ≈ E + A·C^−γ fitted by least squares on log L* over C ∈ [1e16, 1e20] (41 budgets). "
    "Any range whose N_a*/N stays below ~0.2% gives the same numbers; they are the h → 0 limit "
    "E = C0, A = K(α+β)/β·(αK/βb)^(−α/(α+β)), γ = αβ/(α+β)."
)
_EQ33_LARGE_NOTE = (
    "Fitted over C ∈ [1e20, 1e24] instead, where N_a* reaches 10% of N and the h·N_a/N term "
    "bends L*(C) towards its floor (1.95 at N = 1T): the power law no longer has the printed "
    "coefficients. Eq. 33 holds only for budgets at which N_a*/N is tiny."
)
CLAIMS += [
    Claim(PAPER, "Eq. 33, App. G", "irreducible term of L*(C)", "1.87",
          _at(lambda: _eq33(*EQ33_RANGE), "offset"), explanation=_EQ33_NOTE, kind="reproduction"),
    Claim(PAPER, "Eq. 33, App. G", "coefficient of L*(C)", "576",
          _at(lambda: _eq33(*EQ33_RANGE), "coef"), explanation=_EQ33_NOTE, kind="reproduction"),
    Claim(PAPER, "Eq. 33, App. G", "exponent of C in L*(C)", "0.158",
          _at(lambda: _eq33(*EQ33_RANGE), "exponent"), explanation=_EQ33_NOTE, kind="reproduction"),
    Claim(PAPER, "Eq. 33, App. G, fitted over C in [1e20, 1e24]", "coefficient of L*(C)", "576",
          _at(lambda: _eq33(*EQ33_LARGE_RANGE), "coef"), expected="discrepancy",
          explanation=_EQ33_LARGE_NOTE, kind="derived"),
    Claim(PAPER, "Eq. 33, App. G, fitted over C in [1e20, 1e24]", "exponent of C in L*(C)",
          "0.158", _at(lambda: _eq33(*EQ33_LARGE_RANGE), "exponent"), expected="discrepancy",
          explanation=_EQ33_LARGE_NOTE, kind="derived"),
]

# --- Table 1 and App. H: parameter counts from Eq. 2–3 ---------------------------------------
_COUNT_NOTE = (
    "Eq. 2–3 (marked ≈ in the paper) give {ours}, below the printed size. Of the 15 sizes "
    "checked here (Table 1 and App. H), 6 are larger than Eq. 2–3 by 0.54–0.91 M, which is "
    "0.04–0.41 M past the edge of the printed value's rounding interval (two of them only "
    "just). No single omitted term (router d·n_e·l, RMSNorm weights, attention "
    "biases, alone or combined) reconciles all of them, so the printed sizes probably come from "
    "the training framework's own count."
)
# Sizes whose printed value Eq. 2–3 miss at the printed precision (see the chapter).
_COUNT_DISCREPANCIES = {
    ("247M", "total"), ("496M", "total"), ("907M", "activated"), ("2.40B", "activated"),
}


def _count_claim(ref: str, what: str, printed: str, compute: Callable[[], float],
                 discrepant: bool) -> Claim:
    unit = "B" if printed.endswith("B") else "M"
    number = printed[:-1]
    if not discrepant:
        return Claim(PAPER, ref, f"{what} ({unit})", number, compute, kind="reproduction")
    return Claim(PAPER, ref, f"{what} ({unit})", number, compute, expected="discrepancy",
                 explanation=_COUNT_NOTE.format(ours=f"{compute():.2f} {unit}"),
                 kind="reproduction")


for i, row in cl.read_table("table1", dtype=str).iterrows():
    for col, q, what in (("total_printed", "N (Eq. 3)", "total"),
                         ("active_printed", "N_a (Eq. 2)", "activated")):
        scale = 1e9 if row[col].endswith("B") else 1e6
        CLAIMS.append(_count_claim(
            f"Table 1, {row['model']} model", f"{what} parameters, Eq. 2–3", row[col],
            lambda i=i, q=q, scale=scale: float(_table1()[q][i] / scale),
            (row["model"], what) in _COUNT_DISCREPANCIES,
        ))

_H_DISCREPANCIES = {"476M", "2196M"}
# The paper prints no u: each point's u is its printed d_expert over the base width 224
# (cl.appendix_h_u), so "d_expert = u·224" would echo the paper and is not a claim. What the
# printed d_expert predicts, n_e (Eq. 35) and N_a (Eq. 2), is.
for i, row in cl.read_table("appendix_h", dtype=str).iterrows():
    ref = f"App. H, N_a sweep point {i + 1} (d_expert = {row['d_expert']})"
    h_inputs = (f"{ref}: expert dimension d_expert",)
    claim = _count_claim(
        ref, "activated parameters, Eq. 2 with Eq. 35", row["Na_printed"],
        lambda i=i: float(_appendix_h()["N_a"][i] / 1e6), row["Na_printed"] in _H_DISCREPANCIES,
    )
    CLAIMS.append(dataclasses.replace(claim, inputs=h_inputs))
    CLAIMS.append(Claim(PAPER, ref, "routed experts n_e = v·128 (Eq. 35)", row["n_routed"],
                        lambda i=i: float(_appendix_h()["n_routed"][i]), inputs=h_inputs,
                        explanation="u = d_expert/224 from the printed d_expert; Eq. 35's "
                        "v = ((1 − u)·S·G + n_e)/(u·n_e) at S = 0.2, G = 20, n_e = 128.",
                        kind="reproduction"))

# --- Table 8: counts and ranges against the text ----------------------------------------------
def _count(role: str) -> Callable[[], float]:
    return lambda: float((_table8()["role"] == role).sum())


def _extreme(role: str, column: str, how: str, scale: float) -> Callable[[], float]:
    def compute() -> float:
        values = _table8().loc[_table8()["role"] == role, column]
        return float(getattr(values, how)() / scale)

    return compute


_VALIDATION_COUNT_NOTE = (
    "Table 8 marks 92 rows (358–449) with ✓, one more than the 91 the text states; the text's "
    "268 + 91 + 90 = 449 also falls one short of the 450 rows and of 'all 450 experiments'."
)
CLAIMS += [
    Claim(PAPER, "Table 8", "number of configurations", "450",
          lambda: float(len(_table8())), kind="consistency"),
    Claim(PAPER, "App. C.1, Table 8", "configurations used for fitting (✗, G not in the "
          "marginal-G set)", "268", _count("fitting"), kind="consistency"),
    Claim(PAPER, "App. C.1, Table 8", "small configurations for the marginal effect of G "
          "(✗, G in {1, 2, 3, 4, 8, 16})", "90", _count("marginal_G"), kind="consistency"),
    Claim(PAPER, "App. C.1, Table 8", "configurations used for validation (✓)", "91",
          _count("validation"), expected="discrepancy", explanation=_VALIDATION_COUNT_NOTE,
          kind="consistency"),
]

_RANGE_NOTES = {
    ("fitting", "Na", "min"): (
        "The smallest fitting N_a in Table 8 is 31M (rows 204–207); App. L rounds it to 30M "
        "(30M itself occurs only among the marginal-G rows)."
    ),
    ("validation", "Na", "min"): (
        "Rows 447–449 (N_a = 181M, N = 907M, G = 40) are marked ✓ but lie below App. L's "
        "validation range N_a ≥ 453M; without them the minimum is 453M."
    ),
    ("validation", "N", "min"): (
        "Rows 447–449 (N = 907M) and 358/362/366 (N = 1301M) are marked ✓ but lie below App. "
        "L's validation range N ≥ 2.4B."
    ),
}
for role, column, how, printed, scale, unit in (
    ("fitting", "G", "max", "20", 1, ""), ("fitting", "S", "min", "0.0", 1, ""),
    ("fitting", "S", "max", "0.8", 1, ""), ("fitting", "Na", "min", "30", 1e6, " (M)"),
    ("fitting", "Na", "max", "2.2", 1e9, " (B)"), ("fitting", "N", "min", "133", 1e6, " (M)"),
    ("fitting", "N", "max", "3.4", 1e9, " (B)"), ("fitting", "D", "min", "10", 1e9, " (B)"),
    ("fitting", "D", "max", "50", 1e9, " (B)"),
    ("validation", "G", "max", "40", 1, ""), ("validation", "S", "min", "0.0", 1, ""),
    ("validation", "S", "max", "0.7", 1, ""), ("validation", "Na", "min", "453", 1e6, " (M)"),
    ("validation", "Na", "max", "6.6", 1e9, " (B)"), ("validation", "N", "min", "2.4", 1e9, " (B)"),
    ("validation", "N", "max", "30", 1e9, " (B)"), ("validation", "D", "min", "10", 1e9, " (B)"),
    ("validation", "D", "max", "100", 1e9, " (B)"),
):
    note = _RANGE_NOTES.get((role, column, how), "")
    CLAIMS.append(Claim(
        PAPER, f"App. L, {role} range", f"{how} of {column} over Table 8's {role} rows{unit}",
        printed, _extreme(role, column, how, scale),
        expected="discrepancy" if note else "reproduced", explanation=note,
        kind="consistency",
    ))
CLAIMS += [
    Claim(PAPER, "App. L, fitting range", "min of G over Table 8's fitting rows (open bound)",
          "1", _extreme("fitting", "G", "min", 1), relation=">", kind="consistency"),
    Claim(PAPER, "App. L, validation range",
          "min of G over Table 8's validation rows (open bound)", "1",
          _extreme("validation", "G", "min", 1), relation=">", kind="consistency"),
    Claim(PAPER, "Sec. 3", "largest validation total size (B)", "9",
          _extreme("validation", "N", "max", 1e9), expected="discrepancy",
          explanation="Sec. 3 says validation goes 'up to 9B total model size', but Table 8's "
          "row 446 (N_a = 3070M, N = 30249M, marked ✓) is a 30B model, as App. L states.",
          kind="consistency"),
    Claim(PAPER, "Sec. 3", "largest number of activated experts G in validation", "20",
          _extreme("validation", "G", "max", 1), expected="discrepancy",
          explanation="Sec. 3 says validation goes up to '20 activated experts', but Table 8's "
          "rows 447–449 have G = 40, as App. L's G ∈ (1, 40] states.", kind="consistency"),
]
