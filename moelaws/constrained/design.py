"""Algorithm 1 (App. C.3): the largest MoE that fits a memory and an inference budget.

For each expert count ``n_exp`` and width-to-depth ratio ``γ = d/l`` the routine takes the
deepest ``l`` whose ``l·(γl)²·(4 + 3n/g)`` fits the memory budget, the widest ``d`` aligned to
``k_align`` that still fits, and the most active experts ``n_topk`` that fit the inference
budget, and keeps the candidate with the lowest Eq. 3 loss.

The pseudocode leaves three choices open: the members of ``Γ`` (written ``Γ ∈ [32, 64]``), the
largest expert count ``2^k``, and ``k_align``. Our defaults are the reading under which the
routine reproduces the paper's one worked example (Qwen3-235B-A22B budgets, see the chapter):
``Γ = (32, 64)`` and ``n_exp ∈ {2, 4, ..., 128}``; ``k_align`` is a required argument.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike

from moelaws.constrained.law import (
    ATTENTION_WEIGHTS,
    EXPERT_MATRICES,
    EXPONENTS,
    FITTED_RANGES,
    relative_loss,
)
from moelaws.validation import positive, warn_if_far_outside

DEFAULT_GAMMAS: tuple[float, ...] = (32.0, 64.0)
"""Width-to-depth ratios looped over: the two ends of the paper's ``Γ ∈ [32, 64]``."""

DEFAULT_EXPERTS: tuple[int, ...] = tuple(2**i for i in range(1, 8))
"""Expert counts looped over: ``2^1 ... 2^7`` (the paper leaves ``k`` open; 7 reproduces
its Qwen3 example, larger ``k`` does not)."""


@dataclass(frozen=True)
class Design:
    """The configuration Algorithm 1 returns, with its counts (Eq. 1-2) and Eq. 3 loss."""

    l: int  # noqa: E741 (the paper's symbol for depth)
    d: int
    n_exp: int
    n_topk: int
    gamma: float
    g: float
    total: float
    active: float
    loss: float

    @property
    def d_expert(self) -> float:
        """Expert width ``d / g``."""
        return self.d / self.g

    def as_dict(self) -> dict[str, float]:
        return {
            "l": self.l,
            "d": self.d,
            "n_exp": self.n_exp,
            "n_topk": self.n_topk,
            "gamma": self.gamma,
            "g": self.g,
            "total": self.total,
            "active": self.active,
            "loss": self.loss,
        }


def _validate(
    total_budget: float,
    active_budget: float,
    k_align: int,
    gammas: Sequence[float],
    n_experts: Sequence[int],
    g: float,
) -> tuple[np.ndarray, np.ndarray]:
    for name, value in (("total_budget", total_budget), ("active_budget", active_budget)):
        if not (np.isfinite(value) and value > 0):
            raise ValueError(f"{name} must be a positive finite number, got {value!r}")
    if active_budget > total_budget:
        raise ValueError(
            f"active_budget ({active_budget:.4g}) exceeds total_budget ({total_budget:.4g}); "
            "Eq. 1-2 give N_active <= N_total"
        )
    if isinstance(k_align, bool) or int(k_align) != k_align or k_align < 1:
        raise ValueError(f"k_align must be a positive integer, got {k_align!r}")
    gam = np.asarray(gammas, dtype=float)
    if gam.ndim != 1 or gam.size == 0 or not np.all(np.isfinite(gam)) or np.any(gam <= 0):
        raise ValueError(f"gammas must be a non-empty list of positive numbers, got {gammas!r}")
    exp = np.asarray(n_experts, dtype=float)
    if exp.ndim != 1 or exp.size == 0 or np.any(exp < 1) or np.any(exp != np.round(exp)):
        raise ValueError(f"n_experts must be a non-empty list of integers >= 1, got {n_experts!r}")
    if not (np.isfinite(g) and g > 0):
        raise ValueError(f"g must be positive, got {g!r}")
    return gam, exp.astype(np.int64)


