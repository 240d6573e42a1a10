"""The package's data files: transcribed tables and cached runs under ``moelaws/data/<folder>/``.

Every chapter module reads its tables through :func:`read_csv` and finds its caches with
:func:`data_dir`, so where the data lives is written once.
"""

from __future__ import annotations

from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import Any

import pandas as pd

__all__ = ["data_dir", "data_file", "read_csv"]


def data_file(folder: str, name: str) -> Traversable:
    """The package resource ``moelaws/data/<folder>/<name>`` (it need not exist)."""
    return resources.files("moelaws") / "data" / folder / name


def data_dir(folder: str) -> Path:
    """``moelaws/data/<folder>`` as a filesystem path (for caches that are written)."""
    return Path(str(resources.files("moelaws") / "data" / folder))


def read_csv(folder: str, name: str, **kwargs: Any) -> pd.DataFrame:
    """Read ``moelaws/data/<folder>/<name>`` with :func:`pandas.read_csv` (UTF-8).

    Raises
    ------
    FileNotFoundError
        If there is no such file.
    """
    with data_file(folder, name).open("r", encoding="utf-8") as fh:
        return pd.read_csv(fh, **kwargs)
