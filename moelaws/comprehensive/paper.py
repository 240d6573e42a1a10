"""The comprehensive paper's adapter in the registry of papers (:mod:`moelaws.papers`).

Everything the cross-paper parts of the book need of this paper: its identity, claims, counting
convention and ratios, its recommendation for a budget (the G, S and N_a/N optima, App. G),
where its law was fitted (Table 8), its verdict on a real configuration, its row of the
conventions card and its block of the design calculator.
"""

from __future__ import annotations

import math
from functools import lru_cache
from typing import Any

from moelaws import arch
from moelaws.arch.hf_config import ConfigLike, accepts_hf_config
from moelaws.comprehensive.counting import comprehensive_counts, granularity
from moelaws.comprehensive.law import loss
from moelaws.comprehensive.optima import (
    compute_optimal_active,
    compute_optimal_loss,
    efficiency_aware_active_ratio,
    optimal_active_ratio,
    optimal_G,
    optimal_S,
    practical_G_range,
    practical_S_range,
)
from moelaws.comprehensive.tables import table8
from moelaws.roles import (
    NAN,
    Budget,
    CalculatorBlock,
    Card,
    ComputeOptimal,
    Convention,
    Granularity,
    GranularityPrice,
    Paper,
    Range,
    Recommendation,
    caveats,
    out_of_range,
    position,
    require_moe,
    tokens_or_nan,
)

ID = "comprehensive"

COMPREHENSIVE_G, COMPREHENSIVE_S = 7.0, 0.31
"""The rounded optima the comprehensive paper recommends (Sec. 5.2) and uses in Table 4."""

FLOPS_PER_PARAM_TOKEN = 6.0
"""Our conversion of training FLOPs to the comprehensive paper's C = D·N_a (C_FLOPs ≈ 6·N_a·D;
the paper itself defines no FLOPs)."""


def _claims() -> list:
    # Imported when asked for: the claims read every table of the paper, and the commands
    # that need no claim (``moelaws counts``, ``design``) should not pay for them.
    from moelaws.comprehensive.claims import CLAIMS

    return list(CLAIMS)


@accepts_hf_config
def ratios(cfg: ConfigLike) -> dict[str, float]:
    """Eq. 2's granularity G = n_k + n_s of ``cfg`` (its S is the leverage paper's formula).

    Parameters
    ----------
    cfg : MoEConfig or Hugging Face config (dict, path or directory)
    """
    return {"G = n_k+n_s (comprehensive)":
            granularity(cfg) if cfg.is_moe else NAN}


def recommend(budget: Budget) -> Recommendation:
    """G and S optima (Eq. 12-13), the N_a/N band at N (Eq. 14 and Algorithm 1, ΔLoss =
    0.005), and with a compute budget App. G's compute-optimal N_a at fixed N (C = D·N_a, from
    FLOPs by our 6·N_a·D conversion)."""
    conv = "comprehensive: N, N_a by Eq. 2-3 (non-embedding); C = D·N_a (parameter-tokens)"
    compute, N, active_params = budget.compute, budget.total_params, budget.active_params
    if N is None:
        return Recommendation.not_applicable(
            ID, PAPER.label,
            "needs --total-params (its N_a/N optimum and App. G are at fixed N)", conv)
    theory = float(optimal_active_ratio(N, COMPREHENSIVE_G, COMPREHENSIVE_S))
    low = float(efficiency_aware_active_ratio(N, 5e-3, COMPREHENSIVE_G, COMPREHENSIVE_S))
    n_shared = round(COMPREHENSIVE_S * COMPREHENSIVE_G)
    values: dict[str, float | int | str] = {
        "G_opt = n_k+n_s": optimal_G(), "S_opt = n_s/G": optimal_S(),
        "G, S used (Sec. 5.2)": f"{COMPREHENSIVE_G:g}, {COMPREHENSIVE_S:g}",
        "activated experts n_k + n_s": f"{int(COMPREHENSIVE_G) - n_shared} + {n_shared}",
        "N_a/N band low (ΔLoss 0.005)": low, "N_a/N theoretical (Eq. 14)": min(theory, 1.0),
        "N_a band (params)": f"{low * N:.4g} to {min(theory, 1.0) * N:.4g}",
    }
    if active_params is not None:
        ratio = active_params / N
        values["given N_a/N"] = ratio
        values["given N_a/N verdict"] = ("below" if ratio < low else
                                         "above" if ratio > theory else "inside")
    if compute is not None:
        c_pt = compute / FLOPS_PER_PARAM_TOKEN
        na_star = float(compute_optimal_active(c_pt, N, COMPREHENSIVE_G, COMPREHENSIVE_S))
        values.update({
            "C = D·N_a (compute/6)": c_pt, "N_a* at C (App. G)": na_star,
            "D* = C/N_a*": c_pt / na_star,
            "L* (Eq. 11)": float(compute_optimal_loss(c_pt, N, COMPREHENSIVE_G,
                                                     COMPREHENSIVE_S)),
        })
    return Recommendation(
        ID, PAPER.label, True, values=values, convention=conv,
        open_fields=("depth, width, heads, expert width and number of routed experts: the law "
                     "sees only N, N_a, D, G and S"),
        flags=tuple(out_of_range(fitted_ranges(), N=N)),
    )


