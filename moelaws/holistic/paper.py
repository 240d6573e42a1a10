"""The holistic paper's adapter in the registry of papers (:mod:`moelaws.papers`).

Everything the cross-paper parts of the book need of this paper: its identity, claims, counting
convention and ratios, its recommendation for a budget (the Sec. 7 design), where its laws were
fitted (Table 2's scales), its verdict on a real configuration, its row of the conventions card
and its block of the design calculator.
"""

from __future__ import annotations

import math
from functools import lru_cache
from typing import Any

from moelaws import arch
from moelaws.arch.hf_config import ConfigLike, accepts_hf_config
from moelaws.holistic.counting import holistic_counts, holistic_ratios
from moelaws.holistic.design import (
    DESIGN_DOMAIN,
    chosen_n_over_na,
    design_report,
    optimal_m_over_na,
)
from moelaws.holistic.law import optimal_flops_per_token, optimal_tokens
from moelaws.holistic.tables import SCALES
from moelaws.roles import (
    NAN,
    Budget,
    CalculatorBlock,
    Card,
    ComputeOptimal,
    Convention,
    Paper,
    Range,
    Recommendation,
    caveats,
    out_of_range,
    require_moe,
    tokens_or_nan,
)

ID = "holistic"


def _claims() -> list:
    # Imported when asked for: the claims read every table of the paper, and the commands
    # that need no claim (``moelaws counts``, ``design``) should not pay for them.
    from moelaws.holistic.claims import CLAIMS

    return list(CLAIMS)


@accepts_hf_config
def ratios(cfg: ConfigLike) -> dict[str, float]:
    """Eq. 5's coordinates M/N_a and N/N_a of ``cfg`` (App. A counts).

    Parameters
    ----------
    cfg : MoEConfig or Hugging Face config (dict, path or directory)
    """
    return {f"{k} (holistic)": v for k, v in holistic_ratios(cfg).items()}


def recommend(budget: Budget) -> Recommendation:
    """Sec. 7: compute budget -> full architecture (:func:`moelaws.holistic.design_report`,
    with its documented stand-ins)."""
    conv = "holistic: M = 6N_a + 6·S·N_q·d_qkv·L (S = 8192), C = M·D"
    compute = budget.compute
    if compute is None:
        return Recommendation.not_applicable(
            ID, PAPER.label, "needs --compute (Sec. 7 designs from C)", conv)
    lo, hi = DESIGN_DOMAIN
    if not lo <= compute <= hi:
        return Recommendation.not_applicable(
            ID, PAPER.label, f"--compute {compute:.3g} is outside the design domain "
            f"[{lo:.0e}, {hi:.0e}] FLOPs (laws fitted on 1e18-3e20)", conv)
    rep = design_report(compute)
    values = {
        "M_opt (FLOPs/token)": rep.M_target, "M realised": rep.M,
        "D = C/M (tokens)": rep.tokens, "M/N_a target": rep.m_over_na_target,
        "N/N_a target": rep.n_over_na_target, "N_a realised": rep.N_a, "N realised": rep.N,
        "max deviation from targets": max(abs(v) for v in rep.deviations().values()),
    }
    return Recommendation(
        ID, PAPER.label, True, values=values, config=rep.config,
        convention=conv,
        open_fields=("the paper prints no law for M/N_a (Fig. 5b) or d (Fig. 6b): our fit and "
                     "the median-d proxy stand in; N_e = 288, K = 8, one shared expert, "
                     "d_d = 3d, vocabulary 152,064 as in Sec. 4.2.2; d, d_m multiples of 8"),
        flags=tuple(out_of_range(fitted_ranges(), C=compute)),
    )


@lru_cache(maxsize=1)
def fitted_ranges() -> dict[str, Range]:
    """The compute scales of Table 2."""
    scales = [float(s) for s in SCALES]
    return {"C": Range("C", min(scales), max(scales), "Table 2 scales")}


