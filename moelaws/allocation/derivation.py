"""Appendix A: the capacity model (Eq. 3), its optimality condition, and the closed form Eq. 4.

With attention and expert compute ``C_A = C/(1 + r)`` and ``C_E = C·r/(1 + r)``, capacities
``A = C_A^μ_A`` and ``E = C_E^μ_E`` (μ in (0, 1)), Eq. 3 models the loss as

    L = α_A · A^(−γ_A) + α_E · E^(−γ_E).

Write ``a = γ_A·μ_A``, ``e = γ_E·μ_E`` and ``K = α_E·e / (α_A·a)``. Setting the two partial
derivatives equal (App. A.2) gives the optimality condition

    α_A·a / C_A^(a+1) = α_E·e / C_E^(e+1)   ⇔   r^(e+1) · (1 + r)^(a−e) = K · C^(a−e),

and the paper states its solution as Eq. 4, ``r* = α_r·C^β_r`` with
``α_r = K^(1/(a+e+1))`` and ``β_r = (e − a)/(a + e + 1)``. This module implements both, a
numerical solver of the condition (:func:`solve_optimality`), a direct minimiser of Eq. 3
(:func:`minimise_eq3`) and the exact local exponent ``d ln r*/d ln C`` so that the chapter
can compare them. The closed form does not solve the condition: see :func:`symbolic_check`.
"""

from __future__ import annotations

import numpy as np
from scipy import optimize

from moelaws.allocation._domain import Array, check_compute
from moelaws.validation import finite, positive

_PARAMS = ("alpha_A", "alpha_E", "gamma_A", "gamma_E", "mu_A", "mu_E")


def _capacity_params(
    alpha_A: Array, alpha_E: Array, gamma_A: Array, gamma_E: Array, mu_A: Array, mu_E: Array
) -> tuple[np.ndarray, ...]:
    values = dict(zip(_PARAMS, (alpha_A, alpha_E, gamma_A, gamma_E, mu_A, mu_E), strict=True))
    out = []
    for name, v in values.items():
        arr = positive(name, v)
        if name.startswith("mu") and np.any(arr >= 1):
            raise ValueError(f"{name} must lie in (0, 1) (App. A: sublinear capacity)")
        out.append(arr)
    return tuple(out)


def elasticities(
    gamma_A: Array, gamma_E: Array, mu_A: Array, mu_E: Array
) -> tuple[np.ndarray, np.ndarray]:
    """The loss elasticities ``a = γ_A·μ_A`` and ``e = γ_E·μ_E`` of App. A.

    Raises
    ------
    ValueError
        If a γ is not positive or a μ is outside (0, 1).
    """
    _, _, ga, ge, ma, me = _capacity_params(1.0, 1.0, gamma_A, gamma_E, mu_A, mu_E)
    return ga * ma, ge * me


def eq3_loss(
    C_A: Array, C_E: Array, *, alpha_A: Array, alpha_E: Array, gamma_A: Array,
    gamma_E: Array, mu_A: Array, mu_E: Array,
) -> np.ndarray:
    """Eq. 3: ``L = α_A·(C_A^μ_A)^(−γ_A) + α_E·(C_E^μ_E)^(−γ_E)``.

    Raises
    ------
    ValueError
        For non-positive compute or coefficients, or μ outside (0, 1).
    """
    aa, ae, ga, ge, ma, me = _capacity_params(alpha_A, alpha_E, gamma_A, gamma_E, mu_A, mu_E)
    ca = positive("C_A", C_A)
    ce = positive("C_E", C_E)
    return aa * ca ** (-ga * ma) + ae * ce ** (-ge * me)


def optimality_gap(
    r: Array, C: Array, *, alpha_A: Array, alpha_E: Array, gamma_A: Array, gamma_E: Array,
    mu_A: Array, mu_E: Array,
) -> np.ndarray:
    """``ln`` of (attention side / expert side) of the App. A.2 optimality condition.

    The condition ``α_A·a/C_A^(a+1) = α_E·e/C_E^(e+1)`` holds where this is 0; it is
    increasing in ``r``, positive when too much compute goes to the experts.

    Raises
    ------
    ValueError
        For non-positive ``r`` or ``C``, or invalid capacity parameters.
    """
    aa, ae, ga, ge, ma, me = _capacity_params(alpha_A, alpha_E, gamma_A, gamma_E, mu_A, mu_E)
    ratio = positive("r", r)
    c = check_compute(C)
    a, e = ga * ma, ge * me
    c_a = c / (1.0 + ratio)
    c_e = c * ratio / (1.0 + ratio)
    return (np.log(aa * a) - (a + 1) * np.log(c_a)) - (np.log(ae * e) - (e + 1) * np.log(c_e))


