"""Every downloadable notebook of the built book runs top to bottom in a fresh environment.

The downloads are the book's ``_build/html/_sources/**/*.ipynb``: each chapter and its student
edition, as :mod:`moelaws.notebook_export` wrote them. One fresh virtual environment is made
with nothing but ``ipykernel``, registered as a kernel, and every notebook is executed in it
with nbclient from this environment, in an empty folder (a download runs anywhere, with no
repository beside it). The set-up cell then has to install everything: its requirement
(``moelaws[notebook] @ git+<repository>@<commit>``) is pointed at a copy of this checkout's
package and pip is constrained to ``requirements.txt`` (so torch stays the local 2.13.0
wheel); nothing else changes. Any error in any cell fails the test.

This replaces running the chapters under nbval in ``.venv``: the book build executes every
chapter in ``.venv`` (and fails on an error), and here every chapter and every student edition
runs again, in the environment a reader gets. ``make downloads`` runs it after the book build
(``make test`` does); without ``MOELAWS_DOWNLOAD_TESTS=1`` it is skipped, and with it a
missing book is a failure.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import nbformat
import pytest

from moelaws.notebook_export import EXTRA, SETUP_TAG

ROOT = Path(__file__).resolve().parents[1]
SOURCES = Path(os.environ.get("MOELAWS_BOOK_HTML", ROOT / "_build" / "html")) / "_sources"
NOTEBOOKS = sorted(SOURCES.rglob("*.ipynb")) if SOURCES.is_dir() else []
ENABLED = os.environ.get("MOELAWS_DOWNLOAD_TESTS") == "1"
KERNEL = "moelaws-fresh"
REQUIREMENT = re.compile(r'package = "moelaws\[notebook\] @ git\+https://github\.com/[^"@]+@[^"]+"')

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not ENABLED, reason="runs after the book build: make downloads"),
]


def test_the_book_has_downloads() -> None:
    assert NOTEBOOKS, f"no notebooks under {SOURCES}: build the book first (make book)"
    names = {p.name for p in NOTEBOOKS}
    assert any(n.endswith(".exercises.ipynb") for n in names), names


@pytest.fixture(scope="module")
def fresh(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Path]]:
    """A fresh venv with only ipykernel, registered as kernel ``moelaws-fresh``."""
    where = tmp_path_factory.mktemp("fresh")
    venv = where / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    python = venv / "bin" / "python"
    constraints = str(ROOT / "requirements.txt")
    # PIP_COMPILE=0 (pip --no-compile; PIP_NO_COMPILE=1 would mean the opposite): pip skips
    # byte-compiling every installed module (torch's thousands); the kernel compiles what it
    # imports. What is installed, and from where, does not change.
    quick = dict(os.environ, PIP_COMPILE="0")
    subprocess.run([str(python), "-m", "pip", "install", "--quiet", "-c", constraints,
                    "ipykernel"], check=True, env=quick)
    subprocess.run([str(python), "-m", "ipykernel", "install", "--prefix", str(where / "kernel"),
                    "--name", KERNEL], check=True, capture_output=True)
    # What the set-up cell installs: this checkout's package, copied (pip builds it in its
    # source folder), so nothing outside moelaws/ and pyproject.toml can be read from there.
    package = where / "package"
    package.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy2(ROOT / name, package / name)
    shutil.copytree(ROOT / "moelaws", package / "moelaws",
                    ignore=shutil.ignore_patterns("__pycache__"))
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("JUPYTER_PATH", str(where / "kernel" / "share" / "jupyter"))
        patch.setenv("PIP_CONSTRAINT", constraints)
        patch.setenv("PIP_COMPILE", "0")
        patch.setenv("OMP_NUM_THREADS", "1")
        patch.setenv("MKL_NUM_THREADS", "1")
        yield {"python": python, "package": package, "where": where}


def _pointed_at(notebook: nbformat.NotebookNode, package: Path) -> nbformat.NotebookNode:
    setup = notebook.cells[0]
    assert SETUP_TAG in setup.metadata.get("tags", []), "the first cell is not the set-up cell"
    source, count = REQUIREMENT.subn(
        f'package = "moelaws[{EXTRA}] @ {package.as_uri()}"', setup.source)
    assert count == 1, setup.source
    setup.source = source
    return notebook


def _run(notebook: nbformat.NotebookNode, folder: Path) -> None:
    from nbclient import NotebookClient

    folder.mkdir(parents=True, exist_ok=True)
    NotebookClient(notebook, kernel_name=KERNEL, timeout=900, allow_errors=False,
                   resources={"metadata": {"path": str(folder)}}).execute()


def _importable(python: Path) -> bool:
    return subprocess.run([str(python), "-c", "import moelaws"], capture_output=True,
                          cwd=python.parent).returncode == 0


def test_the_setup_cell_installs_moelaws_into_a_fresh_kernel(fresh: dict[str, Path]) -> None:
    assert NOTEBOOKS
    assert not _importable(fresh["python"]), "the fresh environment already has moelaws"
    first = nbformat.read(NOTEBOOKS[0], as_version=4)
    setup = _pointed_at(first, fresh["package"]).cells[0]
    _run(nbformat.v4.new_notebook(cells=[setup]), fresh["where"] / "setup")
    assert _importable(fresh["python"]), "the set-up cell did not install moelaws"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_download_runs_top_to_bottom_in_the_fresh_kernel(
        path: Path, fresh: dict[str, Path]) -> None:
    notebook = _pointed_at(nbformat.read(path, as_version=4), fresh["package"])
    _run(notebook, fresh["where"] / path.stem)
