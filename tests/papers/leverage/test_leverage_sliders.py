"""Chapter 02's panel opens on the headline efficiency leverage (A = 3.1 %, G = 12)."""

from __future__ import annotations

import math

import pytest

from moelaws import leverage as lev
from moelaws import sliders


def _snap(value: float, lo: float, step: float, base: float | None = None) -> float:
    """Where a front end puts a start value: the nearest point of ``lo + k * step``."""
    x = math.log(value, base) if base else value
    k = round((x - lo) / step)
    return base ** (lo + k * step) if base else lo + k * step


def test_chapter_2_panel_opened_off_the_headline_and_now_opens_on_it() -> None:
    """The bug: A = 3.1 %, G = 12 on the old log grids opened at 3.16 %, 12.13 (EL 7.183)."""
    old_a, old_g = _snap(3.1, -0.3, 0.02, 10), _snap(12, 0, 0.1, 2)
    assert round(old_a, 2) == 3.16 and round(old_g, 2) == 12.13
    headline = float(lev.efficiency_leverage(0.031, 12, 1e22))
    assert round(float(lev.efficiency_leverage(old_a / 100, old_g, 1e22)), 3) == 7.183
    assert round(headline, 3) == 7.245
    with pytest.raises(ValueError, match=r"3\.16"):
        sliders.log_slider(3.1, base=10, min=-0.3, max=2, step=0.02)
    a = sliders.log_slider(3.1, base=10, min=-0.3, max=2, step=0.02, anchor=True)
    g = sliders.log_slider(12, base=2, min=0, max=6, step=0.1, anchor=True)
    assert _snap(a.value, a.min, a.step, 10) == pytest.approx(3.1, rel=1e-12)
    assert _snap(g.value, g.min, g.step, 2) == pytest.approx(12, rel=1e-12)
    assert -0.3 <= a.min < -0.3 + 0.02 and 2 - 0.02 < a.max <= 2
