"""The types the layers share: a paper's adapter and what its roles return.

The bottom of the package (see STYLE.md, "Layers"): a paper's folder builds its adapter
(:class:`Paper`) from these types, the registry (:mod:`moelaws.papers`) lists the adapters, and
the cross-paper views (:mod:`moelaws.compare`, :mod:`moelaws.claims`, the command line) read
them. Nothing here imports a paper or the registry, so a paper's adapter can be written without
reaching upward.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from moelaws.arch.config import MoEConfig
from moelaws.arch.counting import Counts
from moelaws.arch.hf_config import ConfigLike, accepts_hf_config

if TYPE_CHECKING:
    import pandas as pd

    from moelaws.claim import Claim

NAN = math.nan

@dataclass(frozen=True)
class Budget:
    """The budgets a recommendation is asked for (``None``: not given).

    Attributes
    ----------
    compute
        Training compute in FLOPs.
    total_params
        Memory budget: total non-embedding parameters.
    active_params
        Inference budget: active non-embedding parameters per token.
    sparsity
        The allocation paper's S = (E − E_act)/E for its Eq. 1, or ``None`` for its default.
    """

    compute: float | None = None
    total_params: float | None = None
    active_params: float | None = None
    sparsity: float | None = None


@dataclass(frozen=True)
class Recommendation:
    """One paper's answer for a budget.

    Attributes
    ----------
    paper, label
        Short identifier and full label of the paper.
    applicable
        Whether the paper's procedure could be run on the given budgets.
    reason
        Why not (empty when applicable).
    values
        What the paper prescribes (ratios, sizes, tokens), by name.
    config
        The recommended architecture, where the paper determines one.
    checks
        ``arch`` counts of ``config``: total/active parameters and forward/training FLOPs per
        token under the exact count and under the paper's own convention (filled in by
        :func:`moelaws.compare.recommend.recommend`, which sees every convention).
    ratios
        Every paper's ratios of ``config`` (:func:`moelaws.conventions.all_ratios`, filled in
        likewise).
    open_fields
        What the paper leaves undetermined, and the defaults we chose.
    convention
        How the paper counts the budgets it reads.
    flags
        Budgets outside the paper's fitted range.
    """

    paper: str
    label: str
    applicable: bool
    reason: str = ""
    values: dict[str, float | int | str] = field(default_factory=dict)
    config: MoEConfig | None = None
    checks: dict[str, float] = field(default_factory=dict)
    ratios: dict[str, float] = field(default_factory=dict)
    open_fields: str = ""
    convention: str = ""
    flags: tuple[str, ...] = ()

    @classmethod
    def not_applicable(cls, paper: str, label: str, reason: str,
                       convention: str) -> Recommendation:
        """The record of a paper whose procedure cannot run on the given budgets.

        Raises
        ------
        ValueError
            For an empty ``reason`` or ``convention``.
        """
        for name, text in (("reason", reason), ("convention", convention)):
            if not isinstance(text, str) or not text.strip():
                raise ValueError(f"{name} must be a non-empty string, got {text!r}")
        return cls(paper, label, False, reason, convention=convention)

    def as_dict(self) -> dict[str, Any]:
        """A JSON-ready dict (NaN becomes ``None``; the config becomes its field dict)."""
        return {
            "paper": self.paper,
            "label": self.label,
            "applicable": self.applicable,
            "reason": self.reason,
            "values": {k: _json(v) for k, v in self.values.items()},
            "config": None if self.config is None else self.config.to_dict(),
            "checks": {k: _json(v) for k, v in self.checks.items()},
            "ratios": {k: _json(v) for k, v in self.ratios.items()},
            "open_fields": self.open_fields,
            "convention": self.convention,
            "flags": list(self.flags),
        }


def _json(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


@dataclass(frozen=True)
class Range:
    """A fitted interval of one quantity, with its unit and where it comes from."""

    quantity: str
    low: float
    high: float
    source: str

    def describe(self, value: float) -> str | None:
        """A one-line flag if ``value`` lies outside the range, else ``None``."""
        if not math.isfinite(value) or self.low <= value <= self.high:
            return None
        side = "above" if value > self.high else "below"
        return (f"{self.quantity} = {value:.3g} is {side} the fitted range "
                f"[{self.low:.3g}, {self.high:.3g}] ({self.source})")




def out_of_range(ranges: Mapping[str, Range], **values: float | None) -> list[str]:
    """The out-of-range flags of ``values`` against one paper's fitted ``ranges``.

    Parameters
    ----------
    ranges
        ``{quantity: Range}``, a paper's ``fitted_ranges()``.
    **values
        Quantities named as in ``ranges`` (those without a range are ignored; NaN and ``None``
        values are never flagged).

    Returns
    -------
    list of str
        One line per quantity outside its fitted range.
    """
    out = []
    for name, value in values.items():
        if name in ranges and value is not None:
            line = ranges[name].describe(float(value))
            if line:
                out.append(line)
    return out


MLA_CAVEAT = (
    "MLA attention: this paper's formula assumes multi-head attention; our generalisation "
    "(the paper's counting module docstring) is a stretch for DeepSeek-V3/Kimi-K2"
)


@accepts_hf_config
def require_moe(cfg: ConfigLike) -> None:
    """Raise a ValueError for a dense configuration (the laws compare MoE configurations).

    Parameters
    ----------
    cfg : MoEConfig or Hugging Face config (dict, path or directory)
    """
    if not cfg.is_moe:
        raise ValueError(f"{cfg.name} is dense: the five laws compare MoE configurations")


@accepts_hf_config
def caveats(cfg: ConfigLike, *extra: str) -> str:
    """The caveats of a verdict: the MLA caveat where it applies, then ``extra`` (empty skipped).

    Parameters
    ----------
    cfg : MoEConfig or Hugging Face config (dict, path or directory)
    """
    notes = [MLA_CAVEAT] if cfg.mla is not None else []
    return "; ".join([*notes, *[e for e in extra if e]])


def tokens_or_nan(tokens: float | None) -> float:
    """A token count as a float, NaN when unknown."""
    return NAN if tokens is None else float(tokens)



def position(x: float, low: float, high: float) -> str:
    """``"below"``, ``"inside"`` or ``"above"`` the interval [low, high]."""
    if x < low:
        return "below"
    if x > high:
        return "above"
    return "inside"


@dataclass(frozen=True)
class Convention:
    """How one paper counts parameters and compute (one of :func:`moelaws.conventions.counts`).

    Attributes
    ----------
    name
        The convention's name in :func:`moelaws.conventions.counts` (the paper id, or ``"exact"``).
    count
        The counts of a configuration under this convention.
    note
        One line: what the convention counts (the ``counts`` command prints it).
    """

    name: str
    count: Callable[[MoEConfig], Counts]
    note: str


Answer = dict[str, float]
"""A compute-optimal answer (:class:`ComputeOptimal`): ``own budget`` (the budget in the paper's
own count), ``kappa`` (the paper's compute per token over 6·N_a), ``N_a``, ``D`` and
``M or N_a (own count)``."""


@dataclass(frozen=True)
class ComputeOptimal:
    """A paper's compute-optimal answer for a training budget
    (:mod:`moelaws.compare.compute_optimal`).

    Attributes
    ----------
    count
        How the paper counts the compute it is handed (one line).
    own
        ``own(compute, total_params, design)``: the :data:`Answer` when handed ``compute`` in
        its own count.
    common
        ``common(compute, total_params, design)``: the :data:`Answer` when handed the budget in
        its own count that equals ``compute`` in the common count 6·N_a·D.
    domain
        ``domain(answer, total_params)``: the quantities of an answer to check against the
        paper's fitted ranges, ``{quantity: value}``.
    design
        ``design(compute)``: the architecture the paper designs for a budget in its own count,
        or ``None`` where its law fixes none. The cross-paper view passes the first paper's
        design to ``own`` and ``common`` as a stand-in, for papers that need an architecture to
        count on (``None`` if no paper designs one).
    """

    count: str
    own: Callable[[float, float, Callable[[float], MoEConfig] | None], Answer]
    common: Callable[[float, float, Callable[[float], MoEConfig] | None], Answer]
    domain: Callable[[Answer, float], dict[str, float]]
    design: Callable[[float], MoEConfig] | None = None


@dataclass(frozen=True)
class GranularityPrice:
    """What a paper's law says a granularity costs
    (:func:`moelaws.compare.granularity.cross_costs`).

    Attributes
    ----------
    optimum
        ``optimum(context)``: the law's optimal granularity in the paper's definition.
    value
        ``value(G, context)``: the law's figure of merit at granularity G (own definition).
    cost
        ``cost(at_own_optimum, at_other)``: the cost of moving from the optimum to another G.
    unit
        What the cost is measured in.

    ``context`` holds the comparison's operating point (``N``, ``Na``, ``S``, ``A``, ``C``);
    each law reads the quantities it has.
    """

    optimum: Callable[[Mapping[str, float]], float]
    value: Callable[[float, Mapping[str, float]], float]
    cost: Callable[[float, float], float]
    unit: str


@dataclass(frozen=True)
class Granularity:
    """A paper's expert granularity: its definition, and where the paper fixed it
    (:func:`moelaws.conventions.granularity`, :mod:`moelaws.compare.granularity`).

    Attributes
    ----------
    of
        The paper's granularity of a configuration.
    definition, column
        The definition in words (with the paper's section) and as a short column label.
    per_width
        ``per_width(w)``: the granularity over ``x = d/d_e`` at activated expert width
        ``w = (activated experts)·d_e/d`` (a width ratio is a constant multiple of x; a
        number of activated experts is ``w·x``).
    widths
        ``widths()``: the activated widths w of the paper's granularity experiments (a
        series) and where they are read from.
    optima
        ``optima()``: the paper's optimal granularity in its own definition, one dict per
        optimum with ``label``, ``optimum (own definition)`` and ``how``.
    fitted_range
        ``fitted_range()``: the granularities the paper's law was fitted on, ``(low, high)``
        (a single point where it was fitted at one granularity).
    sweep_sparsity
        ``sweep_sparsity()``: the sparsity measure of the paper's granularity sweep, its values
        (a series) and their source; ``None`` where the paper did not sweep granularity.
    price
        What the paper's law says a granularity costs, or ``None`` where it has no law of G.
    """

    of: Callable[[MoEConfig], float]
    definition: str
    column: str
    per_width: Callable[[float], float]
    widths: Callable[[], tuple[pd.Series, str]]
    optima: Callable[[], list[dict[str, Any]]]
    fitted_range: Callable[[], tuple[float, float]]
    sweep_sparsity: Callable[[], tuple[str, pd.Series, str]] | None = None
    price: GranularityPrice | None = None


@dataclass(frozen=True)
class MLARecount:
    """A paper's attention FLOPs with MLA counted by its real weights, and what its law then
    says (:mod:`moelaws.compare.mla`).

    Attributes
    ----------
    attention_flops
        Forward attention FLOPs per token under the paper's convention, MLA attention counted
        by its real projection weights (equal to the convention's own count without MLA).
    row
        ``row(cfg, tokens, attention_flops)``: the paper's law evaluated with this attention
        count, ``{name: value}`` (``tokens`` is NaN when unknown; compute-dependent values are
        then NaN).
    """

    attention_flops: Callable[[MoEConfig], float]
    row: Callable[[MoEConfig, float, float], dict[str, float]]


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
class DataTable:
    """One appendix or side-by-side table a chapter shows (:mod:`moelaws.data_tables`).

    Attributes
    ----------
    paper
        The id of the paper whose table it is.
    caption, source
        What the table is, and where the paper prints what it shows.
    load
        The table's rows.
    highlight
        The cells to highlight, a boolean frame of ``load()``'s shape (``None``: none).
    legend
        What a highlighted cell means.
    """

    paper: str
    caption: str
    source: str
    load: Callable[[], pd.DataFrame]
    highlight: Callable[[pd.DataFrame], pd.DataFrame] | None = None
    legend: str = ""


@dataclass(frozen=True)
class Paper:
    """One paper (or chapter with claims) of the book, and everything the package needs of it.

    Identity and citation
        ``id`` (short identifier, e.g. ``"leverage"``), ``title`` (what the claims tables
        print), ``label`` (author and year, for the cross-paper tables), ``bib_key`` (key in
        ``book/references.bib``; empty for chapter 0) and ``docname`` (the chapter's path in
        ``_toc.yml``, without suffix).
    Roles (``None`` where the paper has none)
        ``claims`` (the registered :class:`~moelaws.claim.Claim` list), ``convention`` (its
        counting convention), ``ratios`` (its named ratios of a configuration, for
        :func:`moelaws.conventions.all_ratios`), ``granularity`` (its expert granularity:
        definition, experiments and optimum, :class:`Granularity`, for
        :func:`moelaws.conventions.granularity` and :mod:`moelaws.compare.granularity`),
        ``sparsity`` (its sparsity of a configuration, for
        :func:`moelaws.conventions.sparsity`),
        ``compute_optimal`` (its compute-optimal answer for a training budget,
        :class:`ComputeOptimal`), ``mla`` (its attention FLOPs with MLA counted by its real weights,
        :class:`MLARecount`), ``recommend`` (its recommendation for a
        :class:`Budget`), ``fitted_ranges`` (where its law was
        fitted, ``{quantity: Range}``), ``verdict`` (what its law says about a configuration
        trained on a number of tokens, a flat dict), ``card`` (its row of the conventions
        card), ``calculator`` (its block of the static design calculator), ``toy_sweeps``
        (its named toy-training sweeps, ``{name: run(retrain=..., progress=...)}``) and
        ``data_tables`` (its appendix or side-by-side tables, ``{name: DataTable}``, shown
        by :func:`moelaws.data_tables.all_data_tables`).
    """

    id: str
    title: str
    label: str
    docname: str
    bib_key: str = ""
    claims: Callable[[], list[Claim]] | None = None
    convention: Convention | None = None
    ratios: Callable[[MoEConfig], dict[str, float]] | None = None
    granularity: Granularity | None = None
    sparsity: Callable[[MoEConfig], float] | None = None
    mla: MLARecount | None = None
    compute_optimal: ComputeOptimal | None = None
    recommend: Callable[[Budget], Recommendation] | None = None
    fitted_ranges: Callable[[], dict[str, Range]] | None = None
    verdict: Callable[[MoEConfig, float | None], dict[str, Any]] | None = None
    card: Card | None = None
    calculator: CalculatorBlock | None = None
    toy_sweeps: Callable[[], Mapping[str, Callable[..., pd.DataFrame]]] | None = None
    data_tables: Callable[[], Mapping[str, DataTable]] | None = None

    def __post_init__(self) -> None:
        if not self.id.isidentifier():
            raise ValueError(f"paper id {self.id!r} must be a Python identifier")


__all__ = [
    "NAN",
    "Answer",
    "Budget",
    "CalculatorBlock",
    "Card",
    "ComputeOptimal",
    "Convention",
    "DataTable",
    "Granularity",
    "GranularityPrice",
    "MLARecount",
    "Paper",
    "Range",
    "Recommendation",
    "caveats",
    "out_of_range",
    "position",
    "require_moe",
    "tokens_or_nan",
]
