"""The memory/inference-constrained paper's adapter in the registry of papers
(:mod:`moelaws.papers`).

Everything the cross-paper parts of the book need of this paper: its identity, claims, counting
convention and ratios, its recommendation for a budget (Algorithm 1), where its law was fitted
(Table 4's cores with App. C.1's expert counts), its verdict on a real configuration, its row of
the conventions card, its block of the design calculator and its toy-training sweeps.
"""

from __future__ import annotations

import math
from functools import lru_cache
from typing import Any

import numpy as np

from moelaws import arch
from moelaws.arch.hf_config import ConfigLike, accepts_hf_config
from moelaws.constrained import tables
from moelaws.constrained.counting import constrained_counts, granularity, sparsity
from moelaws.constrained.design import Design, candidates, optimize
from moelaws.constrained.law import relative_loss, total_params
from moelaws.constrained.toy import PAPER_EXPERTS
from moelaws.roles import (
    NAN,
    Budget,
    CalculatorBlock,
    Card,
    Convention,
    Granularity,
    Paper,
    Range,
    Recommendation,
    caveats,
    out_of_range,
    require_moe,
)

ID = "constrained"

CONSTRAINED_K_ALIGN = 64
"""Alignment of d in Algorithm 1 (the paper leaves it open; 64 reproduces its Qwen3 example)."""

CONSTRAINED_HEAD_DIM = 128
"""Per-head width we give Algorithm 1's designs (the paper counts attention as 4d², which any
head split of d realises)."""

FITTED_G = 4.0
"""The only granularity g = d/d_exp at which Eq. 3 was fitted (Sec. 2.1: "We use g = 4 in the
following experiments"; Table 4)."""

OUTSIDE = "outside what this law was fitted on"
"""What a verdict reads when the model lies outside the law's fitted domain."""

CONSTRAINED_VOCAB = 32000
"""Vocabulary we give Algorithm 1's designs (the paper counts no embeddings)."""


def _claims() -> list:
    # Imported when asked for: the claims read every table of the paper, and the commands
    # that need no claim (``moelaws counts``, ``design``) should not pay for them.
    from moelaws.constrained.claims import CLAIMS

    return list(CLAIMS)


@accepts_hf_config
def ratios(cfg: ConfigLike) -> dict[str, float]:
    """Sec. 1's granularity g = d/d_exp and sparsity s = n_exp/n_topk of ``cfg``.

    Parameters
    ----------
    cfg : MoEConfig or Hugging Face config (dict, path or directory)
    """
    moe = cfg.is_moe
    return {
        "g = d/d_exp (constrained)": granularity(cfg) if moe else NAN,
        "s = n_exp/n_topk (constrained)": sparsity(cfg) if moe else NAN,
    }


def _config(design: Design) -> arch.MoEConfig:
    head = CONSTRAINED_HEAD_DIM if design.d % CONSTRAINED_HEAD_DIM == 0 else 64
    return arch.MoEConfig(
        n_layers=design.l, d_model=design.d, n_heads=design.d // head, head_dim=head,
        n_experts=design.n_exp, top_k=design.n_topk, d_expert=round(design.d / design.g),
        vocab_size=CONSTRAINED_VOCAB, context_length=4096,
        name=f"constrained design, {design.total:.3g}/{design.active:.3g} params",
        source="moelaws.compare.recommend: Algorithm 1 (App. C.3) of the constrained paper",
    )


def recommend(budget: Budget) -> Recommendation:
    """Algorithm 1 (App. C.3): the lowest Eq. 3 loss within both budgets, with the paper's
    g = 4, Γ = {32, 64}, k_align = 64 and experts 2..128 (extended by powers of two only if
    nothing fits)."""
    conv = "constrained: N_total = l·d²·(4 + 3n_exp/g), N_active likewise (Eq. 1-2)"
    total, active = budget.total_params, budget.active_params
    if total is None or active is None:
        return Recommendation.not_applicable(
            ID, PAPER.label,
            "needs --total-params and --active-params (memory and inference budgets)", conv)
    design = None
    for k in range(7, 13):
        try:
            design = optimize(total, active, CONSTRAINED_K_ALIGN,
                              n_experts=tuple(2**i for i in range(1, k + 1)))
            break
        except ValueError as err:
            if "no configuration fits" not in str(err):
                raise
    if design is None:
        return Recommendation.not_applicable(
            ID, PAPER.label, "no aligned design fits these budgets (too small for one layer "
            "of width 64 with one active expert, or active/total too small)", conv)
    cfg = _config(design)
    values = {
        "l": design.l, "d": design.d, "n_exp": design.n_exp, "n_topk": design.n_topk,
        "g = d/d_exp": design.g, "gamma = d/l": design.gamma,
        "N_total (Eq. 1)": design.total, "N_active (Eq. 2)": design.active,
        "Eq. 3 relative loss": design.loss,
    }
    return Recommendation(
        ID, PAPER.label, True, values=values, config=cfg,
        convention=conv,
        open_fields=(f"heads (we use head width {cfg.head_dim}), vocabulary (we use "
                     f"{CONSTRAINED_VOCAB}), context (4096): the paper counts attention as 4d² "
                     "and no embeddings"),
        flags=tuple(out_of_range(fitted_ranges(), N=total)),
    )


