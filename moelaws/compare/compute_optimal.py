"""The three compute-optimal answers in one FLOP count, and their disagreements split into
counting and substance.

Asked for "C training FLOPs", the leverage paper (Table 5) reads C as ``M·D`` with M three
times App. I's forward FLOPs per token (attention context terms and logits included), the
holistic paper (Eq. 2, Sec. 7) as ``M·D`` with ``M = 6·N_a + 6·S·N_q·d_qkv·L`` at S = 8192,
and the comprehensive paper (App. G) counts no FLOPs at all (``C = D·N_a``; we convert with
``6·N_a·D``). The same number C therefore buys three different amounts of ``6·N_a·D``.

:func:`answers` gives each paper's answer twice: *own* (the paper handed C in its own count,
as ``recommend`` does) and *common* (the paper handed the budget in its own count that equals
C in the common count ``6·N_a·D``, N_a the non-embedding active weights). The factor between
the two budgets is ``κ = (paper's compute per token)/(6·N_a)`` of the architecture at that
budget: the holistic design itself for the holistic paper; for the leverage paper, whose
Table 5 fixes no architecture, the same holistic design counted by App. I at the leverage
paper's own sequence length and vocabulary (our stand-in); exactly 1 for the comprehensive
paper. κ is far from 1 at small budgets, where the attention context terms of the two FLOP
counts weigh most. :func:`split` divides a ratio between two
papers' own answers into the part due to counting (own ratio over common ratio) and the part
due to substance (the common ratio: data, regime, fitted form).
"""

from __future__ import annotations

import math
from functools import lru_cache

import pandas as pd

COMMON_COUNT = "6·N_a·D, N_a = non-embedding active weights"
"""The one FLOP count the answers are put in."""

LEVERAGE_SEQ_LEN, LEVERAGE_VOCAB = 4096, 126_464
"""The leverage paper's sequence length and vocabulary (App. D), at which we evaluate its
App. I count on the stand-in architecture."""


def _kappa_leverage(compute_common: float) -> float:
    """App. I's M over 6·N_a for the holistic design at this budget, at the leverage paper's
    sequence length and vocabulary (Table 5 itself fixes no architecture)."""
    from moelaws import conventions

    _, rep = _kappa_holistic(compute_common)
    cfg = rep.config.replace(context_length=LEVERAGE_SEQ_LEN, vocab_size=LEVERAGE_VOCAB)
    lev = conventions.counts(cfg, "leverage")
    return lev.compute_per_token / (6.0 * lev.active)


@lru_cache(maxsize=64)
def _kappa_holistic(compute: float) -> tuple[float, object]:
    from moelaws.holistic import design_report

    rep = design_report(compute)
    return rep.M / (6.0 * rep.N_a), rep


def _holistic(compute_common: float) -> dict[str, float]:
    """Holistic answer whose realised ``6·N_a·D`` equals ``compute_common`` (fixed point)."""
    own_budget = compute_common
    for _ in range(20):
        kappa, rep = _kappa_holistic(own_budget)
        nxt = compute_common * kappa
        if abs(nxt / own_budget - 1) < 1e-9:
            break
        own_budget = nxt
    kappa, rep = _kappa_holistic(own_budget)
    tokens = own_budget / rep.M
    return {"own budget": own_budget, "kappa": kappa, "N_a": rep.N_a, "D": tokens,
            "M or N_a (own count)": rep.M}


def _leverage(compute_common: float) -> dict[str, float]:
    from moelaws.leverage.budget import compute_optimal_allocation

    kappa = _kappa_leverage(compute_common)
    own_budget = compute_common * kappa
    alloc = compute_optimal_allocation(own_budget, "moe")
    return {"own budget": own_budget, "kappa": kappa, "N_a": float(alloc.M) / (6.0 * kappa),
            "D": float(alloc.D), "M or N_a (own count)": float(alloc.M)}


