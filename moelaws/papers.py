"""The papers of the book: one adapter per paper, and the registry that lists them in reading order.

Every part of the package that treats the papers alike (the claims registry, the cross-paper
comparison in :mod:`moelaws.compare`, the counting conventions of :mod:`moelaws.conventions`,
the command line and the toy-training entry point) iterates over :func:`registry` and uses only the
roles of :class:`Paper`; none keeps a list of papers of its own. Each paper subpackage exposes
its adapter as ``moelaws.<paper>.paper.PAPER`` (chapter 0, which reproduces published model
sizes rather than a paper's law, has its adapter in :mod:`moelaws.arch.paper`).

Adding a paper means writing one adapter and naming its module in :data:`ADAPTERS`; a test (or
a notebook) can add one for a while with :func:`registered`::

    from moelaws import papers
    with papers.registered(my_paper):
        ...  # my_paper appears in claims, ``moelaws reproduce``/``design`` and compare/

Adapters are imported on first use, so that importing this module stays cheap. The adapter's
types (:class:`Paper` and what its roles return) live below the papers, in :mod:`moelaws.roles`;
this module re-exports them.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager
from typing import Any

from moelaws.roles import CalculatorBlock, Card, Convention, Paper

ADAPTERS: tuple[str, ...] = (
    "moelaws.arch.paper",
    "moelaws.leverage.paper",
    "moelaws.holistic.paper",
    "moelaws.comprehensive.paper",
    "moelaws.constrained.paper",
    "moelaws.allocation.paper",
)
"""The modules whose ``PAPER`` is an adapter, in the order of the chapters in ``_toc.yml``."""


_loaded: list[Paper] | None = None
_extra: list[Paper] = []


def _builtin() -> list[Paper]:
    global _loaded
    if _loaded is None:
        found = []
        for name in ADAPTERS:
            paper = importlib.import_module(name).PAPER
            if not isinstance(paper, Paper):
                raise TypeError(f"{name}.PAPER is not a moelaws.papers.Paper")
            found.append(paper)
        _loaded = found
    return _loaded


def registry() -> tuple[Paper, ...]:
    """Every paper, in reading order (papers added with :func:`registered` come last)."""
    return (*_builtin(), *_extra)


def _check_role(role: Any) -> None:
    if not isinstance(role, str):
        raise TypeError(f"role must be a string (a field of Paper), not {type(role).__name__}")
    if role not in Paper.__dataclass_fields__:
        roles = ", ".join(Paper.__dataclass_fields__)
        raise ValueError(f"unknown role {role!r}; choose from {roles}")


def ids(role: str | None = None) -> tuple[str, ...]:
    """Paper ids in reading order; with ``role``, only those of papers that have that role.

    Raises
    ------
    ValueError
        If ``role`` is not a field of :class:`Paper` (``TypeError`` if it is not a string).
    """
    if role is None:
        return tuple(p.id for p in registry())
    return tuple(p.id for p in having(role))


def having(role: str) -> tuple[Paper, ...]:
    """The papers that have ``role`` (e.g. ``"verdict"``), in reading order.

    Raises
    ------
    ValueError
        If ``role`` is not a field of :class:`Paper`.
    """
    _check_role(role)
    return tuple(p for p in registry() if getattr(p, role) is not None)


def get(paper_id: str, role: str | None = None) -> Paper:
    """The adapter of one paper.

    Raises
    ------
    ValueError
        For an unknown id, or one whose paper lacks ``role`` (the message lists the valid ids).
    TypeError
        If ``paper_id`` or ``role`` is not a string.
    """
    if not isinstance(paper_id, str):
        raise TypeError(f"paper_id must be a string, not {type(paper_id).__name__}")
    choices = registry() if role is None else having(role)
    for p in choices:
        if p.id == paper_id:
            return p
    what = f"paper with a {role} role" if role else "paper id"
    raise ValueError(f"unknown {what} {paper_id!r}; choose from "
                     f"{', '.join(p.id for p in choices)}")


def registered(paper: Paper) -> AbstractContextManager[Paper]:
    """Add ``paper`` to the registry for the duration of a ``with`` block.

    Raises
    ------
    TypeError
        If ``paper`` is not a :class:`Paper` (checked at the call, before the block).
    ValueError
        If a paper with the same id is already registered.
    """
    if not isinstance(paper, Paper):
        raise TypeError(f"paper must be a moelaws.papers.Paper, not {type(paper).__name__}")
    if paper.id in ids():
        raise ValueError(f"paper {paper.id!r} is already registered")
    return _registered(paper)


@contextmanager
def _registered(paper: Paper) -> Iterator[Paper]:
    if paper.id in ids():
        raise ValueError(f"paper {paper.id!r} is already registered")
    _extra.append(paper)
    try:
        yield paper
    finally:
        _extra.remove(paper)


__all__ = [
    "ADAPTERS",
    "CalculatorBlock",
    "Card",
    "Convention",
    "Paper",
    "get",
    "having",
    "ids",
    "registered",
    "registry",
]
