"""The book's one rounding rule, for a value known only to lie in an interval.

A printed number accepts every value within half a unit of its last printed digit. When our
value is computed from printed inputs that are themselves rounded, it is known only to lie in
the interval those inputs' rounding allows; :func:`status_of_interval` compares that interval
with the printed number. The claims registry (:mod:`moelaws.claims.core`) and the chapters'
side-by-side tables (each paper's ``data_tables`` module) both use it, so that a table and its
claims cannot judge the same row differently.
"""

from __future__ import annotations

from typing import Literal

from moelaws.validation import public

__all__ = ["REL_EPS", "Status", "status_of_interval"]

Status = Literal["reproduced", "discrepancy", "undecidable", "error"]

REL_EPS = 1e-12
"""Relative slack for a value printed exactly on a rounding boundary (binary floating point)."""


@public
def status_of_interval(low: float, high: float, paper: float, tol: float) -> Status:
    """The status of a claim whose value is only known to lie in ``[low, high]``.

    The rule of the book for rounded inputs: the printed value ``paper`` accepts every value
    within ``tol`` (half a unit of its last printed digit) of it.

    Parameters
    ----------
    low, high
        The least and greatest value of ours over the rounding intervals of its inputs.
    paper, tol
        The printed value and its tolerance.

    Returns
    -------
    str
        ``"reproduced"`` when every value of the interval is accepted, ``"discrepancy"`` when
        none is, ``"undecidable"`` when the interval holds both.

    Raises
    ------
    ValueError
        If ``low > high`` or ``tol < 0``, or any argument is not a single finite number.
    """
    if tol < 0:
        raise ValueError(f"tol must be non-negative, not {tol!r}")
    if low > high:
        raise ValueError(f"interval [low={low}, high={high}] is empty (low > high)")
    slack = tol * 1e-9 + REL_EPS * abs(paper)
    accept_lo, accept_hi = paper - tol - slack, paper + tol + slack
    if accept_lo <= low and high <= accept_hi:
        return "reproduced"
    if high < accept_lo or low > accept_hi:
        return "discrepancy"
    return "undecidable"
