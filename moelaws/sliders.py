"""Sliders that open at the number the page prints.

A slider (an ipywidgets slider in a live notebook, or an HTML range input bound to a Vega
parameter) can only rest on its grid ``min + k * step``; a front end moves a start value off
that grid to the nearest grid point. Chapter 2's panel opened at A = 3.16 %, G = 12.13 (EL 7.183)
instead of the A = 3.1 %, G = 12 (EL 7.245) its page prints. Every slider of the book is built
here: a start value off its grid is refused with a ``ValueError``, and ``anchor=True`` shifts
the grid (the same step, ends inside the requested range) so that it passes through the value.
Logarithmic sliders (``base``) have their grid on the exponent, as ipywidgets'
``FloatLogSlider`` does.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import Any

import altair as alt
import numpy as np

from moelaws.charts import check_vega_spec
from moelaws.validation import finite, public

__all__ = ["check_on_grid", "check_spec", "check_widget", "float_slider", "grid_through",
           "int_slider", "log_slider", "on_grid", "range_param", "spec_ranges"]

_REL_TOL = 1e-9

def _check_base(base: float | None) -> None:
    if base is not None and (base <= 0 or base == 1):
        raise ValueError(f"base of a logarithmic slider must be > 0 and not 1, got {base!r}")


def _position(value: float, lo: float, step: float, base: float | None) -> float:
    x = math.log(value, base) if base else value
    return (x - lo) / step


def on_grid(value: float, lo: float, hi: float, step: float, *,
            base: float | None = None) -> bool:
    """Whether ``value`` is a point of the grid ``lo + k * step`` (exponents if ``base``) in range.

    Parameters
    ----------
    value
        The slider's start value (not its exponent, for a logarithmic slider).
    lo, hi, step
        The grid's ends and step (exponents of ``base`` for a logarithmic slider).
    base
        ``None`` for a linear slider, else the base of a logarithmic one.
    """
    _check_base(base)
    if step <= 0 or hi < lo:
        raise ValueError(f"a slider needs step > 0 and min <= max (lo <= hi), got lo={lo}, "
                         f"hi={hi}, step={step}")
    if base and value <= 0:
        return False
    k = _position(value, lo, step, base)
    top = (hi - lo) / step
    return (-_REL_TOL <= k <= top + _REL_TOL) and abs(k - round(k)) <= _REL_TOL * max(1, abs(k))


def check_on_grid(value: float, lo: float, hi: float, step: float, *,
                  base: float | None = None, name: str = "slider") -> None:
    """Raise ``ValueError`` unless ``value`` is exactly reachable on the slider's grid
    (``name``, the slider's label in the message, must not be empty)."""
    if not name:
        raise ValueError("name (the slider's label in messages) must not be empty")
    if not on_grid(value, lo, hi, step, base=base):
        k = round(_position(value, lo, step, base)) if (not base or value > 0) else 0
        nearest = lo + k * step
        shown = base**nearest if base else nearest
        raise ValueError(
            f"{name}: start value {value!r} is not on the grid min={lo!r} + k * step={step!r} "
            f"up to max={hi!r}{f' (exponents of {base})' if base else ''}; a front end would "
            f"move it to {shown:.6g}. Pass anchor=True, or choose a grid through it."
        )


def grid_through(value: float, lo: float, hi: float, step: float, *,
                 base: float | None = None) -> tuple[float, float]:
    """The ends of the grid with ``step`` that passes through ``value`` inside ``[lo, hi]``.

    Returns
    -------
    (lo', hi')
        ``lo <= lo' < lo + step`` and ``hi - step < hi' <= hi`` (exponents if ``base``), with
        ``value`` on ``lo' + k * step``.
    """
    _check_base(base)
    if step <= 0 or hi < lo:
        raise ValueError(f"a slider needs step > 0 and min <= max (lo <= hi), got lo={lo}, "
                         f"hi={hi}, step={step}")
    if base and value <= 0:
        raise ValueError(f"start value {value!r} of a logarithmic slider must be > 0")
    x = math.log(value, base) if base else value
    if not lo <= x <= hi:
        raise ValueError(f"start value {value!r} lies outside the slider's range [{lo}, {hi}]")
    below = math.floor((x - lo) / step + _REL_TOL)
    above = math.floor((hi - x) / step + _REL_TOL)
    return x - below * step, x + above * step


def _grid(value: float, lo: float, hi: float, step: float, base: float | None, anchor: bool,
          name: str) -> tuple[float, float]:
    if anchor:
        lo, hi = grid_through(value, lo, hi, step, base=base)
    check_on_grid(value, lo, hi, step, base=base, name=name)
    return lo, hi


def float_slider(value: float, min: float, max: float, step: float, *,
                 anchor: bool = False, **kwargs: Any) -> Any:
    """An ``ipywidgets.FloatSlider`` whose start ``value`` is on its grid (see module doc)."""
    import ipywidgets as widgets

    lo, hi = _grid(value, min, max, step, None, anchor, kwargs.get("description") or "slider")
    return widgets.FloatSlider(value=value, min=lo, max=hi, step=step, **kwargs)


def log_slider(value: float, base: float, min: float, max: float,
               step: float, *, anchor: bool = False, **kwargs: Any) -> Any:
    """An ``ipywidgets.FloatLogSlider`` (``min``, ``max``, ``step`` are exponents of ``base``)."""
    import ipywidgets as widgets

    lo, hi = _grid(value, min, max, step, base, anchor, kwargs.get("description") or "slider")
    return widgets.FloatLogSlider(value=value, base=base, min=lo, max=hi, step=step, **kwargs)


def int_slider(value: int, min: int, max: int, step: int = 1, **kwargs: Any) -> Any:
    """An ``ipywidgets.IntSlider`` whose start ``value`` is on its grid.

    ``value``, ``min``, ``max`` and ``step`` are whole numbers (of either sign; ``step >= 1``),
    else ``ValueError`` naming the one that is not."""
    import ipywidgets as widgets

    for label, x in (("value", value), ("min", min), ("max", max), ("step", step)):
        arr = finite(f"int_slider: {label}", x)
        if arr.ndim != 0 or arr != np.round(arr):
            raise ValueError(f"int_slider: {label} must be a single whole number, not {x!r}")
    if step < 1:
        raise ValueError(f"int_slider: step must be at least 1, not {step!r}")
    value, min, max, step = int(value), int(min), int(max), int(step)
    check_on_grid(value, min, max, step, name=kwargs.get("description") or "slider")
    return widgets.IntSlider(value=value, min=min, max=max, step=step, **kwargs)


def range_param(name: str, value: float, min: float, max: float, step: float,
                label: str, *, anchor: bool = False) -> alt.Parameter:
    """An Altair parameter bound to a range input whose start ``value`` is on its grid.

    ``name`` is the parameter's name in Vega expressions (an identifier, else ``ValueError``);
    ``label`` the text beside the input (not empty)."""
    if not name.isidentifier():
        raise ValueError(f"name must be an identifier (it is a variable of Vega expressions), "
                         f"not {name!r}")
    if not label.strip():
        raise ValueError("label (the text beside the slider) must not be empty")
    lo, hi = _grid(value, min, max, step, None, anchor, name)
    return alt.param(name=name, value=value,
                     bind=alt.binding_range(min=lo, max=hi, step=step, name=label))


def spec_ranges(spec: dict[str, Any]) -> list[tuple[str, float, dict[str, Any]]]:
    """Every range-bound parameter of a Vega-Lite specification: (name, value, binding).

    Raises
    ------
    TypeError
        If ``spec`` is not a dict; ``ValueError`` if it has no Vega-Lite top-level key.
    """
    check_vega_spec(spec)
    return list(_spec_ranges(spec))


def _spec_ranges(spec: Any) -> Iterator[tuple[str, float, dict[str, Any]]]:
    if isinstance(spec, dict):
        for param in spec.get("params", []) or []:
            bind = param.get("bind") if isinstance(param, dict) else None
            if isinstance(bind, dict) and bind.get("input") == "range":
                yield param["name"], param.get("value"), bind
        for key, sub in spec.items():
            if key not in ("data", "datasets"):
                yield from _spec_ranges(sub)
    elif isinstance(spec, list):
        for sub in spec:
            yield from _spec_ranges(sub)


def check_spec(spec: dict[str, Any]) -> int:
    """Check every range-bound parameter of a Vega-Lite spec; return how many were checked."""
    check_vega_spec(spec)
    seen = 0
    for name, value, bind in _spec_ranges(spec):
        check_on_grid(value, bind["min"], bind["max"], bind.get("step", 1), name=name)
        seen += 1
    return seen


def check_widget(widget: Any) -> int:
    """Check every slider in an ipywidgets tree (``children``); return how many were checked."""
    import ipywidgets as widgets

    if not isinstance(widget, widgets.Widget):
        raise TypeError(f"widget must be an ipywidgets widget, not {type(widget).__name__}")
    seen = 0
    if isinstance(widget, widgets.FloatLogSlider):
        check_on_grid(widget.value, widget.min, widget.max, widget.step, base=widget.base,
                      name=widget.description or "slider")
        seen += 1
    elif isinstance(widget, widgets.FloatSlider | widgets.IntSlider):
        check_on_grid(widget.value, widget.min, widget.max, widget.step,
                      name=widget.description or "slider")
        seen += 1
    for child in getattr(widget, "children", ()) or ():
        seen += check_widget(child)
    return seen


for _name in __all__:
    if _name != "int_slider":
        # int_slider checks its whole numbers itself: they may be negative, which the guard's
        # ``int`` check refuses.
        globals()[_name] = public(globals()[_name])
