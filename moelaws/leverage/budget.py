"""Compute-budget laws of the leverage paper: Eq. 5 (optimal learning rate and batch size,
App. E.1) and Table 5 (compute-optimal model scale M and data D, App. E.2), with their
inverses (which budget a printed hyper-parameter corresponds to).

Units: C in FLOPs, M in non-embedding training FLOPs per token (Sec. 2.1), D and the batch
size in tokens unless stated otherwise; sequences are 4,096 tokens long (App. D).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal, NamedTuple

import numpy as np

from moelaws.validation import positive

ArrayLike = float | Sequence[float] | np.ndarray

SEQ_LEN = 4096
"""Training sequence length (App. D)."""

EQ5_LR = (1.1576, -0.1529)
"""Eq. 5: η_opt = 1.1576·C^(−0.1529)."""
EQ5_BATCH = (0.0694, 0.3644)
"""Eq. 5: B_opt = 0.0694·C^0.3644 (tokens)."""

TABLE5: dict[str, dict[str, tuple[float, float]]] = {
    "dense": {"M": (0.0655, 0.5422), "D": (15.2582, 0.4578)},
    "moe": {"M": (0.1915, 0.5095), "D": (5.2232, 0.4905)},
}
"""Table 5: (coefficient, exponent) of M_opt = k·C^e and D_opt = k·C^e per family."""


class Allocation(NamedTuple):
    """Compute-optimal model scale ``M`` (FLOPs per token) and data ``D`` (tokens)."""

    M: np.ndarray
    D: np.ndarray


def _unit(unit: str) -> float:
    if unit == "tokens":
        return 1.0
    if unit == "sequences":
        return float(SEQ_LEN)
    raise ValueError("unit must be 'tokens' or 'sequences'")


def optimal_learning_rate(C: ArrayLike) -> np.ndarray:
    """Optimal peak learning rate for an MoE at compute ``C`` (Eq. 5, App. E.1).

    ``η_opt = 1.1576·C^(−0.1529)``.

    Raises
    ------
    ValueError
        If ``C`` is not positive.
    """
    coef, exp = EQ5_LR
    return coef * positive("the compute budget C", C) ** exp


def optimal_batch_size(C: ArrayLike, *, unit: Literal["tokens", "sequences"] = "tokens"):
    """Optimal batch size for an MoE at compute ``C`` (Eq. 5, App. E.1).

    ``B_opt = 0.0694·C^0.3644`` tokens (the search grid of App. E.1 is 2^18 to 2^21, which
    only makes sense in tokens); ``unit="sequences"`` divides by the 4,096-token sequence
    length, the unit of the B columns of Tables 8-12.

    Raises
    ------
    ValueError
        If ``C`` is not positive or ``unit`` is unknown.
    """
    coef, exp = EQ5_BATCH
    return coef * positive("the compute budget C", C) ** exp / _unit(unit)


def budget_for_learning_rate(eta: ArrayLike) -> np.ndarray:
    """The compute budget at which Eq. 5 prescribes learning rate ``eta`` (its inverse).

    Raises
    ------
    ValueError
        If ``eta`` is not positive.
    """
    coef, exp = EQ5_LR
    return (positive("the learning rate", eta) / coef) ** (1.0 / exp)


def budget_for_batch_size(
    B: ArrayLike, *, unit: Literal["tokens", "sequences"] = "tokens"
) -> np.ndarray:
    """The compute budget at which Eq. 5 prescribes batch size ``B`` (its inverse).

    Raises
    ------
    ValueError
        If ``B`` is not positive or ``unit`` is unknown.
    """
    coef, exp = EQ5_BATCH
    tokens = positive("the batch size", B) * _unit(unit)
    return (tokens / coef) ** (1.0 / exp)


def _family(family: str) -> dict[str, tuple[float, float]]:
    try:
        return TABLE5[family]
    except KeyError:
        raise ValueError("family must be 'moe' or 'dense'") from None


def compute_optimal_allocation(C: ArrayLike, family: Literal["moe", "dense"]) -> Allocation:
    """Compute-optimal model scale and data for budget ``C`` (Table 5, Eq. 6, App. E.2).

    Parameters
    ----------
    C
        Training compute in FLOPs.
    family
        ``"moe"`` (fitted on MoEs with 4 of 64 experts active plus one shared, G = 2) or
        ``"dense"``.

    Returns
    -------
    Allocation
        ``M`` (non-embedding training FLOPs per token) and ``D`` (tokens). Their product is
        ``C`` up to the rounding of the printed coefficients.

    Raises
    ------
    ValueError
        If ``C`` is not positive or ``family`` is unknown.
    """
    law = _family(family)
    C = positive("the compute budget C", C)
    (km, em), (kd, ed) = law["M"], law["D"]
    return Allocation(km * C**em, kd * C**ed)


def compute_optimal_budget(M: ArrayLike, family: Literal["moe", "dense"]) -> np.ndarray:
    """The budget C* at which a model of scale ``M`` is compute-optimal (Table 5 inverted).

    ``C*`` solves ``M_opt(C*) = M``; a model of scale M trained for C FLOPs sees
    ``C/C*`` times its compute-optimal number of tokens.

    Raises
    ------
    ValueError
        If ``M`` is not positive or ``family`` is unknown.
    """
    km, em = _family(family)["M"]
    return (positive("the model scale M", M) / km) ** (1.0 / em)