def candidates(
    total_budget: float,
    active_budget: float,
    k_align: int,
    *,
    gammas: Sequence[float] = DEFAULT_GAMMAS,
    n_experts: Sequence[int] = DEFAULT_EXPERTS,
    g: float = 4.0,
    exponents: Mapping[str, float] = EXPONENTS,
) -> pd.DataFrame:
    """Every ``(n_exp, γ)`` candidate of Algorithm 1 (App. C.3), in the routine's loop order.

    Lines 6-11 of the pseudocode, vectorised: ``l = ⌊(C_total/(γ²c))^(1/3)⌋`` with
    ``c = 4 + 3n/g``; ``d = round(γl/k)·k`` (halves rounded up), lowered in steps of ``k``
    until ``l·d²·c ≤ C_total``; ``n_topk = min(n, ⌊(g/3)(C_active/(l·d²) − 4)⌋)``. The floors
    are taken exactly (no floating-point off-by-one at exact cubes or exact fits).

    Parameters
    ----------
    total_budget, active_budget
        Memory and inference budgets ``C_total ≥ C_active > 0`` in parameters.
    k_align
        Alignment of ``d`` (a positive integer).
    gammas
        Width-to-depth ratios ``Γ`` (positive).
    n_experts
        Expert counts (integers ≥ 1), the paper's ``{2^1, ..., 2^k}``.
    g
        Granularity; the pseudocode's ``0.75 = 3/g`` with ``g = 4``.
    exponents
        Exponents of Eq. 3 for the loss.

    Returns
    -------
    pandas.DataFrame
        Columns ``n_exp, gamma, l, d, n_topk, total, active, loss, feasible``; infeasible
        candidates (``l < 1``, ``d < k_align`` or ``n_topk < 1``) have NaN loss.

    Raises
    ------
    ValueError
        For non-positive or non-finite budgets, ``active_budget > total_budget``, a
        non-integer ``k_align``, or empty/invalid grids.
    """
    gam, exp = _validate(total_budget, active_budget, k_align, gammas, n_experts, g)
    k = int(k_align)
    n_grid, gamma = (a.ravel() for a in np.meshgrid(exp, gam, indexing="ij"))
    c = ATTENTION_WEIGHTS + EXPERT_MATRICES * n_grid / g

    layers = np.floor(np.cbrt(total_budget / (gamma**2 * c)))
    layers += (layers + 1) ** 3 * gamma**2 * c <= total_budget
    layers -= layers**3 * gamma**2 * c > total_budget
    layers = np.maximum(layers, 0)
    safe_l = np.maximum(layers, 1)

    d0 = np.floor(gamma * layers / k + 0.5) * k
    d_fit = np.floor(np.sqrt(total_budget / (safe_l * c)) / k) * k
    d_fit -= k * (safe_l * d_fit**2 * c > total_budget)
    d_fit += k * (safe_l * (d_fit + k) ** 2 * c <= total_budget)
    width = np.minimum(d0, d_fit)
    safe_d = np.maximum(width, k)

    core = safe_l * safe_d**2
    topk = np.floor((g / EXPERT_MATRICES) * (active_budget / core - ATTENTION_WEIGHTS))
    topk += core * (ATTENTION_WEIGHTS + EXPERT_MATRICES * (topk + 1) / g) <= active_budget
    topk -= core * (ATTENTION_WEIGHTS + EXPERT_MATRICES * topk / g) > active_budget
    topk = np.minimum(topk, n_grid)

    feasible = (layers >= 1) & (width >= k) & (topk >= 1)
    total = core * c
    active = core * (ATTENTION_WEIGHTS + EXPERT_MATRICES * np.maximum(topk, 1) / g)
    loss = np.full(n_grid.shape, np.nan)
    if feasible.any():
        loss[feasible] = relative_loss(
            total[feasible], n_grid[feasible], topk[feasible], exponents
        )
    return pd.DataFrame(
        {
            "n_exp": n_grid.astype(int),
            "gamma": gamma,
            "l": layers.astype(int),
            "d": width.astype(int),
            "n_topk": topk.astype(int),
            "total": np.where(feasible, total, np.nan),
            "active": np.where(feasible, active, np.nan),
            "loss": loss,
            "feasible": feasible,
        }
    )


