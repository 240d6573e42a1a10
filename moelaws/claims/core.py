"""The claims registry: every number the book reproduces, with the paper's value and ours.

A :class:`Claim` pairs a value printed in a paper (transcribed as the exact string the paper
prints, so that its precision is known) with a function that computes our value from the
paper's formulas and tables. Evaluating a claim compares the two within a tolerance derived
from the printed precision: half a unit in the last printed digit, unless the claim gives a
tolerance of its own together with the reason for it.

Each paper's claims live in its folder's module ``moelaws.<paper>.claims``, which defines a
module-level list ``CLAIMS``; the paper's adapter in the registry of papers
(:mod:`moelaws.papers`, role ``claims``) hands them to this module.
"""

from __future__ import annotations

import json
import math
import re
import warnings
from collections.abc import Iterable
from dataclasses import dataclass, replace
from pathlib import Path

import pandas as pd

from moelaws import papers
from moelaws.claim import KINDS as KINDS
from moelaws.claim import Claim, printed_tolerance
from moelaws.paper_data import data_dir
from moelaws.rounding import REL_EPS, Status, status_of_interval
from moelaws.validation import ExtrapolationWarning

STATUSES: tuple[str, ...] = ("reproduced", "discrepancy", "undecidable", "error")
"""Every status an evaluated claim can have, in the order reports list them."""

_REL_EPS = REL_EPS

DRIFT_RTOL = 1e-6
"""Relative tolerance within which an expected discrepancy's value must stay equal to the value
recorded for it in :data:`EXPECTED_OURS_FILE`: a code change that moves a discrepancy fails."""

EXPECTED_OURS_FILE = "claims/expected_ours.json"
"""File, under ``moelaws/data/``, of our value for every expected discrepancy (claim key → value),
computed once by :func:`record_expected_ours` and reviewed like code."""


@dataclass(frozen=True)
class ClaimResult:
    """The evaluation of one :class:`Claim`.

    ``status`` is ``"reproduced"``, ``"discrepancy"`` or ``"undecidable"`` (what we found) or
    ``"error"`` (our computation raised); ``ok`` says whether that is what the claim expects.
    ``ours_low`` and ``ours_high`` are the ends of the claim's ``ours_range`` (NaN without one).
    """

    claim: Claim
    ours: float
    status: Status
    error: str = ""
    ours_low: float = math.nan
    ours_high: float = math.nan

    @property
    def abs_err(self) -> float:
        return abs(self.ours - self.claim.paper_value)

    @property
    def rel_err(self) -> float:
        value = self.claim.paper_value
        return self.abs_err / abs(value) if value != 0 else math.inf

    @property
    def ok(self) -> bool:
        return self.status == self.claim.expected

    @property
    def note(self) -> str:
        parts = [self.claim.explanation] if self.claim.explanation else []
        if self.claim.tolerance is not None:
            parts.append(f"Tolerance: {self.claim.tolerance_reason}")
        if self.error:
            parts.append(f"Error: {self.error}")
        return " ".join(parts)

    def as_dict(self) -> dict[str, object]:
        """The JSON record of ``python -m moelaws reproduce --json``."""

        def _num(x: float) -> float | None:
            return None if not math.isfinite(x) else float(x)

        return {
            "paper": self.claim.paper,
            "ref": self.claim.ref,
            "quantity": self.claim.quantity,
            "kind": self.claim.kind,
            "paper_value": self.claim.paper_value,
            "ours": _num(self.ours),
            "ours_range": (None if math.isnan(self.ours_low)
                           else [_num(self.ours_low), _num(self.ours_high)]),
            "abs_err": _num(self.abs_err),
            "rel_err": _num(self.rel_err),
            "tolerance": self.claim.tol,
            "relation": self.claim.relation,
            "status": self.status,
            "expected": self.claim.expected,
            "note": self.note,
        }


def _satisfies(ours: float, claim: Claim) -> bool:
    paper, tol = claim.paper_value, claim.tol
    if claim.relation == "=":
        # A relative epsilon keeps a value printed exactly on a rounding boundary reproducible
        # despite binary floating point (e.g. 0.125 printed as "0.12" with tolerance 0.005).
        return abs(ours - paper) <= tol * (1 + 1e-9) + _REL_EPS * abs(paper)
    if claim.relation == ">":
        return ours > paper
    if claim.relation == "<":
        return ours < paper
    if claim.relation == ">=":
        return ours >= paper
    return ours <= paper


