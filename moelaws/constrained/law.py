"""Parameter counts and the fitted loss law of the memory/inference-constrained paper.

Liew, Shinzato and Dong count an MoE with ``l`` layers of width ``d`` (multi-head attention,
``4·d²`` weights per layer) and ``n_exp`` SwiGLU experts of width ``d_exp = d/g``
(``3·d·d_exp`` weights each), ``n_topk`` of them active (Eq. 1-2). Their fitted law (Eq. 3)
relates the loss at a fixed token budget to ``N_total``, ``n_exp`` and ``n_topk``; Eq. 4
rewrites it with the sparsity ``s = n_exp / n_topk``.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
from numpy.typing import ArrayLike, NDArray

from moelaws.validation import finite, positive

Array = NDArray[np.float64]

EXPONENTS: dict[str, float] = {"N_total": -0.052, "n_exp": 0.023, "n_topk": -0.018}
"""Exponents of Eq. 3, ``L ∝ N_total^-0.052 · n_exp^0.023 · n_topk^-0.018``, as printed."""

EQ4_EXPONENTS: dict[str, float] = {"N_total": -0.052, "s": 0.018, "n_exp": 0.005}
"""Exponents of Eq. 4, ``L ∝ N_total^-0.052 · s^0.018 · n_exp^0.005``, as printed."""

ATTENTION_WEIGHTS = 4.0
"""Attention weights per layer in units of ``d²`` (query, key, value, output; Eq. 1-2)."""

EXPERT_MATRICES = 3.0
"""Weight matrices per SwiGLU expert (gate, up, down), each ``d × d/g`` (Eq. 1-2)."""


FITTED_RANGES: dict[str, tuple[float, float]] = {"N_total": (1.3934592e7, 3.288334336e9)}
"""The range of each law input the paper fitted, from Table 4's cores with App. C.1's expert counts.

A law evaluated more than :data:`moelaws.validation.FAR_OUTSIDE_DECADES` decades outside
it warns; a test keeps it equal to the adapter's ``fitted_ranges``."""


def _at_least_one(name: str, x: ArrayLike) -> Array:
    arr = finite(name, x)
    if np.any(arr < 1):
        raise ValueError(f"{name} must be at least 1, got {x!r}")
    return arr


def _per_layer(experts: Array, g: Array) -> Array:
    return ATTENTION_WEIGHTS + EXPERT_MATRICES * experts / g


def total_params(
    l: ArrayLike,  # noqa: E741 (the paper's symbol for depth)
    d: ArrayLike,
    n_exp: ArrayLike,
    g: ArrayLike = 4.0,
) -> Array:
    """Non-embedding total parameters, Eq. 1: ``N_total ≈ l·d²·(4 + 3·n_exp/g)``.

    Parameters
    ----------
    l, d
        Number of layers and hidden size (positive).
    n_exp
        Number of experts per layer (at least 1).
    g
        Granularity ``d / d_exp`` (positive); the paper's experiments use 4.

    Returns
    -------
    numpy.ndarray
        ``N_total``, broadcast over the inputs.

    Raises
    ------
    ValueError
        If an input is not finite, ``l``, ``d`` or ``g`` is not positive, or ``n_exp < 1``.
    """
    l_, d_, g_ = positive("l", l), positive("d", d), positive("g", g)
    n = _at_least_one("n_exp", n_exp)
    return l_ * d_**2 * _per_layer(n, g_)


def active_params(
    l: ArrayLike,  # noqa: E741 (the paper's symbol for depth)
    d: ArrayLike,
    n_topk: ArrayLike,
    g: ArrayLike = 4.0,
) -> Array:
    """Non-embedding active parameters per token, Eq. 2: ``l·d²·(4 + 3·n_topk/g)``.

    Parameters
    ----------
    l, d
        Number of layers and hidden size (positive).
    n_topk
        Number of experts each token is routed to (at least 1).
    g
        Granularity ``d / d_exp`` (positive).

    Returns
    -------
    numpy.ndarray
        ``N_active``, broadcast over the inputs.

    Raises
    ------
    ValueError
        If an input is not finite, ``l``, ``d`` or ``g`` is not positive, or ``n_topk < 1``.
    """
    l_, d_, g_ = positive("l", l), positive("d", d), positive("g", g)
    k = _at_least_one("n_topk", n_topk)
    return l_ * d_**2 * _per_layer(k, g_)


