"""The claims registry: the single source of truth for every number the book reproduces.

Usage::

    from moelaws import claims
    claims.table("anatomy")      # a DataFrame for a chapter
    claims.check("anatomy")      # raises if any claim is not as expected
    claims.all_claims()          # every registered Claim
    claims.KINDS                 # what kind a claim is: reproduction, consistency, ...

Each paper's claims are in its folder, ``moelaws.<paper>.claims`` (a list ``CLAIMS``); the
titles and their order come from the registry of papers, :mod:`moelaws.papers`.
"""

from moelaws.claims.core import (
    KINDS,
    Claim,
    ClaimResult,
    all_claims,
    check,
    evaluate,
    printed_tolerance,
    registered_papers,
    results,
    summary,
    table,
)

__all__ = [
    "KINDS",
    "Claim",
    "ClaimResult",
    "all_claims",
    "check",
    "evaluate",
    "printed_tolerance",
    "registered_papers",
    "results",
    "summary",
    "table",
]
