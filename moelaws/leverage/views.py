"""Eq. 4 in the browser: the Vega expression of the efficiency leverage that the chapter's
kernel-free Figure 1b evaluates, written from :data:`~moelaws.leverage.law.TABLE6` and the
logarithm bases of :mod:`moelaws.leverage.law` (tested against
:func:`~moelaws.leverage.law.efficiency_leverage` in
``tests/papers/leverage/test_leverage_chart_expressions.py``)."""

from __future__ import annotations

import math
from collections.abc import Mapping

from moelaws.leverage.law import LOG_BASE_C, LOG_BASE_G, TABLE6
from moelaws.vega_expr import literal


def _log(x: str, base: float) -> str:
    return f"(log({x}) / {literal(math.log(base))})"


def efficiency_leverage_expression(
    A: str = "datum.A", G: str = "datum.G", C: str = "C",
    coefficients: Mapping[str, float] | None = None,
    *, log_base_c: float = LOG_BASE_C, log_base_g: float = LOG_BASE_G,
) -> str:
    """Eq. 4, ``EL = Â^(a + d·log C + γ·(log G)² + β·log G)`` with Eq. 1's Â, as a Vega
    expression over the sub-expressions ``A``, ``G`` and ``C``.

    Parameters
    ----------
    A, G, C
        Vega sub-expressions for the activation ratio, the granularity and the compute (FLOPs).
    coefficients
        Overrides of Table 6 (keys of :data:`~moelaws.leverage.law.TABLE6`).
    log_base_c, log_base_g
        Bases of the logarithms of C and G (the chapter's determination by default).

    Raises
    ------
    ValueError
        For an unknown coefficient, ``0 < a_start < a_max`` violated, or an invalid base.
    """
    p = dict(TABLE6)
    unknown = sorted(set(coefficients or {}) - set(TABLE6))
    if unknown:
        raise ValueError(f"unknown Table 6 coefficients {unknown}; use {sorted(TABLE6)}")
    p.update({k: float(v) for k, v in (coefficients or {}).items()})
    if not (0 < p["a_start"] < p["a_max"]) or not math.isfinite(p["a_max"]):
        raise ValueError("need finite 0 < a_start < a_max")
    for name, base in (("log_base_c", log_base_c), ("log_base_g", log_base_g)):
        if not (math.isfinite(base) and base > 0 and base != 1):
            raise ValueError(f"{name} must be a positive number other than 1")
    offset = 1.0 / (1.0 / p["a_start"] - 1.0 / p["a_max"])
    hat = f"(1 / (1 / (({A}) + {literal(offset)}) + 1 / {literal(p['a_max'])}))"
    log_g = _log(G, log_base_g)
    exponent = (f"{literal(p['a'])} + {literal(p['d'])} * {_log(C, log_base_c)}"
                f" + {literal(p['gamma'])} * {log_g} * {log_g} + {literal(p['beta'])} * {log_g}")
    return f"pow({hat}, {exponent})"