def _check_experts(n_exp: Array, n_topk: Array) -> None:
    if np.any(n_topk > n_exp):
        raise ValueError("n_topk must not exceed n_exp (a token cannot use more experts than "
                         "exist)")


def relative_loss(
    N_total: ArrayLike,
    n_exp: ArrayLike,
    n_topk: ArrayLike,
    exponents: Mapping[str, float] = EXPONENTS,
) -> Array:
    """The fitted law of Eq. 3, up to its (unpublished) constant factor.

    ``L ∝ N_total^-0.052 · n_exp^0.023 · n_topk^-0.018`` for models trained on a fixed 9B-token
    budget (Sec. 3.1). Only ratios of its values are meaningful.

    Parameters
    ----------
    N_total
        Non-embedding total parameters (positive).
    n_exp, n_topk
        Experts per layer and active experts per token, ``1 ≤ n_topk ≤ n_exp``.
    exponents
        Keys ``N_total``, ``n_exp``, ``n_topk``; Eq. 3's printed values by default.

    Returns
    -------
    numpy.ndarray
        ``N_total^a · n_exp^b · n_topk^c``, broadcast over the inputs.

    Raises
    ------
    ValueError
        If ``N_total`` is not positive, an expert count is below 1, or ``n_topk > n_exp``.
    """
    n_total = positive("N_total", N_total)
    n = _at_least_one("n_exp", n_exp)
    k = _at_least_one("n_topk", n_topk)
    _check_experts(n, k)
    return (
        n_total ** exponents["N_total"] * n ** exponents["n_exp"] * k ** exponents["n_topk"]
    )


def relative_loss_sparsity(
    N_total: ArrayLike,
    s: ArrayLike,
    n_exp: ArrayLike,
    exponents: Mapping[str, float] = EQ4_EXPONENTS,
) -> Array:
    """The fitted law in its sparsity form, Eq. 4: ``L ∝ N_total^-0.052 · s^0.018 · n_exp^0.005``.

    With ``s = n_exp / n_topk`` this equals :func:`relative_loss` when the exponents satisfy
    ``s: -c`` and ``n_exp: b + c`` for Eq. 3's ``n_exp^b · n_topk^c``.

    Parameters
    ----------
    N_total
        Non-embedding total parameters (positive).
    s
        Expert sparsity ``n_exp / n_topk`` (at least 1, at most ``n_exp``).
    n_exp
        Experts per layer (at least 1).
    exponents
        Keys ``N_total``, ``s``, ``n_exp``; Eq. 4's printed values by default.

    Returns
    -------
    numpy.ndarray
        ``N_total^a · s^b · n_exp^c``, broadcast over the inputs.

    Raises
    ------
    ValueError
        If ``N_total`` is not positive, ``s < 1``, ``n_exp < 1`` or ``s > n_exp``.
    """
    n_total = positive("N_total", N_total)
    s_ = _at_least_one("s", s)
    n = _at_least_one("n_exp", n_exp)
    if np.any(s_ > n):
        raise ValueError("s must not exceed n_exp (that would mean fewer than one active expert)")
    return n_total ** exponents["N_total"] * s_ ** exponents["s"] * n ** exponents["n_exp"]


def eq4_exponents(eq3: Mapping[str, float] = EXPONENTS) -> dict[str, float]:
    """Eq. 4's exponents implied by Eq. 3's: substitute ``n_topk = n_exp / s``.

    ``n_exp^b · n_topk^c = n_exp^(b+c) · s^(-c)``.

    Parameters
    ----------
    eq3
        Keys ``N_total``, ``n_exp``, ``n_topk``.

    Returns
    -------
    dict
        Keys ``N_total``, ``s``, ``n_exp``.
    """
    return {
        "N_total": eq3["N_total"],
        "s": -eq3["n_topk"],
        "n_exp": eq3["n_exp"] + eq3["n_topk"],
    }


