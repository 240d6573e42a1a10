"""Input validation shared by the allocation modules."""

from __future__ import annotations

from typing import Union

import numpy as np

from moelaws.validation import finite, positive

Array = Union[float, np.ndarray, "list[float]"]


def check_sparsity(S: Array) -> np.ndarray:
    s = finite("sparsity S", S)
    if np.any((s < 0) | (s >= 1)):
        raise ValueError("sparsity S = (E - E_act)/E must lie in [0, 1)")
    return s


def check_compute(C: Array) -> np.ndarray:
    return positive("compute C (FLOPs)", C)


def check_ratio(r: Array, *, allow_zero: bool = True) -> np.ndarray:
    ratio = finite("ratio r = C_E/C_A", r)
    if np.any(ratio < 0) or (not allow_zero and np.any(ratio == 0)):
        sign = "non-negative" if allow_zero else "positive"
        raise ValueError(f"ratio r = C_E/C_A must be {sign}")
    return ratio
