"""The expert-attention allocation paper's adapter in the registry of papers
(:mod:`moelaws.papers`).

Everything the cross-paper parts of the book need of this paper: its identity, claims, counting
convention and ratios, its recommendation for a budget (Eq. 1's r*), where its law was fitted
(as its text states), its verdict on a real configuration, its row of the conventions card, its
block of the design calculator and its toy-training sweep.
"""

from __future__ import annotations

import math
from typing import Any

from moelaws import arch
from moelaws.allocation.counting import (
    allocation_counts,
    expert_attention_ratio,
    mla_attention_flops,
    sparsity,
)
from moelaws.allocation.design import flops_split
from moelaws.allocation.law import expert_fraction, optimal_ratio
from moelaws.arch.hf_config import ConfigLike, accepts_hf_config
from moelaws.roles import (
    NAN,
    Budget,
    CalculatorBlock,
    Card,
    Convention,
    MLARecount,
    Paper,
    Range,
    Recommendation,
    caveats,
    out_of_range,
    require_moe,
    tokens_or_nan,
)

ID = "allocation"

ALLOCATION_S = 62 / 65
"""Default sparsity for Eq. 1: App. B.1's E = 65 (1 shared + 2 routed active), 95.38 %."""


def _claims() -> list:
    # Imported when asked for: the claims read every table of the paper, and the commands
    # that need no claim (``moelaws counts``, ``design``) should not pay for them.
    from moelaws.allocation.claims import CLAIMS

    return list(CLAIMS)


@accepts_hf_config
def ratios(cfg: ConfigLike) -> dict[str, float]:
    """App. B.1's sparsity S = 1 − E_act/E and App. C's r = C_E/C_A of ``cfg``.

    Parameters
    ----------
    cfg : MoEConfig or Hugging Face config (dict, path or directory)
    """
    return {
        "S = 1-E_act/E (allocation)": sparsity(cfg) if cfg.is_moe else 0.0,
        "r = C_E/C_A (allocation)": expert_attention_ratio(cfg),
    }


def recommend(budget: Budget) -> Recommendation:
    """Eq. 1: r* = α_r(S)·C^β_r(S) at the budget's sparsity (default :data:`ALLOCATION_S`),
    and the expert share r*/(1 + r*)."""
    conv = "allocation: r = C_E/C_A from App. C forward FLOPs; C = training FLOPs"
    compute = budget.compute
    sparsity = ALLOCATION_S if budget.sparsity is None else budget.sparsity
    if compute is None:
        return Recommendation.not_applicable(
            ID, PAPER.label, "needs --compute (r* is a law of C)", conv)
    r_star = float(optimal_ratio(compute, sparsity))
    values = {
        "S (sparsity)": sparsity, "r* = C_E/C_A": r_star,
        "expert share r*/(1+r*)": float(expert_fraction(r_star)),
    }
    return Recommendation(
        ID, PAPER.label, True, values=values, convention=conv,
        open_fields=(f"everything but the attention/expert split; S = {sparsity:.4f} is our "
                     "default (App. B.1's 65 experts, 3 active)"),
        flags=tuple(out_of_range(fitted_ranges(), C=compute, S=sparsity)),
    )


def fitted_ranges() -> dict[str, Range]:
    """The budgets and sparsities the paper's text states (it prints no experiment table)."""
    return {
        "C": Range("C", 1e18, 1e21, "text: budgets up to 1e21 training FLOPs"),
        "S": Range("S", 14 / 17, 126 / 129, "App. B.1: E = 17 ... 129, 3 active"),
    }


@accepts_hf_config
def verdict(cfg: ConfigLike, tokens: float | None) -> dict[str, Any]:
    """Eq. 1's r*(C, S) at the model's training compute against its own r = C_E/C_A.

    r, S and the training FLOPs per token by App. C (:func:`moelaws.allocation.flops_split`);
    C = training FLOPs per token x D.

    Parameters
    ----------
    cfg : MoEConfig or Hugging Face config (dict, path or directory)

    Raises
    ------
    ValueError
        For a dense configuration.
    """
    require_moe(cfg)
    split = flops_split(cfg)
    D = tokens_or_nan(tokens)
    C = split["training_flops_per_token"] * D
    r_star = float(optimal_ratio(C, split["S"])) if math.isfinite(C) else NAN
    return {
        "r = C_E/C_A": split["r"], "expert share": split["expert_share"], "S": split["S"],
        "D (tokens)": D, "C (FLOPs)": C, "r*": r_star,
        "expert share at r*": r_star / (1 + r_star) if math.isfinite(r_star) else NAN,
        "r/r*": split["r"] / r_star,
        "convention": "allocation: App. C forward FLOPs (context 4096 terms), C = 3 x fwd x D",
        "flags": out_of_range(fitted_ranges(), C=C, S=split["S"]),
        "caveat": caveats(cfg, "" if math.isfinite(C) else "training tokens unpublished"),
    }


def mla_row(cfg: arch.MoEConfig, tokens: float, attention_flops: float) -> dict[str, float]:
    """Eq. 1 with the attention FLOPs ``attention_flops`` (C_A): r = C_E/C_A, the attention
    share C_A/(C_A + C_E), and r/r* at the training compute 3·(C_A + C_E + logits)·D
    (NaN for unknown ``tokens``)."""
    c = allocation_counts(cfg)
    r = c.ffn_flops / attention_flops
    C = 3.0 * (attention_flops + c.ffn_flops + c.logits_flops) * tokens
    r_star = float(optimal_ratio(C, sparsity(cfg))) if math.isfinite(C) else NAN
    return {"r": r, "attention share": attention_flops / (attention_flops + c.ffn_flops),
            "r/r*": r / r_star}


def _card_values(cfg: arch.MoEConfig) -> dict[str, float]:
    return {"G value": math.nan, "S value": sparsity(cfg),
            "r / sparsity value": expert_attention_ratio(cfg)}


def _toy_sweeps() -> dict:
    from moelaws.allocation import toy

    return toy.NAMED_SWEEPS


PAPER = Paper(
    id=ID,
    title="Optimal expert-attention allocation in MoE",
    label="Expert-attention allocation (Li et al. 2026)",
    docname="notebooks/06_allocation",
    bib_key="li2026allocation",
    claims=_claims,
    convention=Convention(
        ID, allocation_counts, "App. C: attention and expert forward FLOPs (router included)"),
    ratios=ratios,
    sparsity=sparsity,
    mla=MLARecount(mla_attention_flops, mla_row),
    recommend=recommend,
    fitted_ranges=fitted_ranges,
    verdict=verdict,
    card=Card(
        definitions={
            "N, N_a": "weight matrices (App. C defines only FLOPs)",
            "compute C": "training FLOPs (3 x App. C forward x D)",
            "G": "-",
            "S": "sparsity (E − E_act)/E, shared in both",
            "r / sparsity": "r = C_E/C_A, App. C forward FLOPs",
        },
        values=_card_values,
    ),
    calculator=CalculatorBlock(
        sliders=("C",),
        keys=("S (sparsity)", "r* = C_E/C_A", "expert share r*/(1+r*)"),
        active=lambda rec: math.nan,
        tokens=lambda rec: math.nan,
    ),
    toy_sweeps=_toy_sweeps,
)
"""The expert-attention allocation paper's adapter."""