def active_total_ratio(n_exp: ArrayLike, s: ArrayLike, g: ArrayLike = 4.0) -> Array:
    """``N_active / N_total`` at fixed sparsity, App. C.2: ``(4 + 3n/(g·s)) / (4 + 3n/g)``.

    Parameters
    ----------
    n_exp
        Experts per layer (at least 1).
    s
        Sparsity ``n_exp / n_topk`` (at least 1, at most ``n_exp``).
    g
        Granularity (positive).

    Returns
    -------
    numpy.ndarray
        The ratio, in ``(0, 1]``; it does not depend on ``l`` or ``d``.

    Raises
    ------
    ValueError
        If ``n_exp < 1``, ``s < 1``, ``s > n_exp`` or ``g`` is not positive.
    """
    n = _at_least_one("n_exp", n_exp)
    s_ = _at_least_one("s", s)
    g_ = positive("g", g)
    if np.any(s_ > n):
        raise ValueError("s must not exceed n_exp (that would mean fewer than one active expert)")
    return _per_layer(n / s_, g_) / _per_layer(n, g_)


def active_total_ratio_slope(n_exp: ArrayLike, s: ArrayLike, g: ArrayLike = 4.0) -> Array:
    """Analytic ``∂(N_active/N_total)/∂n_exp`` at fixed ``s`` and ``g`` (App. C.2).

    ``(3/g) · 4·(1/s − 1) / (4 + 3n/g)²``: negative for every ``s > 1``, zero for ``s = 1``.
    This is the "n_exp penalty": at a fixed memory budget more experts leave fewer active
    parameters.

    Parameters
    ----------
    n_exp, s, g
        As in :func:`active_total_ratio`.

    Returns
    -------
    numpy.ndarray
        The slope, broadcast over the inputs.

    Raises
    ------
    ValueError
        As :func:`active_total_ratio`.
    """
    active_total_ratio(n_exp, s, g)
    n, s_, g_ = np.asarray(n_exp, float), np.asarray(s, float), np.asarray(g, float)
    return (EXPERT_MATRICES / g_) * ATTENTION_WEIGHTS * (1 / s_ - 1) / _per_layer(n, g_) ** 2


def implied_granularity(
    N_total: ArrayLike, N_active: ArrayLike, n_exp: ArrayLike, n_topk: ArrayLike
) -> Array:
    """The granularity ``g`` at which Eq. 1-2 give the stated ``N_total / N_active``.

    Solves ``(4 + 3n/g) / (4 + 3k/g) = R`` for ``g``: ``g = 3(n − k·R) / (4(R − 1))``. Used to
    ask which granularity constant a printed pair of totals was computed with.

    Parameters
    ----------
    N_total, N_active
        Total and active parameters (positive, ``N_total > N_active``).
    n_exp, n_topk
        Expert counts, ``1 ≤ n_topk < n_exp``.

    Returns
    -------
    numpy.ndarray
        ``g``; positive when ``n_exp / n_topk > N_total / N_active``.

    Raises
    ------
    ValueError
        If the counts are out of domain or the ratio is not achievable with a positive ``g``.
    """
    total, active = positive("N_total", N_total), positive("N_active", N_active)
    n, k = _at_least_one("n_exp", n_exp), _at_least_one("n_topk", n_topk)
    _check_experts(n, k)
    ratio = total / active
    if np.any(ratio <= 1):
        raise ValueError("N_total must exceed N_active")
    g = EXPERT_MATRICES * (n - k * ratio) / (ATTENTION_WEIGHTS * (ratio - 1))
    if np.any(g <= 0):
        raise ValueError(
            "no positive granularity gives this ratio: N_total/N_active must be below "
            "n_exp/n_topk"
        )
    return g
