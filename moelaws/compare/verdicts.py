"""What each of the five laws says about one real configuration.

One function per paper returns a flat record (a dict) of the quantities the chapter compares:
the model's value under that paper's own convention next to what the law prescribes, the
convention used, caveats and out-of-regime flags. :func:`question_table` stacks one paper's
records over the presets; :func:`verdicts` gives all of them in one tidy (long) table.

Every number comes from the chapter modules (:mod:`moelaws.leverage`, :mod:`moelaws.holistic`,
:mod:`moelaws.comprehensive`, :mod:`moelaws.constrained`, :mod:`moelaws.allocation`) and the
counts of :mod:`moelaws.arch`; this module only feeds them a configuration and a token count.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd

from moelaws import allocation as al
from moelaws import arch
from moelaws import comprehensive as cl
from moelaws import constrained as con
from moelaws import holistic as h
from moelaws import leverage as lev
from moelaws.arch import MoEConfig
from moelaws.compare.regimes import PAPERS, flags
from moelaws.compare.tokens import TrainingTokens, training_tokens

NAN = math.nan

COMPREHENSIVE_G, COMPREHENSIVE_S = 7.0, 0.31
"""The rounded optima the comprehensive paper recommends (Sec. 5.2) and uses in Table 4."""

CONSTRAINED_K_ALIGN = 64
"""Alignment of d in Algorithm 1 (the paper leaves it open; 64 reproduces its Qwen3 example)."""

MLA_CAVEAT = (
    "MLA attention: this paper's formula assumes multi-head attention; our generalisation "
    "(arch module docstrings) is a stretch for DeepSeek-V3/Kimi-K2"
)


def _moe(cfg: MoEConfig) -> None:
    if not cfg.is_moe:
        raise ValueError(f"{cfg.name} is dense: the five laws compare MoE configurations")


def _tokens(tokens: float | None) -> float:
    return NAN if tokens is None else float(tokens)


def _caveats(cfg: MoEConfig, *extra: str) -> str:
    notes = [MLA_CAVEAT] if cfg.mla is not None else []
    return "; ".join([*notes, *[e for e in extra if e]])


def leverage_verdict(cfg: MoEConfig, tokens: float | None) -> dict[str, Any]:
    """Eq. 4's efficiency leverage of ``cfg`` at its training compute, and Table 5's allocation.

    ``C = M·D`` with M the leverage paper's non-embedding training FLOPs per token (App. I,
    ``arch`` convention ``"leverage"``); A is Sec. 2.1's (E_a + E_s)/(E + E_s) (``EL``) and,
    because the paper's quoted ratios are E_a/E, also that reading (``EL (A = E_a/E)``); G is
    2·d/d_expert. ``G*`` maximises Eq. 4 (``EL at G*``). Table 5 (MoE family) gives the
    compute-optimal M and D at the same C.

    Parameters
    ----------
    cfg
        An MoE configuration.
    tokens
        Training tokens D, or ``None`` (then every compute-dependent value is NaN).

    Raises
    ------
    ValueError
        For a dense configuration.
    """
    _moe(cfg)
    c = arch.counts(cfg, "leverage")
    A = arch.activation_ratio(cfg)
    A_routed = cfg.top_k / cfg.n_experts
    G = arch.granularity(cfg, "leverage")
    D = _tokens(tokens)
    C = c.compute_per_token * D
    g_star = float(lev.optimal_granularity(A))
    row = {"A": A, "A = E_a/E": A_routed, "G = 2d/d_e": G, "G*": g_star,
           "M (FLOPs/token)": c.compute_per_token, "D (tokens)": D, "C (FLOPs)": C}
    if math.isfinite(C):
        alloc = lev.compute_optimal_allocation(C, "moe")
        row.update({
            "EL": float(lev.efficiency_leverage(A, G, C)),
            "EL (A = E_a/E)": float(lev.efficiency_leverage(A_routed, G, C)),
            "EL at G*": float(lev.efficiency_leverage(A, g_star, C)),
            "M_opt (Table 5)": float(alloc.M), "D_opt (Table 5)": float(alloc.D),
        })
    else:
        row.update(dict.fromkeys(("EL", "EL (A = E_a/E)", "EL at G*", "M_opt (Table 5)",
                                  "D_opt (Table 5)"), NAN))
    row["D/D_opt"] = D / row["D_opt (Table 5)"]
    row["convention"] = "leverage: M = 3 x App. I forward FLOPs (non-embedding), C = M·D"
    row["flags"] = flags("leverage", C=C, G=G, N=c.total)
    row["caveat"] = _caveats(cfg, "" if math.isfinite(C) else "training tokens unpublished")
    return row


def comprehensive_verdict(cfg: MoEConfig, tokens: float | None) -> dict[str, Any]:
    """The comprehensive law's verdicts on G, S and N_a/N, and its predicted loss gaps.

    N and N_a by Eq. 2-3 (``arch`` convention ``"comprehensive"``), G = n_k + n_s, S = n_s/G.
    The practical ranges (Table 3) and the N_a/N band (Table 4: from the efficiency-aware
    optimum at ΔLoss = 0.005 up to the theoretical Eq. 14 optimum at G = 7, S = 0.31) are
    evaluated at the model's N and N_a. Loss gaps (nats, Eq. 11) at fixed N and D: from moving
    G to G_opt, S to S_opt, and all three of G, S, N_a to their optima (D cancels from these
    differences, so they need no token count). With D known, also the gap to App. G's
    compute-optimal loss at the same N and C = D·N_a.

    Parameters
    ----------
    cfg
        An MoE configuration.
    tokens
        Training tokens D, or ``None``.

    Raises
    ------
    ValueError
        For a dense configuration.
    """
    _moe(cfg)
    c = arch.counts(cfg, "comprehensive")
    N, Na = c.total, c.active
    G = arch.granularity(cfg, "comprehensive")
    S = arch.sharing_ratio(cfg)
    D = _tokens(tokens)
    g_opt, s_opt = cl.optimal_G(), cl.optimal_S()
    g_lo, g_hi = (float(x) for x in cl.practical_G_range(N, Na, 1e-3))
    s_lo, s_hi = (float(x) for x in cl.practical_S_range(N, Na, 1e-3))
    theory = float(cl.optimal_active_ratio(N, COMPREHENSIVE_G, COMPREHENSIVE_S))
    band_low = float(cl.efficiency_aware_active_ratio(N, 5e-3, COMPREHENSIVE_G,
                                                      COMPREHENSIVE_S))
    # D cancels from loss differences at fixed N and D; any positive value gives the same gap.
    d_eval = D if math.isfinite(D) else 1e12
    here = float(cl.loss(N, d_eval, Na, G, S))
    na_opt = min(float(cl.optimal_active_ratio(N, g_opt, s_opt)), 1.0) * N
    row = {
        "N": N, "N_a": Na, "N_a/N": Na / N, "G = n_k+n_s": G, "S = n_s/G": S,
        "G_opt": g_opt, "G range (0.001)": (g_lo, g_hi),
        "G verdict": _position(G, g_lo, g_hi),
        "S_opt": s_opt, "S range (0.001)": (s_lo, s_hi), "S verdict": _position(S, s_lo, s_hi),
        "N_a/N band low (ΔLoss 0.005)": band_low, "N_a/N theoretical": theory,
        "N_a/N verdict": _position(Na / N, band_low, theory),
        "ΔL from G": here - float(cl.loss(N, d_eval, Na, g_opt, S)),
        "ΔL from S": here - float(cl.loss(N, d_eval, Na, G, s_opt)),
        "ΔL to optimum at fixed N, D": here - float(cl.loss(N, d_eval, na_opt, g_opt, s_opt)),
        "D (tokens)": D,
    }
    if math.isfinite(D):
        C = D * Na
        row["C = D·N_a"] = C
        row["N_a* at C"] = float(cl.compute_optimal_active(C, N, g_opt, s_opt))
        row["ΔL to compute optimum at fixed N, C"] = here - float(
            cl.compute_optimal_loss(C, N, g_opt, s_opt))
    else:
        row.update({"C = D·N_a": NAN, "N_a* at C": NAN,
                    "ΔL to compute optimum at fixed N, C": NAN})
    row["convention"] = "comprehensive: Eq. 2-3 counts (non-embedding), C = D·N_a"
    row["flags"] = flags("comprehensive", N=N, D=D, G=G)
    row["caveat"] = _caveats(
        cfg, "the paper's Tables 3-4 use model-card sizes (embeddings included)",
        "" if math.isfinite(D) else "training tokens unpublished: compute-optimal gap not "
        "computable")
    return row


def _position(x: float, low: float, high: float) -> str:
    if x < low:
        return "below"
    if x > high:
        return "above"
    return "inside"


def constrained_expert_grid(cfg: MoEConfig, total: float, active: float) -> tuple[int, ...]:
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
        table = con.candidates(total, active, CONSTRAINED_K_ALIGN, n_experts=grid)
        if table["feasible"].any():
            return grid
        k += 1
    raise ValueError(f"no Algorithm 1 design fits {cfg.name}'s budgets with up to 4096 experts")


def constrained_verdict(cfg: MoEConfig) -> dict[str, Any]:
    """Algorithm 1 under the model's own memory and inference budgets, against the model.

    Budgets are the model's N_total and N_active by Eq. 1-2 (``arch`` convention
    ``"constrained"``: shared experts counted as always-active experts). The routine runs with
    the paper's g = 4, Γ = {32, 64}, k_align = 64 and the grid of
    :func:`constrained_expert_grid`. The real configuration enters Eq. 3 with
    n_exp = routed + shared and n_topk = top-k + shared (the same generalisation), at its own
    N_total (= the budget). ``Eq. 3 loss change`` is the routine's relative loss over the real
    one's, minus one (negative: the law prefers the routine's design).

    Raises
    ------
    ValueError
        For a dense configuration.
    """
    _moe(cfg)
    c = arch.counts(cfg, "constrained")
    grid = constrained_expert_grid(cfg, c.total, c.active)
    design = con.optimize(c.total, c.active, CONSTRAINED_K_ALIGN, n_experts=grid)
    n_exp, n_topk = cfg.n_experts + cfg.n_shared, cfg.top_k + cfg.n_shared
    real = float(con.relative_loss(c.total, n_exp, n_topk))
    return {
        "N_total budget": c.total, "N_active budget": c.active,
        "real (l, d, n_exp, n_topk)": (cfg.n_layers, cfg.d_model, n_exp, n_topk),
        "real g = d/d_exp": arch.granularity(cfg, "constrained"),
        "real s = n_exp/n_topk": n_exp / n_topk,
        "routine (l, d, n_exp, n_topk)": (design.l, design.d, design.n_exp, design.n_topk),
        "routine g": design.g, "routine s": design.n_exp / design.n_topk,
        "routine N_total": design.total, "routine N_active": design.active,
        "expert grid max": grid[-1],
        "Eq. 3 loss change": design.loss / real - 1.0,
        "convention": "constrained: Eq. 1-2 counts (non-embedding, 4d² attention, g = d/d_exp)",
        "flags": flags("constrained", N=c.total),
        "caveat": _caveats(cfg, "Eq. 3 was fitted at a fixed 9B-token budget",
                           "routine uses g = 4 (Algorithm 1), the model its own g"),
    }


def holistic_verdict(cfg: MoEConfig, tokens: float | None) -> dict[str, Any]:
    """The holistic pipeline (Sec. 7) at the model's training compute, against the model.

    ``C = M·D`` with the paper's M = 6·N_a + 6·S·N_q·d_qkv·L (``arch`` convention
    ``"holistic"``; S is the model's context length). Eq. 2 gives M_opt and D_opt, our fit
    the optimal M/N_a, App. F.4 the chosen N/N_a; within the design domain (at most 1e24
    FLOPs) :func:`moelaws.holistic.design_report` also gives an architecture.

    Raises
    ------
    ValueError
        For a dense configuration.
    """
    _moe(cfg)
    c = arch.counts(cfg, "holistic")
    D = _tokens(tokens)
    C = c.compute_per_token * D
    ratios = arch.holistic_ratios(cfg)
    row: dict[str, Any] = {
        "M (FLOPs/token)": c.compute_per_token, "N_a": c.active, "N": c.total,
        "M/N_a": ratios["M/N_a"], "N/N_a": ratios["N/N_a"], "d": cfg.d_model,
        "L": cfg.n_layers, "D (tokens)": D, "C (FLOPs)": C,
    }
    keys = ("M_opt", "D_opt", "M/N_a target", "N/N_a target", "design d", "design L",
            "design L_d", "design d_m", "design N_a", "design N")
    row.update(dict.fromkeys(keys, NAN))
    extra = []
    if math.isfinite(C):
        row.update({"M_opt": float(h.optimal_flops_per_token(C)),
                    "D_opt": float(h.optimal_tokens(C)),
                    "M/N_a target": float(h.optimal_m_over_na(C)),
                    "N/N_a target": float(h.chosen_n_over_na(C))})
        lo, hi = h.DESIGN_DOMAIN
        if lo <= C <= hi:
            rep = h.design_report(C)
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
    row["flags"] = flags("holistic", C=C)
    row["caveat"] = _caveats(cfg, *extra, "M/N_a target is our fit (Fig. 5b prints no law)")
    return row


def allocation_verdict(cfg: MoEConfig, tokens: float | None) -> dict[str, Any]:
    """Eq. 1's r*(C, S) at the model's training compute against its own r = C_E/C_A.

    r, S and the training FLOPs per token by App. C (:func:`moelaws.allocation.flops_split`);
    C = training FLOPs per token x D.

    Raises
    ------
    ValueError
        For a dense configuration.
    """
    _moe(cfg)
    split = al.flops_split(cfg)
    D = _tokens(tokens)
    C = split["training_flops_per_token"] * D
    r_star = float(al.optimal_ratio(C, split["S"])) if math.isfinite(C) else NAN
    return {
        "r = C_E/C_A": split["r"], "expert share": split["expert_share"], "S": split["S"],
        "D (tokens)": D, "C (FLOPs)": C, "r*": r_star,
        "expert share at r*": r_star / (1 + r_star) if math.isfinite(r_star) else NAN,
        "r/r*": split["r"] / r_star,
        "convention": "allocation: App. C forward FLOPs (context 4096 terms), C = 3 x fwd x D",
        "flags": flags("allocation", C=C, S=split["S"]),
        "caveat": _caveats(cfg, "" if math.isfinite(C) else "training tokens unpublished"),
    }


def _row(paper: str, cfg: MoEConfig, tokens: TrainingTokens) -> dict[str, Any]:
    if paper == "leverage":
        return leverage_verdict(cfg, tokens.tokens)
    if paper == "holistic":
        return holistic_verdict(cfg, tokens.tokens)
    if paper == "comprehensive":
        return comprehensive_verdict(cfg, tokens.tokens)
    if paper == "constrained":
        return constrained_verdict(cfg)
    if paper == "allocation":
        return allocation_verdict(cfg, tokens.tokens)
    raise ValueError(f"unknown paper {paper!r}; choose from {', '.join(PAPERS)}")


def moe_presets() -> list[str]:
    """Names of the MoE presets of :data:`moelaws.arch.PRESETS` (the dense one is left out)."""
    return [name for name, cfg in arch.PRESETS.items() if cfg.is_moe]


def question_table(
    paper: str,
    models: Sequence[str] | None = None,
    assumed_tokens: Mapping[str, float] | None = None,
) -> pd.DataFrame:
    """One paper's verdicts over the presets, one row per model (wide).

    Parameters
    ----------
    paper
        One of :data:`~moelaws.compare.regimes.PAPERS`.
    models
        Preset names; default all MoE presets.
    assumed_tokens
        ``{preset: tokens}`` assumptions for models without published token counts (or to
        override them); rows using one say so in ``tokens source``.

    Returns
    -------
    pandas.DataFrame
        Indexed by model; columns as returned by that paper's ``*_verdict`` function, plus
        ``tokens source`` and ``outside fitted range`` (the number of flags).

    Raises
    ------
    ValueError
        For an unknown paper or preset, a dense preset, or a non-positive assumed count.
    """
    rows = []
    for name in models if models is not None else moe_presets():
        cfg = arch.preset(name)
        tok = training_tokens(cfg.name, assumed_tokens)
        row = _row(paper, cfg, tok)
        row["tokens source"] = ("ASSUMED: " if tok.assumed else "") + tok.source
        row["outside fitted range"] = len(row["flags"])
        rows.append({"model": cfg.name, **row})
    return pd.DataFrame(rows).set_index("model")


def verdicts(
    models: Sequence[str] | None = None,
    assumed_tokens: Mapping[str, float] | None = None,
) -> pd.DataFrame:
    """Every paper's verdicts on every preset, as one tidy table.

    Returns
    -------
    pandas.DataFrame
        Columns ``model, paper, quantity, value, convention, caveat, flags``: one row per
        numeric quantity (tuples such as ranges are split into ``low``/``high`` rows), with the
        convention, the caveats and the out-of-range flags of that (model, paper) pair.

    Raises
    ------
    ValueError
        As :func:`question_table`.
    """
    meta = {"convention", "caveat", "flags", "tokens source", "outside fitted range"}
    records = []
    for paper in PAPERS:
        table = question_table(paper, models, assumed_tokens)
        for model, row in table.iterrows():
            common = {"model": model, "paper": paper, "convention": row["convention"],
                      "caveat": row["caveat"], "flags": " | ".join(row["flags"])}
            for quantity, value in row.items():
                if quantity in meta or isinstance(value, str):
                    continue
                if isinstance(value, tuple):
                    parts = (zip(("low", "high"), value, strict=True) if len(value) == 2
                             else enumerate(value))
                    for label, part in parts:
                        records.append({**common, "quantity": f"{quantity} [{label}]",
                                        "value": float(part)})
                else:
                    records.append({**common, "quantity": quantity, "value": float(value)})
    cols = ["model", "paper", "quantity", "value", "convention", "caveat", "flags"]
    return pd.DataFrame(records)[cols]


__all__ = [
    "COMPREHENSIVE_G",
    "COMPREHENSIVE_S",
    "CONSTRAINED_K_ALIGN",
    "allocation_verdict",
    "comprehensive_verdict",
    "constrained_expert_grid",
    "constrained_verdict",
    "holistic_verdict",
    "leverage_verdict",
    "moe_presets",
    "question_table",
    "verdicts",
]

