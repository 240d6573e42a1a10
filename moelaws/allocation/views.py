"""The allocation paper's laws in the browser: Vega expressions for Eq. 1 (``r*(C, S)`` with the
Section 3.3 coefficient laws) and the terms of Eq. 2, written from the constants of
:mod:`moelaws.allocation.law` and Table 1 (:mod:`moelaws.allocation.extended_loss`); tested
against the NumPy laws in ``tests/papers/allocation/test_allocation_chart_expressions.py``."""

from __future__ import annotations

from collections.abc import Mapping

from moelaws.allocation import law
from moelaws.allocation.extended_loss import READINGS, _coefficients
from moelaws.vega_expr import literal


def alpha_r_expression(S: str = "S") -> str:
    """``α_r(S) = 6.7e-5 · (1 − S)^(−1.23)`` (Section 3.3)."""
    return f"{literal(law.ALPHA_R_COEF)} * pow(1 - ({S}), {literal(law.ALPHA_R_EXP)})"


def beta_r_expression(S: str = "S") -> str:
    """``β_r(S) = 0.24 · (1 − S)^0.21`` (Section 3.3)."""
    return f"{literal(law.BETA_R_COEF)} * pow(1 - ({S}), {literal(law.BETA_R_EXP)})"


def optimal_ratio_expression(log10_C: str = "logC", S: str = "S") -> str:
    """Eq. 1, ``r* = α_r(S) · C^β_r(S)``, over ``log10 C`` (the chart's slider variable)."""
    return f"({alpha_r_expression(S)}) * pow(10, ({log10_C}) * ({beta_r_expression(S)}))"


def deviation_expression(r: str, r_star: str, reading: str = "log-squared") -> str:
    """A reading of Eq. 2's undefined ``R`` (see :func:`moelaws.allocation.deviation`).

    Raises
    ------
    ValueError
        For an unknown reading.
    """
    if reading not in READINGS:
        raise ValueError(f"unknown reading {reading!r} of R; choose from {', '.join(READINGS)}")
    return {
        "none": "0",
        "log-abs": f"abs(log(({r}) / ({r_star})))",
        "log-squared": f"pow(log(({r}) / ({r_star})), 2)",
        "squared": f"pow(({r}) - ({r_star}), 2)",
    }[reading]


def allocation_terms_expression(
    N: str, S: str, r: str, R: str, coefficients: Mapping[str, float] | None = None
) -> str:
    """The two ``r``-dependent terms of Eq. 2, ``c·e^R·(1 − S)^γ/N^λ + d·r/(r + 1)`` (Table 1
    defaults): the loss valley in ``r`` up to terms constant in ``r``.

    Raises
    ------
    ValueError
        For unknown coefficient names.
    """
    p = {k: literal(v) for k, v in _coefficients(coefficients).items()}
    return (f"{p['c']} * exp({R}) * pow(1 - ({S}), {p['gamma']}) / pow({N}, {p['lambda']})"
            f" + {p['d']} * ({r}) / (({r}) + 1)")


def loss_expression(
    N: str, D: str, S: str, r: str, R: str, coefficients: Mapping[str, float] | None = None
) -> str:
    """Eq. 2, ``L = a/N^α + b/D^β + c·e^R·(1 − S)^γ/N^λ + d·r/(r + 1) + τ`` (Table 1 defaults).

    Raises
    ------
    ValueError
        For unknown coefficient names.
    """
    p = {k: literal(v) for k, v in _coefficients(coefficients).items()}
    return (f"{p['a']} / pow({N}, {p['alpha']}) + {p['b']} / pow({D}, {p['beta']})"
            f" + {allocation_terms_expression(N, S, r, R, coefficients)} + {p['tau']}")
