"""The package runs on the oldest Python ``pyproject.toml`` admits (``requires-python``).

The test environment is one Python (``requirements.txt``), so nothing else here would notice a
standard-library module or a construct of a newer one: ``importlib.resources.abc`` (3.11) kept
``import moelaws`` from working on Python 3.10 until 2026-11-28. vermin reads the package's
source and names the lowest Python each construct and module needs; a line a type checker alone
reads is marked ``# novermin``.
"""

from __future__ import annotations

import re
import subprocess
import sys

import tomllib
from conftest import ROOT


def _oldest_python() -> str:
    spec = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["requires-python"]
    match = re.fullmatch(r">=\s*(3\.\d+)", spec)
    assert match, f"requires-python {spec!r} is not of the form '>=3.N'"
    return match.group(1)


def test_the_package_needs_no_newer_python_than_it_requires() -> None:
    oldest = _oldest_python()
    run = subprocess.run([sys.executable, "-c", "import sys, vermin; sys.exit(vermin.main())",
                          "--no-tips", "--violations",
                          f"--target={oldest}-", "--processes=1", str(ROOT / "moelaws")],
                         capture_output=True, text=True)
    assert run.returncode == 0, f"moelaws needs a Python newer than {oldest}:\n{run.stdout}"
