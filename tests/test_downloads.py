"""Every downloadable notebook of the built book runs top to bottom in a fresh environment.

The downloads are the book's ``_build/html/_sources/**/*.ipynb``: each chapter and its student
edition, as :mod:`moelaws.notebook_export` wrote them. One fresh virtual environment is made
per session with nothing but ``ipykernel`` (tests/fresh_env.py, the ``fresh_env`` and
``reader_env`` fixtures of tests/conftest.py), registered as a kernel; each notebook runs in it
in a folder of its own outside the repository (a download runs anywhere, with no repository
beside it). The set-up cell has to install everything: its requirement (``moelaws[notebook] @
git+<repository>@<commit>``) is pointed at a copy of this checkout's package and pip is
constrained to the oldest versions ``pyproject.toml`` admits (``tests/lowest_versions.py``; torch
stays the local 2.13.0 wheel), which is what a reader whose Jupyter already has older packages
(Colab's, a course's) keeps; nothing else changes. Any error in any cell, and any stderr output
(a warning, pip's included), fails.

Each chapter's download is executed once, by tests/browser/test_live_lab.py: it runs in
JupyterLab on this same kernel (Run All), where its errors, stderr, charts and widgets are
checked. A student edition whose code cells, its answer stubs (comments) aside, are its
chapter's first code cells is run by that same run: from a fresh kernel, the chapter's run
executes the student edition's code, in its order, before anything else, so running it again
here would run the same cells a second time (``fresh_env.prefix_mismatch``; where the chapter
did not run in JupyterLab in this session, or failed there, it runs here, after the chapters,
with a warning). Every other download (the reproducibility page, a student edition with code
outside the solutions after a solution) runs here, headless (nbclient), in the background
while the chapters run in JupyterLab. The book build
has executed every chapter in ``.venv`` already (and fails on an error). ``make live`` (part
of ``make test``) runs both files in one session after the book build; without
``MOELAWS_DOWNLOAD_TESTS=1`` they are skipped, and with it a missing book is a failure.
"""

from __future__ import annotations

import json
import os
import subprocess
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from fresh_env import (
    CHAPTER_DOWNLOADS,
    DOWNLOADS,
    HEADLESS_DOWNLOADS,
    ROOT,
    SOURCES,
    STUDENT_EDITIONS,
    STUDENT_EDITIONS_RUN_BY_CHAPTER,
    STUDENT_SUFFIX,
    chapter_of,
    run_download_headless,
)
from lowest_versions import lowest_versions
from packaging.utils import canonicalize_name
from packaging.version import Version

ENABLED = os.environ.get("MOELAWS_DOWNLOAD_TESTS") == "1"

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not ENABLED, reason="runs after the book build: make live"),
]


def _assert_runs_clean(path: Path, reader_env: Any, run: Callable[[Path], list[str]]) -> None:
    """After the set-up cell installed moelaws, ``run(path)`` (the download's headless run,
    returning its stderr) wrote nothing to stderr; an error in a cell raises from ``run``."""
    assert reader_env.importable_after, "the set-up cell did not install moelaws"
    stderr = run(path)
    assert not stderr, f"{path.name} wrote to stderr:\n" + "\n".join(stderr)


def test_the_book_has_downloads() -> None:
    assert DOWNLOADS, f"no notebooks under {SOURCES}: build the book first (make book)"
    chapters = {p.name.removesuffix(".ipynb") for p in CHAPTER_DOWNLOADS}
    students = {p.name.removesuffix(STUDENT_SUFFIX) for p in STUDENT_EDITIONS}
    assert chapters and chapters == students, (chapters, students)


def test_every_chapter_download_runs_in_jupyterlab() -> None:
    """The chapters' downloads are executed by test_live_lab.py, one test per chapter source:
    there is one download per chapter source."""
    chapters = sorted(p.stem for p in (ROOT / "notebooks").glob("*.md"))
    assert sorted(p.name.removesuffix(".ipynb") for p in CHAPTER_DOWNLOADS) == chapters


def test_the_setup_cell_installs_moelaws_into_a_fresh_kernel(reader_env: Any) -> None:
    assert not reader_env.importable_before, "the fresh environment already had moelaws"
    assert reader_env.importable_after, "the set-up cell did not install moelaws"


def test_the_set_up_cell_installed_the_oldest_versions_pyproject_admits(reader_env: Any) -> None:
    """Each direct dependency is at its lower bound in the reader's kernel (torch at
    requirements.txt's version), so the chapters' runs there check the bounds."""
    assert reader_env.importable_after, "the set-up cell did not install moelaws"
    listing = subprocess.run([str(reader_env.fresh.python), "-m", "pip", "list", "--format",
                              "json"], capture_output=True, text=True, check=True).stdout
    installed = {canonicalize_name(p["name"]): Version(Version(p["version"]).public)
                 for p in json.loads(listing)}
    wanted = lowest_versions(ROOT / "pyproject.toml", ROOT / "requirements.txt")
    wrong = {name: (str(installed.get(name)), low) for name, low in wanted.items()
             if installed.get(name) != Version(low)}
    assert not wrong, f"installed, wanted: {wrong}"


@pytest.mark.parametrize("path", HEADLESS_DOWNLOADS, ids=lambda p: p.name)
def test_download_runs_top_to_bottom_in_the_fresh_kernel(path: Path, reader_env: Any) -> None:
    _assert_runs_clean(path, reader_env, reader_env.headless_result)


@pytest.mark.parametrize("path", STUDENT_EDITIONS_RUN_BY_CHAPTER, ids=lambda p: p.name)
def test_student_edition_ran_as_its_chapters_first_cells(
        path: Path, reader_env: Any, lab_runs: dict[str, dict[str, Any]]) -> None:
    """The chapter's run in JupyterLab (earlier in this session) executed every code cell of
    the student edition, in its order, from a fresh kernel in this environment, before its own
    solutions: every cell executed, no error, no stderr. Without that run, it runs here."""
    chapter = chapter_of(path)
    run = lab_runs.get(chapter.name)
    ran_there = run is not None and not run["errors"] and not run["stderr"] and (
        run["executed"] == run["code"])
    if not ran_there:
        warnings.warn(f"{path.name} runs headless here: its chapter "
                      + ("did not run in JupyterLab in this session" if run is None
                         else "did not run cleanly in JupyterLab"), stacklevel=1)
        _assert_runs_clean(path, reader_env,
                           lambda p: run_download_headless(p, reader_env.fresh))
