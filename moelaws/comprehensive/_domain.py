"""Domain checks shared by the comprehensive-law modules."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from moelaws.validation import constants

Array = np.ndarray


def unit_interval(name: str, x: object) -> Array:
    """``x`` as a float array, or a ValueError if any value lies outside [0, 1]."""
    arr = np.asarray(x, dtype=float)
    if np.any(~np.isfinite(arr)) or np.any(arr < 0) or np.any(arr > 1):
        raise ValueError(f"{name} must lie in [0, 1]")
    return arr


def active_within_total(Na: Array, N: Array) -> None:
    """Raise if an activated size exceeds its total size (N_a/N > 1 has no MoE meaning)."""
    if np.any(Na > N * (1 + 1e-12)):
        raise ValueError("activated size N_a must not exceed total size N")


def merge(defaults: Mapping[str, float], params: Mapping[str, float] | None) -> dict[str, float]:
    """``defaults`` overridden by ``params``, checked like inputs
    (:func:`moelaws.validation.constants`: known names, finite numbers, the paper's sign)."""
    return constants(defaults, params)
