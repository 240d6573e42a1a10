"""The two competing laws the comprehensive paper refits to its own data (App. I).

* Eq. 36, after Krajewski et al. (2024): ``L(N, D, G) = c + (g/G^γ + a)/N^α + b/D^β`` with G the
  granularity, constants of Table 6. App. I.1 calls N the *activated* parameters, but Table 6's
  constants are only consistent with the *total* size: on Table 8's configurations they then
  stay within ~0.017 of Eq. 11 (the paper reports errors of 0.017–0.019 for the two
  competitors), against ~0.25 with the activated size.
* Eq. 37, after Abnar et al. (2025): ``L(N, D, S) = a/N^α + b/D^β + c/(1−S)^λ
  + d/((1−S)^δ·N^γ) + e`` with S the sparsity (fraction of inactive experts), constants of
  Table 7.

The fitted constants make both laws nearly blind to their MoE factor: Table 6's ``g = 0.0004``
and ``γ = 0.0028`` add a G-independent 0.0004 to ``a``; Table 7's ``γ = 14.06`` sends the
coupling term to zero for any N above a few parameters and ``c = 0.0003`` leaves a sparsity
penalty of at most ~0.01 for S ≤ 0.9. Both reduce to a Chinchilla law in practice.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping

import numpy as np

from moelaws.comprehensive._domain import merge, unit_interval
from moelaws.comprehensive.law import read_constants
from moelaws.validation import positive

Array = np.ndarray


@functools.cache
def _table(name: str) -> dict[str, float]:
    return read_constants(name)


def loss_krajewski(
    N: Array | float,
    D: Array | float,
    G: Array | float,
    params: Mapping[str, float] | None = None,
) -> Array:
    """Eq. 36 with Table 6's constants: ``c + (g/G^γ + a)/N^α + b/D^β``.

    Parameters
    ----------
    N
        Model size. App. I.1 says activated parameters; Table 6's constants fit the total
        size (see the module docstring), which is what the chapter uses.
    D
        Training tokens.
    G
        Granularity, positive.
    params
        Overrides of Table 6's constants (``a, alpha, b, beta, c, g, gamma``).

    Raises
    ------
    ValueError
        For non-positive inputs or unknown constants.
    """
    p = merge(_table("table6"), params)
    N = positive("N", N)
    D = positive("D", D)
    G = positive("G", G)
    return p["c"] + (p["g"] * G ** -p["gamma"] + p["a"]) * N ** -p["alpha"] + p[
        "b"
    ] * D ** -p["beta"]


def loss_abnar(
    N: Array | float,
    D: Array | float,
    sparsity: Array | float,
    params: Mapping[str, float] | None = None,
) -> Array:
    """Eq. 37 with Table 7's constants:
    ``a/N^α + b/D^β + c/(1−S)^λ + d/((1−S)^δ·N^γ) + e``.

    Parameters
    ----------
    N
        Total parameters.
    D
        Training tokens.
    sparsity
        Fraction of inactive experts, in [0, 1).
    params
        Overrides of Table 7's constants (``a, alpha, b, beta, e, c, d, lambda, delta,
        gamma``).

    Raises
    ------
    ValueError
        For non-positive N or D, sparsity outside [0, 1), or unknown constants.
    """
    p = merge(_table("table7"), params)
    N = positive("N", N)
    D = positive("D", D)
    s = unit_interval("sparsity", sparsity)
    if np.any(s >= 1):
        raise ValueError("sparsity must be below 1 (some experts must be active)")
    dense = 1 - s
    return (
        p["a"] * N ** -p["alpha"] + p["b"] * D ** -p["beta"] + p["c"] * dense ** -p["lambda"]
        + p["d"] * dense ** -p["delta"] * N ** -p["gamma"] + p["e"]
    )
