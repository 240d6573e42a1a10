"""Each paper's recommendation for a budget: compute C, and/or memory N and inference N_a.

:func:`recommend` returns one :class:`Recommendation` per paper. A paper is applicable when
the budgets it needs are given (and within the range its procedure accepts); otherwise the
record says why not. Where a paper determines a whole architecture (holistic Sec. 7,
constrained Algorithm 1) the record carries an :class:`~moelaws.arch.MoEConfig` and its
``arch`` counts; otherwise it carries the ratios the paper prescribes and names the fields the
paper leaves open.

Budgets: ``compute`` is training FLOPs; ``total_params`` and ``active_params`` are
non-embedding parameter counts (each paper reads them in its own convention, see the record's
``convention``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import Any

from moelaws import allocation as al
from moelaws import arch
from moelaws import comprehensive as cl
from moelaws import constrained as con
from moelaws import holistic as h
from moelaws import leverage as lev
from moelaws.arch import MoEConfig
from moelaws.compare.regimes import PAPER_LABELS, PAPERS, flags
from moelaws.compare.verdicts import COMPREHENSIVE_G, COMPREHENSIVE_S, CONSTRAINED_K_ALIGN

LEVERAGE_A = 0.031
"""Activation ratio at which we report Eq. 4's EL (the paper's headline and MoE-mini value;
Eq. 4 has no optimum in A: EL keeps rising as A falls)."""

ALLOCATION_S = 62 / 65
"""Default sparsity for Eq. 1: App. B.1's E = 65 (1 shared + 2 routed active), 95.38 %."""

FLOPS_PER_PARAM_TOKEN = 6.0
"""Our conversion of training FLOPs to the comprehensive paper's C = D·N_a (C_FLOPs ≈ 6·N_a·D;
the paper itself defines no FLOPs)."""

CONSTRAINED_HEAD_DIM = 128
"""Per-head width we give Algorithm 1's designs (the paper counts attention as 4d², which any
head split of d realises)."""

CONSTRAINED_VOCAB = 32000
"""Vocabulary we give Algorithm 1's designs (the paper counts no embeddings)."""


@dataclass(frozen=True)
class Recommendation:
    """One paper's answer for a budget.

    Attributes
    ----------
    paper, label
        Short identifier and full label of the paper.
    applicable
        Whether the paper's procedure could be run on the given budgets.
    reason
        Why not (empty when applicable).
    values
        What the paper prescribes (ratios, sizes, tokens), by name.
    config
        The recommended architecture, where the paper determines one.
    checks
        ``arch`` counts of ``config``: total/active parameters and forward/training FLOPs per
        token under the exact count and under the paper's own convention.
    ratios
        Every paper's ratios of ``config`` (:func:`moelaws.arch.all_ratios`).
    open_fields
        What the paper leaves undetermined, and the defaults we chose.
    convention
        How the paper counts the budgets it reads.
    flags
        Budgets outside the paper's fitted range.
    """

    paper: str
    label: str
    applicable: bool
    reason: str = ""
    values: dict[str, float | int | str] = field(default_factory=dict)
    config: MoEConfig | None = None
    checks: dict[str, float] = field(default_factory=dict)
    ratios: dict[str, float] = field(default_factory=dict)
    open_fields: str = ""
    convention: str = ""
    flags: tuple[str, ...] = ()

    def as_dict(self) -> dict[str, Any]:
        """A JSON-ready dict (NaN becomes ``None``; the config becomes its field dict)."""
        return {
            "paper": self.paper,
            "label": self.label,
            "applicable": self.applicable,
            "reason": self.reason,
            "values": {k: _json(v) for k, v in self.values.items()},
            "config": None if self.config is None else self.config.to_dict(),
            "checks": {k: _json(v) for k, v in self.checks.items()},
            "ratios": {k: _json(v) for k, v in self.ratios.items()},
            "open_fields": self.open_fields,
            "convention": self.convention,
            "flags": list(self.flags),
        }


