"""Sliders open at the page's numbers: every start value sits exactly on its slider's grid."""

from __future__ import annotations

import math
import re
from pathlib import Path

import ipywidgets as widgets
import pytest

from moelaws import sliders

ROOT = Path(__file__).resolve().parents[1]


def _snap(value: float, lo: float, step: float, base: float | None = None) -> float:
    """Where a front end puts a start value: the nearest point of ``lo + k * step``."""
    x = math.log(value, base) if base else value
    k = round((x - lo) / step)
    return base ** (lo + k * step) if base else lo + k * step


@pytest.mark.parametrize(
    ("value", "lo", "hi", "step"),
    [(0.9538, 0.80, 0.98, 0.0025), (11.37, 8, 12.5, 0.25), (2.5, 1, 16, 1), (20.0, 17, 19, 0.5)],
)
def test_off_grid_start_values_are_refused(value: float, lo: float, hi: float,
                                           step: float) -> None:
    with pytest.raises(ValueError, match="not on the grid"):
        sliders.float_slider(value, min=lo, max=hi, step=step)
    with pytest.raises(ValueError, match="not on the grid"):
        sliders.range_param("p", value, min=lo, max=hi, step=step, label="p ")


@pytest.mark.parametrize(
    ("value", "lo", "hi", "step"),
    [(0.95384615, 0.80, 0.98, 0.0025), (math.log10(5.939e9), 8.3, 10.5, 0.05),
     (11.37106786, 8, 12.5, 0.01), (0.11, 0.0, 0.9, 0.01)],
)
def test_anchored_grid_passes_through_the_value_inside_the_range(
    value: float, lo: float, hi: float, step: float
) -> None:
    slider = sliders.float_slider(value, min=lo, max=hi, step=step, anchor=True)
    assert slider.value == value
    assert lo <= slider.min < lo + step and hi - step < slider.max <= hi
    assert _snap(value, slider.min, step) == pytest.approx(value, rel=1e-12, abs=1e-12)
    param = sliders.range_param("p", value, min=lo, max=hi, step=step, label="p ", anchor=True)
    assert sliders.check_spec({"params": [param.param.to_dict()]}) == 1
    perturbed = value + step / 3
    with pytest.raises(ValueError):
        sliders.check_on_grid(perturbed, slider.min, slider.max, step)


def test_on_grid_values_pass_and_every_grid_point_is_accepted() -> None:
    for k in range(0, 73):
        assert sliders.on_grid(0.80 + k * 0.0025, 0.80, 0.98, 0.0025)
    assert sliders.int_slider(8, min=2, max=512, step=2).value == 8
    with pytest.raises(ValueError):
        sliders.int_slider(7, min=2, max=512, step=2)
    with pytest.raises(ValueError, match="outside"):
        sliders.float_slider(30, min=0, max=10, step=1, anchor=True)


def test_check_widget_and_check_spec_walk_nested_controls() -> None:
    good = widgets.VBox([widgets.FloatSlider(value=0.5, min=0, max=1, step=0.25),
                         widgets.HBox([widgets.IntSlider(value=3, min=1, max=9, step=2)])])
    assert sliders.check_widget(good) == 2
    bad = widgets.VBox([good, widgets.FloatLogSlider(value=3.1, base=10, min=-0.3, max=2,
                                                     step=0.02)])
    with pytest.raises(ValueError, match=r"3\.16"):
        sliders.check_widget(bad)
    spec = {"hconcat": [{"params": [{"name": "x", "value": 0.9538,
                                     "bind": {"input": "range", "min": 0.8, "max": 0.98,
                                              "step": 0.0025}}]}]}
    with pytest.raises(ValueError, match="x"):
        sliders.check_spec(spec)


_DIRECT = re.compile(r"\b(FloatSlider|FloatLogSlider|IntSlider|binding_range)\(")


def test_every_slider_of_the_book_is_built_by_moelaws_sliders() -> None:
    """A slider built directly would escape the grid check: none may be."""
    files = sorted(ROOT.glob("notebooks/*.md")) + sorted((ROOT / "moelaws").rglob("*.py"))
    direct = [
        f"{path.relative_to(ROOT)}:{n}: {line.strip()}"
        for path in files if path.name != "sliders.py"
        for n, line in enumerate(path.read_text().splitlines(), 1) if _DIRECT.search(line)
    ]
    assert not direct, "build these with moelaws.sliders:\n" + "\n".join(direct)
    uses = sum(p.read_text().count("sliders.") for p in files if p.name != "sliders.py")
    assert uses >= 25


def test_arguments_are_checked_with_messages_naming_them() -> None:
    with pytest.raises(ValueError, match="base"):
        sliders.log_slider(3.0, base=1, min=0, max=2, step=0.1)
    with pytest.raises(ValueError, match="value"):
        sliders.float_slider(float("nan"), min=0, max=1, step=0.1)
    with pytest.raises(ValueError, match="step"):
        sliders.int_slider(2, min=0, max=4, step=0.5)
    assert sliders.int_slider(-2, min=-4, max=4, step=2).value == -2
    with pytest.raises(ValueError, match="identifier"):
        sliders.range_param("1e9", 1.0, min=0, max=2, step=1, label="x")
    with pytest.raises(TypeError, match="spec"):
        sliders.check_spec("G")
    with pytest.raises(ValueError, match="Vega-Lite"):
        sliders.spec_ranges({"bogus": 1})
    with pytest.raises(TypeError, match="widget"):
        sliders.check_widget(object())

