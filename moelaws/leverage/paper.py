"""The efficiency-leverage paper's adapter in the registry of papers (:mod:`moelaws.papers`).

Everything the cross-paper parts of the book need of this paper: its identity, claims, counting
convention and ratios, its recommendation for a budget (Table 5 and Eq. 4), where its law was
fitted (Tables 8-12), its verdict on a real configuration, its row of the conventions card and
its block of the design calculator, and its toy-training sweeps.
"""

from __future__ import annotations

import math
from functools import lru_cache
from typing import Any

from moelaws import arch
from moelaws.arch.hf_config import ConfigLike, accepts_hf_config
from moelaws.leverage import checks
from moelaws.leverage.budget import (
    SEQ_LEN,
    compute_optimal_allocation,
    optimal_batch_size,
    optimal_learning_rate,
)
from moelaws.leverage.counting import granularity, leverage_counts, mla_attention_flops
from moelaws.leverage.law import efficiency_leverage, optimal_granularity
from moelaws.roles import (
    NAN,
    Budget,
    CalculatorBlock,
    Card,
    ComputeOptimal,
    Convention,
    Granularity,
    GranularityPrice,
    MLARecount,
    Paper,
    Range,
    Recommendation,
    caveats,
    out_of_range,
    require_moe,
    tokens_or_nan,
)

ID = "leverage"

LEVERAGE_A = 0.031
"""Activation ratio at which we report Eq. 4's EL (the paper's headline and MoE-mini value;
Eq. 4 has no optimum in A: EL keeps rising as A falls)."""


def _claims() -> list:
    # Imported when asked for: the claims read every table of the paper, and the commands
    # that need no claim (``moelaws counts``, ``design``) should not pay for them.
    from moelaws.leverage.claims import CLAIMS

    return list(CLAIMS)


@accepts_hf_config
def ratios(cfg: ConfigLike) -> dict[str, float]:
    """Sec. 2.1's activation ratio A, granularity G = 2d/d_e and sharing ratio S of ``cfg``.

    Parameters
    ----------
    cfg : MoEConfig or Hugging Face config (dict, path or directory)
    """
    moe = cfg.is_moe
    return {
        "A (leverage)": arch.activation_ratio(cfg),
        "G = 2d/d_e (leverage)": granularity(cfg) if moe else NAN,
        "S = E_s/(E_a+E_s) (leverage, comprehensive)": arch.sharing_ratio(cfg) if moe else NAN,
    }


def recommend(budget: Budget) -> Recommendation:
    """Table 5's compute-optimal M and D, and Eq. 4's optimal granularity.

    M_opt = 0.1915·C^0.5095, D_opt = 5.2232·C^0.4905 (MoE family); G* = 2^(−β/2γ) ≈ 11.3
    (independent of C and A); EL at G* reported at A = :data:`LEVERAGE_A`.
    """
    conv = ("leverage: M = App. I's training FLOPs per token (logits included, though Sec. 2.1 "
            "calls M non-embedding), C = M·D")
    compute = budget.compute
    if compute is None:
        return Recommendation.not_applicable(
            ID, PAPER.label, "needs --compute (Table 5 and Eq. 4 are laws of C)", conv)
    alloc = compute_optimal_allocation(compute, "moe")
    g_star = float(optimal_granularity(LEVERAGE_A))
    values = {
        "M_opt (FLOPs/token)": float(alloc.M), "D_opt (tokens)": float(alloc.D),
        "G* = 2d/d_e": g_star, "A (our choice)": LEVERAGE_A,
        "EL at (A, G*)": float(efficiency_leverage(LEVERAGE_A, g_star, compute)),
        "optimal batch (tokens)": float(optimal_batch_size(compute)),
        "optimal learning rate": float(optimal_learning_rate(compute)),
    }
    return Recommendation(
        ID, PAPER.label, True, values=values, convention=conv,
        open_fields=("depth, width, expert count and activation ratio: Table 5 fixes only M "
                     "and D, Eq. 4 only G (its EL rises as A falls, so it recommends no A; we "
                     f"report EL at A = {LEVERAGE_A:.1%}, the paper's MoE-mini value)"),
        flags=tuple(out_of_range(fitted_ranges(), C=compute)),
    )


@lru_cache(maxsize=1)
def fitted_ranges() -> dict[str, Range]:
    """Training budgets, sizes and granularities of Tables 8-12."""
    lev = checks.all_metrics()
    return {
        "C": Range("C", float(lev["C_max"].min()), float(lev["C_max"].max()),
                   "Tables 8-12 training budgets"),
        "N": Range("N", float(lev["N"].min()), float(lev["N"].max()), "Tables 8-12"),
        "G": Range("G = 2d/d_e", float(lev["G"].min()), float(lev["G"].max()), "Tables 8-12"),
    }