def eq4_coefficients(
    *, alpha_A: Array, alpha_E: Array, gamma_A: Array, gamma_E: Array, mu_A: Array, mu_E: Array
) -> tuple[np.ndarray, np.ndarray]:
    """Eq. 4 as printed: ``α_r = K^(1/(a+e+1))``, ``β_r = (e − a)/(a + e + 1)``.

    ``K = α_E·e/(α_A·a)``, ``a = γ_A·μ_A``, ``e = γ_E·μ_E``.

    Raises
    ------
    ValueError
        For invalid capacity parameters.
    """
    aa, ae, ga, ge, ma, me = _capacity_params(alpha_A, alpha_E, gamma_A, gamma_E, mu_A, mu_E)
    a, e = ga * ma, ge * me
    k = ae * e / (aa * a)
    return k ** (1.0 / (a + e + 1.0)), (e - a) / (a + e + 1.0)


def eq4_ratio(C: Array, **params: Array) -> np.ndarray:
    """Eq. 4 as printed: ``r* = α_r·C^β_r`` with :func:`eq4_coefficients`.

    Raises
    ------
    ValueError
        For non-positive ``C`` or invalid (or empty) capacity parameters.
    """
    for name, value in params.items():
        if np.size(value) == 0:
            raise ValueError(f"eq4_ratio: {name} is empty; give at least one value")
    c = check_compute(C)
    ar, br = eq4_coefficients(**params)
    return ar * c**br


def _exact_log_ratio(log_c: float, a: float, e: float, log_k: float) -> float:
    # ln r solves (e+1)·ln r + (a−e)·ln(1+r) = ln K + (a−e)·ln C, whose left side is strictly
    # increasing in ln r (its slope is e+1 + (a−e)·r/(1+r) > min(a, e) + 1 > 0).
    rhs = log_k + (a - e) * log_c

    def f(x: float) -> float:
        return (e + 1) * x + (a - e) * np.logaddexp(0.0, x) - rhs

    lo, hi = -1.0, 1.0
    while f(lo) > 0:
        lo *= 2
    while f(hi) < 0:
        hi *= 2
    return optimize.brentq(f, lo, hi, xtol=1e-14, rtol=1e-14)


def solve_optimality(
    C: Array, *, alpha_A: Array, alpha_E: Array, gamma_A: Array, gamma_E: Array,
    mu_A: Array, mu_E: Array,
) -> np.ndarray:
    """The exact root ``r*`` of the App. A.2 optimality condition, found numerically.

    Solves ``r^(e+1)·(1 + r)^(a−e) = K·C^(a−e)`` for ``ln r`` with Brent's method (the left
    side is monotone, so the root is unique and is the minimiser of Eq. 3 at fixed ``C``).

    Raises
    ------
    ValueError
        For non-positive ``C`` or invalid (or empty) capacity parameters.
    """
    aa, ae, ga, ge, ma, me = _capacity_params(alpha_A, alpha_E, gamma_A, gamma_E, mu_A, mu_E)
    c = check_compute(C)
    a, e = ga * ma, ge * me
    log_k = np.log(ae * e / (aa * a))
    bc = np.broadcast_arrays(np.log(c), a, e, log_k)
    out = np.array([_exact_log_ratio(*args) for args in zip(*(x.ravel() for x in bc), strict=True)])
    return np.exp(out).reshape(bc[0].shape)


def minimise_eq3(
    C: Array, *, alpha_A: Array, alpha_E: Array, gamma_A: Array, gamma_E: Array,
    mu_A: Array, mu_E: Array,
) -> np.ndarray:
    """``r`` minimising Eq. 3 at fixed total compute ``C``, by direct bounded minimisation.

    Minimises over ``t = ln r`` in [−60, 60]; independent of the optimality condition, so it
    checks both the condition and :func:`solve_optimality`.

    Raises
    ------
    ValueError
        For non-positive ``C`` or invalid (or empty) capacity parameters.
    """
    params = dict(alpha_A=alpha_A, alpha_E=alpha_E, gamma_A=gamma_A, gamma_E=gamma_E,
                  mu_A=mu_A, mu_E=mu_E)
    _capacity_params(**params)
    c = check_compute(C)
    bc = np.broadcast_arrays(c, *(np.asarray(params[p], dtype=float) for p in _PARAMS))
    out = []
    for c_i, *p in zip(*(x.ravel() for x in bc), strict=True):
        kw = dict(zip(_PARAMS, p, strict=True))

        def loss(t: float, c_i=c_i, kw=kw) -> float:
            r = np.exp(t)
            return float(eq3_loss(c_i / (1 + r), c_i * r / (1 + r), **kw))

        res = optimize.minimize_scalar(loss, bounds=(-60.0, 60.0), method="bounded",
                                       options={"xatol": 1e-10})
        out.append(np.exp(res.x))
    return np.array(out).reshape(bc[0].shape)