def evaluate(claim: Claim) -> ClaimResult:
    """Compute our value for ``claim`` and compare it with the paper's.

    With ``claim.ours_range`` the status is that of the interval (:func:`status_of_interval`);
    our central value must lie inside it. Some claims evaluate a law far outside its fitted
    range on purpose (e.g. the allocation law under the per-token reading of its compute,
    which its note explains), so the package's
    :class:`~moelaws.validation.ExtrapolationWarning` is not raised here.

    Raises
    ------
    TypeError
        If ``claim`` is not a :class:`Claim` (an error of the claim's own computation is a
        result with status ``"error"``, not an exception).
    """
    if not isinstance(claim, Claim):
        raise TypeError(f"claim must be a Claim, not {type(claim).__name__}")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ExtrapolationWarning)
            ours = float(claim.compute())
            low, high = (math.nan, math.nan) if claim.ours_range is None else (
                float(v) for v in claim.ours_range())
    except Exception as exc:
        return ClaimResult(claim, math.nan, "error", f"{type(exc).__name__}: {exc}")
    if not math.isfinite(ours):
        return ClaimResult(claim, ours, "error", "our value is not finite")
    status: Status
    if claim.ours_range is not None:
        eps = 1e-9 * max(1.0, abs(ours))
        if not (math.isfinite(low) and math.isfinite(high) and low - eps <= ours <= high + eps):
            return ClaimResult(claim, ours, "error", f"our value {ours:.10g} is not inside its "
                               f"rounding interval [{low:.10g}, {high:.10g}]", low, high)
        if claim.relation == "=":
            status = status_of_interval(low, high, claim.paper_value, claim.tol)
        else:
            ends = {_satisfies(low, claim), _satisfies(high, claim)}
            status = ("undecidable" if len(ends) == 2
                      else "reproduced" if ends == {True} else "discrepancy")
    else:
        status = "reproduced" if _satisfies(ours, claim) else "discrepancy"
    if status == "discrepancy" and claim.expected_ours is not None:
        recorded = claim.expected_ours
        if not math.isclose(ours, recorded, rel_tol=DRIFT_RTOL, abs_tol=1e-12):
            return ClaimResult(
                claim, ours, "error",
                f"ours {ours:.10g} drifted from the recorded {recorded:.10g} "
                f"(relative tolerance {DRIFT_RTOL:g}); if the change is intended, re-record "
                "with moelaws.claims.core.record_expected_ours()", low, high,
            )
    return ClaimResult(claim, ours, status, "", low, high)


def tolerance_exceptions(claims: Iterable[Claim] | None = None) -> pd.DataFrame:
    """The exceptions to the book's one rounding rule: every claim with a tolerance of its own.

    The rule (module docstring) is half a unit in the last printed digit, with rounded inputs
    propagated as ``ours_range``; a claim departs from it only with a written reason, and this
    list is the book's record of those departures.

    Parameters
    ----------
    claims
        Claims to list; ``None`` lists every registered claim.

    Returns
    -------
    pandas.DataFrame
        One row per exception: key, printed, printed tolerance, tolerance, reason.
    """
    claims = all_claims() if claims is None else list(claims)
    rows = [
        {"key": c.key, "printed": c.printed, "printed tolerance": printed_tolerance(c.printed),
         "tolerance": c.tolerance, "reason": c.tolerance_reason}
        for c in claims if c.tolerance is not None
    ]
    return pd.DataFrame(rows, columns=["key", "printed", "printed tolerance", "tolerance",
                                       "reason"])


def _expected_ours_path() -> Path:
    return data_dir("claims") / Path(EXPECTED_OURS_FILE).name


def expected_ours_table() -> dict[str, float]:
    """Our recorded value for every expected discrepancy (claim key → value)."""
    path = _expected_ours_path()
    if not path.is_file():
        return {}
    return {str(k): float(v) for k, v in json.loads(path.read_text(encoding="utf-8")).items()}


def record_expected_ours() -> dict[str, float]:
    """Compute every expected discrepancy once and write its value to :data:`EXPECTED_OURS_FILE`.

    Run by hand after a deliberate change that moves a discrepancy (the diff of the file shows
    what moved); never by the tests.

    Returns
    -------
    dict
        The recorded values, claim key → ours.
    """
    recorded: dict[str, float] = {}
    for claim in all_claims():
        if claim.expected != "discrepancy":
            continue
        result = evaluate(replace(claim, expected_ours=None))
        if result.status != "discrepancy":
            raise ValueError(f"{claim.key}: expected a discrepancy, found {result.status}")
        recorded[claim.key] = float(f"{result.ours:.12g}")
    _expected_ours_path().parent.mkdir(exist_ok=True)
    _expected_ours_path().write_text(
        json.dumps(recorded, indent=1, ensure_ascii=False, sort_keys=True) + "\n",
        encoding="utf-8",
    )
    return recorded


