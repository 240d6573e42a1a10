"""Reports of the comparison: text for the ``design`` and ``counts`` commands, a table for the
chapter's live design panel."""

from __future__ import annotations

import math
import numbers
from typing import TYPE_CHECKING, Any

import pandas as pd
from tabulate import tabulate

if TYPE_CHECKING:
    from moelaws.compare.recommend import Recommendation


def fmt(value: Any) -> str:
    """A number in 4 significant digits (``-`` for missing), anything else as text."""
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int):
        return f"{value:,}" if abs(value) >= 1e4 else str(value)
    if isinstance(value, float):
        return "-" if not math.isfinite(value) else f"{value:.4g}"
    return str(value)


_SUFFIXES = ((1e12, "T"), (1e9, "B"), (1e6, "M"))


def fmt_short(value: Any) -> str:
    """Like :func:`fmt`, but a large number in 4 significant digits with a unit suffix.

    ``1.002e11`` becomes ``100.2B``, ``3.7e12`` ``3.7T``; beyond ``1e15`` and below ``1e6``
    (layer counts, widths) numbers are written as :func:`fmt` writes them.
    """
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return fmt(value)
    if not math.isfinite(value):
        return "-"
    for scale, suffix in _SUFFIXES:
        if scale <= abs(value) < 1e3 * scale:
            return f"{value / scale:.4g}{suffix}"
    return fmt(value)


def _config_line(rec: Recommendation) -> str:
    cfg = rec.config
    assert cfg is not None
    dense = f", {cfg.n_dense_layers} dense (d_ff {cfg.d_ff})" if cfg.n_dense_layers else ""
    shared = f" + {cfg.n_shared} shared" if cfg.n_shared else ""
    return (f"{cfg.n_layers} layers{dense}, d_model {cfg.d_model}, {cfg.n_heads} heads x "
            f"{cfg.attn_head_dim}, {cfg.n_experts} experts{shared} of width {cfg.d_expert}, "
            f"top-{cfg.top_k}")


def recommendation_table(recs: list[Recommendation], n_values: int = 4) -> pd.DataFrame:
    """Each paper's recommendation in one line, with its ``moelaws.arch`` check.

    Parameters
    ----------
    recs
        The output of :func:`moelaws.compare.recommend.recommend`.
    n_values
        How many of each paper's recommended values to show.

    Returns
    -------
    pandas.DataFrame
        Indexed by paper, one column ``recommendation``: ``n/a: <reason>`` for a paper whose
        inputs are missing; ``[!]`` marks a budget outside the paper's fitted range.
    """
    if n_values < 1:
        raise ValueError(f"n_values must be at least 1, not {n_values}")
    rows = []
    for rec in recs:
        if not rec.applicable:
            rows.append({"paper": rec.paper, "recommendation": "n/a: " + rec.reason})
            continue
        line = "; ".join(f"{k} {fmt(v)}" for k, v in list(rec.values.items())[:n_values])
        if rec.config is not None:
            chk = rec.checks
            line += (f" | arch: N {chk['total'] / 1e9:.1f}B, N_a {chk['active'] / 1e9:.2f}B, "
                     f"{chk['training FLOPs/token'] / 1e9:.0f} GFLOPs/token")
        rows.append({"paper": rec.paper, "recommendation": line + (" [!]" if rec.flags else "")})
    return pd.DataFrame(rows).set_index("paper")


_BUDGETS = frozenset({"compute", "total_params", "active_params", "sparsity"})


