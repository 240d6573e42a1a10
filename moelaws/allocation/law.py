"""The allocation law r*(C, S) = α_r(S)·C^β_r(S) (Eq. 1 with the Section 3.3 coefficient laws).

Li et al. (2026), *Optimal Expert-Attention Allocation in Mixture-of-Experts*, define the
expert-attention FLOPs ratio ``r = C_E / C_A`` (expert over attention FLOPs per token) and the
sparsity ``S = (E − E_act) / E`` (the fraction of inactive experts, shared experts counted in
both ``E`` and ``E_act``). Section 3.3 fits

    α_r(S) = 6.7e-5 · (1 − S)^(−1.23),     β_r(S) = 0.24 · (1 − S)^0.21,

and Eq. 1 gives the loss-minimising ratio ``r* = α_r · C^β_r``. The text calls ``C`` both the
"total per-token compute" and the "total training compute"; the chapter settles it from the
numbers (only training FLOPs put r* inside the swept range [0.2, 1.5]).
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from moelaws.allocation._domain import Array, check_compute, check_ratio, check_sparsity
from moelaws.validation import finite, warn_if_far_outside

ALPHA_R_COEF = 6.7e-5
"""Section 3.3: α_r = 6.7e-5 · (1 − S)^(−1.23)."""
ALPHA_R_EXP = -1.23
BETA_R_COEF = 0.24
"""Section 3.3: β_r = 0.24 · (1 − S)^0.21."""
BETA_R_EXP = 0.21

EXPERT_COUNTS: tuple[int, ...] = (17, 33, 65, 129)
"""App. B.1: experts per MoE layer, shared expert included."""
ACTIVE_EXPERTS = 3
"""App. B.1: experts active per token (1 shared + 2 routed)."""
SWEPT_RATIOS: tuple[float, float] = (0.2, 1.5)
"""App. B.1: the range of r swept at fixed per-token compute."""


FITTED_RANGES: dict[str, tuple[float, float]] = {"C": (1e18, 1e21)}
"""The range of each law input the paper fitted, from the text: budgets up to 1e21 training FLOPs.

A law evaluated more than :data:`moelaws.validation.FAR_OUTSIDE_DECADES` decades outside
it warns; a test keeps it equal to the adapter's ``fitted_ranges``."""


def sparsity_from_experts(n_experts: Array, n_active: Array = ACTIVE_EXPERTS) -> Array:
    """Sparsity ``S = (E − E_act) / E`` (Section 2.1, App. B.1).

    Parameters
    ----------
    n_experts
        Experts per MoE layer ``E``, shared experts included.
    n_active
        Experts active per token ``E_act``, shared experts included (3 in the paper).

    Returns
    -------
    numpy.ndarray
        ``S`` in [0, 1); 14/17 = 0.8235 for the paper's smallest expert count.

    Raises
    ------
    ValueError
        If ``n_active`` is not positive or exceeds ``n_experts``.
    """
    e = finite("n_experts", n_experts)
    a = finite("n_active", n_active)
    if np.any(a <= 0) or np.any(a > e):
        raise ValueError("need 0 < n_active <= n_experts (shared experts counted in both)")
    return (e - a) / e


def alpha_r(S: Array) -> Array:
    """Coefficient of the allocation law, ``α_r = 6.7e-5 · (1 − S)^(−1.23)`` (Section 3.3).

    Raises
    ------
    ValueError
        If ``S`` is outside [0, 1).
    """
    s = check_sparsity(S)
    return ALPHA_R_COEF * (1.0 - s) ** ALPHA_R_EXP


def beta_r(S: Array) -> Array:
    """Exponent of the allocation law, ``β_r = 0.24 · (1 − S)^0.21`` (Section 3.3).

    Raises
    ------
    ValueError
        If ``S`` is outside [0, 1).
    """
    s = check_sparsity(S)
    return BETA_R_COEF * (1.0 - s) ** BETA_R_EXP


