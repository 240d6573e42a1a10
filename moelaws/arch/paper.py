"""The adapter of chapter 0 (published sizes of real MoE models) in the registry of papers.

Chapter 0 reproduces no law: its claims check our exact counts (:mod:`moelaws.arch.counting`,
convention ``exact``) against the sizes vendors publish. It therefore has identity, claims and
the book's own counting convention, and none of the roles of a law.
"""

from __future__ import annotations

from moelaws.arch.counting import exact_counts
from moelaws.roles import Convention, Paper


def _claims() -> list:
    # Imported when asked for: the claims read every table of the paper, and the commands
    # that need no claim (``moelaws counts``, ``design``) should not pay for them.
    from moelaws.arch.claims import CLAIMS

    return list(CLAIMS)


PAPER = Paper(
    id="anatomy",
    title="Chapter 0: published sizes of real MoE models",
    label="Published model sizes (chapter 0)",
    docname="notebooks/00_anatomy",
    claims=_claims,
    convention=Convention(
        "exact", exact_counts,
        "every weight; FLOPs = 2 x matmul weights + attention over the context + logits"),
)
"""Chapter 0's adapter."""
