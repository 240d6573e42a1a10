"""The compute-optimal answers in one FLOP count, and their disagreements split into
counting and substance.

Asked for "C training FLOPs", the papers with a compute-optimal answer (their adapter's role
``compute_optimal``, :class:`moelaws.roles.ComputeOptimal`) read C in their own counts: the
leverage paper (Table 5) as ``M·D`` with M three times App. I's forward FLOPs per token
(attention context terms and logits included), the holistic paper (Eq. 2, Sec. 7) as ``M·D``
with ``M = 6·N_a + 6·S·N_q·d_qkv·L`` at S = 8192, and the comprehensive paper (App. G)
counts no FLOPs at all (``C = D·N_a``; we convert with ``6·N_a·D``). The same number C
therefore buys different amounts of ``6·N_a·D``.

:func:`answers` gives each paper's answer twice: *own* (the paper handed C in its own count,
as ``recommend`` does) and *common* (the paper handed the budget in its own count that equals
C in the common count ``6·N_a·D``, N_a the non-embedding active weights). The factor between
the two budgets is ``κ = (paper's compute per token)/(6·N_a)`` of the architecture at that
budget: the paper's own design where it gives one (the holistic paper's Sec. 7); for a paper
whose law fixes no architecture (the leverage paper's Table 5), the first paper's design
counted by the paper's own convention (our stand-in); exactly 1 for the comprehensive paper.
κ is far from 1 at small budgets, where the attention context terms of the FLOP counts weigh
most. :func:`split` divides a ratio between two papers' own answers into the part due to
counting (own ratio over common ratio) and the part due to substance (the common ratio: data,
regime, fitted form).
"""

from __future__ import annotations

import math
from collections.abc import Callable

import pandas as pd

from moelaws import papers
from moelaws.arch.config import MoEConfig
from moelaws.compare.regimes import flags

COMMON_COUNT = "6·N_a·D, N_a = non-embedding active weights"
"""The one FLOP count the answers are put in."""


def own_counts() -> dict[str, str]:
    """How each paper with a compute-optimal answer counts the compute it is handed, by id."""
    return {p.id: p.compute_optimal.count for p in papers.having("compute_optimal")}


def _stand_in() -> Callable[[float], MoEConfig] | None:
    """The first paper's design for a budget, for papers whose law fixes no architecture."""
    for paper in papers.having("compute_optimal"):
        if paper.compute_optimal.design is not None:
            return paper.compute_optimal.design
    return None


def answers(compute: float, total_params: float) -> pd.DataFrame:
    """The compute-optimal answers for one budget, in each paper's count and in one.

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
        Indexed by paper (those with a ``compute_optimal`` role, in reading order); columns
        ``own count``, ``κ = own compute per token / 6N_a``, ``N_a own (B)``, ``D own (T)``,
        ``6·N_a·D own / C``, ``own budget for common C``, ``N_a common (B)``,
        ``D common (T)``, ``6·N_a·D common / C``, and ``own inside fitted or validated
        ranges``, ``common inside fitted or validated ranges`` (leverage and holistic: the
        budget in their count within Tables 8-12's and Table 2's; comprehensive: N, D* and
        N_a*/N within the ranges of Table 8's fitting and validation rows together). The
        leverage paper gives M, not N_a: its N_a is ``M/(6κ)`` with the stand-in κ, ours. κ
        is the one of the common-count run.

    Raises
    ------
    ValueError
        For a non-positive budget, or one outside the holistic design domain (which the
        leverage κ also needs).
    """
    for name, value in (("compute", compute), ("total_params", total_params)):
        if not (isinstance(value, (int, float)) and math.isfinite(value) and value > 0):
            raise ValueError(f"{name} must be a positive finite number, got {value!r}")
    design = _stand_in()
    rows = []
    for paper in papers.having("compute_optimal"):
        role = paper.compute_optimal
        o = role.own(compute, total_params, design)
        c = role.common(compute, total_params, design)
        rows.append({
            "paper": paper.id, "own count": role.count,
            "κ = own compute per token / 6N_a": c["kappa"],
            "N_a own (B)": o["N_a"] / 1e9, "D own (T)": o["D"] / 1e12,
            "6·N_a·D own / C": 6.0 * o["N_a"] * o["D"] / compute,
            "own budget for common C": c["own budget"],
            "N_a common (B)": c["N_a"] / 1e9, "D common (T)": c["D"] / 1e12,
            "6·N_a·D common / C": 6.0 * c["N_a"] * c["D"] / compute,
            "own inside fitted or validated ranges":
                not flags(paper.id, **role.domain(o, total_params)),
            "common inside fitted or validated ranges":
                not flags(paper.id, **role.domain(c, total_params)),
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


__all__ = ["COMMON_COUNT", "answers", "disagreement_table", "own_counts", "split"]


from moelaws.validation import guard_public  # noqa: E402

guard_public(globals(), __all__)
