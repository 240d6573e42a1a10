"""The papers of the book: one adapter per paper, and the registry that lists them in reading order.

Every part of the package that treats the papers alike (the claims registry, the cross-paper
comparison in :mod:`moelaws.compare`, the counting conventions of :mod:`moelaws.arch`, the
command line and the toy-training entry point) iterates over :func:`registry` and uses only the
roles of :class:`Paper`; none keeps a list of papers of its own. Each paper subpackage exposes
its adapter as ``moelaws.<paper>.paper.PAPER`` (chapter 0, which reproduces published model
sizes rather than a paper's law, has its adapter in :mod:`moelaws.arch.paper`).

Adding a paper means writing one adapter and naming its module in :data:`ADAPTERS`; a test (or
a notebook) can add one for a while with :func:`registered`::

    from moelaws import papers
    with papers.registered(my_paper):
        ...  # my_paper appears in claims, ``moelaws reproduce``/``design`` and compare/

Adapters are imported on first use, so that importing this module stays cheap and the paper
subpackages (which import :mod:`moelaws.arch`) can be imported from it without a cycle.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterator, Mapping
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pandas as pd

    from moelaws.arch import Counts, MoEConfig
    from moelaws.claims import Claim
    from moelaws.compare.recommend import Budget, Recommendation
    from moelaws.compare.regimes import Range

ADAPTERS: tuple[str, ...] = (
    "moelaws.arch.paper",
    "moelaws.leverage.paper",
    "moelaws.holistic.paper",
    "moelaws.comprehensive.paper",
    "moelaws.constrained.paper",
    "moelaws.allocation.paper",
)
"""The modules whose ``PAPER`` is an adapter, in the order of the chapters in ``_toc.yml``."""


@dataclass(frozen=True)
class Convention:
    """How one paper counts parameters and compute (a convention of :func:`moelaws.arch.counts`).

    Attributes
    ----------
    name
        The convention's name in :func:`moelaws.arch.counts` (the paper id, or ``"exact"``).
    count
        The counts of a configuration under this convention.
    note
        One line: what the convention counts (the ``counts`` command prints it).
    """

    name: str
    count: Callable[[MoEConfig], Counts]
    note: str


@dataclass(frozen=True)
class Card:
    """A paper's row of the conventions card (:func:`moelaws.compare.card.convention_card`).

    Attributes
    ----------
    definitions
        What the paper means by ``N, N_a``, ``compute C``, ``G``, ``S`` and ``r / sparsity``.
    values
        The paper's G, S and sparsity-like ratio of a configuration, as
        ``{"G value", "S value", "r / sparsity value"}`` (NaN where undefined).
    """

    definitions: Mapping[str, str]
    values: Callable[[MoEConfig], dict[str, float]]


@dataclass(frozen=True)
class CalculatorBlock:
    """How a paper fills the static design calculator (:mod:`moelaws.compare.calculator`).

    Attributes
    ----------
    sliders
        The sliders the paper reads, a subset of ``("C", "N", "R")`` (compute, total
        parameters, active share in per cent).
    keys
        The recommended values shown, by their name in :attr:`Recommendation.values`.
    active, tokens
        The recommended active parameters and training tokens of a recommendation (NaN where
        the paper gives none).
    """

    sliders: tuple[str, ...]
    keys: tuple[str, ...]
    active: Callable[[Recommendation], float]
    tokens: Callable[[Recommendation], float]


@dataclass(frozen=True)
class Paper:
    """One paper (or chapter with claims) of the book, and everything the package needs of it.

    Identity and citation
        ``id`` (short identifier, e.g. ``"leverage"``), ``title`` (what the claims tables
        print), ``label`` (author and year, for the cross-paper tables), ``bib_key`` (key in
        ``book/references.bib``; empty for chapter 0) and ``docname`` (the chapter's path in
        ``_toc.yml``, without suffix).
    Roles (``None`` where the paper has none)
        ``claims`` (the registered :class:`~moelaws.claims.Claim` list), ``convention`` (its
        counting convention), ``ratios`` (its named ratios of a configuration, for
        :func:`moelaws.arch.all_ratios`), ``recommend`` (its recommendation for a
        :class:`~moelaws.compare.recommend.Budget`), ``fitted_ranges`` (where its law was
        fitted, ``{quantity: Range}``), ``verdict`` (what its law says about a configuration
        trained on a number of tokens, a flat dict), ``card`` (its row of the conventions
        card), ``calculator`` (its block of the static design calculator) and ``toy_sweeps``
        (its named toy-training sweeps, ``{name: run(retrain=..., progress=...)}``).
    """

    id: str
    title: str
    label: str
    docname: str
    bib_key: str = ""
    claims: Callable[[], list[Claim]] | None = None
    convention: Convention | None = None
    ratios: Callable[[MoEConfig], dict[str, float]] | None = None
    recommend: Callable[[Budget], Recommendation] | None = None
    fitted_ranges: Callable[[], dict[str, Range]] | None = None
    verdict: Callable[[MoEConfig, float | None], dict[str, Any]] | None = None
    card: Card | None = None
    calculator: CalculatorBlock | None = None
    toy_sweeps: Callable[[], Mapping[str, Callable[..., pd.DataFrame]]] | None = None

    def __post_init__(self) -> None:
        if not self.id.isidentifier():
            raise ValueError(f"paper id {self.id!r} must be a Python identifier")


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
