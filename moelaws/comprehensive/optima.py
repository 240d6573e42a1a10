"""Optima of the joint law: G and S (Eq. 12–13, App. D–E), their efficiency-aware ranges
(Table 3), the activated-parameter ratio N_a/N (Eq. 14/29, App. F, Algorithm 1) and the
compute-optimal loss at fixed total size (App. G, Eq. 30–33)."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
from scipy import optimize

from moelaws.comprehensive.law import constants, loss, size_factor, structure_factor
from moelaws.fit import fit_power_law
from moelaws.validation import positive

Array = np.ndarray


def optimal_G(params: Mapping[str, float] | None = None) -> float:
    """The loss-minimising number of activated experts, ``G_opt = √(f/e)`` (Eq. 12, Eq. 20).

    Independent of N, N_a, D and S because G enters Eq. 11 only through ``e·G + f/G``, which
    multiplies a positive size factor.

    Raises
    ------
    ValueError
        If ``e`` or ``f`` is not positive (then ``e·G + f/G`` has no interior minimum).
    """
    p = constants(params)
    if p["e"] <= 0 or p["f"] <= 0:
        raise ValueError("G has an interior optimum only for e > 0 and f > 0")
    return float(np.sqrt(p["f"] / p["e"]))


def optimal_S(params: Mapping[str, float] | None = None) -> float:
    """The loss-minimising shared ratio, ``S_opt = −n/(2m)`` (Eq. 13, Eq. 22).

    Raises
    ------
    ValueError
        If ``m`` is not positive (the quadratic in S then has no minimum).
    """
    p = constants(params)
    if p["m"] <= 0:
        raise ValueError("S has a minimum only for m > 0")
    return float(-p["n"] / (2 * p["m"]))


def structure_cost(
    N: Array | float,
    Na: Array | float,
    G: Array | float,
    S: Array | float,
    params: Mapping[str, float] | None = None,
) -> dict[str, Array]:
    """What G and S contribute to Eq. 11's loss at given sizes, in nats.

    Eq. 11's only G- and S-dependent term is ``A(G, S)·φ(N, N_a)``. Returns ``term`` (that whole
    term) and ``excess``, ``(A(G, S) − A(G_opt, S_opt))·φ``: what the chosen G and S cost over
    the optimum (Eq. 12–13), the part a choice of G and S can change.

    Raises
    ------
    ValueError
        For non-positive sizes, ``N_a > N``, non-positive G or S outside [0, 1].
    """
    p = constants(params)
    phi = size_factor(N, Na, p)
    best = structure_factor(optimal_G(p), optimal_S(p), p)
    A = structure_factor(G, S, p)
    return {"term": A * phi, "excess": (A - best) * phi}


def _inward(low: Array, high: Array, resolution: float | None) -> tuple[Array, Array]:
    if resolution is None:
        return low, high
    if not resolution > 0:
        raise ValueError("resolution must be positive")
    # A tiny slack keeps a bound that lies on the grid (up to rounding) on the grid.
    lo = np.ceil(low / resolution - 1e-9) * resolution
    hi = np.floor(high / resolution + 1e-9) * resolution
    return np.round(lo, 12), np.round(hi, 12)


def _threshold(threshold: float) -> float:
    if not np.isfinite(threshold) or threshold <= 0:
        raise ValueError("threshold must be finite and positive")
    return float(threshold)


def practical_G_range(
    N: Array | float,
    Na: Array | float,
    threshold: float = 1e-3,
    params: Mapping[str, float] | None = None,
    resolution: float | None = None,
) -> tuple[Array, Array]:
    """The efficiency-aware range of G: all G whose loss is within ``threshold`` of the loss
    at ``G_opt`` (Table 3, App. D).

    The excess loss is ``(e·G + f/G − 2√(ef))·φ(N, N_a)``, so the range is the pair of roots
    of ``e·G² − (2√(ef) + threshold/φ)·G + f = 0``. It widens as φ shrinks, i.e. with larger
    models, and does not depend on D or S.

    Parameters
    ----------
    N, Na
        Total and activated parameters (raw counts), broadcast.
    threshold
        Tolerated loss excess (0.001 in Table 3).
    params
        Overrides of Table 2's constants.
    resolution
        If given, the ends are moved inward to a grid of this spacing (the extreme grid
        points inside the range). Table 3's printed ends are exactly those of a 0.01 grid.

    Returns
    -------
    (low, high)
        Arrays of the range's ends.

    Raises
    ------
    ValueError
        For invalid sizes, a non-positive threshold or resolution.
    """
    p = constants(params)
    threshold = _threshold(threshold)
    phi = size_factor(N, Na, p)
    width = 2 * np.sqrt(p["e"] * p["f"]) + threshold / phi
    root = np.sqrt(width**2 - 4 * p["e"] * p["f"])
    low, high = (width - root) / (2 * p["e"]), (width + root) / (2 * p["e"])
    return _inward(low, high, resolution)


def practical_S_range(
    N: Array | float,
    Na: Array | float,
    threshold: float = 1e-3,
    params: Mapping[str, float] | None = None,
    resolution: float | None = None,
) -> tuple[Array, Array]:
    """The efficiency-aware range of S: all S in [0, 1] within ``threshold`` of the loss at
    ``S_opt`` (Table 3, App. E).

    The excess loss is ``m·(S − S_opt)²·φ(N, N_a)``, so the range is
    ``S_opt ± √(threshold/(m·φ))``, clipped to [0, 1].

    Parameters
    ----------
    N, Na, threshold, params
        As in :func:`practical_G_range`.
    resolution
        If given, the ends are moved inward to a grid of this spacing; Table 3's printed ends
        are those of a 0.001 grid.

    Returns
    -------
    (low, high)
        Arrays of the range's ends.

    Raises
    ------
    ValueError
        For invalid sizes, a non-positive threshold or resolution.
    """
    p = constants(params)
    threshold = _threshold(threshold)
    phi = size_factor(N, Na, p)
    half = np.sqrt(threshold / (p["m"] * phi))
    s_opt = optimal_S(p)
    return _inward(np.clip(s_opt - half, 0, 1), np.clip(s_opt + half, 0, 1), resolution)


def _optimal_structure(
    G: Array | float | None, S: Array | float | None, p: Mapping[str, float]
) -> Array:
    G = optimal_G(p) if G is None else G
    S = optimal_S(p) if S is None else S
    return structure_factor(G, S, p)


def optimal_active_ratio(
    N: Array | float,
    G: Array | float | None = None,
    S: Array | float | None = None,
    params: Mapping[str, float] | None = None,
) -> Array:
    """The theoretically optimal activated ratio ``(N_a/N)_opt_t`` (Eq. 14 = Eq. 29).

    ``r = (α·(k·A + c) / (h·N^α·A))^(1/(α+1))`` with ``A = e·G + f/G + m·S² + n·S``: the
    minimum over N_a at fixed N of Eq. 11, where ``c/N_a^α`` and ``k·A/N_a^α`` pull N_a up and
    ``h·A·N_a/N`` pulls it down. Decreases with N as ``N^(−α/(α+1))``.

    Parameters
    ----------
    N
        Total parameters (raw count).
    G, S
        Activated experts and shared ratio; default the optima :func:`optimal_G` and
        :func:`optimal_S`. Table 4 uses the rounded optima G = 7, S = 0.31.
    params
        Overrides of Table 2's constants.

    Returns
    -------
    numpy.ndarray
        The optimal N_a/N. Values above 1 mean the law prefers a dense model at that N.

    Raises
    ------
    ValueError
        For non-positive N or G, or S outside [0, 1].
    """
    p = constants(params)
    N = positive("N", N)
    return _active_ratio_formula(N, _optimal_structure(G, S, p), p)


def _active_ratio_formula(N: Array, A: Array, p: Mapping[str, Array | float]) -> Array:
    """:func:`optimal_active_ratio` at structure factor ``A`` without its checks, for
    constants that are arrays (one set per row, as in ``law._structure_formula``)."""
    return (p["alpha"] * (p["k"] * A + p["c"]) / (p["h"] * N ** p["alpha"] * A)) ** (
        1 / (p["alpha"] + 1)
    )


def efficiency_aware_active_ratio(
    N: Array | float,
    threshold: float,
    G: Array | float | None = None,
    S: Array | float | None = None,
    params: Mapping[str, float] | None = None,
    step: float = 0.01,
) -> Array:
    """The efficiency-aware optimal ratio ``(N_a/N)_opt_e`` of App. F, Algorithm 1.

    Starting at ``N_a = step·N``, N_a grows by ``step·N`` until one step lowers the loss by
    less than ``threshold``; the N_a reached by that step is returned (as a ratio to N). The
    data size cancels from the loss differences, so D plays no role.

    Parameters
    ----------
    N
        Total parameters (raw count).
    threshold
        Loss gain threshold ΔLoss (Table 4 uses 0.001 and 0.005).
    G, S
        Default to the optima, as in :func:`optimal_active_ratio`.
    params
        Overrides of Table 2's constants.
    step
        Step of N_a as a fraction of N (0.01 in the paper).

    Returns
    -------
    numpy.ndarray
        The ratio, a multiple of ``step``; NaN where no step up to ``N_a = N`` falls below the
        threshold (Algorithm 1 returns None).

    Raises
    ------
    ValueError
        For non-positive N, threshold, or a step outside (0, 0.5].
    """
    p = constants(params)
    threshold = _threshold(threshold)
    if not 0 < step <= 0.5:
        raise ValueError("step must lie in (0, 0.5]")
    N = positive("N", N)
    A = _optimal_structure(G, S, p)
    n_steps = int(np.floor(1 / step + 1e-9))
    ratios = step * np.arange(1, n_steps + 1)
    N_b, A_b = np.broadcast_arrays(N, A)
    Na = N_b[..., None] * ratios
    # The D term is common to every step and cancels from the differences.
    losses = (
        A_b[..., None] * (N_b[..., None] ** -p["alpha"] + p["k"] * Na ** -p["alpha"]
                          + p["h"] * ratios)
        + p["c"] * Na ** -p["alpha"]
    )
    below = (losses[..., :-1] - losses[..., 1:]) < threshold
    found = below.any(axis=-1)
    first = np.argmax(below, axis=-1)
    return np.where(found, ratios[first + 1], np.nan)


def _compute_terms(
    N: Array, G: Array | float | None, S: Array | float | None, p: Mapping[str, float]
) -> tuple[Array, Array, Array]:
    A = _optimal_structure(G, S, p)
    K = A * p["k"] + p["c"]
    C0 = (A + p["a"]) * N ** -p["alpha"] + p["eps"]
    return A, K, C0


def compute_optimal_active(
    C: Array | float,
    N: Array | float,
    G: Array | float | None = None,
    S: Array | float | None = None,
    params: Mapping[str, float] | None = None,
) -> Array:
    """The loss-minimising activated size N_a* at compute ``C = D·N_a`` and fixed N (App. G,
    Eq. 31).

    With ``D = C/N_a`` Eq. 11 becomes Eq. 30,
    ``L(N_a) = C0 + K/N_a^α + A·h·N_a/N + b·N_a^β/C^β`` with ``K = A·k + c``. Its derivative
    in ``log N_a`` is a sum of increasing terms, so the optimum is unique; it is the root of
    that derivative in ``log N_a`` (:func:`scipy.optimize.brentq`), capped at ``N_a = N``.

    Parameters
    ----------
    C
        Compute ``D·N_a`` (parameter-tokens, not FLOPs).
    N
        Total parameters, broadcast against C.
    G, S, params
        As in :func:`optimal_active_ratio`.

    Raises
    ------
    ValueError
        For non-positive C or N, or invalid G, S.
    """
    p = constants(params)
    C = positive("C", C)
    N = positive("N", N)
    A, K, _ = _compute_terms(N, G, S, p)
    alpha, beta, b = p["alpha"], p["beta"], p["b"]
    C, N, A, K = np.broadcast_arrays(C, N, A, K)
    # The h → 0 optimum bounds the true one from above (the h term only adds slope).
    u_hi = np.log((alpha * K / (beta * b)) ** (1 / (alpha + beta)) * C ** (beta / (alpha + beta)))
    u_lo = u_hi - 60.0

    def slope(u: float, K: float, A: float, N: float, C: float) -> float:
        x = np.exp(u)
        return -alpha * K * x**-alpha + A * p["h"] * x / N + beta * b * x**beta * C**-beta

    def root(lo: float, hi: float, *args: float) -> float:
        # The slope increases in u; a bracket without a sign change means the optimum sits
        # at (or beyond) that end.
        if slope(lo, *args) >= 0:
            return lo
        if slope(hi, *args) <= 0:
            return hi
        return optimize.brentq(slope, lo, hi, args=args, xtol=1e-13, rtol=4 * np.finfo(float).eps)

    u = np.vectorize(root, otypes=[float])(u_lo, u_hi, K, A, N, C)
    return np.minimum(np.exp(u), N)


def compute_optimal_loss(
    C: Array | float,
    N: Array | float,
    G: Array | float | None = None,
    S: Array | float | None = None,
    params: Mapping[str, float] | None = None,
) -> Array:
    """The compute-optimal loss ``L*(C)`` at fixed N, G, S (App. G, Eq. 30–32).

    Eq. 11 evaluated at ``N_a = N_a*`` (:func:`compute_optimal_active`) and ``D = C/N_a*``.
    Equivalent to Eq. 32 once its two printed typos are corrected (the exponents of
    ``N_a*`` in Eq. 31–32 should be ``−α−1`` and ``−α``, not ``α−1`` and ``α``).

    Parameters
    ----------
    C, N, G, S, params
        As in :func:`compute_optimal_active`. G and S default to the optima.

    Raises
    ------
    ValueError
        For non-positive C or N, or invalid G, S.
    """
    p = constants(params)
    Na = compute_optimal_active(C, N, G, S, p)
    G = optimal_G(p) if G is None else G
    S = optimal_S(p) if S is None else S
    return loss(N, np.asarray(C, dtype=float) / Na, Na, G, S, p)


def compute_optimal_loss_eq32(
    C: Array | float,
    N: Array | float,
    G: Array | float | None = None,
    S: Array | float | None = None,
    params: Mapping[str, float] | None = None,
) -> Array:
    """Eq. 32 with corrected exponents:
    ``L* = C0 + K·(α+β)/β·N_a*^−α + A·h·(β−1)/(N·β)·N_a*``, ``C0 = (A + a)/N^α + ε``.

    Agrees with :func:`compute_optimal_loss` wherever ``N_a* < N`` (Eq. 31 holds there).

    Raises
    ------
    ValueError
        For non-positive C or N, or invalid G, S.
    """
    p = constants(params)
    N_arr = positive("N", N)
    Na = compute_optimal_active(C, N_arr, G, S, p)
    A, K, C0 = _compute_terms(N_arr, G, S, p)
    alpha, beta = p["alpha"], p["beta"]
    return C0 + K * (alpha + beta) / beta * Na**-alpha + A * p["h"] * (beta - 1) / (
        N_arr * beta
    ) * Na


def compute_optimal_asymptote(
    N: float,
    G: float | None = None,
    S: float | None = None,
    params: Mapping[str, float] | None = None,
) -> dict[str, float]:
    """The small-N_a/N limit of L*(C): ``C0 + coef·C^(−exponent)`` in closed form.

    Dropping the ``h·N_a/N`` term of Eq. 30 leaves a Chinchilla-like trade-off between
    ``K/N_a^α`` and ``b·N_a^β/C^β``, whose minimum is exactly a power law:
    ``exponent = αβ/(α+β)``, ``coef = K·(α+β)/β · (αK/(βb))^(−α/(α+β))``.

    Returns
    -------
    dict
        ``offset`` (C0), ``coef`` and ``exponent``.

    Raises
    ------
    ValueError
        For non-positive N or invalid G, S.
    """
    p = constants(params)
    N_arr = positive("N", N)
    _, K, C0 = _compute_terms(N_arr, G, S, p)
    alpha, beta, b = p["alpha"], p["beta"], p["b"]
    coef = K * (alpha + beta) / beta * (alpha * K / (beta * b)) ** (-alpha / (alpha + beta))
    return {
        "offset": float(C0), "coef": float(coef), "exponent": alpha * beta / (alpha + beta),
    }


def fit_compute_optimal_power_law(
    C_min: float,
    C_max: float,
    N: float = 1e12,
    G: float | None = 7.0,
    S: float | None = 0.31,
    params: Mapping[str, float] | None = None,
    n_points: int = 41,
    free_offset: bool = True,
) -> dict[str, float]:
    """Fit ``L*(C) ≈ E + coef·C^(−exponent)`` to the numerically derived L*(C) on
    ``n_points`` log-spaced budgets in ``[C_min, C_max]`` (the form of Eq. 33).

    Parameters
    ----------
    C_min, C_max
        The compute range fitted (``C = D·N_a``).
    N, G, S
        Eq. 33's configuration by default: N = 1T, G = 7, S = 0.31.
    params
        Overrides of Table 2's constants.
    n_points
        Budgets in the range (at least 3).
    free_offset
        ``True``: E, coef and exponent by least squares on ``log L*``; ``False``: E fixed at
        ``C0`` (Eq. 30) and ``log(L* − C0)`` fitted linearly in ``log C``. Both are
        :func:`moelaws.fit.fit_power_law`.

    Returns
    -------
    dict
        ``offset``, ``coef``, ``exponent`` and ``max_active_ratio`` (N_a*/N at ``C_max``, how
        far the range reaches into the regime where the ``h·N_a/N`` term bends L*).

    Raises
    ------
    ValueError
        For a non-positive or empty range, or fewer than 3 points.
    """
    if not (np.isfinite(C_min) and np.isfinite(C_max)) or C_min <= 0 or C_max <= C_min:
        raise ValueError("need 0 < C_min < C_max")
    if n_points < 3:
        raise ValueError("n_points must be at least 3")
    p = constants(params)
    Cs = np.logspace(np.log10(C_min), np.log10(C_max), n_points)
    Ls = compute_optimal_loss(Cs, N, G, S, p)
    asym = compute_optimal_asymptote(N, G, S, p)
    ratio = float(compute_optimal_active(C_max, N, G, S, p) / N)
    fitted = fit_power_law(Cs, Ls, offset=asym["offset"], free_offset=free_offset)
    return {"offset": fitted.offset, "coef": fitted.coef, "exponent": -fitted.exponent,
            "max_active_ratio": ratio}