def design_text(budget: dict[str, float | None], recs: list[Recommendation]) -> str:
    """The ``design`` command's table: one block per paper.

    Parameters
    ----------
    budget
        The budgets given to :func:`~moelaws.compare.recommend.recommend` (``compute``,
        ``total_params``, ``active_params``, ``sparsity``; ``None`` for one not given).
    recs
        Its recommendations, a non-empty list.

    Raises
    ------
    TypeError
        If ``budget`` is not a dict of numbers (or None) or ``recs`` not a list of
        recommendations.
    ValueError
        For an unknown budget name, no budget given, or an empty ``recs``.
    """
    from moelaws.compare.recommend import Recommendation

    if not isinstance(budget, dict):
        raise TypeError(f"budget must be a dict, not {type(budget).__name__}")
    unknown = sorted(map(str, set(budget) - _BUDGETS))
    if unknown:
        raise ValueError(f"budget: unknown names {unknown}; expected some of {sorted(_BUDGETS)}")
    for k, v in budget.items():
        if v is not None and (isinstance(v, bool) or not isinstance(v, numbers.Real)):
            raise TypeError(f"budget[{k!r}] must be a number or None, not {type(v).__name__}")
    if all(v is None for v in budget.values()):
        raise ValueError("budget: no budget given (every value is None or the dict is empty)")
    if not isinstance(recs, list) or not all(isinstance(r, Recommendation) for r in recs):
        raise TypeError("recs must be a list of Recommendation records")
    if not recs:
        raise ValueError("recs is empty; give at least one recommendation")
    given = ", ".join(f"{k} = {v:.4g}" for k, v in budget.items() if v is not None)
    lines = [f"Budget: {given}", ""]
    for rec in recs:
        if not rec.applicable:
            lines += [f"== {rec.paper}: {rec.label}", f"   not applicable: {rec.reason}", ""]
            continue
        lines.append(f"== {rec.paper}: {rec.label}")
        values = tabulate([[k, fmt(v)] for k, v in rec.values.items()], tablefmt="plain",
                          disable_numparse=True)
        lines += ["   " + line for line in values.splitlines()]
        if rec.config is not None:
            lines.append(f"   configuration: {_config_line(rec)}")
            chk = rec.checks
            own = rec.paper
            lines.append(
                f"   arch check (exact, non-embedding): total {fmt(chk['total'] / 1e9)}B, "
                f"active {fmt(chk['active'] / 1e9)}B, training FLOPs/token "
                f"{fmt(chk['training FLOPs/token'] / 1e9)}G")
            lines.append(
                f"   arch check ({own} convention): total {fmt(chk[f'total ({own})'] / 1e9)}B, "
                f"active {fmt(chk[f'active ({own})'] / 1e9)}B")
        lines.append(f"   open: {rec.open_fields}")
        lines += [f"   ! {flag}" for flag in rec.flags]
        lines.append("")
    return "\n".join(lines).rstrip() + "\n"


def size(value: float | None) -> str:
    """A count in a readable unit: ``99.8T``, ``235.1B``, ``30.5M`` (``-`` if missing: None or
    NaN).

    Raises
    ------
    TypeError
        If ``value`` is not a real number.
    ValueError
        If ``value`` is infinite.
    """
    if value is None:
        return "-"
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"size: value must be a number or None, not {type(value).__name__}")
    if isinstance(value, int) and abs(value) > 1e300:
        raise ValueError("size: value is too large to write")
    if math.isnan(value):
        return "-"
    if math.isinf(value):
        raise ValueError(f"size: value must be finite, got {value}")
    for scale, unit in ((1e12, "T"), (1e9, "B"), (1e6, "M"), (1e3, "K")):
        if abs(value) >= scale:
            return f"{value / scale:.1f}{unit}"
    return f"{value:.0f}"


def counts_text(report: dict[str, Any]) -> str:
    """The ``counts`` command's table: counts per convention, then the ratios."""
    if not isinstance(report, dict):
        raise TypeError(f"report must be a dict (counting.counts_report), not "
                        f"{type(report).__name__}")
    cfg = report["config"]
    lines = [f"{cfg['name']}  ({cfg['source'] or 'no source given'})", "",
             "N, N_a: total and active parameters without embeddings (non-embedding);",
             "emb: input embedding + output head; N+emb, N_a+emb: with them (as model cards",
             "mostly count); FLOPs and C/D per token are per token.", "",
             f"{'convention':<14}{'N':>9}{'N_a':>9}{'emb':>9}{'N+emb':>9}{'N_a+emb':>9}"
             f"{'fwd FLOPs':>11}{'C/D':>11}"]
    for conv, c in report["counts"].items():
        lines.append(
            f"{conv:<14}{size(c['total']):>9}{size(c['active']):>9}{size(c['embedding']):>9}"
            f"{size(c['total_with_embeddings']):>9}{size(c['active_with_embeddings']):>9}"
            f"{size(c['forward_flops']):>11}{size(c['compute_per_token']):>11}")
    lines += ["", "C/D: what the paper multiplies by the tokens D to get its C",
              "(training FLOPs per token; N_a for comprehensive; none for constrained).", "",
              "ratios:"]
    width = max(len(k) for k in report["ratios"])
    lines += [f"  {k:<{width}}  {fmt(v)}" for k, v in report["ratios"].items()]
    return "\n".join(lines) + "\n"


__all__ = ["counts_text", "design_text", "fmt", "size"]


from moelaws.validation import guard_public  # noqa: E402

# size writes NaN as '-' (missing), which the guard would refuse
guard_public(globals(), [name for name in __all__ if name != "size"])
