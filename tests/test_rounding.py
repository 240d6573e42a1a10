"""The executed pages under other vector kernels: ``make rounding``.

A reader's machine chooses NumPy's, OpenBLAS's and PyTorch's vector kernels by its CPU
(AVX-512, AVX2, AVX, ...), and they round differently. A fit along a direction the data do not
determine can then stop elsewhere: chapter 4's live refit stopped at an assertion on a machine
with AVX-512 that machines without it had passed for days (book/corrections.md, 2026-11-28).
``make rounding`` executes every page the book executes (the chapters and the reproducibility
page, from their sources, as the book build does) once for each lower kernel level this
machine can emulate, and each must run to its end: its assertions, which check what its prose
says, hold there too. It is not part of ``make test``: each level executes every page again
(about 100 CPU-seconds). ``MOELAWS_ROUNDING_TESTS=1`` turns it on.

The tests that each level's settings take effect (NumPy's dispatch, OpenBLAS's kernels and
PyTorch's capability, read in a fresh process) always run: NumPy ignores, with only an
``ImportWarning``, a feature name it does not dispatch on (``AVX512F`` is one).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
ENABLED = os.environ.get("MOELAWS_ROUNDING_TESTS") == "1"

LEVELS: dict[str, tuple[str, dict[str, str]]] = {
    "AVX2": ("X86_V4", {"NPY_DISABLE_CPU_FEATURES": "X86_V4,AVX512_ICL,AVX512_SPR",
                        "OPENBLAS_CORETYPE": "Haswell", "ATEN_CPU_CAPABILITY": "avx2"}),
    "AVX": ("X86_V3", {"NPY_DISABLE_CPU_FEATURES": "X86_V3,X86_V4,AVX512_ICL,AVX512_SPR",
                       "OPENBLAS_CORETYPE": "Sandybridge", "ATEN_CPU_CAPABILITY": "default"}),
}
"""``{level: (NumPy feature this machine needs for the level to be lower than its own,
environment)}``: NumPy's ``X86_V3`` group is AVX2 with FMA, ``X86_V4`` AVX-512."""

PROBE = """
import ctypes, glob, json, os
import numpy, scipy, torch
from numpy._core._multiarray_umath import __cpu_features__
cores = []
for package in (numpy, scipy):
    for lib in glob.glob(os.path.dirname(package.__file__) + ".libs/libscipy_openblas*.so"):
        dll = ctypes.CDLL(lib)
        name = next(s for s in ("scipy_openblas_get_corename64_", "scipy_openblas_get_corename")
                    if hasattr(dll, s))
        getattr(dll, name).restype = ctypes.c_char_p
        cores.append(getattr(dll, name)().decode())
print(json.dumps({"numpy": {k: bool(__cpu_features__[k]) for k in ("X86_V3", "X86_V4")},
                  "openblas": cores, "torch": torch.backends.cpu.get_cpu_capability()}))
"""
"""What a fresh Python with a level's environment runs on: NumPy's feature groups, the
kernels of every OpenBLAS NumPy and SciPy load, PyTorch's CPU capability."""


def _features() -> dict[str, bool]:
    from numpy._core._multiarray_umath import __cpu_features__

    return dict(__cpu_features__)


def levels_below(features: dict[str, bool]) -> list[str]:
    """The levels lower than this machine's own, which its CPU can run."""
    return [name for name, (needs, _) in LEVELS.items() if features.get(needs)]


def probe(env: dict[str, str]) -> dict:
    """:data:`PROBE` run in a fresh process with ``env`` added to this one's."""
    out = subprocess.run([sys.executable, "-c", PROBE], env={**os.environ, **env},
                         capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


def executed_pages() -> list[Path]:
    """The pages the book executes: Jupytext sources under notebooks/ and book/."""
    return [p for p in sorted((ROOT / "notebooks").glob("*.md")) + sorted(
        (ROOT / "book").glob("*.md")) if "jupytext:" in p.read_text()[:2000]]


HERE = levels_below(_features())


def test_levels_are_below_the_machines_own() -> None:
    assert levels_below({"X86_V3": True, "X86_V4": True}) == ["AVX2", "AVX"]
    assert levels_below({"X86_V3": True, "X86_V4": False}) == ["AVX"]
    assert levels_below({}) == []


def test_the_pages_the_book_executes_are_found() -> None:
    names = {p.relative_to(ROOT).as_posix() for p in executed_pages()}
    assert "book/reproducibility.md" in names and "notebooks/04_comprehensive.md" in names
    assert "book/notation.md" not in names


@pytest.mark.skipif(not HERE, reason="no lower kernel level to emulate on this CPU")
@pytest.mark.parametrize("level", HERE)
def test_each_level_takes_effect(level: str) -> None:
    env = LEVELS[level][1]
    seen = probe(env)
    assert seen["numpy"]["X86_V4"] is False
    assert seen["numpy"]["X86_V3"] is (level != "AVX")
    assert seen["openblas"] and set(seen["openblas"]) == {env["OPENBLAS_CORETYPE"]}, seen
    assert seen["torch"] == env["ATEN_CPU_CAPABILITY"].upper(), seen


@pytest.mark.skipif(not ENABLED, reason="executes every page again: run `make rounding`")
@pytest.mark.parametrize("level", HERE)
@pytest.mark.parametrize("page", executed_pages(), ids=lambda p: p.stem)
def test_page_runs_to_its_end_under_the_level(level: str, page: Path) -> None:
    import jupytext
    import nbclient

    notebook = jupytext.read(page)
    client = nbclient.NotebookClient(notebook, timeout=900, kernel_name="python3",
                                     resources={"metadata": {"path": str(page.parent)}})
    client.execute(env={**os.environ, "OMP_NUM_THREADS": "1", **LEVELS[level][1]})