@lru_cache(maxsize=1)
def fitted_ranges() -> dict[str, Range]:
    """Total sizes of Table 4's cores with App. C.1's expert counts (g = 4)."""
    t4 = tables.read_table("table4")
    totals = [float(total_params(row.l, row.d, n)) for row in t4.itertuples()
              for n, _ in PAPER_EXPERTS]
    return {"N": Range("N_total", float(np.min(totals)), float(np.max(totals)),
                       "Table 4 cores x App. C.1 expert counts, 9B tokens each")}


def expert_grid(cfg: arch.MoEConfig, total: float, active: float) -> tuple[int, ...]:
    """Algorithm 1's expert grid ``{2, 4, ..., 2^k}`` for a real model's budgets.

    ``k`` is the paper's 7 unless the model has more routed experts (then the smallest power
    of two at least as large) or no design fits (then raised until one does, at most 2^12):
    with g = 4 a grid stopping at 128 cannot reach an active/total ratio below 4.75 %.

    Raises
    ------
    ValueError
        If no grid up to 2^12 admits a design.
    """
    k = max(7, math.ceil(math.log2(max(cfg.n_experts, 1))))
    while k <= 12:
        grid = tuple(2**i for i in range(1, k + 1))
        table = candidates(total, active, CONSTRAINED_K_ALIGN, n_experts=grid)
        if table["feasible"].any():
            return grid
        k += 1
    raise ValueError(f"no Algorithm 1 design fits {cfg.name}'s budgets with up to 4096 experts")


@accepts_hf_config
def verdict(cfg: ConfigLike, tokens: float | None = None) -> dict[str, Any]:
    """Algorithm 1 under the model's own memory and inference budgets, against the model.

    Budgets are the model's N_total and N_active by Eq. 1-2 (``arch`` convention
    ``"constrained"``: shared experts counted as always-active experts). The routine runs with
    the paper's g = 4, Γ = {32, 64}, k_align = 64 and the grid of :func:`expert_grid`. The real
    configuration enters Eq. 3 with n_exp = routed + shared and n_topk = top-k + shared (the
    same generalisation), at its own N_total (= the budget). ``Eq. 3 loss change`` is the
    routine's relative loss over the real one's, minus one (negative: the law prefers the
    routine's design). ``tokens`` is ignored: Eq. 3 was fitted at one token budget.
    ``Eq. 3 verdict`` reads :data:`OUTSIDE` when the model's g is not :data:`FITTED_G` or its
    N_total lies outside Table 4's range: Eq. 3 has no g term, so applied to a model of
    another g it credits that g with whatever expert count it implies (at fixed active share,
    coarse experts mean fewer of them, which Eq. 3's n_exp^0.023 rewards), while the paper's
    own Table 6 ablation finds g = 1 worse by 1.6-1.7 % at fixed budgets.

    Parameters
    ----------
    cfg : MoEConfig or Hugging Face config (dict, path or directory)

    Raises
    ------
    ValueError
        For a dense configuration.
    """
    require_moe(cfg)
    c = constrained_counts(cfg)
    grid = expert_grid(cfg, c.total, c.active)
    design = optimize(c.total, c.active, CONSTRAINED_K_ALIGN, n_experts=grid)
    n_exp, n_topk = cfg.n_experts + cfg.n_shared, cfg.top_k + cfg.n_shared
    real = float(relative_loss(c.total, n_exp, n_topk))
    real_g = granularity(cfg)
    domain = out_of_range(fitted_ranges(), N=c.total)
    if not math.isclose(real_g, FITTED_G):
        domain.append(f"g = {real_g:.3g}: Eq. 3 was fitted at g = {FITTED_G:g} only and has "
                      "no g term")
    change = design.loss / real - 1.0
    return {
        "N_total budget": c.total, "N_active budget": c.active,
        "real (l, d, n_exp, n_topk)": (cfg.n_layers, cfg.d_model, n_exp, n_topk),
        "real g = d/d_exp": granularity(cfg),
        "real s = n_exp/n_topk": n_exp / n_topk,
        "routine (l, d, n_exp, n_topk)": (design.l, design.d, design.n_exp, design.n_topk),
        "routine g": design.g, "routine s": design.n_exp / design.n_topk,
        "routine N_total": design.total, "routine N_active": design.active,
        "expert grid max": grid[-1],
        "Eq. 3 loss change": change,
        "Eq. 3 verdict": (OUTSIDE if domain else
                          "routine better" if change < 0 else "real model better"),
        "convention": "constrained: Eq. 1-2 counts (non-embedding, 4d² attention, g = d/d_exp)",
        "flags": domain,
        "caveat": caveats(cfg, "Eq. 3 was fitted at a fixed 9B-token budget",
                          "routine uses g = 4 (Algorithm 1), the model its own g"),
    }


