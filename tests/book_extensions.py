"""The book's local Sphinx extensions (``book/_ext``), loaded by path as the tests need them."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

EXTENSIONS = Path(__file__).resolve().parents[1] / "book" / "_ext"


def load_extension(name: str) -> ModuleType:
    """A new module object of ``book/_ext/<name>.py`` (not put in ``sys.modules``)."""
    spec = importlib.util.spec_from_file_location(name, EXTENSIONS / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
