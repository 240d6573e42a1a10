"""One number a paper prints, and how we compute it: the :class:`Claim` record.

At the bottom of the package (STYLE.md, "Layers"): each paper's folder lists its claims with
it, and the claims registry (:mod:`moelaws.claims`) evaluates them. Which paper a claim belongs
to is checked where the registry loads the paper's claims, not here.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from typing import Literal

Relation = Literal["=", "<", ">", "<=", ">="]
Expected = Literal["reproduced", "discrepancy", "undecidable"]
Kind = Literal["reproduction", "consistency", "cross-paper", "derived"]

KINDS: dict[str, str] = {
    "reproduction": "a number the paper prints, recomputed by our code from the paper's own "
    "formulas, tables or configurations, the way the paper says it was obtained",
    "consistency": "the paper against itself: a printed number or statement checked against "
    "another part of the same paper (a text count against a table, a fitted law against its "
    "own table, one equation against another)",
    "cross-paper": "a number or statement of one paper checked against another paper, a model "
    "card or a vendor's configuration",
    "derived": "the book's own result: a hypothesis, a refit or an extension of ours, compared "
    "with a printed number for context",
}
"""The kinds of claim, each with what it means; every :class:`Claim` names one."""

def printed_tolerance(printed: str) -> float:
    """Half a unit in the last digit of a number as printed.

    Parameters
    ----------
    printed
        The number exactly as the paper prints it, e.g. ``"6.78"``, ``"671"``, ``"1.5e22"``,
        ``"-0.158"``.

    Returns
    -------
    float
        ``0.005`` for ``"6.78"``, ``0.5`` for ``"671"``, ``5e20`` for ``"1.5e22"``.

    Raises
    ------
    ValueError
        If ``printed`` is not a plain decimal number.
    TypeError
        If ``printed`` is not a string (the number as printed, not a float).
    """
    if not isinstance(printed, str):
        raise TypeError(f"printed must be the number as the paper prints it (a string), "
                        f"not {type(printed).__name__}")
    text = printed.strip().replace("\u2212", "-")
    try:
        number = Decimal(text)
    except InvalidOperation as exc:
        raise ValueError(f"printed value {printed!r} is not a decimal number") from exc
    if not number.is_finite():
        raise ValueError(f"printed value {printed!r} is not finite")
    exponent = number.as_tuple().exponent
    assert isinstance(exponent, int)
    return 0.5 * 10.0**exponent


@dataclass(frozen=True)
class Claim:
    """One number a paper prints, and how we compute it.

    Parameters
    ----------
    paper
        Paper id, one of :func:`moelaws.papers.ids` (checked when the registry loads the
        paper's claims).
    ref
        Where the number is printed, precise enough to find it: table, row, column, equation,
        section (e.g. ``"Table 3, Kimi-K2, G range, lower end"``).
    quantity
        What the number is, with its unit (e.g. ``"total parameters (B)"``).
    printed
        The paper's value exactly as printed, in the unit of ``quantity``.
    compute
        A function of no arguments that computes our value from the paper's formulas and tables.
    relation
        ``"="`` (the default) checks ``|ours - paper| <= tolerance``; an inequality checks that
        ours satisfies it against the paper's value (for claims such as "EL above 7").
    tolerance
        Absolute tolerance. ``None`` (the default) means half a unit in the last printed digit.
    tolerance_reason
        Required when ``tolerance`` is given: why the printed precision is not the right one.
    kind
        Required (keyword): what kind of result the claim is, one of :data:`KINDS`:
        ``"reproduction"``, ``"consistency"``, ``"cross-paper"`` or ``"derived"``.
    expected
        ``"reproduced"``, ``"discrepancy"`` or ``"undecidable"``. A discrepancy or an
        undecidable claim needs an ``explanation``; ``"undecidable"`` needs ``ours_range``.
    explanation
        Why our value differs from the paper's (required for expected discrepancies), or any
        note the reader needs to interpret the comparison.
    inputs
        The printed numbers our computation reads, each named like a claim key without its
        paper, ``"<ref>: <quantity>"``. A claim may not list its own ``ref: quantity`` (it would
        echo the paper), and a tolerance wider than the printed precision must name the inputs
        whose rounding it propagates.
    expected_ours
        For an expected discrepancy: our value, as recorded in :data:`EXPECTED_OURS_FILE`
        (filled in by :func:`all_claims`). Evaluation fails when ours drifts from it by more
        than :data:`DRIFT_RTOL` (relative).
    ours_range
        For a claim whose computation reads rounded printed ``inputs``: a function returning
        the least and greatest value of ours as each of those inputs runs over its rounding
        interval (half a unit of its last printed digit). Evaluation then compares that
        interval, not one point, with the printed value (:func:`status_of_interval`; for an
        inequality, reproduced when both ends satisfy it, a discrepancy when neither does,
        undecidable otherwise). Only with the printed tolerance (no custom ``tolerance``).
    """

    paper: str
    ref: str
    quantity: str
    printed: str
    compute: Callable[[], float] = field(repr=False, compare=False)
    relation: Relation = "="
    tolerance: float | None = None
    tolerance_reason: str = ""
    expected: Expected = "reproduced"
    explanation: str = ""
    inputs: tuple[str, ...] = ()
    expected_ours: float | None = None
    ours_range: Callable[[], tuple[float, float]] | None = field(
        default=None, repr=False, compare=False
    )
    kind: Kind | None = None

    def __post_init__(self) -> None:
        if self.kind is None:
            raise ValueError(
                f"claim {self.paper}: {self.ref}: {self.quantity} has no kind: add one of "
                + ", ".join(f'kind="{k}" ({meaning})' for k, meaning in KINDS.items())
                + " to its Claim(...) (moelaws.claim.KINDS)"
            )
        if self.kind not in KINDS:
            raise ValueError(f"claim {self.ref!r}: kind {self.kind!r} is not one of "
                             f"{', '.join(KINDS)}")
        if self.relation not in ("=", "<", ">", "<=", ">="):
            raise ValueError(f"relation {self.relation!r} is not one of =, <, >, <=, >=")
        if self.expected not in ("reproduced", "discrepancy", "undecidable"):
            raise ValueError(f"expected {self.expected!r} must be 'reproduced', 'discrepancy' "
                             "or 'undecidable'")
        if self.expected != "reproduced" and not self.explanation.strip():
            raise ValueError(f"claim {self.ref!r}: an expected {self.expected} needs an "
                             "explanation")
        if self.ours_range is not None:
            if self.tolerance is not None:
                raise ValueError(f"claim {self.ref!r}: ours_range compares an interval with the "
                                 "printed rounding: it needs no custom tolerance")
            if not self.inputs:
                raise ValueError(f"claim {self.ref!r}: ours_range needs the rounded inputs it "
                                 "propagates (inputs=...)")
        elif self.expected == "undecidable":
            raise ValueError(f"claim {self.ref!r}: only a claim with ours_range (the interval "
                             "its rounded inputs allow) can be undecidable")
        if self.tolerance is not None:
            if not self.tolerance >= 0:
                raise ValueError(f"claim {self.ref!r}: tolerance must be non-negative")
            if not self.tolerance_reason.strip():
                raise ValueError(f"claim {self.ref!r}: a custom tolerance needs a reason")
        printed_tolerance(self.printed)
        if isinstance(self.inputs, str):
            raise ValueError(f"claim {self.ref!r}: inputs must be a tuple of names, not a str")

    @property
    def own_name(self) -> str:
        """How an input naming this claim's printed number is written: ``ref: quantity``."""
        return f"{self.ref}: {self.quantity}"

    @property
    def paper_value(self) -> float:
        """The printed value as a float."""
        return float(self.printed.strip().replace("\u2212", "-"))

    @property
    def tol(self) -> float:
        """The tolerance in force: the custom one, or half a unit in the last printed digit."""
        return self.tolerance if self.tolerance is not None else printed_tolerance(self.printed)

    @property
    def key(self) -> str:
        """A stable identifier: ``paper: ref: quantity``."""
        return f"{self.paper}: {self.ref}: {self.quantity}"


__all__ = ["KINDS", "Claim", "printed_tolerance"]