@lru_cache(maxsize=1)
def fitted_ranges() -> dict[str, Range]:
    """Sizes, tokens and granularities of Table 8."""
    t8 = table8()
    ratio = t8["Na"] / t8["N"]
    return {
        "N": Range("N", float(t8["N"].min()), float(t8["N"].max()), "Table 8"),
        "D": Range("D", float(t8["D"].min()), float(t8["D"].max()), "Table 8"),
        "G": Range("G = n_k+n_s", float(t8["G"].min()), float(t8["G"].max()), "Table 8"),
        "S": Range("S = n_s/G", float(t8["S"].min()), float(t8["S"].max()), "Table 8"),
        "N_a/N": Range("N_a/N", float(ratio.min()), float(ratio.max()), "Table 8"),
    }


OUTSIDE = "outside what this law was fitted on"
"""What a verdict reads when the model lies outside the law's fitted domain."""


@accepts_hf_config
def verdict(cfg: ConfigLike, tokens: float | None, *,
            attention: str = "weights") -> dict[str, Any]:
    """The comprehensive law's verdicts on G, S and N_a/N, and its predicted loss gaps.

    N and N_a by Eq. 2-3 with the real attention weights (``attention="weights"``, the
    default: Eq. 2's 4·d_head·n_h·d is the weight count of the paper's multi-head models, and
    its Table 4 counts DeepSeek and Kimi by their model cards, e.g. 37B active for DeepSeek;
    ``"eq2"`` counts MLA and grouped-query attention as multi-head, see
    :func:`moelaws.comprehensive.counting.comprehensive_counts`), G = n_k + n_s, S = n_s/G.
    The practical ranges (Table 3) and the N_a/N band (Table 4: from the efficiency-aware
    optimum at ΔLoss = 0.005 up to the theoretical Eq. 14 optimum at G = 7, S = 0.31) are
    evaluated at the model's N and N_a. Loss gaps (nats, Eq. 11) at fixed N and D: from moving
    G to G_opt, S to S_opt, and all three of G, S, N_a to their optima (D cancels from these
    differences, so they need no token count). With D known, also the gap to App. G's
    compute-optimal loss at the same N and C = D·N_a.

    The ``G``, ``S`` and ``N_a/N verdict`` read :data:`OUTSIDE` unless N, N_a/N, G and S all
    lie in Table 8's ranges (D does not enter these three answers: Eq. 11 has no D-G, D-S or
    D-N_a/N term); the ``compute-optimal verdict`` also needs D inside. ``G position`` etc.
    keep the extrapolated positions.

    Parameters
    ----------
    cfg : MoEConfig or Hugging Face config (dict, path or directory)
        An MoE configuration.
    tokens
        Training tokens D, or ``None``.

    Raises
    ------
    ValueError
        For a dense configuration.
    """
    require_moe(cfg)
    c = comprehensive_counts(cfg, attention=attention)
    N, Na = c.total, c.active
    G = granularity(cfg)
    S = arch.sharing_ratio(cfg)
    D = tokens_or_nan(tokens)
    g_opt, s_opt = optimal_G(), optimal_S()
    g_lo, g_hi = (float(x) for x in practical_G_range(N, Na, 1e-3))
    s_lo, s_hi = (float(x) for x in practical_S_range(N, Na, 1e-3))
    theory = float(optimal_active_ratio(N, COMPREHENSIVE_G, COMPREHENSIVE_S))
    band_low = float(efficiency_aware_active_ratio(N, 5e-3, COMPREHENSIVE_G, COMPREHENSIVE_S))
    # D cancels from loss differences at fixed N and D; any positive value gives the same gap.
    d_eval = D if math.isfinite(D) else 1e12
    here = float(loss(N, d_eval, Na, G, S))
    na_opt = min(float(optimal_active_ratio(N, g_opt, s_opt)), 1.0) * N
    row = {
        "N": N, "N_a": Na, "N_a/N": Na / N, "G = n_k+n_s": G, "S = n_s/G": S,
        "N_a (Eq. 2 as printed)": comprehensive_counts(cfg, attention="eq2").active,
        "G_opt": g_opt, "G range (0.001)": (g_lo, g_hi),
        "G position": position(G, g_lo, g_hi),
        "S_opt": s_opt, "S range (0.001)": (s_lo, s_hi), "S position": position(S, s_lo, s_hi),
        "N_a/N band low (ΔLoss 0.005)": band_low, "N_a/N theoretical": theory,
        "N_a/N position": position(Na / N, band_low, theory),
        "ΔL from G": here - float(loss(N, d_eval, Na, g_opt, S)),
        "ΔL from S": here - float(loss(N, d_eval, Na, G, s_opt)),
        "ΔL to optimum at fixed N, D": here - float(loss(N, d_eval, na_opt, g_opt, s_opt)),
        "D (tokens)": D,
    }
    if math.isfinite(D):
        C = D * Na
        row["C = D·N_a"] = C
        row["N_a* at C"] = float(compute_optimal_active(C, N, g_opt, s_opt))
        row["ΔL to compute optimum at fixed N, C"] = here - float(
            compute_optimal_loss(C, N, g_opt, s_opt))
    else:
        row.update({"C = D·N_a": NAN, "N_a* at C": NAN,
                    "ΔL to compute optimum at fixed N, C": NAN})
    structure_flags = out_of_range(fitted_ranges(), N=N, G=G, S=S, **{"N_a/N": Na / N})
    for name in ("G", "S", "N_a/N"):
        row[f"{name} verdict"] = OUTSIDE if structure_flags else row[f"{name} position"]
    row["in fitted domain (G, S, N_a/N)"] = not structure_flags
    row["convention"] = ("comprehensive: Eq. 2-3 counts with real attention weights "
                         "(non-embedding), C = D·N_a" if attention == "weights" else
                         "comprehensive: Eq. 2-3 counts as printed (non-embedding), C = D·N_a")
    row["flags"] = out_of_range(fitted_ranges(), N=N, D=D, G=G, S=S, **{"N_a/N": Na / N})
    notes = ("the paper's Tables 3-4 use model-card sizes (embeddings included)",
             "" if math.isfinite(D) else "training tokens unpublished: compute-optimal gap not "
             "computable")
    if attention == "weights":
        row["caveat"] = "; ".join(n for n in notes if n)
    else:
        row["caveat"] = caveats(cfg, *notes)
    return row


