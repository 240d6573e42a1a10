"""Which heavy packages a fresh interpreter holds after importing some of moelaws' modules."""

from __future__ import annotations

import importlib.util
import subprocess
import sys


def heavy_imports(names: list[str]) -> str:
    """``sorted(...)`` of torch, statsmodels and scipy.stats, as printed by a new interpreter
    once ``names`` (those that exist) are imported and the paper registry is loaded: ``"[]"``
    when none is.

    torch and statsmodels take seconds to import, scipy.stats about 0.5 s (every chapter runs
    three times in ``make test``); only the chapters that train, fit an OLS or bootstrap need
    them.
    """
    present = [n for n in names if importlib.util.find_spec(n) is not None]
    code = (
        "import importlib, sys\n"
        f"for n in {present!r}: importlib.import_module(n)\n"
        "sys.modules['moelaws.papers'].registry()\n"
        "print(sorted(m for m in ('torch', 'statsmodels', 'scipy.stats') if m in sys.modules))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return out.stdout.strip()
