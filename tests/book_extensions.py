"""The book's local Sphinx extensions (``book/_ext``), loaded by path as the tests need them."""

from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path
from types import ModuleType

EXTENSIONS = Path(__file__).resolve().parents[1] / "book" / "_ext"
MYST_NOTEBOOK_HEADER = """---
jupytext:
  text_representation:
    format_name: myst
kernelspec:
  name: python3
  display_name: Python 3
---
"""
"""The front matter that makes a ``.md`` file a MyST notebook (MyST-NB executes it)."""


def load_extension(name: str) -> ModuleType:
    """A new module object of ``book/_ext/<name>.py`` (not put in ``sys.modules``)."""
    spec = importlib.util.spec_from_file_location(name, EXTENSIONS / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def build_in_process(src: Path) -> int:
    """``sphinx-build -q -b html -E src src/_build/html`` in this process; its exit status.

    Starting a process for each build cost two seconds of imports (Sphinx, MyST-NB); the
    kernels are processes either way. What the build changes in this process is put back: the
    environment the extensions set for the kernels (the reads recorder on ``PYTHONPATH``),
    the ``sys.path`` of the book's ``conf.py`` and the extension modules it imported from
    there, so that the next build imports them afresh."""
    from sphinx.cmd.build import build_main

    environ, path, modules = dict(os.environ), list(sys.path), set(sys.modules)
    try:
        return build_main(["-q", "-b", "html", "-E", str(src), str(src / "_build" / "html")])
    finally:
        os.environ.clear()
        os.environ.update(environ)
        sys.path[:] = path
        for name in set(sys.modules) - modules:
            if Path(getattr(sys.modules[name], "__file__", None) or "/").parent == EXTENSIONS:
                del sys.modules[name]