def _card_values(cfg: arch.MoEConfig) -> dict[str, float]:
    c = comprehensive_counts(cfg)
    return {"G value": granularity(cfg), "S value": arch.sharing_ratio(cfg),
            "r / sparsity value": c.active / c.total}


def _data_tables() -> dict:
    # Imported when asked for, like the claims: the tables read the paper's data files.
    from moelaws.comprehensive.data_tables import data_tables

    return data_tables()


def _sweep_widths() -> tuple[Any, str]:
    # Its G sweeps hold N_a, hence w, fixed; Table 1 is the only table that prints widths.
    from moelaws.comprehensive.tables import read_table

    t1 = read_table("table1")
    return ((t1["n_activated_routed"] + t1["n_shared"]) * t1["d_expert"] / t1["d_hidden"],
            "Table 1: (n_k + n_s)·d_expert/d_hidden")


def _sweep_sparsity() -> tuple[str, Any, str]:
    t8 = table8()
    sweeps = t8[t8["role"] == "marginal_G"]
    return "N_a/N", sweeps["Na"] / sweeps["N"], "Table 8, G-sweep rows"


GRANULARITY = Granularity(
    of=granularity,
    definition="G = n_k + n_s (activated experts, Eq. 2)",
    column="G_comp = n_k+n_s",
    per_width=lambda w: w,
    widths=_sweep_widths,
    optima=lambda: [{"label": ID, "optimum (own definition)": optimal_G(),
                     "how": "Eq. 12 with Table 2: √(f/e)"}],
    fitted_range=lambda: (fitted_ranges()["G"].low, fitted_ranges()["G"].high),
    sweep_sparsity=_sweep_sparsity,
    price=GranularityPrice(
        optimum=lambda at: optimal_G(),
        # D cancels from loss differences at fixed N and D; any positive value will do.
        value=lambda G, at: float(loss(at["N"], 1e11, at["Na"], G, at["S"])),
        cost=lambda own, other: other - own,
        unit="nats of Eq. 11 loss",
    ),
)
"""Eq. 2's granularity, Table 1's widths, Table 8's G sweeps and Eq. 12's optimum."""


