"""Generated summaries of the claims registry, for the chapters and the reproducibility report.

Every chapter ends with "what reproduced, what did not, and why". That text is generated here
from :mod:`moelaws.claims` rather than typed by hand, so that it cannot drift from the numbers::

    from IPython.display import Markdown
    from moelaws.claims import report

    Markdown(report.summary_markdown("anatomy"))

The output is CommonMark: text from the registry (references, quantities, explanations) is
escaped, so that an underscore or an asterisk in a note is shown as written.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable

import pandas as pd

from moelaws import papers
from moelaws.claims.core import KINDS, STATUSES, ClaimResult, results

_MARKDOWN_SPECIALS = re.compile(r"([\\`*_\[\]<>|$~#!])")


def escape_markdown(text: str) -> str:
    """Text as literal CommonMark: markup characters escaped, line breaks folded.

    Parameters
    ----------
    text
        Any text from the registry (a reference, a quantity, an explanation).

    Returns
    -------
    str
        One line that renders as ``text`` itself.
    """
    return _MARKDOWN_SPECIALS.sub(r"\\\1", " ".join(str(text).split()))


def format_value(value: float, like: str | None = None) -> str:
    """Our value, printed one digit more precisely than the paper's value ``like``.

    Parameters
    ----------
    value
        Our value.
    like
        The paper's value as printed (e.g. ``"3.3"``, ``"1.5e22"``); ``None`` prints four
        significant digits.

    Returns
    -------
    str
        ``"3.35"`` for 3.3512 like ``"3.3"``; ``"nan"`` when ``value`` is not finite.
    """
    if not math.isfinite(value):
        return "nan"
    if like is not None:
        text = like.strip().replace("\u2212", "-").lstrip("+-")
        mantissa, _, exponent = text.lower().partition("e")
        decimals = len(mantissa.partition(".")[2])
        if exponent:
            return f"{value:.{decimals + 1}e}"
        if abs(value) < 1e7:
            return f"{value:.{decimals + 1}f}"
    return f"{value:.4g}"


def _check_paper(paper: str) -> None:
    papers.get(paper)


def counts(res: Iterable[ClaimResult]) -> dict[str, int]:
    """Claims, reproduced, discrepancies, undecidable, errors, and unexpected outcomes.

    Parameters
    ----------
    res
        Evaluated claims, e.g. ``claims.results("anatomy")``.

    Returns
    -------
    dict
        Keys ``claims``, ``reproduced``, ``discrepancy``, ``undecidable``, ``error``,
        ``unexpected``.
    """
    res = list(res)
    return {
        "claims": len(res),
        "reproduced": sum(r.status == "reproduced" for r in res),
        "discrepancy": sum(r.status == "discrepancy" for r in res),
        "undecidable": sum(r.status == "undecidable" for r in res),
        "error": sum(r.status == "error" for r in res),
        "unexpected": sum(not r.ok for r in res),
    }


def _plural(n: int, one: str, many: str) -> str:
    return f"{n} {one if n == 1 else many}"


def _comparison(r: ClaimResult) -> str:
    rel = "" if r.claim.relation == "=" else f"{r.claim.relation} "
    ours = format_value(r.ours, r.claim.printed)
    return f"paper {rel}{escape_markdown(r.claim.printed)}, ours {ours}"


def _label(r: ClaimResult) -> str:
    return f"**{escape_markdown(f'{r.claim.ref}: {r.claim.quantity}')}** ({_comparison(r)})"


def _grouped_items(res: list[ClaimResult]) -> list[str]:
    """One bullet per explanation: claims that share one are listed together."""
    groups: dict[str, list[ClaimResult]] = {}
    for r in res:
        groups.setdefault(r.claim.explanation.strip(), []).append(r)
    lines = []
    for explanation, members in groups.items():
        line = "- " + "; ".join(_label(r) for r in members)
        if explanation:
            line += f": {escape_markdown(explanation)}"
        lines.append(line)
    return lines


_KIND_PHRASES = {
    "reproduction": "printed results recomputed as the paper obtained them",
    "consistency": "the paper against itself",
    "cross-paper": "against another paper or a model's configuration",
    "derived": "our own construction against the paper",
}


def _kinds(results: list) -> str:
    """How many of ``results`` are of each kind of comparison: a claim reproduced or missed
    between a paper and itself, or against a construction of ours, is not a reproduction of
    the paper's results."""
    tally = pd.Series([r.claim.kind for r in results]).value_counts()
    return "; ".join(f"{tally[kind]} {phrase}" for kind, phrase in _KIND_PHRASES.items()
                     if kind in tally)


