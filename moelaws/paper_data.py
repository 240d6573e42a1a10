"""The package's data files: transcribed tables and cached runs under ``moelaws/data/<folder>/``.

Every chapter module reads its tables through :func:`read_csv` and finds its caches with
:func:`data_dir`, so where the data lives is written once.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pandas as pd

if TYPE_CHECKING:  # importlib.resources.abc is Python 3.11's; the package supports 3.10
    from importlib.resources.abc import Traversable  # novermin (type checkers only)

__all__ = ["MissingDataFile", "data_dir", "data_file", "folders", "read_csv"]


class MissingDataFile(FileNotFoundError, ValueError):
    """A data file that does not exist: a missing file (``FileNotFoundError``) named by a bad
    argument (``ValueError``), so callers may catch either."""


def folders() -> list[str]:
    """The data folders that exist: ``moelaws/data/<folder>`` (one per paper, plus caches)."""
    root = resources.files("moelaws") / "data"
    return sorted(p.name for p in root.iterdir()
                  if p.is_dir() and not p.name.startswith(("_", ".")))


def _check_folder(folder: Any) -> None:
    if not isinstance(folder, str):
        raise TypeError(f"folder must be a string, not {type(folder).__name__}")
    if folder not in folders():
        raise ValueError(f"folder must be one of {folders()}, not {folder!r}")


def _check_name(name: Any) -> None:
    if not isinstance(name, str):
        raise TypeError(f"name must be a file name (a string), not {type(name).__name__}")
    if not name.strip() or name in (".", "..") or "/" in name or "\\" in name:
        raise ValueError(f"name must be a file name inside the folder (non-empty, no path "
                         f"separators), not {name!r}")


def data_file(folder: str, name: str) -> Traversable:
    """The package resource ``moelaws/data/<folder>/<name>`` (it need not exist).

    Raises
    ------
    TypeError
        If ``folder`` or ``name`` is not a string.
    ValueError
        If ``folder`` is not one of :func:`folders`, or ``name`` is empty or a path.
    """
    _check_folder(folder)
    _check_name(name)
    return resources.files("moelaws") / "data" / folder / name


def data_dir(folder: str) -> Path:
    """``moelaws/data/<folder>`` as a filesystem path (for caches that are written); ``folder``
    is one of :func:`folders` (``TypeError``/``ValueError`` otherwise)."""
    _check_folder(folder)
    return Path(str(resources.files("moelaws") / "data" / folder))


def read_csv(folder: str, name: str, **kwargs: Any) -> pd.DataFrame:
    """Read ``moelaws/data/<folder>/<name>`` with :func:`pandas.read_csv` (UTF-8).

    Raises
    ------
    MissingDataFile
        (a ``FileNotFoundError`` and a ``ValueError``) if there is no such file.
    TypeError, ValueError
        As :func:`data_file`.
    """
    path = data_file(folder, name)
    if not path.is_file():
        raise MissingDataFile(f"name {name!r}: there is no data file moelaws/data/{folder}/{name}")
    with path.open("r", encoding="utf-8") as fh:
        return pd.read_csv(fh, **kwargs)