@accepts_hf_config
def verdict(cfg: ConfigLike, tokens: float | None) -> dict[str, Any]:
    """Eq. 4's efficiency leverage of ``cfg`` at its training compute, and Table 5's allocation.

    ``C = M·D`` with M the leverage paper's training FLOPs per token as App. I counts them
    (``arch`` convention ``"leverage"``: the logit projection included, although Sec. 2.1 calls
    M "non-embedding"; the M we compute for Tables 8-12's configurations, which print none,
    :func:`moelaws.leverage.tables.model_scale`, leaves it out); A is Sec. 2.1's
    (E_a + E_s)/(E + E_s) (``EL``) and, because the paper's quoted ratios are E_a/E, also that
    reading (``EL (A = E_a/E)``); G is 2·d/d_expert. ``G*`` maximises Eq. 4 (``EL at G*``).
    Table 5 (MoE family) gives the compute-optimal M and D at the same C.

    Parameters
    ----------
    cfg : MoEConfig or Hugging Face config (dict, path or directory)
        An MoE configuration.
    tokens
        Training tokens D, or ``None`` (then every compute-dependent value is NaN).

    Raises
    ------
    ValueError
        For a dense configuration.
    """
    require_moe(cfg)
    c = leverage_counts(cfg)
    A = arch.activation_ratio(cfg)
    A_routed = cfg.top_k / cfg.n_experts
    G = granularity(cfg)
    D = tokens_or_nan(tokens)
    C = c.compute_per_token * D
    g_star = float(optimal_granularity(A))
    row = {"A": A, "A = E_a/E": A_routed, "G = 2d/d_e": G, "G*": g_star,
           "M (FLOPs/token)": c.compute_per_token, "D (tokens)": D, "C (FLOPs)": C}
    if math.isfinite(C):
        alloc = compute_optimal_allocation(C, "moe")
        row.update({
            "EL": float(efficiency_leverage(A, G, C)),
            "EL (A = E_a/E)": float(efficiency_leverage(A_routed, G, C)),
            "EL at G*": float(efficiency_leverage(A, g_star, C)),
            "M_opt (Table 5)": float(alloc.M), "D_opt (Table 5)": float(alloc.D),
        })
    else:
        row.update(dict.fromkeys(("EL", "EL (A = E_a/E)", "EL at G*", "M_opt (Table 5)",
                                  "D_opt (Table 5)"), NAN))
    row["D/D_opt"] = D / row["D_opt (Table 5)"]
    row["convention"] = "leverage: M = 3 x App. I forward FLOPs (non-embedding), C = M·D"
    row["flags"] = out_of_range(fitted_ranges(), C=C, G=G, N=c.total)
    row["caveat"] = caveats(cfg, "" if math.isfinite(C) else "training tokens unpublished")
    return row


def mla_row(cfg: arch.MoEConfig, tokens: float, attention_flops: float) -> dict[str, float]:
    """Eq. 4 and Table 5 with the attention FLOPs ``attention_flops``: M = 3 x App. I forward
    FLOPs, EL at C = M·D and D/D_opt (NaN for unknown ``tokens``)."""
    c = leverage_counts(cfg)
    A, G = arch.activation_ratio(cfg), granularity(cfg)
    M = 3.0 * (attention_flops + c.ffn_flops + c.logits_flops)
    C = M * tokens
    finite = math.isfinite(C)
    return {
        "M": M,
        "EL": float(efficiency_leverage(A, G, C)) if finite else NAN,
        "D/D_opt": tokens / float(compute_optimal_allocation(C, "moe").D) if finite else NAN,
    }


def _card_values(cfg: arch.MoEConfig) -> dict[str, float]:
    return {"G value": granularity(cfg), "S value": arch.sharing_ratio(cfg),
            "r / sparsity value": arch.activation_ratio(cfg)}


def _toy_sweeps() -> dict:
    from moelaws.leverage import toy

    return toy.NAMED_SWEEPS


def _data_tables() -> dict:
    # Imported when asked for, like the claims: the tables read the paper's data files.
    from moelaws.leverage.data_tables import data_tables

    return data_tables()


def _sweep_widths() -> tuple[Any, str]:
    from moelaws.leverage.tables import configs

    t9 = configs(9)
    return ((t9["E_a"] + t9["E_s"]) * t9["d_expert"] / t9["d_model"],
            "Table 9: (E_a + E_s)·d_expert/d_model")


def _sweep_sparsity() -> tuple[str, Any, str]:
    # E grows with G in Table 9, so A is fixed.
    from moelaws.leverage.tables import configs

    t9 = configs(9)
    return "A = (E_a+E_s)/(E+E_s)", (t9["E_a"] + t9["E_s"]) / (t9["E"] + t9["E_s"]), "Table 9"