def _compute_optimal(compute: float, total_params: float, design: Any) -> dict[str, float]:
    """App. G's compute-optimal N_a at fixed N for C = D·N_a = compute/6 (our FLOPs
    conversion, :data:`FLOPS_PER_PARAM_TOKEN`), at G = 7, S = 0.31; κ = 1."""
    c_pt = compute / FLOPS_PER_PARAM_TOKEN
    na = float(compute_optimal_active(c_pt, total_params, COMPREHENSIVE_G, COMPREHENSIVE_S))
    return {"N_a": na, "D": c_pt / na, "own budget": c_pt, "M or N_a (own count)": na,
            "kappa": 1.0}


COMPUTE_OPTIMAL = ComputeOptimal(
    count="C = D·N_a parameter-tokens (App. G); FLOPs/6 by our conversion",
    own=_compute_optimal,
    # The paper's count is 6·N_a·D itself (κ = 1): both budgets are the same.
    common=_compute_optimal,
    domain=lambda answer, total_params: {"N": total_params, "D": answer["D"],
                                         "N_a/N": answer["N_a"] / total_params},
)
"""App. G's compute-optimal N_a and D at fixed N."""


PAPER = Paper(
    id=ID,
    title="A comprehensive MoE scaling law L(N, D, N_a, G, S)",
    label="Comprehensive joint law (anon. 2025)",
    docname="notebooks/04_comprehensive",
    bib_key="anon2025comprehensive",
    claims=_claims,
    convention=Convention(
        ID, comprehensive_counts,
        "Eq. 2-3: (4·d_head·n_h + 3·G·d_e)·d·l; compute per token = N_a"),
    ratios=ratios,
    granularity=GRANULARITY,
    recommend=recommend,
    fitted_ranges=fitted_ranges,
    verdict=verdict,
    card=Card(
        definitions={
            "N, N_a": "Eq. 2-3: (4·d_head·n_h + 3·G·d_e)·d·l",
            "compute C": "D·N_a (parameter-tokens, not FLOPs)",
            "G": "n_k + n_s, activated experts",
            "S": "n_s/G (same formula as leverage's S)",
            "r / sparsity": "N_a/N",
        },
        values=_card_values,
    ),
    calculator=CalculatorBlock(
        sliders=("C", "N"),
        keys=("N_a/N band low (ΔLoss 0.005)", "N_a/N theoretical (Eq. 14)",
              "N_a* at C (App. G)", "D* = C/N_a*"),
        active=lambda rec: rec.values["N_a* at C (App. G)"],
        tokens=lambda rec: rec.values["D* = C/N_a*"],
    ),
    data_tables=_data_tables,
    compute_optimal=COMPUTE_OPTIMAL,
)
"""The comprehensive paper's adapter."""
