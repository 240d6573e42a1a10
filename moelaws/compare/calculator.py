"""The design calculator's precomputed grid, for the static (kernel-free) version.

The browser cannot run the papers' procedures, so each paper's recommendation is computed here
on a grid of budgets and the chart filters it by slider position. Which sliders a paper reads
and which of its values it shows is its ``calculator`` role (:mod:`moelaws.papers`). The grid
keys are ``round(100·log10(budget))`` so that a slider value matches a row exactly.
"""

from __future__ import annotations

import itertools

import altair as alt
import numpy as np
import pandas as pd
from tqdm.auto import tqdm

from moelaws import papers, sliders
from moelaws.compare.recommend import Budget
from moelaws.compare.report import fmt_short

LOG_C = tuple(np.round(np.arange(19.0, 25.01, 0.5), 2))
"""Slider positions of log10 C (training FLOPs)."""
LOG_N = tuple(np.round(np.arange(9.0, 12.51, 0.5), 2))
"""Slider positions of log10 N (total parameters)."""
ACTIVE_PCT = (2.0, 3.0, 5.0, 8.0, 12.0, 20.0, 30.0)
"""Slider positions of N_a/N in per cent."""


def _key(x: float) -> int:
    return round(100 * float(x))


def _line(rec, keys: tuple[str, ...]) -> str:
    if not rec.applicable:
        return "not applicable: " + rec.reason
    items = [f"{k} {fmt_short(rec.values[k])}" for k in keys if k in rec.values]
    # Two values a line (the chart's text marks break at "\n"), so rows fit the page width.
    line = "\n".join("; ".join(items[i : i + 2]) for i in range(0, len(items), 2))
    if rec.config is not None:
        cfg = rec.config
        line += (f"\nconfig {cfg.n_layers}L x d{cfg.d_model}, {cfg.n_experts}E top-{cfg.top_k}"
                 f", d_e {cfg.d_expert}")
    return line + (" [extrapolated]" if rec.flags else "")


def _budgets(sliders: tuple[str, ...]) -> list[tuple[dict[str, float], Budget]]:
    """Every slider position a paper reads: its grid keys and the budget they mean."""
    axes = {"C": LOG_C, "N": LOG_N, "R": ACTIVE_PCT}
    unknown = set(sliders) - set(axes)
    if unknown or ("R" in sliders and "N" not in sliders):
        raise ValueError(f"calculator sliders {sliders} must be among C, N, R (R needs N)")
    out = []
    for values in itertools.product(*(axes[s] for s in sliders)):
        at = dict(zip(sliders, values, strict=True))
        n = 10.0 ** at["N"] if "N" in at else None
        budget = Budget(compute=10.0 ** at["C"] if "C" in at else None, total_params=n,
                        active_params=n * at["R"] / 100 if "R" in at else None)
        out.append(({f"k{s}": _key(v) for s, v in at.items()}, budget))
    return out


def calculator_grid(progress: bool = True) -> pd.DataFrame:
    """Every paper's recommendation on the slider grid, one text line per row.

    Returns
    -------
    pandas.DataFrame
        Columns ``kC``, ``kN``, ``kR`` (slider keys; NaN where the paper ignores that slider),
        ``paper``, ``text``, and ``Na``, ``D`` (the recommended active parameters and tokens
        where the paper gives them, else NaN).
    """
    rows = []
    for paper in tqdm(papers.having("calculator"), desc="papers", disable=not progress):
        block = paper.calculator
        for keys, budget in _budgets(block.sliders):
            rec = paper.recommend(budget)
            rows.append({"kC": np.nan, "kN": np.nan, "kR": np.nan, **keys, "paper": paper.id,
                         "text": _line(rec, block.keys), "Na": block.active(rec),
                         "D": block.tokens(rec)})
    return pd.DataFrame(rows)


def calculator_chart(grid: pd.DataFrame, order: tuple[str, ...] | None = None
                     ) -> alt.VConcatChart:
    """The static design calculator: sliders for C, N and N_a/N over :func:`calculator_grid`.

    Parameters
    ----------
    grid
        The output of :func:`calculator_grid`.
    order
        Paper ids in the order their rows are shown; default the registry's reading order.

    Returns
    -------
    altair.VConcatChart
        Each paper's recommendation as text, and the recommended active parameters and tokens
        as points on log axes; both follow the three sliders (Vega-Lite parameters, so the
        chart works in the static book without a kernel).
    """
    missing = {"kC", "kN", "kR", "paper", "text", "Na", "D"} - set(grid.columns)
    if missing:
        raise ValueError(f"grid lacks columns {sorted(missing)}: use calculator_grid()")
    log_c = sliders.range_param("logC", 23.0, min=LOG_C[0], max=LOG_C[-1], step=0.5,
                                label="log10 C (FLOPs) ")
    log_n = sliders.range_param("logN", 11.5, min=LOG_N[0], max=LOG_N[-1], step=0.5,
                                label="log10 N (total params) ")
    pct = alt.param(name="pct", value=5, bind=alt.binding_select(
        options=list(ACTIVE_PCT), name="N_a/N (%) "))
    # A row applies when every slider its paper uses sits on the row's key (NaN: not used).
    keep = ("(!isValid(datum.kC) || datum.kC == round(100 * logC))"
            " && (!isValid(datum.kN) || datum.kN == round(100 * logN))"
            " && (!isValid(datum.kR) || datum.kR == round(100 * pct))")
    if order is None:
        order = papers.ids("calculator")
    shown = grid.assign(order=grid["paper"].map({p: i for i, p in enumerate(order)}))
    base = alt.Chart(shown).transform_filter(keep)
    rows = alt.Y("order:O", axis=None)
    table = alt.layer(
        base.mark_text(align="left", baseline="top", fontWeight="bold").encode(
            y=rows, x=alt.value(0), text="paper:N"),
        base.mark_text(align="left", baseline="top", fontSize=10, lineBreak="\n").encode(
            y=rows, x=alt.value(100), text="text:N"),
    ).properties(width=640, height=260, title="each paper's recommendation")
    dots = base.transform_fold(["Na", "D"], as_=["what", "value"]).transform_filter(
        "isValid(datum.value)").mark_point(filled=True, size=90).encode(
        x=alt.X("value:Q", scale=alt.Scale(type="log"), title=None,
                axis=alt.Axis(labelExpr="replace(format(datum.value, '~s'), 'G', 'B')",
                              labelOverlap="greedy", labelSeparation=6, tickCount=4)),
        y=alt.Y("paper:N", sort=list(order), title=None),
        color=alt.Color("paper:N", legend=None),
        column=alt.Column("what:N", title=None, header=alt.Header(
            labelExpr="datum.value == 'Na' ? 'active params' : 'training tokens'")),
    ).properties(width=260, height=120).resolve_scale(x="independent")
    return alt.vconcat(table, dots).add_params(log_c, log_n, pct)


__all__ = ["ACTIVE_PCT", "LOG_C", "LOG_N", "calculator_chart", "calculator_grid"]
