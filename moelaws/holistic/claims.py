"""Holistic MoE scaling laws (Wan et al., arXiv:2603.21862): Eq. 2 vs Table 2, and the
paper's statements about its ~670 appendix architectures (Tables 5-21) checked with Eq. 3.

Every "ours" is computed by :mod:`moelaws.holistic` from the paper's formulas and the
transcribed tables. The paper publishes no losses, so Table 3, Fig. 4-6's fitted optima and
App. F.4's fitted N/N_a values cannot be recomputed and are not claimed here.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from moelaws.claim import Claim
from moelaws.holistic import checks, fits
from moelaws.holistic import tables as data
from moelaws.holistic.law import optimal_flops_per_token, optimal_tokens, ratio_bounds

P = "holistic"


def _table2_value(quantity: str, row: int) -> Callable[[], float]:
    def compute() -> float:
        c = float(data.table2()["C"].iloc[row])
        if quantity == "M":
            return float(optimal_flops_per_token(c)) / 1e9
        return float(optimal_tokens(c)) / 1e9

    return compute


_EQ2_ROUNDING = (
    "Eq. 2's coefficients are printed rounded (4-5 significant digits) while Table 2 was "
    "evidently computed with unrounded ones: moelaws.holistic.checks."
    "eq2_consistent_coefficients finds unrounded pairs that print exactly as Eq. 2 (e.g. "
    "exponent 0.543703, coefficient 0.043675 for M) and reproduce all six Table 2 entries. "
    "Rounding the exponent moves C^b by up to 0.1 % at 3e20, i.e. a few units of Table 2's "
    "4th decimal."
)

_TABLE2 = data.table2()
CLAIMS: list[Claim] = []
for i, row in _TABLE2.iterrows():
    for quantity, column, unit, miss in (
        ("M", "M_GFLOPs_printed", "M_opt (GFLOPs)", {3, 4, 5}),
        ("D", "D_billion_tokens_printed", "D_opt (billion tokens)", {5}),
    ):
        bad = int(i) in miss
        CLAIMS.append(
            Claim(
                P,
                f"Table 2, C = {row['C_EFLOPs_printed']} EFLOPs, from Eq. 2",
                unit,
                row[column],
                _table2_value(quantity, int(i)),
                expected="discrepancy" if bad else "reproduced",
                explanation=_EQ2_ROUNDING if bad else "",
                kind="consistency",
            )
        )

_REFIT = checks.refit_eq2
_COEF_DEGENERACY = (
    "Our log-space OLS through Table 2 gives an exponent that prints as Eq. 2's but is not "
    "exactly it (0.543725 for M, 0.456298 for D); over C = 1e18-3e20 (mean log C = 44.2) an "
    "exponent shift of 2.5e-5 moves the coefficient by 0.11 %, exactly the gap. With the "
    "exponent fixed at its printed value the refit coefficient reproduces Eq. 2 (next claim)."
)
CLAIMS += [
    Claim(P, "Eq. 2, M_opt exponent, refit from Table 2", "exponent", "0.5437",
          lambda: _REFIT()["M_exp"], kind="consistency"),
    Claim(P, "Eq. 2, M_opt coefficient, refit from Table 2 (free exponent)", "coefficient",
          "0.04368", lambda: _REFIT()["M_coef"], expected="discrepancy",
          explanation=_COEF_DEGENERACY, kind="consistency"),
    Claim(P, "Eq. 2, M_opt coefficient, refit from Table 2 (exponent fixed at 0.5437)",
          "coefficient", "0.04368", lambda: _REFIT()["M_coef_at_printed_exp"], kind="consistency"),
    Claim(P, "Eq. 2, D_opt exponent, refit from Table 2", "exponent", "0.4563",
          lambda: _REFIT()["D_exp"], kind="consistency"),
    Claim(P, "Eq. 2, D_opt coefficient, refit from Table 2 (free exponent)", "coefficient",
          "22.8929", lambda: _REFIT()["D_coef"], expected="discrepancy",
          explanation=_COEF_DEGENERACY, kind="consistency"),
    Claim(P, "Eq. 2, D_opt coefficient, refit from Table 2 (exponent fixed at 0.4563)",
          "coefficient", "22.8929", lambda: _REFIT()["D_coef_at_printed_exp"], kind="consistency"),
]


APP_E_RUNS = 6 * 5
"""App. E: six optimal configurations x five (K+1)·d_m/d values; whether they are among the
tabulated rows the paper does not say."""


def _rows(section: str | None = None) -> Callable[[], float]:
    def compute() -> float:
        frame = data.appendix()
        return float(len(frame if section is None else frame[frame["section"] == section]))

    return compute


def _smallest_power_of_two() -> float:
    frame = data.appendix()
    both = np.gcd(frame["d"].to_numpy(), frame["d_m"].to_numpy())
    return float((both & -both).min())


def _min_m_over_na() -> float:
    return float(checks.appendix_counts()["M/N_a"].min())


CLAIMS += [
    Claim(P, "Sec. 7 Limitations (1): '~670 models'", "appendix configurations (Tables 5-21)",
          "6.7e2", _rows(),
          explanation="'~670' is a count rounded to tens, transcribed as 6.7e2 so that its "
          "printed precision (half a unit of the tens digit, ±5) is the tolerance.",
          kind="consistency"),
    Claim(P, "Sec. 8 Conclusion: 'over 670 model configurations'",
          "configurations tabulated in Tables 5-21", "670", _rows(), relation=">",
          expected="discrepancy",
          explanation="Tables 5-21 list 667 rows (parsed row by row; every row satisfies "
          "d_d = 3d and L = L_d + L_m), 664 distinct configurations (three rows of Tables 5-6 "
          "recur in Table 9). App. E trains 6 x 5 = 30 configurations at "
          "the six sweeps' optimal (M, N_a, N) with (K+1)·d_m/d = 3.0-5.0, which would make "
          "697 if they are not tabulated; but every d sweep (Tables 16-21) has rows within "
          "0.24 of each of those five ratios, so they may be sweep rows (a loose test: the "
          "sampled ratios are 0.5 apart). Untabulated App. F.2 "
          "learning-rate/batch-size sweeps and Eq. 2's fitting runs could also make 'over "
          "670' true; the published tables alone do not.",
          kind="consistency"),
    Claim(P, "Sec. 4.3 / App. F.3: '144 experiments in total' (Tables 5-8)", "rows",
          "144", _rows("4.3"), kind="consistency"),
    Claim(P, "Sec. 4.3: '10 distinct configurations' (Tables 5-8)", "configurations",
          "10", lambda: float(checks.sec43_configurations()["config"].nunique()),
          kind="consistency"),
    Claim(P, "Sec. 5.2: '6 x 6 x 6 = 216 unique experimental configurations' (Tables 9-14)",
          "rows", "216", _rows("5.2"), kind="consistency"),
    Claim(P, "Sec. 4.2.2 / App. F.4: dimensions are multiples of 2^3 to 2^5",
          "largest power of two dividing every d and d_m", "8", _smallest_power_of_two,
          relation=">=", kind="consistency"),
    Claim(P, "Sec. 5.1 / Eq. 5: M/N_a > 6", "smallest M/N_a over all 667 rows", "6",
          _min_m_over_na, relation=">", kind="consistency"),
    Claim(P, "Sec. 5.2: upper limit of N/N_a, (N_e+1)/(K+1), 'around 32'", "N/N_a bound",
          "32", lambda: ratio_bounds()["N/N_a"][1], kind="reproduction"),
]

_GRID_EXPLANATION = (
    "A few rows realise an N/N_a nearer a neighbouring sampled value than their own "
    "(deviations up to {dev}); Tables 9-14 hold M/N_a within ~3 % of the grid but let N/N_a "
    "drift with the integer layer split. See checks.grid_assignment."
)
_GRID_MISSES = {10: "13 %", 11: "17 %", 12: "7 %"}
_GRID_SUMMARY = checks.grid_summary
for scale, table in checks.GRID_TABLES.items():
    miss = table in _GRID_MISSES
    CLAIMS.append(
        Claim(
            P,
            f"Sec. 5.2, Table {table} (C = {scale}): 6 x 6 grid of (M/N_a, N/N_a)",
            "distinct grid cells nearest to the rows' coordinates",
            "36",
            lambda t=table: float(
                _GRID_SUMMARY().set_index("table").loc[t, "distinct cells"]
            ),
            expected="discrepancy" if miss else "reproduced",
            explanation=_GRID_EXPLANATION.format(dev=_GRID_MISSES[table]) if miss else "",
            kind="consistency",
        )
    )

_M_EXPLANATIONS = {
    "4.3": "Sec. 4.3's sweeps keep each configuration's M/N_a near 7, 9 or 15 at a fixed L "
    "(3, 7, 12-13). Since M = r/(r-6)·6·S·N_q·d_qkv·L for M/N_a = r, a 1 % drift of r moves "
    "M by 6/(r-6) % (6 % at r = 7); some rows drop a layer (L = 6 instead of 7: M -12 to "
    "-14 %), and the r = 15 sweeps mostly use L = 12, where even the exact r gives M -5.8 % "
    "(L = 13 would give +2 %).",
    "5.2": "The grid rows hold M/N_a at its grid value (median deviation 0.2-0.6 %), so "
    "M = r/(r-6)·6·S·N_q·d_qkv·L is fixed by the integer L (an identity for held "
    "coordinates; checks.grid_quantisation). Whole layers force the miss for only 30 of "
    "the 139 out-of-band grid rows (6 of 36 (scale, M/N_a) pairs, best 5.1-8.8 %); the other "
    "109 could have met the band with another L (checks.grid_m_miss_breakdown). The "
    "deviations are one-signed at four scales (all below target at 1e19 and 1e20, all above "
    "at 3e18 and 3e19) and majority-signed at 1e18 (below) and 3e20 (above; "
    "checks.grid_m_sign_by_scale), which rounding to the nearest layer does not explain (it "
    "gives both signs at every scale): perhaps a different M target per scale, not stated "
    "by the paper.",
    "5.3": "Table 15 samples M/N_a at fixed N/N_a; M again follows the integer L at the "
    "sampled M/N_a (e.g. 1e18, d = 1024: L = 5, M -8.7 %).",
    "6": "The sweep holds M/N_a near the optimum while L alternates between two integers "
    "(9/10 at 1e18, 7/8 at 3e18, 10/11 at 3e19), one layer moving M by (1 - 6/r)/L = 3-5 %, "
    "and N_a drifts by up to +-9 % across the sweep (another ~5 % of M).",
}
_M_OK = {18, 20, 21}
for table, section in data.SECTION_OF_TABLE.items():
    ok = table in _M_OK
    CLAIMS.append(
        Claim(
            P,
            f"Table 4 note: M within 5 % of the target, Table {table} (Sec. {section})",
            "largest |M/M_opt(C) - 1| over the table's rows (%)",
            "5",
            lambda t=table: checks.max_abs_m_deviation(t),
            relation="<=",
            expected="reproduced" if ok else "discrepancy",
            explanation="" if ok else _M_EXPLANATIONS[section]
            + " Counted with Eq. 3 and Table 4's heads, which put the grid rows' M/N_a on "
            "the sampled values better than any power-of-two setting with other query or "
            "key-value widths (checks.head_setting_scan), so the heads are not the cause.",
            kind="consistency",
        )
    )

_N_SWEEP_EXPLANATION = (
    "Every d sweep realises N/N_a of 21.5-22.1 (median) whatever F.4 chose; F.4 admits the "
    "targets were not always met, blaming the M constraint and hardware multiples. Two "
    "yardsticks (checks.n_over_na_summary): moving d_m by half a step of 8 changes N/N_a by "
    "0.1-0.55, and one more dense layer at the same d, L and N_a by 1.4-3.0. The offsets are "
    "1.0 and 0.7 dense-layer steps at 1e18 and 3e18 and at most 0.3 elsewhere, so whole "
    "layers are the right scale; but at 1e18 and 3e18 the rows with one more dense layer "
    "(d_m re-solved, rounded to 8) would realise 18.9 and 19.3, nearer F.4's 19 and 20 at "
    "the same d, L, N_a and M. That the sweeps were built with N/N_a ~ 22 is our "
    "hypothesis, not shown."
)
_N_TABLE15_EXPLANATION = (
    "Table 15 (Sec. 5.3's extra M/N_a samples at 'fixed N/N_a') realises N/N_a ~ 17.3 at "
    "1e18 and 21.7-22.6 at the other scales, not F.4's choices. F.4 says its choices were "
    "made 'based on the direct empirical observations from Sec. 5.3', so Table 15 may have "
    "been built before them, at other targets."
)
_N_OK_SWEEP = {"1e20", "3e20"}
_N_OK_T15 = {"1e20", "3e20"}
for scale, table in checks.SWEEP_TABLES.items():
    chosen = checks.F4_CHOSEN_N_OVER_NA[scale]
    CLAIMS.append(
        Claim(
            P,
            f"App. F.4 chosen N/N_a at C = {scale}, realised in the d sweep (Table {table})",
            "median N/N_a of the table's rows",
            chosen,
            lambda s=scale, t=table: checks.realised_n_over_na(s, t),
            expected="reproduced" if scale in _N_OK_SWEEP else "discrepancy",
            explanation="" if scale in _N_OK_SWEEP else _N_SWEEP_EXPLANATION,
            kind="consistency",
        )
    )
    CLAIMS.append(
        Claim(
            P,
            f"App. F.4 chosen N/N_a at C = {scale}, realised in Table 15 (Sec. 5.3)",
            "median N/N_a of the scale's rows",
            chosen,
            lambda s=scale: checks.realised_n_over_na(s, 15),
            expected="reproduced" if scale in _N_OK_T15 else "discrepancy",
            explanation="" if scale in _N_OK_T15 else _N_TABLE15_EXPLANATION,
            kind="consistency",
        )
    )

CLAIMS.append(
    Claim(
        P,
        "Sec. 5.3: 'the optimal M/N_a decreases with increasing compute scale', as the M/N_a "
        "chosen for the d sweeps",
        "upper end of the 95 % interval of b in M/N_a = 6 + a·C^b (our fit to the design "
        "points of Tables 16-21)",
        "0",
        lambda: fits.optimal_ratio_fit(6.0).exponent_ci[1],
        relation="<",
        kind="consistency",
    )
)

_SWEEP = checks.sweep_targets
_SWEEP_TOP_EXPLANATION = (
    "Our feasible interval (checks.sweep_targets) is our construction: it admits any integer "
    "L that keeps M within 5 % of its target, including layer counts a sweep never uses. At "
    "every scale the sweep's top rows drift from the target (M, N_a, N): the largest-d row's "
    "N_a is 9.1, 8.2, 4.5, 8.4, 4.2 and 1.1 % above the target N_a (Table 2's M over the "
    "sweep's median M/N_a; 1e18 to 3e20; e.g. "
    "1e18, d = 744: N/N_a = 19.6, M +6.8 %). With that row's own N_a and N (and the target "
    "M) our bound becomes 801 / 1109 / 1368 / 2010 at the four smaller scales, above their "
    "swept maxima. At 1e20 and 3e20, where the sweeps end inside it, the interval admits "
    "L = 16-21 and 13-18 while the rows use 18-19 and 16: whether the top of a sweep lies "
    "'in the valid range' depends also on our interval's allowances."
)
_SWEEP_TOP_MISS = {"1e18", "3e18", "1e19", "3e19"}
_APPENDIX = data.appendix()
for scale, table in checks.SWEEP_TABLES.items():
    rows = _APPENDIX[_APPENDIX["table"] == table]
    d_lo, d_hi = str(int(rows["d"].min())), str(int(rows["d"].max()))
    miss = scale in _SWEEP_TOP_MISS
    CLAIMS += [
        Claim(
            P,
            f"Sec. 4.3.2 Phase 2, Table {table} (C = {scale}): smallest d swept lies in the "
            "valid range",
            "our feasible d_min for the sweep's optimal (M, N_a, N)",
            d_lo,
            lambda s=scale: float(_SWEEP().set_index("scale").loc[s, "feasible d min"]),
            relation="<=",
            kind="derived",
        ),
        Claim(
            P,
            f"Sec. 4.3.2 Phase 2, Table {table} (C = {scale}): largest d swept lies in the "
            "valid range",
            "our feasible d_max for the sweep's optimal (M, N_a, N)",
            d_hi,
            lambda s=scale: float(_SWEEP().set_index("scale").loc[s, "feasible d max"]),
            relation=">=",
            expected="discrepancy" if miss else "reproduced",
            explanation=_SWEEP_TOP_EXPLANATION,
            kind="derived",
        ),
    ]