def _comprehensive(compute_common: float, total_params: float) -> dict[str, float]:
    from moelaws.comprehensive.optima import compute_optimal_active
    from moelaws.comprehensive.paper import COMPREHENSIVE_G, COMPREHENSIVE_S

    c_pt = compute_common / 6.0
    na = float(compute_optimal_active(c_pt, total_params, COMPREHENSIVE_G, COMPREHENSIVE_S))
    return {"own budget": c_pt, "kappa": 1.0, "N_a": na, "D": c_pt / na,
            "M or N_a (own count)": na}


def _own(compute: float, total_params: float) -> dict[str, dict[str, float]]:
    """Each paper handed ``compute`` in its own count (what ``recommend`` does)."""
    from moelaws.comprehensive.optima import compute_optimal_active
    from moelaws.comprehensive.paper import COMPREHENSIVE_G, COMPREHENSIVE_S
    from moelaws.holistic import design_report
    from moelaws.leverage.budget import compute_optimal_allocation

    rep = design_report(compute)
    kappa_lev = _kappa_leverage(compute)
    alloc = compute_optimal_allocation(compute, "moe")
    c_pt = compute / 6.0
    na = float(compute_optimal_active(c_pt, total_params, COMPREHENSIVE_G, COMPREHENSIVE_S))
    return {
        "leverage": {"N_a": float(alloc.M) / (6.0 * kappa_lev), "D": float(alloc.D),
                     "own budget": compute, "M or N_a (own count)": float(alloc.M),
                     "kappa": kappa_lev},
        "holistic": {"N_a": rep.N_a, "D": compute / rep.M, "own budget": compute,
                     "M or N_a (own count)": rep.M, "kappa": rep.M / (6.0 * rep.N_a)},
        "comprehensive": {"N_a": na, "D": c_pt / na, "own budget": c_pt,
                          "M or N_a (own count)": na, "kappa": 1.0},
    }


OWN_COUNTS: dict[str, str] = {
    "leverage": "C = M·D, M = 3 x App. I forward FLOPs (Table 5)",
    "holistic": "C = M·D, M = 6N_a + 6·S·N_q·d_qkv·L, S = 8192 (Eq. 2-3)",
    "comprehensive": "C = D·N_a parameter-tokens (App. G); FLOPs/6 by our conversion",
}
"""How each paper counts the compute it is handed."""


def _domain_flags(paper: str, answer: dict[str, float], total_params: float) -> list[str]:
    from moelaws.compare.regimes import flags

    if paper == "comprehensive":
        return flags(paper, N=total_params, D=answer["D"],
                     **{"N_a/N": answer["N_a"] / total_params})
    return flags(paper, C=answer["own budget"])


def answers(compute: float, total_params: float) -> pd.DataFrame:
    """The three compute-optimal answers for one budget, in each paper's count and in one.

    Parameters
    ----------
    compute
        Training FLOPs. *Own*: each paper reads this number in its own count. *Common*: each
        paper gets the budget that is ``compute`` in :data:`COMMON_COUNT`.
    total_params
        Total non-embedding parameters, for the comprehensive paper's App. G (at fixed N).

    Returns
    -------
    pandas.DataFrame
        Indexed by paper; columns ``own count``, ``κ = own compute per token / 6N_a``,
        ``N_a own (B)``, ``D own (T)``, ``6·N_a·D own / C``, ``own budget for common C``,
        ``N_a common (B)``, ``D common (T)``, ``6·N_a·D common / C``, and ``own inside
        fitted domain``, ``common inside fitted domain`` (leverage and holistic: the budget
        in their count within Tables 8-12's and Table 2's; comprehensive: N, D* and N_a*/N
        within Table 8's). The leverage paper gives M, not N_a: its N_a is ``M/(6κ)`` with
        the stand-in κ, ours. κ is the one of the common-count run.

    Raises
    ------
    ValueError
        For a non-positive budget, or one outside the holistic design domain (which the
        leverage κ also needs).
    """
    for name, value in (("compute", compute), ("total_params", total_params)):
        if not (isinstance(value, (int, float)) and math.isfinite(value) and value > 0):
            raise ValueError(f"{name} must be a positive finite number, got {value!r}")
    own = _own(compute, total_params)
    common = {"leverage": _leverage(compute), "holistic": _holistic(compute),
              "comprehensive": _comprehensive(compute, total_params)}
    rows = []
    for paper in ("leverage", "holistic", "comprehensive"):
        o, c = own[paper], common[paper]
        rows.append({
            "paper": paper, "own count": OWN_COUNTS[paper],
            "κ = own compute per token / 6N_a": c["kappa"],
            "N_a own (B)": o["N_a"] / 1e9, "D own (T)": o["D"] / 1e12,
            "6·N_a·D own / C": 6.0 * o["N_a"] * o["D"] / compute,
            "own budget for common C": c["own budget"],
            "N_a common (B)": c["N_a"] / 1e9, "D common (T)": c["D"] / 1e12,
            "6·N_a·D common / C": 6.0 * c["N_a"] * c["D"] / compute,
            "own inside fitted domain": not _domain_flags(paper, o, total_params),
            "common inside fitted domain": not _domain_flags(paper, c, total_params),
        })
    return pd.DataFrame(rows).set_index("paper")


