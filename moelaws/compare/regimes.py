"""Where each law was fitted, so that its use on a real model can be flagged as extrapolation.

Each paper's adapter gives its ranges (role ``fitted_ranges`` of :class:`moelaws.papers.Paper`):
computed from the transcribed experiment tables where the paper publishes them (leverage
Tables 8-12, comprehensive Table 8, constrained Table 4 with App. C.1's expert counts, holistic
Table 2's scales); the allocation paper prints no experiment table, so its range is the one
its text states.
"""

from __future__ import annotations

from moelaws.roles import Range, out_of_range


def fitted_ranges() -> dict[str, dict[str, Range]]:
    """Per paper, the fitted range of each quantity the verdicts check.

    Returns
    -------
    dict
        ``{paper: {quantity: Range}}``, in reading order. Quantities: ``C`` (training FLOPs
        in that paper's count), ``N`` (total non-embedding parameters), ``D`` (tokens), ``G``
        (that paper's granularity), ``S`` (allocation sparsity).
    """
    from moelaws import papers

    return {p.id: p.fitted_ranges() for p in papers.having("fitted_ranges")}


def flags(paper: str, **values: float) -> list[str]:
    """The out-of-range flags of one paper for the given quantities.

    Parameters
    ----------
    paper
        A paper id with a ``fitted_ranges`` role (:func:`moelaws.papers.ids`).
    **values
        Quantities named as in :func:`fitted_ranges` (those the paper has no range for are
        ignored; NaN values are never flagged).

    Returns
    -------
    list of str
        One line per quantity outside its fitted range.

    Raises
    ------
    ValueError
        For an unknown paper.
    TypeError
        For a ``paper`` that is not a string.
    """
    from moelaws import papers

    if not isinstance(paper, str):
        raise TypeError(f"paper must be a paper id (a string), not {type(paper).__name__}")
    return out_of_range(papers.get(paper, "fitted_ranges").fitted_ranges(), **values)