def summary_markdown(paper: str) -> str:
    """What reproduced, what did not, and why: one paper's claims as Markdown.

    The counts come first, then every discrepancy with the paper's value, ours and the
    registered explanation, then (if any) every claim whose outcome is not the expected one.

    Parameters
    ----------
    paper
        A paper id, one of :func:`moelaws.papers.ids`.

    Returns
    -------
    str
        CommonMark text for ``IPython.display.Markdown``.

    Raises
    ------
    ValueError
        If ``paper`` is not a known paper id.
    """
    _check_paper(paper)
    res = results(paper)
    if not res:
        return f"No claims are registered for *{escape_markdown(papers.get(paper).title)}* yet."
    n = counts(res)
    head = (
        f"**{_plural(n['claims'], 'claim', 'claims')} checked: {n['reproduced']} reproduced, "
        f"{_plural(n['discrepancy'], 'discrepancy', 'discrepancies')} with the paper"
    )
    if n["undecidable"]:
        head += f", {n['undecidable']} undecidable from the printed rounding"
    if n["error"]:
        head += f", {_plural(n['error'], 'computation error', 'computation errors')}"
    head += ".**"
    if n["unexpected"]:
        head += (
            f" {_plural(n['unexpected'], 'claim does', 'claims do')} not have the expected "
            "status (listed last): the registry needs attention."
        )
    else:
        head += " Every claim has its expected status."
    parts = [head]
    discrepancies = [r for r in res if r.status == "discrepancy" and r.ok]
    # Every result of each status, as the counts above (an unexpected one included).
    by_kind = [f"Of the {label}, by kind of comparison: {_kinds(group)}."
               for label, status in (("reproduced", "reproduced"),
                                     ("discrepancies", "discrepancy"),
                                     ("undecidable", "undecidable"))
               if (group := [r for r in res if r.status == status])]
    if by_kind:
        parts.append(" ".join(by_kind))
    if discrepancies:
        parts.append("Where our numbers differ from the paper's, and why:")
        parts.append("\n".join(_grouped_items(discrepancies)))
    undecidable = [r for r in res if r.status == "undecidable" and r.ok]
    if undecidable:
        parts.append("Where the printed rounding cannot decide, and why:")
        parts.append("\n".join(_grouped_items(undecidable)))
    unexpected = [r for r in res if not r.ok]
    if unexpected:
        parts.append("Not as expected:")
        lines = []
        for r in unexpected:
            line = f"- {_label(r)}: status {r.status}, expected {r.claim.expected}"
            if r.error:
                line += f" ({escape_markdown(r.error)})"
            if r.claim.explanation:
                line += f". {escape_markdown(r.claim.explanation)}"
            lines.append(line)
        parts.append("\n".join(lines))
    return "\n\n".join(parts) + "\n"


def registry_table(paper: str) -> pd.DataFrame:
    """Every claim of ``paper`` for the reproducibility report, one row per claim.

    Parameters
    ----------
    paper
        A paper id, one of :func:`moelaws.papers.ids`.

    Returns
    -------
    pandas.DataFrame
        Columns: where printed, quantity, paper (the printed value, with its relation),
        ours, status, as expected (``"yes"``/``"NO"``). Empty when no claims are registered.

    Raises
    ------
    ValueError
        If ``paper`` is not a known paper id.
    """
    _check_paper(paper)
    rows = [
        {
            "where printed": r.claim.ref,
            "quantity": r.claim.quantity,
            "paper": ("" if r.claim.relation == "=" else r.claim.relation) + r.claim.printed,
            "ours": format_value(r.ours, r.claim.printed),
            "status": r.status,
            "as expected": "yes" if r.ok else "NO",
        }
        for r in results(paper)
    ]
    columns = ["where printed", "quantity", "paper", "ours", "status", "as expected"]
    return pd.DataFrame(rows, columns=columns)


def overview() -> pd.DataFrame:
    """Counts for every paper of the book, registered or not, in the book's order.

    Returns
    -------
    pandas.DataFrame
        Index: paper id; columns: paper (title), claims, reproduced, discrepancy, undecidable,
        error, unexpected. Papers with no registered claims have zero counts.
    """
    rows = []
    for paper in papers.having("claims"):
        rows.append({"paper id": paper.id, "paper": paper.title, **counts(results(paper.id))})
    return pd.DataFrame(rows).set_index("paper id")


def kind_status_counts(res: Iterable[ClaimResult] | None = None) -> pd.DataFrame:
    """Claims counted by kind and status: the reproducibility page's table.

    Parameters
    ----------
    res
        Evaluated claims; ``None`` evaluates every registered claim.

    Returns
    -------
    pandas.DataFrame
        Index: every kind of :data:`moelaws.claims.core.KINDS` and ``"all"``; columns: every
        status of :data:`moelaws.claims.core.STATUSES` and ``"claims"`` (the row's total).
    """
    res = results() if res is None else list(res)
    frame = pd.DataFrame(0, index=[*KINDS, "all"], columns=[*STATUSES, "claims"])
    for r in res:
        frame.loc[str(r.claim.kind), r.status] += 1
    frame.loc["all", list(STATUSES)] = frame.loc[list(KINDS), list(STATUSES)].sum()
    frame["claims"] = frame[list(STATUSES)].sum(axis=1)
    frame.index.name = "kind"
    return frame


def discrepancies_with_the_paper(res: Iterable[ClaimResult] | None = None) -> int:
    """How many printed numbers our recomputation does not reproduce.

    Only reproductions count: a consistency check that fails is the paper disagreeing with
    itself, a cross-paper one two sources disagreeing, a derived one our own result; none of
    them is a number of the paper that we failed to reproduce.

    Parameters
    ----------
    res
        Evaluated claims; ``None`` evaluates every registered claim.
    """
    res = results() if res is None else list(res)
    return sum(r.claim.kind == "reproduction" and r.status == "discrepancy" for r in res)
