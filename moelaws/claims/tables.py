"""Reproduced tables: the paper's numbers beside ours, one DataFrame per paper table.

Every claim names where the paper prints its number (``Claim.ref``, e.g. ``"Table 4, C = 1e20,
MoE"``). Claims whose reference starts with ``"Table N"`` form the reproduced *Table N* of their
paper. :func:`reproduced_table` is the one source of these tables: the chapters show it, the
command line prints and writes it (``moelaws reproduce --paper P --table T --format csv``) and
the book's build writes its CSV downloads from it, so the three cannot differ::

    from moelaws.claims.tables import list_tables, reproduced_table

    list_tables("constrained")                    # the paper's tables and their references
    reproduced_table("constrained", "Table 6")    # one table: ours, paper, difference, status
    reproduced_table("constrained")               # every claim of the paper
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence

import pandas as pd

from moelaws.claims.core import ClaimResult, registered_papers, results, slug

COLUMNS: tuple[str, ...] = (
    "paper",
    "table",
    "reference",
    "quantity",
    "kind",
    "relation",
    "paper value",
    "ours",
    "difference",
    "relative difference",
    "tolerance",
    "status",
    "expected",
    "as expected",
    "note",
)
"""The columns of every reproduced table, in order.

``kind`` says what kind of result the claim is (:data:`moelaws.claims.core.KINDS`:
reproduction, consistency, cross-paper, derived); ``paper value`` is the number as the paper
prints it; ``difference`` is ours minus the paper's;
``relative difference`` is that divided by the paper's magnitude (empty when the paper prints
0); ``status`` is ``reproduced`` when ours is within ``tolerance`` of the paper's value (or
satisfies ``relation``), ``discrepancy`` otherwise, ``undecidable`` when the rounding of the
printed inputs leaves both possible (:func:`moelaws.claims.core.status_of_interval`),
``error`` when our computation failed;
``as expected`` is ``yes`` when the status is the one the registry expects, else ``NO``.
"""

_TABLE_REF = re.compile(r"^Table\s+([0-9]+[A-Za-z]?)\b")


def table_of(ref: str) -> str:
    """The paper table a claim's reference points to, or ``""`` when it names none first.

    Parameters
    ----------
    ref
        A claim's reference, e.g. ``"Table 7, Qwen3-30B-A3B, N_a"``.

    Returns
    -------
    str
        ``"Table 7"`` for that reference; ``""`` for ``"Sec. 5.2"`` or ``"App. H, row 3"``.
    """
    match = _TABLE_REF.match(ref.strip())
    return f"Table {match.group(1)}" if match else ""


def normalise_table(table: str) -> str:
    """A table name as the registry spells it: ``"7"``, ``"table-7"`` → ``"Table 7"``.

    Raises
    ------
    ValueError
        If ``table`` does not name a numbered table.
    """
    match = re.fullmatch(r"(?:table)?[\s_-]*([0-9]+[A-Za-z]?)", table.strip(), re.IGNORECASE)
    if not match:
        raise ValueError(f"table {table!r} is not a paper table such as 'Table 4'")
    return f"Table {match.group(1)}"


def _check_paper(paper: str) -> None:
    known = registered_papers()
    if paper not in known:
        raise ValueError(f"unknown paper id {paper!r}; choose from {', '.join(known)}")


def _finite(x: float) -> float:
    return x if math.isfinite(x) else math.nan


def _row(r: ClaimResult) -> dict[str, object]:
    paper_value = r.claim.paper_value
    difference = _finite(r.ours - paper_value)
    relative = difference / abs(paper_value) if paper_value != 0 else math.nan
    return {
        "paper": r.claim.paper,
        "table": table_of(r.claim.ref),
        "reference": r.claim.ref,
        "quantity": r.claim.quantity,
        "kind": r.claim.kind,
        "relation": r.claim.relation,
        "paper value": r.claim.printed,
        "ours": _finite(r.ours),
        "difference": difference,
        "relative difference": relative,
        "tolerance": r.claim.tol,
        "status": r.status,
        "expected": r.claim.expected,
        "as expected": "yes" if r.ok else "NO",
        "note": r.note,
    }


def reproduced_table(paper: str | None = None, table: str | None = None, *,
                     evaluated: Sequence[ClaimResult] | None = None) -> pd.DataFrame:
    """One reproduced table: every claim of ``paper``'s ``table``, paper value beside ours.

    Parameters
    ----------
    paper
        A paper id, one of ``moelaws.papers.ids("claims")``; ``None`` for every paper (then
        ``table`` must be ``None``).
    table
        A paper table, ``"Table 4"`` (also ``"4"`` or ``"table-4"``); ``None`` for every claim of
        the paper, in or out of a table.
    evaluated
        Claims already evaluated (``moelaws.claims.results()``), to build several tables from
        one evaluation; ``None`` evaluates the paper's claims now.

    Returns
    -------
    pandas.DataFrame
        One row per claim, in the registry's order, with the columns :data:`COLUMNS`.

    Raises
    ------
    ValueError
        If the paper is unknown, or the paper has no claim in ``table``.
    """
    if paper is None:
        if table is not None:
            raise ValueError("a table needs its paper (--paper)")
        res = results() if evaluated is None else list(evaluated)
    else:
        _check_paper(paper)
        res = results(paper) if evaluated is None else _of_paper(evaluated, paper)
    if table is not None:
        name = normalise_table(table)
        of_paper, res = res, [r for r in res if table_of(r.claim.ref) == name]
        if not res:
            known = ", ".join(list_tables(paper, evaluated=of_paper)["table"]) or "none"
            raise ValueError(f"paper {paper!r} has no claims in {name}; its tables: {known}")
    return pd.DataFrame([_row(r) for r in res], columns=list(COLUMNS))


def _of_paper(evaluated: Sequence[ClaimResult], paper: str) -> list[ClaimResult]:
    return [r for r in evaluated if r.claim.paper == paper]


def list_tables(paper: str | None = None, *,
                evaluated: Sequence[ClaimResult] | None = None) -> pd.DataFrame:
    """The reproduced tables of ``paper`` (every paper if ``None``), with their references.

    Parameters
    ----------
    paper
        A paper id, one of ``moelaws.papers.ids("claims")``; ``None`` for every paper.
    evaluated
        Claims already evaluated (``moelaws.claims.results()``); ``None`` evaluates them now.

    Returns
    -------
    pandas.DataFrame
        One row per (paper, table), tables in numeric order: paper, table, claims,
        reproduced, discrepancy, undecidable, error, references (the distinct claim
        references, ``"; "`` separated), csv (the file name of its download in the book).

    Raises
    ------
    ValueError
        If ``paper`` is not a known paper id.
    """
    if paper is not None:
        _check_paper(paper)
    papers = registered_papers() if paper is None else [paper]
    rows = []
    for p in papers:
        groups: dict[str, list[ClaimResult]] = {}
        for r in results(p) if evaluated is None else _of_paper(evaluated, p):
            name = table_of(r.claim.ref)
            if name:
                groups.setdefault(name, []).append(r)
        for name in sorted(groups, key=lambda t: (int(re.sub(r"\D", "", t)), t)):
            members = groups[name]
            refs = list(dict.fromkeys(r.claim.ref for r in members))
            rows.append(
                {
                    "paper": p,
                    "table": name,
                    "claims": len(members),
                    "reproduced": sum(r.status == "reproduced" for r in members),
                    "discrepancy": sum(r.status == "discrepancy" for r in members),
                    "undecidable": sum(r.status == "undecidable" for r in members),
                    "error": sum(r.status == "error" for r in members),
                    "references": "; ".join(refs),
                    "csv": csv_name(p, name),
                }
            )
    columns = ["paper", "table", "claims", "reproduced", "discrepancy", "undecidable", "error",
               "references", "csv"]
    return pd.DataFrame(rows, columns=columns)


def csv_name(paper: str | None = None, table: str | None = None) -> str:
    """The file name of a reproduced table's CSV download in the built book.

    ``csv_name("constrained", "Table 6")`` is ``"reproduce-constrained-table-6.csv"``,
    ``csv_name("constrained")`` is ``"reproduce-constrained.csv"`` and ``csv_name()`` is
    ``"reproduce-all.csv"``.
    """
    if paper is None:
        return "reproduce-all.csv"
    _check_paper(paper)
    if table is None:
        return f"reproduce-{paper}.csv"
    return f"reproduce-{paper}-{slug(normalise_table(table))}.csv"


def to_csv(df: pd.DataFrame) -> str:
    """A reproduced table as CSV text: the bytes of ``moelaws reproduce ... --format csv``.

    Floats are written with Python's shortest round-trip representation, so that the CSV
    reads back to exactly the values computed; a missing value is an empty field.
    """
    return df.to_csv(index=False, lineterminator="\n")