GRANULARITY = Granularity(
    of=granularity,
    definition="G = 2·d/d_e (width ratio, Sec. 2.1)",
    column="G_lev = 2d/d_e",
    per_width=lambda w: 2.0,
    widths=_sweep_widths,
    optima=lambda: [{"label": ID,
                     "optimum (own definition)": float(optimal_granularity(LEVERAGE_A)),
                     "how": "Eq. 4 with Table 6: G* = 2^(−β/2γ)"}],
    fitted_range=lambda: (fitted_ranges()["G"].low, fitted_ranges()["G"].high),
    sweep_sparsity=_sweep_sparsity,
    price=GranularityPrice(
        optimum=lambda at: float(optimal_granularity(at["A"])),
        value=lambda G, at: float(efficiency_leverage(at["A"], G, at["C"])),
        cost=lambda own, other: 1 - other / own,
        unit="fraction of Eq. 4 EL lost",
    ),
)
"""Sec. 2.1's granularity, Table 9's sweep and Eq. 4's optimum G* (at A = :data:`LEVERAGE_A`
in :func:`moelaws.compare.granularity.optima`; G* does not depend on A)."""


VOCAB = 126_464
"""The paper's vocabulary (App. D), at which we evaluate its App. I count on a stand-in
architecture (with its sequence length :data:`moelaws.leverage.budget.SEQ_LEN`)."""


def _kappa(compute: float, design: Any) -> float:
    """App. I's M over 6·N_a of the stand-in design at this budget, at the paper's sequence
    length and vocabulary (Table 5 itself fixes no architecture)."""
    if design is None:
        raise ValueError("the leverage paper's compute-optimal N_a needs a stand-in design "
                         "(a paper whose compute_optimal role designs an architecture)")
    c = leverage_counts(design(compute).replace(context_length=SEQ_LEN, vocab_size=VOCAB))
    return c.compute_per_token / (6.0 * c.active)


def _compute_optimal_own(compute: float, total_params: float, design: Any) -> dict[str, float]:
    """Table 5 (MoE family) at ``compute`` (C = M·D); N_a = M/(6κ) with the stand-in's κ."""
    kappa = _kappa(compute, design)
    alloc = compute_optimal_allocation(compute, "moe")
    return {"N_a": float(alloc.M) / (6.0 * kappa), "D": float(alloc.D), "own budget": compute,
            "M or N_a (own count)": float(alloc.M), "kappa": kappa}


def _compute_optimal_common(compute: float, total_params: float,
                            design: Any) -> dict[str, float]:
    """Table 5 at compute·κ, the budget in App. I's count that ``compute`` in 6·N_a·D buys on
    the stand-in design."""
    kappa = _kappa(compute, design)
    own_budget = compute * kappa
    alloc = compute_optimal_allocation(own_budget, "moe")
    return {"own budget": own_budget, "kappa": kappa, "N_a": float(alloc.M) / (6.0 * kappa),
            "D": float(alloc.D), "M or N_a (own count)": float(alloc.M)}


COMPUTE_OPTIMAL = ComputeOptimal(
    count="C = M·D, M = 3 x App. I forward FLOPs (Table 5)",
    own=_compute_optimal_own,
    common=_compute_optimal_common,
    domain=lambda answer, total_params: {"C": answer["own budget"]},
)
"""Table 5's compute-optimal M and D in the paper's count and in 6·N_a·D."""


PAPER = Paper(
    id=ID,
    title="Efficiency Leverage of MoE language models",
    label="Efficiency leverage (Tian et al. 2025)",
    docname="notebooks/02_leverage",
    bib_key="tian2025leverage",
    claims=_claims,
    convention=Convention(
        ID, leverage_counts,
        "App. I Eq. 10-12: forward FLOPs (logits included; the attention output projection left "
        "out, our reading of its 2d^2 term), M = 3 x forward"),
    ratios=ratios,
    granularity=GRANULARITY,
    mla=MLARecount(mla_attention_flops, mla_row),
    recommend=recommend,
    fitted_ranges=fitted_ranges,
    verdict=verdict,
    card=Card(
        definitions={
            "N, N_a": "weight matrices (App. I defines only FLOPs)",
            "compute C": "M·D, M = 3 x App. I forward FLOPs (logits included, though Sec. 2.1 says "
                         "non-embedding)",
            "G": "2·d_model/d_expert",
            "S": "E_s/(E_a + E_s), shared share of active experts",
            "r / sparsity": "A = (E_a + E_s)/(E + E_s)",
        },
        values=_card_values,
    ),
    calculator=CalculatorBlock(
        sliders=("C",),
        keys=("M_opt (FLOPs/token)", "D_opt (tokens)", "G* = 2d/d_e", "EL at (A, G*)"),
        active=lambda rec: rec.values["M_opt (FLOPs/token)"] / 6,
        tokens=lambda rec: rec.values["D_opt (tokens)"],
    ),
    toy_sweeps=_toy_sweeps,
    data_tables=_data_tables,
    compute_optimal=COMPUTE_OPTIMAL,
)
"""The efficiency-leverage paper's adapter."""