def _json(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def _check_budget(name: str, value: float | None) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValueError(f"{name} must be a number, got {value!r}")
    if not (math.isfinite(value) and value > 0):
        raise ValueError(f"{name} must be a positive finite number, got {value!r}")
    return float(value)


def arch_checks(cfg: MoEConfig, convention: str) -> dict[str, float]:
    """``arch`` counts of a recommended configuration, exact and in the paper's convention.

    Returns
    -------
    dict
        ``total``, ``active`` (non-embedding, exact), ``embedding``, ``forward FLOPs/token`` and
        ``training FLOPs/token`` (exact, 3 x forward), and ``total (<convention>)``,
        ``active (<convention>)``, ``compute per token (<convention>)``.
    """
    exact = arch.counts(cfg, "exact")
    own = arch.counts(cfg, convention)
    return {
        "total": exact.total, "active": exact.active, "embedding": exact.embedding,
        "forward FLOPs/token": exact.forward_flops,
        "training FLOPs/token": exact.compute_per_token,
        f"total ({convention})": own.total, f"active ({convention})": own.active,
        f"compute per token ({convention})": own.compute_per_token,
    }


def _not_applicable(paper: str, reason: str, convention: str) -> Recommendation:
    return Recommendation(paper, PAPER_LABELS[paper], False, reason, convention=convention)


def recommend_leverage(compute: float | None) -> Recommendation:
    """Leverage paper: Table 5's compute-optimal M and D, and Eq. 4's optimal granularity.

    M_opt = 0.1915·C^0.5095, D_opt = 5.2232·C^0.4905 (MoE family); G* = 2^(−β/2γ) ≈ 11.3
    (independent of C and A); EL at G* reported at A = :data:`LEVERAGE_A`.
    """
    conv = "leverage: M = non-embedding training FLOPs per token (App. I), C = M·D"
    if compute is None:
        return _not_applicable("leverage", "needs --compute (Table 5 and Eq. 4 are laws of C)",
                               conv)
    alloc = lev.compute_optimal_allocation(compute, "moe")
    g_star = float(lev.optimal_granularity(LEVERAGE_A))
    values = {
        "M_opt (FLOPs/token)": float(alloc.M), "D_opt (tokens)": float(alloc.D),
        "G* = 2d/d_e": g_star, "A (our choice)": LEVERAGE_A,
        "EL at (A, G*)": float(lev.efficiency_leverage(LEVERAGE_A, g_star, compute)),
        "optimal batch (tokens)": float(lev.optimal_batch_size(compute)),
        "optimal learning rate": float(lev.optimal_learning_rate(compute)),
    }
    return Recommendation(
        "leverage", PAPER_LABELS["leverage"], True, values=values, convention=conv,
        open_fields=("depth, width, expert count and activation ratio: Table 5 fixes only M "
                     "and D, Eq. 4 only G (its EL rises as A falls, so it recommends no A; we "
                     f"report EL at A = {LEVERAGE_A:.1%}, the paper's MoE-mini value)"),
        flags=tuple(flags("leverage", C=compute)),
    )


def recommend_holistic(compute: float | None) -> Recommendation:
    """Holistic paper, Sec. 7: compute budget -> full architecture
    (:func:`moelaws.holistic.design_report`, with its documented stand-ins)."""
    conv = "holistic: M = 6N_a + 6·S·N_q·d_qkv·L (S = 8192), C = M·D"
    if compute is None:
        return _not_applicable("holistic", "needs --compute (Sec. 7 designs from C)", conv)
    lo, hi = h.DESIGN_DOMAIN
    if not lo <= compute <= hi:
        return _not_applicable(
            "holistic", f"--compute {compute:.3g} is outside the design domain "
            f"[{lo:.0e}, {hi:.0e}] FLOPs (laws fitted on 1e18-3e20)", conv)
    rep = h.design_report(compute)
    values = {
        "M_opt (FLOPs/token)": rep.M_target, "M realised": rep.M,
        "D = C/M (tokens)": rep.tokens, "M/N_a target": rep.m_over_na_target,
        "N/N_a target": rep.n_over_na_target, "N_a realised": rep.N_a, "N realised": rep.N,
        "max deviation from targets": max(abs(v) for v in rep.deviations().values()),
    }
    return Recommendation(
        "holistic", PAPER_LABELS["holistic"], True, values=values, config=rep.config,
        checks=arch_checks(rep.config, "holistic"), ratios=arch.all_ratios(rep.config),
        convention=conv,
        open_fields=("the paper prints no law for M/N_a (Fig. 5b) or d (Fig. 6b): our fit and "
                     "the median-d proxy stand in; N_e = 288, K = 8, one shared expert, "
                     "d_d = 3d, vocabulary 152,064 as in Sec. 4.2.2; d, d_m multiples of 8"),
        flags=tuple(flags("holistic", C=compute)),
    )


def recommend_comprehensive(
    compute: float | None, total_params: float | None, active_params: float | None
) -> Recommendation:
    """Comprehensive paper: G and S optima (Eq. 12-13), the N_a/N band at N (Eq. 14 and
    Algorithm 1, ΔLoss = 0.005), and with a compute budget App. G's compute-optimal N_a at
    fixed N (C = D·N_a, from FLOPs by our 6·N_a·D conversion)."""
    conv = "comprehensive: N, N_a by Eq. 2-3 (non-embedding); C = D·N_a (parameter-tokens)"
    if total_params is None:
        return _not_applicable(
            "comprehensive", "needs --total-params (its N_a/N optimum and App. G are at fixed N)",
            conv)
    N = total_params
    theory = float(cl.optimal_active_ratio(N, COMPREHENSIVE_G, COMPREHENSIVE_S))
    low = float(cl.efficiency_aware_active_ratio(N, 5e-3, COMPREHENSIVE_G, COMPREHENSIVE_S))
    n_shared = round(COMPREHENSIVE_S * COMPREHENSIVE_G)
    values: dict[str, float | int | str] = {
        "G_opt = n_k+n_s": cl.optimal_G(), "S_opt = n_s/G": cl.optimal_S(),
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
        na_star = float(cl.compute_optimal_active(c_pt, N, COMPREHENSIVE_G, COMPREHENSIVE_S))
        values.update({
            "C = D·N_a (compute/6)": c_pt, "N_a* at C (App. G)": na_star,
            "D* = C/N_a*": c_pt / na_star,
            "L* (Eq. 11)": float(cl.compute_optimal_loss(c_pt, N, COMPREHENSIVE_G,
                                                        COMPREHENSIVE_S)),
        })
    return Recommendation(
        "comprehensive", PAPER_LABELS["comprehensive"], True, values=values, convention=conv,
        open_fields=("depth, width, heads, expert width and number of routed experts: the law "
                     "sees only N, N_a, D, G and S"),
        flags=tuple(flags("comprehensive", N=N)),
    )


def _constrained_config(design: con.Design) -> MoEConfig:
    head = CONSTRAINED_HEAD_DIM if design.d % CONSTRAINED_HEAD_DIM == 0 else 64
    return MoEConfig(
        n_layers=design.l, d_model=design.d, n_heads=design.d // head, head_dim=head,
        n_experts=design.n_exp, top_k=design.n_topk, d_expert=round(design.d / design.g),
        vocab_size=CONSTRAINED_VOCAB, context_length=4096,
        name=f"constrained design, {design.total:.3g}/{design.active:.3g} params",
        source="moelaws.compare.recommend: Algorithm 1 (App. C.3) of the constrained paper",
    )


def recommend_constrained(
    total_params: float | None, active_params: float | None
) -> Recommendation:
    """Constrained paper, Algorithm 1 (App. C.3): the lowest Eq. 3 loss within both budgets,
    with the paper's g = 4, Γ = {32, 64}, k_align = 64 and experts 2..128 (extended by powers
    of two only if nothing fits)."""
    conv = "constrained: N_total = l·d²·(4 + 3n_exp/g), N_active likewise (Eq. 1-2)"
    if total_params is None or active_params is None:
        return _not_applicable(
            "constrained", "needs --total-params and --active-params (memory and inference "
            "budgets)", conv)
    design = None
    for k in range(7, 13):
        try:
            design = con.optimize(total_params, active_params, CONSTRAINED_K_ALIGN,
                                  n_experts=tuple(2**i for i in range(1, k + 1)))
            break
        except ValueError as err:
            if "no configuration fits" not in str(err):
                raise
    if design is None:
        return _not_applicable(
            "constrained", "no aligned design fits these budgets (too small for one layer of "
            "width 64 with one active expert, or active/total too small)", conv)
    cfg = _constrained_config(design)
    values = {
        "l": design.l, "d": design.d, "n_exp": design.n_exp, "n_topk": design.n_topk,
        "g = d/d_exp": design.g, "gamma = d/l": design.gamma,
        "N_total (Eq. 1)": design.total, "N_active (Eq. 2)": design.active,
        "Eq. 3 relative loss": design.loss,
    }
    return Recommendation(
        "constrained", PAPER_LABELS["constrained"], True, values=values, config=cfg,
        checks=arch_checks(cfg, "constrained"), ratios=arch.all_ratios(cfg), convention=conv,
        open_fields=(f"heads (we use head width {cfg.head_dim}), vocabulary (we use "
                     f"{CONSTRAINED_VOCAB}), context (4096): the paper counts attention as 4d² "
                     "and no embeddings"),
        flags=tuple(flags("constrained", N=total_params)),
    )


def recommend_allocation(compute: float | None, sparsity: float = ALLOCATION_S
                         ) -> Recommendation:
    """Allocation paper, Eq. 1: r* = α_r(S)·C^β_r(S) at the given sparsity (default
    :data:`ALLOCATION_S`), and the expert share r*/(1 + r*)."""
    conv = "allocation: r = C_E/C_A from App. C forward FLOPs; C = training FLOPs"
    if compute is None:
        return _not_applicable("allocation", "needs --compute (r* is a law of C)", conv)
    r_star = float(al.optimal_ratio(compute, sparsity))
    values = {
        "S (sparsity)": sparsity, "r* = C_E/C_A": r_star,
        "expert share r*/(1+r*)": float(al.expert_fraction(r_star)),
    }
    return Recommendation(
        "allocation", PAPER_LABELS["allocation"], True, values=values, convention=conv,
        open_fields=(f"everything but the attention/expert split; S = {sparsity:.4f} is our "
                     "default (App. B.1's 65 experts, 3 active)"),
        flags=tuple(flags("allocation", C=compute, S=sparsity)),
    )


def recommend(
    compute: float | None = None,
    total_params: float | None = None,
    active_params: float | None = None,
    *,
    sparsity: float = ALLOCATION_S,
) -> list[Recommendation]:
    """Each paper's recommendation for a training-compute and/or memory and inference budget.

    Parameters
    ----------
    compute
        Training compute in FLOPs (leverage, holistic, allocation; comprehensive converts it
        to D·N_a as compute/6).
    total_params
        Memory budget: total non-embedding parameters (constrained, comprehensive).
    active_params
        Inference budget: active non-embedding parameters per token (constrained; checked
        against the comprehensive band).
    sparsity
        The allocation paper's S = (E − E_act)/E for Eq. 1, in [0, 1).

    Returns
    -------
    list of Recommendation
        One per paper, in :data:`~moelaws.compare.regimes.PAPERS` order.

    Raises
    ------
    ValueError
        If no budget is given, a budget is not a positive finite number,
        ``active_params > total_params``, or ``sparsity`` is outside [0, 1).
    """
    compute = _check_budget("compute", compute)
    total_params = _check_budget("total_params", total_params)
    active_params = _check_budget("active_params", active_params)
    if compute is None and total_params is None and active_params is None:
        raise ValueError("give at least one budget: compute, total_params or active_params")
    if total_params is not None and active_params is not None and active_params > total_params:
        raise ValueError(f"active_params ({active_params:.4g}) exceeds total_params "
                         f"({total_params:.4g})")
    if not (isinstance(sparsity, (int, float)) and 0 <= sparsity < 1):
        raise ValueError(f"sparsity must lie in [0, 1), got {sparsity!r}")
    out = {
        "leverage": recommend_leverage(compute),
        "holistic": recommend_holistic(compute),
        "comprehensive": recommend_comprehensive(compute, total_params, active_params),
        "constrained": recommend_constrained(total_params, active_params),
        "allocation": recommend_allocation(compute, sparsity),
    }
    return [_over_budget(out[p], total_params, active_params) for p in PAPERS]


def _over_budget(rec: Recommendation, total_params: float | None,
                 active_params: float | None) -> Recommendation:
    """``rec`` with a flag for every budget its configuration exceeds (a paper whose law
    ignores a budget, e.g. a compute-only law, may recommend more parameters than it)."""
    if not rec.applicable or not rec.checks:
        return rec
    extra = []
    for key, budget, option in (("total", total_params, "--total-params"),
                                ("active", active_params, "--active-params")):
        value = rec.checks.get(key)
        if budget is not None and value is not None and value > budget:
            extra.append(f"OVER BUDGET: {key} parameters {value / 1e9:.4g}B (exact, "
                         f"non-embedding) exceed {option} {budget / 1e9:.4g}B; this paper's "
                         "law does not take that budget into account")
    return replace(rec, flags=(*rec.flags, *extra)) if extra else rec


__all__ = [
    "ALLOCATION_S",
    "FLOPS_PER_PARAM_TOKEN",
    "LEVERAGE_A",
    "Recommendation",
    "arch_checks",
    "recommend",
    "recommend_allocation",
    "recommend_comprehensive",
    "recommend_constrained",
    "recommend_holistic",
    "recommend_leverage",
]
