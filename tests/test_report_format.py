"""Short number formats of the comparison reports (the calculator's text, chapter 7)."""

from __future__ import annotations

import math

import pytest

from moelaws.compare.report import fmt, fmt_short


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (1.002e11, "100.2B"),
        (3.7e12, "3.7T"),
        (12_345, "12,345"),
        (5824.0, "5824"),
        (2.5e6, "2.5M"),
        (-4.2e9, "-4.2B"),
        (512, "512"),
        (0.0025, "0.0025"),
        (1e16, "1e+16"),
        (math.nan, "-"),
        (None, "-"),
        (True, "yes"),
        ("text", "text"),
    ],
)
def test_fmt_short(value: object, text: str) -> None:
    assert fmt_short(value) == text


def test_fmt_short_agrees_with_fmt_below_a_million() -> None:
    for value in (0.5, 7.0, 999.0, 42, 5824, 999_999.0):
        assert fmt_short(value) == fmt(value)
