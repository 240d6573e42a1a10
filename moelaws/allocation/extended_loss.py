"""The extended loss law, Eq. 2 (Section 4.1), with the coefficients of Table 1.

    L = a/N^α + b/D^β + c·e^R·(1 − S)^γ / N^λ + d·r/(r + 1) + τ

The paper says the third term "penalises deviation from the optimal ratio" and the fourth
(the "efficiency loss", App. D.2) "excessive expert allocation", but never defines ``R``. So
:func:`loss` takes ``R`` as an explicit argument, and :func:`deviation` offers the readings
the chapter considers (all reconstructions):

``"none"``
    ``R = 0``: the third term becomes an Abnar-style sparsity term with no r-dependence.
``"log-abs"``
    ``R = |ln(r/r*)|``: a symmetric penalty in log-ratio, with a kink at ``r*``.
``"log-squared"``
    ``R = (ln(r/r*))²``: a smooth valley around ``r*`` (the chapter's default).
``"squared"``
    ``R = (r − r*)²``: a penalty in the ratio itself.

``r*`` is Eq. 1 (:func:`moelaws.allocation.law.optimal_ratio`). ``N`` is not defined either;
Figure 4's "30M active / 550M total" suggests active parameters, and the chapter uses them.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

import numpy as np

from moelaws.allocation._domain import Array, check_ratio, check_sparsity
from moelaws.allocation.tables import read_table
from moelaws.validation import finite, positive

COEFFICIENT_NAMES: tuple[str, ...] = ("alpha", "beta", "lambda", "gamma", "tau", "a", "b", "c", "d")
"""Table 1's columns, in the paper's order (α, β, λ, γ, τ, a, b, c, d)."""

READINGS: tuple[str, ...] = ("none", "log-abs", "log-squared", "squared")


def table1_coefficients() -> MappingProxyType:
    """Table 1 as a read-only mapping ``{name: value}`` (names: :data:`COEFFICIENT_NAMES`)."""
    t = read_table("table1")
    return MappingProxyType({n: float(v) for n, v in zip(t["name"], t["printed"], strict=True)})


def _coefficients(coefficients) -> dict[str, float]:
    coef = dict(table1_coefficients())
    if coefficients is not None:
        if not isinstance(coefficients, Mapping):
            raise TypeError(f"coefficients must be a mapping of Eq. 2 coefficient names to "
                            f"numbers, not {type(coefficients).__name__}")
        for k, v in coefficients.items():
            finite(f"coefficients[{k!r}]", v)
        unknown = sorted(map(str, set(coefficients) - set(COEFFICIENT_NAMES)))
        if unknown:
            raise ValueError(f"unknown Eq. 2 coefficients {unknown}; use {COEFFICIENT_NAMES}")
        coef.update({k: float(v) for k, v in coefficients.items()})
    return coef


def deviation(r: Array, r_star: Array, reading: str = "log-squared") -> np.ndarray:
    """A reading of Eq. 2's undefined ``R``: the deviation of ``r`` from ``r*`` (reconstruction).

    Parameters
    ----------
    r, r_star
        Positive ratios C_E/C_A (``r_star`` typically from Eq. 1).
    reading
        One of :data:`READINGS` (see the module docstring).

    Raises
    ------
    ValueError
        For non-positive ratios or an unknown reading.
    """
    if reading not in READINGS:
        raise ValueError(f"unknown reading {reading!r} of R; choose from {', '.join(READINGS)}")
    x = check_ratio(r, allow_zero=False)
    x_star = check_ratio(r_star, allow_zero=False)
    if reading == "none":
        return np.zeros(np.broadcast(x, x_star).shape)
    if reading == "log-abs":
        return np.abs(np.log(x / x_star))
    if reading == "log-squared":
        return np.log(x / x_star) ** 2
    return (x - x_star) ** 2


def loss_terms(
    N: Array, D: Array, S: Array, r: Array, R: Array,
    coefficients: Mapping[str, float] | None = None,
) -> dict[str, np.ndarray]:
    """The five terms of Eq. 2, separately (``model``, ``data``, ``allocation``,
    ``efficiency``, ``irreducible``). Arguments as for :func:`loss`."""
    coef = _coefficients(coefficients)
    n = positive("N (parameters)", N)
    tokens = positive("D (tokens)", D)
    s = check_sparsity(S)
    ratio = check_ratio(r)
    dev = finite("R", R)
    return {
        "model": coef["a"] / n ** coef["alpha"],
        "data": coef["b"] / tokens ** coef["beta"],
        "allocation": coef["c"] * np.exp(dev) * (1.0 - s) ** coef["gamma"] / n ** coef["lambda"],
        "efficiency": coef["d"] * ratio / (ratio + 1.0),
        "irreducible": np.full(np.broadcast(n, tokens, s, ratio, dev).shape, coef["tau"]),
    }


def loss(N: Array, D: Array, S: Array, r: Array, R: Array,
         coefficients: Mapping[str, float] | None = None) -> np.ndarray:
    """Eq. 2: ``L = a/N^α + b/D^β + c·e^R·(1 − S)^γ/N^λ + d·r/(r + 1) + τ`` (Table 1 defaults).

    Parameters
    ----------
    N
        Model parameters (active, in the chapter's reading), positive.
    D
        Training tokens, positive.
    S
        Sparsity in [0, 1).
    r
        Expert/attention FLOPs ratio, non-negative.
    R
        The undefined exponent of the allocation term, explicit: e.g. ``deviation(r, r*)``.
    coefficients
        Optional overrides of Table 1, by the names in :data:`COEFFICIENT_NAMES`.

    Returns
    -------
    numpy.ndarray
        The predicted loss (nats, if the paper's loss is a natural-log cross-entropy).

    Raises
    ------
    ValueError
        For out-of-domain inputs or unknown coefficient names.
    """
    return sum(loss_terms(N, D, S, r, R, coefficients).values())


def range_minimum(
    N_max: float, D_max: float, S_max: float, r_min: float,
    coefficients: Mapping[str, float] | None = None,
) -> float:
    """The smallest Eq. 2 loss over a box of N, D, S, r and R >= 0.

    With positive coefficients and exponents every term of Eq. 2 falls with ``N`` and ``D``,
    the allocation term falls with ``S`` and rises with ``R``, and the efficiency term rises
    with ``r``; so the minimum over ``N <= N_max``, ``D <= D_max``, ``S <= S_max``,
    ``r >= r_min`` and any reading with ``R >= 0`` is the loss at that corner with ``R = 0``.

    Raises
    ------
    ValueError
        For out-of-domain arguments, or coefficients or exponents that are not positive
        (the corner argument needs them positive).
    """
    coef = _coefficients(coefficients)
    bad = sorted(k for k, v in coef.items() if not v > 0)
    if bad:
        raise ValueError(f"range_minimum needs positive coefficients and exponents; got {bad}")
    return float(loss(N_max, D_max, S_max, r_min, 0.0, coefficients))


def uniform_loss(vocab_size: Array) -> np.ndarray:
    """Cross-entropy of a uniform guess over the vocabulary, ``ln V`` nats: any trained
    model's loss is below it.

    Raises
    ------
    ValueError
        If ``vocab_size`` is below 2.
    """
    v = finite("vocab_size", vocab_size)
    if np.any(v < 2):
        raise ValueError("vocab_size must be at least 2")
    return np.log(v)