def split(quantity: str, paper_a: str, value_a_own: float, value_a_common: float,
          paper_b: str, value_b_own: float, value_b_common: float) -> dict[str, float | str]:
    """One disagreement split into counting and substance.

    ``ratio = a_own/b_own = (a_own/b_own)/(a_common/b_common) x (a_common/b_common)``: the first
    factor is due to counting (it disappears when both papers count alike), the second is the
    substance (what remains at equal counting).

    Returns
    -------
    dict
        ``quantity``, ``paper A``, ``paper B``, ``A (own)``, ``B (own)``, ``ratio A/B (own)``,
        ``part due to counting`` (a factor), ``part due to substance`` (a factor, the ratio in
        the common count). The two parts may pull in opposite directions.

    Raises
    ------
    ValueError
        For non-positive values, or an empty ``quantity``, ``paper_a`` or ``paper_b``.
    """
    for label, text in (("quantity", quantity), ("paper_a", paper_a), ("paper_b", paper_b)):
        if not isinstance(text, str) or not text.strip():
            raise ValueError(f"{label} must be a non-empty string, got {text!r}")
    values = (value_a_own, value_a_common, value_b_own, value_b_common)
    if not all(math.isfinite(v) and v > 0 for v in values):
        raise ValueError("the values to split must be positive and finite")
    ratio = value_a_own / value_b_own
    substance = value_a_common / value_b_common
    counting = ratio / substance
    return {"quantity": quantity, "paper A": paper_a, "paper B": paper_b,
            "A (own)": value_a_own, "B (own)": value_b_own, "ratio A/B (own)": ratio,
            "part due to counting": counting, "part due to substance": substance}


def disagreement_table(compute: float, total_params: float,
                       table: pd.DataFrame | None = None) -> pd.DataFrame:
    """Every pair of compute-optimal answers split into counting and substance, for N_a and D.

    Rows are ordered so that paper A has the larger own value (ratios at least 1).

    Parameters
    ----------
    compute, total_params
        As in :func:`answers`.
    table
        :func:`answers` for these budgets, if already computed.

    Raises
    ------
    ValueError
        As :func:`answers`.
    """
    if table is None:
        table = answers(compute, total_params)
    rows = []
    papers = list(table.index)
    for quantity, own_col, common_col in (("D (tokens)", "D own (T)", "D common (T)"),
                                          ("N_a (active params)", "N_a own (B)",
                                           "N_a common (B)")):
        for i, a in enumerate(papers):
            for b in papers[i + 1:]:
                first, second = (a, b) if table.loc[a, own_col] >= table.loc[b, own_col] else (b, a)
                rows.append(split(quantity, first, table.loc[first, own_col],
                                  table.loc[first, common_col], second,
                                  table.loc[second, own_col], table.loc[second, common_col]))
    return pd.DataFrame(rows)


__all__ = ["COMMON_COUNT", "OWN_COUNTS", "answers", "disagreement_table", "split"]


from moelaws.validation import guard_public  # noqa: E402

guard_public(globals(), __all__)