def _binding_constraint(
    total_budget: float, active_budget: float, k_align: int, gammas: Sequence[float],
    n_experts: Sequence[int], g: float, exponents: Mapping[str, float],
) -> str:
    """Why no candidate fits: the expert-count grid, the γ grid, or the budgets themselves.

    Widens one search grid at a time (expert counts by powers of two up to 2^16; γ over
    8..512) and reports the first widening that makes a design feasible.
    """
    top = max(n_experts)
    more = tuple(2**i for i in range(1, 17) if 2**i > top)
    if more:
        wider = candidates(total_budget, active_budget, k_align, gammas=gammas,
                           n_experts=more, g=g, exponents=exponents)
        fits = wider.loc[wider["feasible"], "n_exp"]
        if not fits.empty:
            first = int(fits.min())
            return (f"the expert-count grid binds (n_experts up to {top}): designs with "
                    f"{first} experts fit these budgets; widen the search with "
                    f"n_experts=(..., {first})")
    other = tuple(float(x) for x in (8, 16, 32, 64, 128, 256, 512) if x not in gammas)
    if other:
        wider = candidates(total_budget, active_budget, k_align, gammas=other,
                           n_experts=n_experts, g=g, exponents=exponents)
        fits = wider.loc[wider["feasible"], "gamma"]
        if not fits.empty:
            return (f"the gamma grid binds (gammas {tuple(gammas)}): designs with gamma = "
                    f"{fits.iloc[0]:g} fit; widen the search with gammas=(..., {fits.iloc[0]:g})")
    return ("the budgets are too small for one aligned layer with at least one active expert "
            f"(at k_align={k_align}, d is a multiple of {k_align}; a smaller k_align or larger "
            "budgets widen the search)")


def optimize(
    total_budget: float,
    active_budget: float,
    k_align: int,
    *,
    gammas: Sequence[float] = DEFAULT_GAMMAS,
    n_experts: Sequence[int] = DEFAULT_EXPERTS,
    g: float = 4.0,
    exponents: Mapping[str, float] = EXPONENTS,
) -> Design:
    """Algorithm 1 (App. C.3): the configuration with the lowest Eq. 3 loss within budget.

    Ties keep the first candidate in loop order (``n_exp`` outer, ``γ`` inner), as the
    pseudocode's strict ``L < L_min`` does.

    Parameters
    ----------
    total_budget, active_budget, k_align, gammas, n_experts, g, exponents
        As in :func:`candidates`.

    Returns
    -------
    Design
        ``(l, d, n_exp, n_topk)`` with ``γ``, ``g``, the Eq. 1-2 counts and the Eq. 3 loss.

    Raises
    ------
    ValueError
        For invalid inputs (see :func:`candidates`) or when no candidate fits the budgets.

    Warns
    -----
    ExtrapolationWarning
        For a total budget far outside the N_total range the paper fitted.
    """
    warn_if_far_outside("constrained", "N_total", positive("total_budget", total_budget),
                        FITTED_RANGES["N_total"])
    table = candidates(
        total_budget, active_budget, k_align,
        gammas=gammas, n_experts=n_experts, g=g, exponents=exponents,
    )
    ok = table[table["feasible"]]
    if ok.empty:
        raise ValueError(
            f"no configuration fits total_budget={total_budget:.4g} and "
            f"active_budget={active_budget:.4g} with k_align={k_align}: "
            + _binding_constraint(total_budget, active_budget, k_align, gammas, n_experts, g,
                                  exponents)
        )
    row = ok.loc[ok["loss"].idxmin()]
    return Design(
        l=int(row["l"]),
        d=int(row["d"]),
        n_exp=int(row["n_exp"]),
        n_topk=int(row["n_topk"]),
        gamma=float(row["gamma"]),
        g=float(g),
        total=float(row["total"]),
        active=float(row["active"]),
        loss=float(row["loss"]),
    )