def optimal_ratio(C: Array, S: Array) -> Array:
    """Loss-minimising expert/attention FLOPs ratio ``r* = α_r(S) · C^β_r(S)`` (Eq. 1).

    Parameters
    ----------
    C
        Compute in FLOPs (training FLOPs: the reading under which the law's predictions fall
        in the paper's swept range).
    S
        Sparsity in [0, 1).

    Returns
    -------
    numpy.ndarray
        ``r*``, broadcast over ``C`` and ``S``.

    Raises
    ------
    ValueError
        If ``C`` is not finite and positive or ``S`` is outside [0, 1).

    Warns
    -----
    ExtrapolationWarning
        For a compute far (a million times) outside the 1e18-1e21 FLOPs the paper swept.
    """
    c = check_compute(C)
    warn_if_far_outside("allocation", "C", c, FITTED_RANGES["C"])
    return alpha_r(S) * c ** beta_r(S)


def compute_for_ratio(r: Array, S: Array) -> Array:
    """Compute at which Eq. 1 predicts ``r* = r``: ``C = (r / α_r)^(1/β_r)``.

    Raises
    ------
    ValueError
        If ``r`` is not finite and positive or ``S`` is outside [0, 1).
    """
    ratio = check_ratio(r, allow_zero=False)
    return (ratio / alpha_r(S)) ** (1.0 / beta_r(S))


def crossover_compute(S1: Array, S2: Array) -> Array:
    """Compute at which Eq. 1 gives two sparsities the same ``r*``.

    Below it the sparser model has the larger ``r*`` (when ``S2 > S1``), above it the denser one.

    Raises
    ------
    ValueError
        If a sparsity is outside [0, 1) or the two are equal.
    """
    b1, b2 = beta_r(S1), beta_r(S2)
    if np.any(np.asarray(b1) == np.asarray(b2)):
        raise ValueError("the two sparsities must differ")
    return np.exp((np.log(alpha_r(S2)) - np.log(alpha_r(S1))) / (b1 - b2))


def expert_fraction(r: Array) -> Array:
    """Share of the attention-plus-expert FLOPs spent in the experts, ``r / (1 + r)``.

    Raises
    ------
    ValueError
        If ``r`` is negative or not finite.
    """
    ratio = check_ratio(r)
    return ratio / (1.0 + ratio)


def ratio_from_fraction(f: Array) -> Array:
    """Inverse of :func:`expert_fraction`: ``r = f / (1 − f)`` for an expert share ``f``.

    Raises
    ------
    ValueError
        If ``f`` is outside [0, 1).
    """
    frac = finite("f", f)
    if np.any((frac < 0) | (frac >= 1)):
        raise ValueError("the expert FLOPs fraction f must lie in [0, 1)")
    return frac / (1.0 - frac)


def least_ratio_sparsity(C: Array) -> np.ndarray:
    """Sparsity at which Eq. 1's ``r*`` is smallest at compute ``C`` (Section 3.3 laws).

    With ``u = ln(1 − S)``, ``ln r* = ln 6.7e-5 − 1.23·u + 0.24·e^(0.21·u)·ln C``, so
    ``∂ln r*/∂u = −1.23 + 0.0504·e^(0.21·u)·ln C`` and the minimum sits at
    ``1 − S_min = (1.23 / (0.24·0.21·ln C))^(1/0.21)``. A result ≤ 0 means no minimum in
    [0, 1): below :func:`least_ratio_threshold` the derivative is negative for every ``S``,
    so ``r*`` *rises* with ``S`` everywhere; above ``S_min`` it also rises with ``S``.

    Raises
    ------
    ValueError
        If ``C`` is not finite or not above 1 FLOP.
    """
    log_c = np.log(check_compute(C))
    if np.any(log_c <= 0):
        raise ValueError("the least-ratio sparsity needs C > 1 FLOP")
    return 1.0 - (-ALPHA_R_EXP / (BETA_R_COEF * BETA_R_EXP * log_c)) ** (1.0 / BETA_R_EXP)