def local_exponent(r: Array, *, gamma_A: Array, gamma_E: Array, mu_A: Array, mu_E: Array):
    """Exact ``d ln r*/d ln C`` of the condition's root, at the root ``r``.

    Implicit differentiation of ``(e+1)·ln r + (a−e)·ln(1+r) = ln K + (a−e)·ln C`` gives
    ``(a − e) / (e + 1 + (a − e)·r/(1 + r))``: ``(a − e)/(e + 1)`` as ``r → 0`` and
    ``(a − e)/(a + 1)`` as ``r → ∞``. Its sign is that of ``a − e``, opposite to Eq. 4's
    ``β_r``.

    Raises
    ------
    ValueError
        For negative ``r`` or invalid capacity parameters.
    """
    a, e = elasticities(gamma_A, gamma_E, mu_A, mu_E)
    ratio = finite("r", r)
    if np.any(ratio < 0):
        raise ValueError("r must be non-negative")
    return (a - e) / (e + 1 + (a - e) * ratio / (1 + ratio))


def symbolic_check() -> dict[str, object]:
    """Substitute Eq. 4 into the optimality condition with sympy and simplify.

    Returns
    -------
    dict
        ``condition``: the condition in ``r`` and ``C`` (``r^(e+1)(1+r)^(a−e) − K·C^(a−e)``);
        ``residual_eq4``: that expression with Eq. 4's ``r*`` substituted;
        ``residual_eq4_equal_elasticities``: the residual when ``a = e`` (Eq. 4 then predicts a
        constant ``K^(1/(2a+1))`` while the condition gives ``K^(1/(a+1))``);
        ``zero_when_equal``: whether that residual vanishes identically (it does only for
        ``K = 1``); ``residual_eq4_large_r``: the residual when ``(1 + r)`` is replaced by
        ``r``, the large-r limit.
    """
    import sympy as sp

    r, C, K, a, e = sp.symbols("r C K a e", positive=True)
    condition = r ** (e + 1) * (1 + r) ** (a - e) - K * C ** (a - e)
    r_eq4 = K ** (1 / (a + e + 1)) * C ** ((e - a) / (a + e + 1))
    residual = condition.subs(r, r_eq4)
    equal = sp.simplify(residual.subs(e, a))
    large = sp.simplify(sp.powsimp(
        (r ** (e + 1) * r ** (a - e) - K * C ** (a - e)).subs(r, r_eq4), force=True
    ))
    return {
        "condition": condition,
        "residual_eq4": residual,
        "residual_eq4_equal_elasticities": equal,
        "zero_when_equal": bool(sp.simplify(equal) == 0),
        "residual_eq4_large_r": large,
    }


def capacity_parameters_for_eq4(
    alpha_r: float, beta_r: float, *, a: float = 0.1, mu: float = 0.5, alpha_A: float = 1.0
) -> dict[str, float]:
    """Capacity parameters under which Eq. 4 as printed gives a chosen ``(α_r, β_r)``.

    With ``a = γ_A·μ_A`` given, ``β_r = (e − a)/(a + e + 1)`` fixes
    ``e = (β_r·(1 + a) + a)/(1 − β_r)``, and ``α_r = K^(1/(a+e+1))`` fixes
    ``K = α_E·e/(α_A·a)``. Both μ are set to ``mu`` (so ``γ = elasticity/mu``).

    Parameters
    ----------
    alpha_r, beta_r
        Target coefficients, e.g. the Section 3.3 fit at one sparsity; ``0 <= β_r < 1``.
    a
        Attention elasticity ``γ_A·μ_A`` (positive; the choice is free).
    mu, alpha_A
        Common capacity exponent in (0, 1) and the attention coefficient (positive).

    Returns
    -------
    dict
        ``alpha_A, alpha_E, gamma_A, gamma_E, mu_A, mu_E``, ready for the other functions.

    Raises
    ------
    ValueError
        For ``α_r <= 0``, ``β_r`` outside [0, 1), non-positive ``a`` or ``alpha_A``, or
        ``mu`` outside (0, 1).
    """
    ar = float(positive("alpha_r", alpha_r))
    br = float(finite("beta_r", beta_r))
    if not 0 <= br < 1:
        raise ValueError("beta_r must lie in [0, 1) for positive elasticities")
    a_ = float(positive("a", a))
    aa = float(positive("alpha_A", alpha_A))
    if not 0 < mu < 1:
        raise ValueError("mu must lie in (0, 1)")
    e = (br * (1 + a_) + a_) / (1 - br)
    k = ar ** (a_ + e + 1)
    return {
        "alpha_A": aa, "alpha_E": k * aa * a_ / e, "gamma_A": a_ / mu, "gamma_E": e / mu,
        "mu_A": mu, "mu_E": mu,
    }