def _card_values(cfg: arch.MoEConfig) -> dict[str, float]:
    s = sparsity(cfg)
    return {"G value": granularity(cfg), "S value": s,
            "r / sparsity value": s}


def _toy_sweeps() -> dict:
    from moelaws.constrained import toy

    return toy.NAMED_SWEEPS


def _data_tables() -> dict:
    # Imported when asked for, like the claims: the tables read the paper's data files.
    from moelaws.constrained.data_tables import data_tables

    return data_tables()


def _sweep_widths() -> tuple[Any, str]:
    t6 = tables.read_table("table6")
    return t6["n_topk"].astype(float) / t6["g"].astype(float), "Table 6: n_topk/g"


def _ablation_optima() -> list[dict[str, Any]]:
    """The g with the lowest loss in each model of the Table 6 ablation (an ablation's best
    point, not a fitted law)."""
    t6 = tables.read_table("table6")
    t6 = t6.assign(loss_value=t6["loss"].astype(float))
    rows = []
    for (layers, width), group in t6.groupby(["l", "d"], sort=True):
        best = group.loc[group["loss_value"].idxmin()]
        rows.append({"label": f"{ID} (l={layers}, d={width})",
                     "optimum (own definition)": float(best["g"]),
                     "how": "Table 6 ablation: lowest loss (seed noise 0.4 %)"})
    return rows


GRANULARITY = Granularity(
    of=granularity,
    definition="g = d/d_e (width ratio, Sec. 1)",
    column="g = d/d_e",
    per_width=lambda w: 1.0,
    widths=_sweep_widths,
    optima=_ablation_optima,
    # Eq. 3 was fitted at g = 4 only (Sec. 2.1, Table 4).
    fitted_range=lambda: (4.0, 4.0),
)
"""Sec. 1's granularity, Table 6's ablation and its best g per model."""


PAPER = Paper(
    id=ID,
    title="MoE design under memory and inference constraints",
    label="Memory/inference-constrained design (Liew et al. 2025)",
    docname="notebooks/05_constrained",
    bib_key="liew2025constrained",
    claims=_claims,
    convention=Convention(ID, constrained_counts, "Eq. 1-2: l·d²·(4 + 3n/g); no compute defined"),
    ratios=ratios,
    granularity=GRANULARITY,
    sparsity=sparsity,
    recommend=recommend,
    fitted_ranges=fitted_ranges,
    verdict=verdict,
    card=Card(
        definitions={
            "N, N_a": "Eq. 1-2: l·d²·(4 + 3·n/g)",
            "compute C": "none (tokens fixed at 9B)",
            "G": "g = d/d_exp (fixed at 4)",
            "S": "(s) sparsity n_exp/n_topk",
            "r / sparsity": "s = n_exp/n_topk",
        },
        values=_card_values,
    ),
    calculator=CalculatorBlock(
        sliders=("N", "R"),
        keys=("l", "d", "n_exp", "n_topk"),
        active=lambda rec: rec.values.get("N_active (Eq. 2)", math.nan),
        tokens=lambda rec: math.nan,
    ),
    toy_sweeps=_toy_sweeps,
    data_tables=_data_tables,
)
"""The constrained paper's adapter."""