def optimize_grid(
    total_budgets: ArrayLike,
    active_budgets: ArrayLike,
    k_align: int,
    **kwargs: object,
) -> pd.DataFrame:
    """:func:`optimize` over every pair of a grid of budgets (for charts).

    Pairs with ``active > total`` or without any feasible configuration get a row with
    ``feasible = False`` instead of raising.

    Parameters
    ----------
    total_budgets, active_budgets
        1-d arrays of budgets; the Cartesian product is evaluated.
    k_align
        As in :func:`optimize`.
    **kwargs
        Passed on to :func:`optimize` (``gammas``, ``n_experts``, ``g``, ``exponents``).

    Returns
    -------
    pandas.DataFrame
        Columns ``total_budget, active_budget, feasible`` and the :class:`Design` fields.

    Raises
    ------
    ValueError
        If a budget grid is empty or contains non-positive values, or ``k_align`` is invalid.
    """
    totals = np.atleast_1d(np.asarray(total_budgets, dtype=float))
    actives = np.atleast_1d(np.asarray(active_budgets, dtype=float))
    for name, grid in (("total_budgets", totals), ("active_budgets", actives)):
        if grid.ndim != 1 or grid.size == 0 or np.any(~np.isfinite(grid)) or np.any(grid <= 0):
            raise ValueError(f"{name} must be a non-empty 1-d array of positive numbers")
    rows = []
    for ct in totals:
        for ca in actives:
            row: dict[str, float | bool] = {"total_budget": ct, "active_budget": ca}
            if ca > ct:
                rows.append({**row, "feasible": False})
                continue
            try:
                design = optimize(ct, ca, k_align, **kwargs)  # type: ignore[arg-type]
            except ValueError as err:
                if "no configuration fits" not in str(err):
                    raise
                rows.append({**row, "feasible": False})
                continue
            rows.append({**row, "feasible": True, **design.as_dict()})
    return pd.DataFrame(rows)


def continuous_optimal_experts(
    total_budget: ArrayLike,
    active_budget: ArrayLike,
    g: ArrayLike = 4.0,
    exponents: Mapping[str, float] = EXPONENTS,
) -> np.ndarray:
    """The expert count that minimises Eq. 3 when both budgets are filled exactly (our result).

    With ``N_total = C_total`` and ``n_topk = (g/3)(ρ·(4 + 3n/g) − 4)``, ``ρ = C_active /
    C_total``, the loss is ``∝ n^b · n_topk^c`` (Eq. 3 exponents ``b > 0 > c``), minimised at
    ``n* = (4g/3) · b/(b + c) · (1/ρ − 1)``. This is a relaxation (no integer or alignment
    constraints), not in the paper: it shows why Algorithm 1's answer depends on how far its
    ``n_exp`` grid reaches.

    Parameters
    ----------
    total_budget, active_budget
        Budgets, ``total_budget > active_budget > 0``.
    g
        Granularity (positive).
    exponents
        Eq. 3 exponents; need ``n_exp > 0``, ``n_topk < 0`` and ``n_exp + n_topk > 0``.

    Returns
    -------
    numpy.ndarray
        ``n*`` (real-valued), broadcast over the inputs.

    Raises
    ------
    ValueError
        For non-positive budgets, ``active ≥ total``, ``g ≤ 0``, or exponents without an
        interior optimum.
    """
    total = np.asarray(total_budget, dtype=float)
    active = np.asarray(active_budget, dtype=float)
    g_ = np.asarray(g, dtype=float)
    if np.any(~np.isfinite(total)) or np.any(total <= 0) or np.any(active <= 0):
        raise ValueError("budgets must be positive and finite")
    if np.any(active >= total):
        raise ValueError("active_budget must be below total_budget")
    if np.any(g_ <= 0):
        raise ValueError("g must be positive")
    b, c = exponents["n_exp"], exponents["n_topk"]
    if not (b > 0 > c and b + c > 0):
        raise ValueError(
            "an interior optimum needs a positive n_exp exponent, a negative n_topk exponent "
            "and a net n_exp penalty (n_exp + n_topk exponents > 0)"
        )
    return (ATTENTION_WEIGHTS * g_ / EXPERT_MATRICES) * b / (b + c) * (total / active - 1)