@accepts_hf_config
def verdict(cfg: ConfigLike, tokens: float | None) -> dict[str, Any]:
    """The holistic pipeline (Sec. 7) at the model's training compute, against the model.

    ``C = M·D`` with the paper's M = 6·N_a + 6·S·N_q·d_qkv·L (``arch`` convention
    ``"holistic"``; S is the context length the book assumes for the model). Eq. 2 gives
    M_opt and D_opt, our fit
    the optimal M/N_a, App. F.4 the chosen N/N_a; within the design domain (at most 1e24
    FLOPs) :func:`moelaws.holistic.design_report` also gives an architecture.

    Parameters
    ----------
    cfg : MoEConfig or Hugging Face config (dict, path or directory)

    Raises
    ------
    ValueError
        For a dense configuration.
    """
    require_moe(cfg)
    c = holistic_counts(cfg)
    D = tokens_or_nan(tokens)
    C = c.compute_per_token * D
    coords = holistic_ratios(cfg)
    row: dict[str, Any] = {
        "M (FLOPs/token)": c.compute_per_token, "N_a": c.active, "N": c.total,
        "M/N_a": coords["M/N_a"], "N/N_a": coords["N/N_a"], "d": cfg.d_model,
        "L": cfg.n_layers, "D (tokens)": D, "C (FLOPs)": C,
    }
    keys = ("M_opt", "D_opt", "M/N_a target", "N/N_a target", "design d", "design L",
            "design L_d", "design d_m", "design N_a", "design N")
    row.update(dict.fromkeys(keys, NAN))
    extra = []
    if math.isfinite(C):
        row.update({"M_opt": float(optimal_flops_per_token(C)),
                    "D_opt": float(optimal_tokens(C)),
                    "M/N_a target": float(optimal_m_over_na(C)),
                    "N/N_a target": float(chosen_n_over_na(C))})
        lo, hi = DESIGN_DOMAIN
        if lo <= C <= hi:
            rep = design_report(C)
            row.update({"design d": rep.config.d_model, "design L": rep.config.n_layers,
                        "design L_d": rep.config.n_dense_layers,
                        "design d_m": rep.config.d_expert, "design N_a": rep.N_a,
                        "design N": rep.N})
        else:
            extra.append(f"C above the design domain ({hi:.0e}): targets only, no architecture")
    else:
        extra.append("training tokens unpublished")
    row["M/M_opt"] = row["M (FLOPs/token)"] / row["M_opt"]
    row["D/D_opt"] = D / row["D_opt"]
    row["convention"] = "holistic: App. A counts, M = 6N_a + 6·S·N_q·d_qkv·L, C = M·D"
    row["flags"] = out_of_range(fitted_ranges(), C=C)
    row["caveat"] = caveats(cfg, *extra, "M/N_a target is our fit (Fig. 5b prints no law)")
    return row


def _card_values(cfg: arch.MoEConfig) -> dict[str, float]:
    return {"G value": math.nan, "S value": float(cfg.context_length),
            "r / sparsity value": cfg.top_k / cfg.n_experts}


def _data_tables() -> dict:
    # Imported when asked for, like the claims: the tables read the paper's data files.
    from moelaws.holistic.data_tables import data_tables

    return data_tables()


@lru_cache(maxsize=64)
def _design_report(compute: float) -> Any:
    return design_report(compute)


def _compute_optimal_own(compute: float, total_params: float, design: Any) -> dict[str, float]:
    """Sec. 7's design at ``compute`` (C = M·D): its N_a, D = C/M and κ = M/(6·N_a)."""
    rep = _design_report(compute)
    return {"N_a": rep.N_a, "D": compute / rep.M, "own budget": compute,
            "M or N_a (own count)": rep.M, "kappa": rep.M / (6.0 * rep.N_a)}


def _compute_optimal_common(compute: float, total_params: float,
                            design: Any) -> dict[str, float]:
    """Sec. 7's design whose realised 6·N_a·D equals ``compute``: the budget in the paper's
    count is the fixed point of ``budget = compute·κ(budget)``."""
    own_budget = compute
    for _ in range(20):
        rep = _design_report(own_budget)
        nxt = compute * (rep.M / (6.0 * rep.N_a))
        if abs(nxt / own_budget - 1) < 1e-9:
            break
        own_budget = nxt
    rep = _design_report(own_budget)
    return {"own budget": own_budget, "kappa": rep.M / (6.0 * rep.N_a), "N_a": rep.N_a,
            "D": own_budget / rep.M, "M or N_a (own count)": rep.M}


COMPUTE_OPTIMAL = ComputeOptimal(
    count="C = M·D, M = 6N_a + 6·S·N_q·d_qkv·L, S = 8192 (Eq. 2-3)",
    own=_compute_optimal_own,
    common=_compute_optimal_common,
    domain=lambda answer, total_params: {"C": answer["own budget"]},
    design=lambda compute: _design_report(compute).config,
)
"""Sec. 7's compute-optimal design in the paper's count and in 6·N_a·D."""


PAPER = Paper(
    id=ID,
    title="Holistic MoE scaling laws: (M, N_a, N) constraints",
    label="Holistic laws (Wan et al. 2026)",
    docname="notebooks/03_holistic",
    bib_key="wan2026holistic",
    claims=_claims,
    convention=Convention(
        ID, holistic_counts, "App. A Eq. 10-12: M = 6N_a + 6·S·N_q·d_qkv·L (S = context length)"),
    ratios=ratios,
    recommend=recommend,
    fitted_ranges=fitted_ranges,
    verdict=verdict,
    card=Card(
        definitions={
            "N, N_a": "App. A Eq. 10-12, non-embedding",
            "compute C": "M·D, M = 6·N_a + 6·S·N_q·d_qkv·L",
            "G": "(not a variable: N_e = 288, K = 8 fixed)",
            "S": "sequence length (8192 in the paper; here the context the book assumes for "
                 "each model)",
            "r / sparsity": "fixed K/N_e = 8/288",
        },
        values=_card_values,
    ),
    calculator=CalculatorBlock(
        sliders=("C",),
        keys=("N_a realised", "N realised", "D = C/M (tokens)"),
        active=lambda rec: rec.values.get("N_a realised", math.nan),
        tokens=lambda rec: rec.values.get("D = C/M (tokens)", math.nan),
    ),
    data_tables=_data_tables,
    compute_optimal=COMPUTE_OPTIMAL,
)
"""The holistic paper's adapter."""