def _load(paper: str) -> list[Claim]:
    recorded = expected_ours_table()
    claims = [
        replace(c, expected_ours=recorded.get(c.key)) if c.expected == "discrepancy" else c
        for c in papers.get(paper, "claims").claims()
    ]
    for c in claims:
        if c.paper != paper:
            raise ValueError(f"the claims of paper {paper!r} include one of paper {c.paper!r}")
    return claims


def registered_papers() -> list[str]:
    """Paper ids that have claims, in the book's reading order."""
    return list(papers.ids("claims"))


def all_claims(paper: str | Iterable[str] | None = None) -> list[Claim]:
    """Every registered claim, or those of one paper (or several).

    Raises
    ------
    ValueError
        If a paper id is unknown, ``paper`` is an empty collection, or two claims share a key.
    TypeError
        If ``paper`` is neither a string, a collection of strings nor ``None``.
    """
    if paper is None:
        wanted = registered_papers()
    elif isinstance(paper, str):
        wanted = [paper]
    else:
        if not isinstance(paper, Iterable) or isinstance(paper, (bytes, dict)):
            raise TypeError(f"paper must be a paper id, a collection of them or None, "
                            f"not {type(paper).__name__}")
        wanted = list(paper)
        if not wanted:
            raise ValueError("paper is an empty collection; name at least one paper id "
                             "(or None for every paper)")
        bad = [p for p in wanted if not isinstance(p, str)]
        if bad:
            raise TypeError(f"paper ids must be strings, not {type(bad[0]).__name__}")
    known = papers.ids()
    for p in wanted:
        if p not in known:
            raise ValueError(f"unknown paper id {p!r}; choose from {', '.join(known)}")
    claims = [c for p in wanted if p in registered_papers() for c in _load(p)]
    keys = [c.key for c in claims]
    dupes = sorted({k for k in keys if keys.count(k) > 1})
    if dupes:
        raise ValueError(f"duplicate claim keys: {dupes}")
    return claims


def results(paper: str | Iterable[str] | None = None) -> list[ClaimResult]:
    """Evaluate every claim of ``paper`` (all papers if ``None``)."""
    return [evaluate(c) for c in all_claims(paper)]


def table(paper: str | Iterable[str] | None = None) -> pd.DataFrame:
    """The claims of ``paper`` as a DataFrame, for display in the chapters.

    Columns: paper, reference, quantity, kind, relation, paper value (the printed string),
    ours, |error|, tolerance, status, expected, ok, note.
    """
    rows = []
    for r in results(paper):
        rows.append(
            {
                "paper": r.claim.paper,
                "reference": r.claim.ref,
                "quantity": r.claim.quantity,
                "kind": r.claim.kind,
                "relation": r.claim.relation,
                "paper value": r.claim.printed,
                "ours": r.ours,
                "|error|": r.abs_err,
                "tolerance": r.claim.tol,
                "status": r.status,
                "expected": r.claim.expected,
                "ok": r.ok,
                "note": r.note,
            }
        )
    return pd.DataFrame(rows)


def summary(paper: str | Iterable[str] | None = None) -> pd.DataFrame:
    """Counts per paper: claims, reproduced, discrepancies, undecidable, unexpected outcomes."""
    df = table(paper)
    if df.empty:
        return pd.DataFrame(columns=["claims", "reproduced", "discrepancy", "undecidable",
                                     "unexpected"])
    grouped = df.groupby("paper", sort=False)
    return pd.DataFrame(
        {
            "claims": grouped.size(),
            "reproduced": grouped["status"].apply(lambda s: int((s == "reproduced").sum())),
            "discrepancy": grouped["status"].apply(lambda s: int((s == "discrepancy").sum())),
            "undecidable": grouped["status"].apply(lambda s: int((s == "undecidable").sum())),
            "unexpected": grouped["ok"].apply(lambda s: int((~s).sum())),
        }
    )


def check(paper: str | Iterable[str] | None = None) -> list[ClaimResult]:
    """Evaluate claims and raise if any outcome differs from what the claim expects.

    The chapters call this at the end so that a wrong reproduced number fails nbval.

    Raises
    ------
    AssertionError
        Listing every claim whose status is not the expected one.
    """
    res = results(paper)
    bad = [r for r in res if not r.ok]
    if bad:
        lines = [
            f"{r.claim.key}: paper {r.claim.printed}, ours {r.ours:.6g} "
            f"({r.status}, expected {r.claim.expected}) {r.error}"
            for r in bad
        ]
        raise AssertionError("claims not as expected:\n" + "\n".join(lines))
    return res


def slug(text: str) -> str:
    """A short identifier for test ids."""
    return re.sub(r"[^A-Za-z0-9]+", "-", text).strip("-").lower()
