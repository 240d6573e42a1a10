"""The executed pages under other vector kernels: ``make rounding``.

A reader's machine chooses NumPy's, OpenBLAS's and PyTorch's (its own, MKL's and oneDNN's)
vector kernels by its CPU (AVX-512, AVX2, AVX, ...), and they round differently. A fit along a
direction the data do not determine can then stop elsewhere: chapter 4's live refit stopped at
an assertion on a machine with AVX-512 that machines without it had passed for days
(book/corrections.md, 2026-11-28). ``make rounding`` executes every page the book executes (the
chapters and the reproducibility page, from their sources, as the book build does) once for
each lower kernel level this machine can emulate (never a higher one: a machine without AVX-512
does not test it), and each must run to its end: its assertions, which check what its prose
says, hold there too. A first cell added to each page checks that the level reached its
kernel. It is not part of ``make test``: each level executes every page again (about 100
CPU-seconds). ``MOELAWS_ROUNDING_TESTS=1`` turns it on.

The tests that each level's settings take effect (NumPy's dispatch, OpenBLAS's kernels,
PyTorch's capability and MKL's instruction set, read in a fresh process) always run: NumPy
ignores, with only an ``ImportWarning``, a feature name it does not dispatch on (``AVX512F`` is
one), and OpenBLAS falls back to the machine's own kernels on a name it does not know.
oneDNN's cap (``ONEDNN_MAX_CPU_ISA``) is set but not read back: its verbose mode printed nothing
here.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import toc_chapters

from moelaws.notebook_export import execute_chapter

ROOT = Path(__file__).resolve().parents[1]
ENABLED = os.environ.get("MOELAWS_ROUNDING_TESTS") == "1"

LEVELS: dict[str, tuple[str, dict[str, str]]] = {
    "AVX2": ("X86_V4", {"NPY_DISABLE_CPU_FEATURES": "X86_V4,AVX512_ICL,AVX512_SPR",
                        "OPENBLAS_CORETYPE": "Haswell", "ATEN_CPU_CAPABILITY": "avx2",
                        "MKL_ENABLE_INSTRUCTIONS": "AVX2", "ONEDNN_MAX_CPU_ISA": "AVX2"}),
    "AVX": ("X86_V3", {"NPY_DISABLE_CPU_FEATURES": "X86_V3,X86_V4,AVX512_ICL,AVX512_SPR",
                       "OPENBLAS_CORETYPE": "Sandybridge", "ATEN_CPU_CAPABILITY": "default",
                       "MKL_ENABLE_INSTRUCTIONS": "AVX", "ONEDNN_MAX_CPU_ISA": "AVX"}),
}
"""``{level: (NumPy feature this machine needs for the level to be lower than its own,
environment)}``: NumPy's ``X86_V3`` group is AVX2 with FMA, ``X86_V4`` AVX-512."""
MKL_ISA = {"AVX2": "(Intel(R) AVX2)", "AVX": "(Intel(R) SSE4.2)"}
"""What MKL's verbose line names at each level (for ``AVX`` MKL runs its SSE4.2 code)."""

PROBE = """
import ctypes, glob, json, os
import numpy, scipy, torch
from numpy._core._multiarray_umath import __cpu_features__
torch.randn(64, 64) @ torch.randn(64, 64)  # MKL_VERBOSE=1: MKL names its instruction set
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
    try:
        from numpy._core._multiarray_umath import __cpu_features__
    except ImportError:  # NumPy 1
        from numpy.core._multiarray_umath import __cpu_features__
    return dict(__cpu_features__)


def levels_below(features: dict[str, bool]) -> list[str]:
    """The levels lower than this machine's own, which its CPU can run."""
    return [name for name, (needs, _) in LEVELS.items() if features.get(needs)]


def probe(env: dict[str, str]) -> dict:
    """:data:`PROBE` run in a fresh process with ``env`` added to this one's; ``mkl``: MKL's
    verbose line naming its instruction set (empty if MKL printed none)."""
    out = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True,
                         check=True, env={**os.environ, "MKL_VERBOSE": "1", **env})
    lines = out.stdout.splitlines()
    seen = json.loads(lines[-1])
    seen["mkl"] = next((line for line in lines if "enabled processors" in line), "")
    return seen


def executed_pages() -> list[Path]:
    """The pages the book executes: those of ``_toc.yml`` that MyST-NB reads as notebooks."""
    from myst_nb.core.read import is_myst_markdown_notebook

    pages = [ROOT / f"{name}.md" for name in toc_chapters()]
    return [p for p in pages if p.is_file() and is_myst_markdown_notebook(p.read_text())]


def level_check(level: str) -> str:
    """The first cell added to a page: the level reached its kernel."""
    env = LEVELS[level][1]
    return ("import os\n"
            "from numpy._core._multiarray_umath import __cpu_features__\n"
            f"assert os.environ['OPENBLAS_CORETYPE'] == {env['OPENBLAS_CORETYPE']!r}\n"
            "assert not __cpu_features__['X86_V4']\n"
            f"assert __cpu_features__['X86_V3'] is {level != 'AVX'}\n")


HERE = levels_below(_features())


def test_levels_are_below_the_machines_own() -> None:
    assert levels_below({"X86_V3": True, "X86_V4": True}) == ["AVX2", "AVX"]
    assert levels_below({"X86_V3": True, "X86_V4": False}) == ["AVX"]
    assert levels_below({}) == []


def test_the_pages_the_book_executes_are_found() -> None:
    names = {p.relative_to(ROOT).as_posix() for p in executed_pages()}
    chapters = {f"notebooks/{p.name}" for p in (ROOT / "notebooks").glob("*.md")}
    assert names == chapters | {"book/reproducibility.md"}


@pytest.mark.skipif(not ENABLED, reason="only when the pages are run: `make rounding`")
def test_there_is_a_level_to_run() -> None:
    assert HERE, "this CPU has no lower kernel level to emulate: `make rounding` tests nothing"


@pytest.mark.skipif(not HERE, reason="no lower kernel level to emulate on this CPU")
@pytest.mark.parametrize("level", HERE)
def test_each_level_takes_effect(level: str) -> None:
    env = LEVELS[level][1]
    seen = probe(env)
    if not seen["openblas"]:
        pytest.skip("no OpenBLAS of a Linux wheel found (another platform or build)")
    assert seen["numpy"]["X86_V4"] is False
    assert seen["numpy"]["X86_V3"] is (level != "AVX")
    assert set(seen["openblas"]) == {env["OPENBLAS_CORETYPE"]}, seen
    assert seen["torch"] == env["ATEN_CPU_CAPABILITY"].upper(), seen
    assert MKL_ISA[level] in seen["mkl"], seen


@pytest.mark.skipif(not ENABLED, reason="executes every page again: run `make rounding`")
@pytest.mark.parametrize("level", HERE)
@pytest.mark.parametrize("page", executed_pages(), ids=lambda p: p.stem)
def test_page_runs_to_its_end_under_the_level(level: str, page: Path) -> None:
    # A cell's limit well above the longest cell (about 10 s). Before execute_chapter polled
    # in slices (moelaws.kernel_polling), a widget cell's reply went unnoticed until this
    # limit ran out (two 300 s stalls here, 2026-11-28, with ipykernel 7.4.0 and 6.31.0).
    execute_chapter(page, timeout=300, prelude=level_check(level),
                    env={"OMP_NUM_THREADS": "1", **LEVELS[level][1]})