def least_ratio_threshold() -> float:
    """Compute below which Eq. 1's ``r*`` has no interior minimum in ``S`` (Section 3.3 laws).

    ``exp(1.23 / (0.24·0.21))``: below it ``r*`` rises monotonically with ``S``.
    """
    return float(np.exp(-ALPHA_R_EXP / (BETA_R_COEF * BETA_R_EXP)))


def rounding_draws(n: int = 20000, seed: int = 0) -> dict[str, np.ndarray]:
    """Section 3.3's four coefficients drawn uniformly within their printed rounding.

    6.7e-5 ± 0.05e-5, −1.23 ± 0.005, 0.24 ± 0.005 and 0.21 ± 0.005 (half a unit in the last
    printed digit), for propagating the printed precision into :func:`optimal_ratio_draws`.
    """
    # the guard accepts a whole float such as -0.0 or 1e308; the generator wants an int
    rng = np.random.default_rng(int(seed))
    printed = {
        "alpha_coef": (ALPHA_R_COEF, 0.05e-5), "alpha_exp": (ALPHA_R_EXP, 0.005),
        "beta_coef": (BETA_R_COEF, 0.005), "beta_exp": (BETA_R_EXP, 0.005),
    }
    return {k: rng.uniform(v - h, v + h, n) for k, (v, h) in printed.items()}


_DRAW_KEYS = ("alpha_coef", "alpha_exp", "beta_coef", "beta_exp")


def _check_draws(draws: object) -> None:
    """``draws`` as :func:`rounding_draws` returns it, or a ``TypeError``/``ValueError``
    naming it."""
    if not isinstance(draws, Mapping):
        raise TypeError(f"draws must be a dict of coefficient draws (rounding_draws), not "
                        f"{type(draws).__name__}")
    missing = [k for k in _DRAW_KEYS if k not in draws]
    if missing:
        raise ValueError(f"draws lacks {missing}; expected the keys of rounding_draws: "
                         f"{list(_DRAW_KEYS)}")
    for k in _DRAW_KEYS:
        if np.size(finite(f"draws[{k!r}]", draws[k])) == 0:
            raise ValueError(f"draws[{k!r}] is empty")


def optimal_ratio_draws(C: float, S: float, draws: dict[str, np.ndarray]) -> np.ndarray:
    """Eq. 1's ``r*(C, S)`` for each set of coefficients in ``draws`` (:func:`rounding_draws`).

    Raises
    ------
    ValueError
        If ``C`` is not finite and positive, ``S`` is outside [0, 1), or ``draws`` is not
        as :func:`rounding_draws` returns it.
    """
    _check_draws(draws)
    one_minus = 1.0 - check_sparsity(S)
    c = check_compute(C)
    beta = draws["beta_coef"] * one_minus ** draws["beta_exp"]
    return draws["alpha_coef"] * one_minus ** draws["alpha_exp"] * c**beta


def crossover_compute_draws(S1: float, S2: float, draws: dict[str, np.ndarray]) -> np.ndarray:
    """:func:`crossover_compute` for each set of coefficients in ``draws``.

    Raises
    ------
    ValueError
        If a sparsity is outside [0, 1), the two are equal, or ``draws`` is not as
        :func:`rounding_draws` returns it.
    """
    _check_draws(draws)
    s1, s2 = 1.0 - check_sparsity(S1), 1.0 - check_sparsity(S2)
    if np.any(s1 == s2):
        raise ValueError("the two sparsities must differ")
    ln_alpha1, ln_alpha2 = (np.log(draws["alpha_coef"]) + draws["alpha_exp"] * np.log(s)
                            for s in (s1, s2))
    beta1, beta2 = (draws["beta_coef"] * s ** draws["beta_exp"] for s in (s1, s2))
    return np.exp((ln_alpha2 - ln_alpha1) / (beta1 - beta2))
