"""Domain checks of the laws' inputs, shared by every chapter module.

Each returns its input as a float array (so the laws stay vectorised over NumPy arrays) or raises
a ``ValueError`` that names the quantity.
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["finite", "non_negative", "positive"]


def finite(name: str, x: Any) -> np.ndarray:
    """``x`` as a float array; ``ValueError`` if it is not numeric or any entry is NaN/infinite."""
    try:
        arr = np.asarray(x, dtype=float)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{name} must be numeric") from exc
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} must be finite")
    return arr


def positive(name: str, x: Any) -> np.ndarray:
    """:func:`finite`, and ``ValueError`` unless every entry is > 0."""
    arr = finite(name, x)
    if np.any(arr <= 0):
        raise ValueError(f"{name} must be positive")
    return arr


def non_negative(name: str, x: Any) -> np.ndarray:
    """:func:`finite`, and ``ValueError`` unless every entry is >= 0."""
    arr = finite(name, x)
    if np.any(arr < 0):
        raise ValueError(f"{name} must be non-negative")
    return arr
