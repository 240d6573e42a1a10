"""The papers of the book: one adapter per paper, and the registry that lists them in reading order.

Every part of the package that treats the papers alike (the claims registry, the cross-paper
comparison in :mod:`moelaws.compare`, the counting conventions of :mod:`moelaws.conventions`,
the command line and the toy-training entry point) iterates over :func:`registry` and uses only the
roles of :class:`Paper`; none keeps a list of papers of its own. Each paper subpackage exposes
its adapter as ``moelaws.<paper>.paper.PAPER`` (chapter 0, which reproduces published model
sizes rather than a paper's law, has its adapter in :mod:`moelaws.arch.paper`).

Adding a paper means writing one adapter and naming its module in :data:`ADAPTERS`; a test (or
a notebook) can add one for a while with :func:`registered`, by the same module name or by the
adapter itself::

    from moelaws import papers
    with papers.registered("toy6.paper"):  # a package outside moelaws, on sys.path
        ...  # its PAPER appears in claims, ``moelaws reproduce``/``design`` and compare/

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
_extra: list[tuple[str | None, Paper]] = []
"""Papers added with :func:`registered`: the adapter module's name (``None`` when the adapter
itself was given) and the adapter."""


def _load(name: str) -> Paper:
    try:
        module = importlib.import_module(name)
    except ModuleNotFoundError as exc:
        raise ValueError(f"no adapter module {name!r}: {exc}") from exc
    paper = getattr(module, "PAPER", None)
    if not isinstance(paper, Paper):
        raise TypeError(f"{name}.PAPER is not a moelaws.papers.Paper")
    return paper


def _builtin() -> list[Paper]:
    global _loaded
    if _loaded is None:
        _loaded = [_load(name) for name in ADAPTERS]
    return _loaded


def registry() -> tuple[Paper, ...]:
    """Every paper, in reading order (papers added with :func:`registered` come last)."""
    return (*_builtin(), *(paper for _, paper in _extra))


def packages() -> tuple[str, ...]:
    """The package of every adapter module, in reading order (``moelaws.leverage``, ...).

    The packages whose ``__all__`` holds a paper's public laws (the property tests sweep them).
    Papers added with :func:`registered` by their module's name come last; those added as an
    adapter object have no package here.
    """
    modules = (*ADAPTERS, *(name for name, _ in _extra if name is not None))
    return tuple(name.rpartition(".")[0] for name in modules)


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


def registered(paper: Paper | str) -> AbstractContextManager[Paper]:
    """Add a paper to the registry for the duration of a ``with`` block.

    Parameters
    ----------
    paper
        The adapter, or the name of the module whose ``PAPER`` is the adapter, as in
        :data:`ADAPTERS` (e.g. ``"toy6.paper"`` for a package on ``sys.path``); a module
        name also adds its package to :func:`packages`.

    Raises
    ------
    TypeError
        If ``paper`` is neither a :class:`Paper` nor a string, or the module's ``PAPER`` is not
        a :class:`Paper` (checked at the call, before the block).
    ValueError
        If a paper with the same id is already registered, or the named module (or a module
        it imports) is not found.
    """
    module: str | None = None
    if isinstance(paper, str):
        module, paper = paper, _load(paper)
    if not isinstance(paper, Paper):
        raise TypeError(f"paper must be a moelaws.papers.Paper or the name of its module, "
                        f"not {type(paper).__name__}")
    if paper.id in ids():
        raise ValueError(f"paper {paper.id!r} is already registered")
    return _registered(module, paper)


@contextmanager
def _registered(module: str | None, paper: Paper) -> Iterator[Paper]:
    if paper.id in ids():
        raise ValueError(f"paper {paper.id!r} is already registered")
    entry = (module, paper)
    _extra.append(entry)
    try:
        yield paper
    finally:
        _extra.remove(entry)


__all__ = [
    "ADAPTERS",
    "CalculatorBlock",
    "Card",
    "Convention",
    "Paper",
    "get",
    "having",
    "ids",
    "packages",
    "registered",
    "registry",
]