def landscape(
    total_budget: float,
    active_budget: float,
    n_experts: Sequence[int],
    max_topk: int,
    g: float = 4.0,
    exponents: Mapping[str, float] = EXPONENTS,
) -> pd.DataFrame:
    """Eq. 3 over ``(n_exp, n_topk)`` for the largest core ``l·d²`` both budgets allow.

    The core is ``min(C_total/(4 + 3n/g), C_active/(4 + 3k/g))`` (continuous: no integer or
    alignment constraints), so ``N_total`` fills the memory budget unless the inference budget
    binds first. Loss is reported relative to the grid's minimum.

    Parameters
    ----------
    total_budget, active_budget
        Budgets, ``total_budget ≥ active_budget > 0``.
    n_experts
        Expert counts (integers ≥ 1).
    max_topk
        Largest ``n_topk`` to tabulate (``n_topk ≤ n_exp`` is always enforced).
    g, exponents
        Granularity and Eq. 3 exponents.

    Returns
    -------
    pandas.DataFrame
        Columns ``n_exp, n_topk, total, active, loss, rel_loss, binding`` (``"memory"`` or
        ``"inference"``).

    Raises
    ------
    ValueError
        For invalid budgets or grids.
    """
    _, exp = _validate(total_budget, active_budget, 1, [1.0], n_experts, g)
    if isinstance(max_topk, bool) or int(max_topk) != max_topk or max_topk < 1:
        raise ValueError(f"max_topk must be a positive integer, got {max_topk!r}")
    rows = [(int(n), k) for n in exp for k in range(1, min(int(n), int(max_topk)) + 1)]
    n_arr = np.array([r[0] for r in rows], dtype=float)
    k_arr = np.array([r[1] for r in rows], dtype=float)
    c_tot = ATTENTION_WEIGHTS + EXPERT_MATRICES * n_arr / g
    c_act = ATTENTION_WEIGHTS + EXPERT_MATRICES * k_arr / g
    core = np.minimum(total_budget / c_tot, active_budget / c_act)
    loss = relative_loss(core * c_tot, n_arr, k_arr, exponents)
    return pd.DataFrame(
        {
            "n_exp": n_arr.astype(int),
            "n_topk": k_arr.astype(int),
            "total": core * c_tot,
            "active": core * c_act,
            "loss": loss,
            "rel_loss": loss / loss.min(),
            "binding": np.where(
                total_budget / c_tot <= active_budget / c_act, "memory", "inference"
            ),
        }
    )


def log_budget_key(x: ArrayLike) -> np.ndarray:
    """``round(100·log10(x))``: an integer key for matching budgets to slider positions."""
    arr = np.asarray(x, dtype=float)
    if np.any(arr <= 0):
        raise ValueError("budgets must be positive")
    return np.round(100 * np.log10(arr)).astype(int)


__all__ = [
    "DEFAULT_EXPERTS",
    "DEFAULT_GAMMAS",
    "Design",
    "candidates",
    "continuous_optimal_experts",
    "landscape",
    "log_budget_key",
    "optimize",
    "optimize_grid",
]
