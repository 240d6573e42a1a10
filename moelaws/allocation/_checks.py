"""Input validation shared by the allocation modules."""

from __future__ import annotations

from typing import Union

import numpy as np

Array = Union[float, np.ndarray, "list[float]"]


def as_array(name: str, x: Array) -> np.ndarray:
    """``x`` as a float array; raises ``ValueError`` if any entry is NaN or infinite."""
    try:
        arr = np.asarray(x, dtype=float)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{name} must be numeric") from exc
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} must be finite")
    return arr


def check_positive(name: str, x: Array) -> np.ndarray:
    arr = as_array(name, x)
    if np.any(arr <= 0):
        raise ValueError(f"{name} must be positive")
    return arr


def check_sparsity(S: Array) -> np.ndarray:
    s = as_array("sparsity S", S)
    if np.any((s < 0) | (s >= 1)):
        raise ValueError("sparsity S = (E - E_act)/E must lie in [0, 1)")
    return s


def check_compute(C: Array) -> np.ndarray:
    return check_positive("compute C (FLOPs)", C)


def check_ratio(r: Array, *, allow_zero: bool = True) -> np.ndarray:
    ratio = as_array("ratio r = C_E/C_A", r)
    if np.any(ratio < 0) or (not allow_zero and np.any(ratio == 0)):
        sign = "non-negative" if allow_zero else "positive"
        raise ValueError(f"ratio r = C_E/C_A must be {sign}")
    return ratio
