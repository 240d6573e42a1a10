"""The reader's environment: a fresh virtual environment and the book's downloadable notebooks.

A reader who downloads a chapter (``_build/html/_sources/**/*.ipynb``, written by
:mod:`moelaws.notebook_export`) runs it in an environment of their own, in a folder with no
repository beside it, and its set-up cell installs ``moelaws[notebook]``. The tests recreate that
once per session: a virtual environment with nothing but ``ipykernel``, registered as the kernel
``moelaws-fresh``; the set-up cell's requirement (``moelaws[notebook] @
git+<repository>@<commit>``) is pointed at a copy of this checkout's package and pip is constrained
to the oldest versions ``pyproject.toml`` admits (``tests/lowest_versions.py``: what a reader whose
Jupyter already has older packages keeps; torch stays the local 2.13.0 wheel); nothing else
changes. ``tests/test_downloads.py`` checks that the set-up cell installs the package there and
runs every other download (the reproducibility page, a student edition) headless (nbclient);
``tests/browser/test_live_lab.py`` runs every chapter's download in JupyterLab on that same kernel,
so each chapter is executed once, in the reader's environment and front end. A student edition
whose code is its chapter's first code cells (:func:`prefix_mismatch`) is not run again: the
chapter's run from a fresh kernel has run exactly that code, in that order, first.
"""

from __future__ import annotations

import ast
import json
import os
import re
import shutil
import subprocess
import sys
import threading
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import lowest_versions
import nbformat

from moelaws.notebook_export import EXTRA, SETUP_TAG
from moelaws.teaching.student import STUB_TAG

ROOT = Path(__file__).resolve().parents[1]
SOURCES = Path(os.environ.get("MOELAWS_BOOK_HTML", ROOT / "_build" / "html")) / "_sources"
DOWNLOADS = sorted(SOURCES.rglob("*.ipynb")) if SOURCES.is_dir() else []
STUDENT_SUFFIX = ".exercises.ipynb"
CHAPTER_DOWNLOADS = [p for p in DOWNLOADS if p.parent.name == "notebooks"
                     and not p.name.endswith(STUDENT_SUFFIX)]
"""The chapters' downloads: tests/browser/test_live_lab.py runs them in JupyterLab."""
STUDENT_EDITIONS = [p for p in DOWNLOADS if p.name.endswith(STUDENT_SUFFIX)]


def chapter_of(student: Path) -> Path:
    """The chapter download a student edition was made from."""
    return student.with_name(student.name.removesuffix(STUDENT_SUFFIX) + ".ipynb")


def _is_comment_only(source: str) -> bool:
    try:
        return not ast.parse(source).body
    except SyntaxError:  # IPython syntax (a magic): not Python, so not only comments
        return False


def prefix_mismatch(student: dict[str, Any], chapter: dict[str, Any]) -> str:
    """Why the student edition's code is not its chapter's first code cells; empty when it is.

    It is when the student edition's code cells, its answer stubs aside (tag ``answer``,
    comments only: :mod:`moelaws.teaching.student`), are the chapter's first code cells in the
    same order, source and metadata (tags such as ``raises-exception``, which nbclient honours)
    alike, on the same kernel. Running the chapter from a fresh kernel then runs the student
    edition's whole code first, as the student edition itself would. Any code cell outside
    the solutions that comes after a solution makes it differ."""
    if student["metadata"].get("kernelspec") != chapter["metadata"].get("kernelspec"):
        return "the kernels differ"
    code = []
    for index, cell in enumerate(student["cells"]):
        if cell["cell_type"] != "code":
            continue
        source = "".join(cell["source"])
        if STUB_TAG in cell["metadata"].get("tags", []):
            if not _is_comment_only(source):
                return f"cell {index}, an answer stub, holds code: {source[:80]!r}"
            continue
        code.append((source, cell["metadata"]))
    ours = [("".join(c["source"]), c["metadata"]) for c in chapter["cells"]
            if c["cell_type"] == "code"]
    if len(code) > len(ours):
        return f"{len(code)} code cells against the chapter's {len(ours)}"
    for number, (cell, theirs) in enumerate(zip(code, ours, strict=False)):
        if cell != theirs:
            return f"its code cell {number} is not the chapter's: {cell[0][:80]!r}"
    return ""


def _runs_as_chapter_prefix(student: Path) -> bool:
    """Whether the chapter's run covers the student edition (:func:`prefix_mismatch`); a file
    that cannot be read as a notebook is not covered, and fails in its own headless run."""
    chapter = chapter_of(student)
    if chapter not in CHAPTER_DOWNLOADS:
        return False
    try:
        pair = [json.loads(p.read_text(encoding="utf-8")) for p in (student, chapter)]
        return not prefix_mismatch(*pair)
    except (OSError, ValueError, KeyError, TypeError):
        return False


STUDENT_EDITIONS_RUN_BY_CHAPTER = [p for p in STUDENT_EDITIONS if _runs_as_chapter_prefix(p)]
"""Student editions whose code is their chapter's first code cells (:func:`prefix_mismatch`):
the chapter's run in JupyterLab, from a fresh kernel, runs their code (tests/test_downloads.py)."""
HEADLESS_DOWNLOADS = [p for p in DOWNLOADS
                      if p not in CHAPTER_DOWNLOADS and p not in STUDENT_EDITIONS_RUN_BY_CHAPTER]
"""Every other download (the reproducibility page, any other student edition): run with
nbclient."""
KERNEL = "moelaws-fresh"
REQUIREMENT = re.compile(r'package = "moelaws\[notebook\] @ git\+https://github\.com/[^"@]+@[^"]+"')
REQUIREMENTS = ROOT / "requirements.txt"
KERNEL_ENV = {
    # PIP_COMPILE=0 (pip --no-compile; PIP_NO_COMPILE=1 would mean the opposite): pip skips
    # byte-compiling every installed module (torch's thousands); the kernel compiles what it
    # imports. What is installed, and from where, does not change.
    "PIP_COMPILE": "0",
    # ... so the kernels compile what they import, once, into __pycache__, as a reader's Python
    # does; a runner that sets PYTHONDONTWRITEBYTECODE (CI here does) would otherwise make every
    # kernel compile numpy, pandas, torch ... again (an empty value is no value).
    "PYTHONDONTWRITEBYTECODE": "",
    "OMP_NUM_THREADS": "1",
    "MKL_NUM_THREADS": "1",
    # The test runner's own PYTHONPATH (a checkout's moelaws) must not leak into the reader's
    # kernel: an empty value is no value.
    "PYTHONPATH": "",
}


def jupyter_path(where: Path) -> Path:
    """The folder to add to ``JUPYTER_PATH`` so that a client finds the kernel."""
    return where / "kernel" / "share" / "jupyter"


def readers(where: Path) -> Path:
    """Where the downloads are put to run: outside the repository, nothing beside them."""
    return where / "reader"


@dataclass
class FreshEnv:
    """A fresh venv with only ipykernel, its kernel spec, and the package the set-up cell gets."""

    where: Path
    python: Path
    package: Path

    @property
    def jupyter_path(self) -> Path:
        return jupyter_path(self.where)

    @property
    def readers(self) -> Path:
        return readers(self.where)

    def importable(self) -> bool:
        """Whether ``import moelaws`` works in the fresh environment."""
        env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
        return subprocess.run([str(self.python), "-c", "import moelaws"], capture_output=True,
                              cwd=self.python.parent, env=env).returncode == 0


def make_fresh_env(where: Path) -> FreshEnv:
    """Create the venv, install ipykernel (constrained to the oldest versions), register kernel
    ``moelaws-fresh`` (its pip constrained alike) and copy this checkout's package where the
    set-up cell will install it from."""
    constraints = where / "constraints.txt"
    constraints.write_text(lowest_versions.constraints(ROOT / "pyproject.toml", REQUIREMENTS))
    venv = where / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    python = venv / "bin" / "python"
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"} | {"PIP_COMPILE": "0"}
    subprocess.run([str(python), "-m", "pip", "install", "--quiet", "-c", str(constraints),
                    "ipykernel"], check=True, env=env)
    subprocess.run([str(python), "-m", "ipykernel", "install", "--prefix", str(where / "kernel"),
                    "--name", KERNEL], check=True, capture_output=True, env=env)
    spec_file = jupyter_path(where) / "kernels" / KERNEL / "kernel.json"
    spec = json.loads(spec_file.read_text())
    spec["env"] = {**spec.get("env", {}), **KERNEL_ENV, "PIP_CONSTRAINT": str(constraints)}
    spec_file.write_text(json.dumps(spec, indent=1))
    # What the set-up cell installs: this checkout's package, copied (pip builds it in its
    # source folder), so nothing outside moelaws/ and pyproject.toml can be read from there.
    package = where / "package"
    package.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy2(ROOT / name, package / name)
    shutil.copytree(ROOT / "moelaws", package / "moelaws",
                    ignore=shutil.ignore_patterns("__pycache__"))
    fresh = FreshEnv(where, python, package)
    fresh.readers.mkdir(exist_ok=True)
    return fresh


def pointed_at(notebook: nbformat.NotebookNode, package: Path) -> nbformat.NotebookNode:
    """The notebook with its set-up cell installing ``package`` instead of the repository's
    commit; fails if the first cell is not the set-up cell or names no such requirement."""
    setup = notebook.cells[0]
    assert SETUP_TAG in setup.metadata.get("tags", []), "the first cell is not the set-up cell"
    source, count = REQUIREMENT.subn(
        f'package = "moelaws[{EXTRA}] @ {package.as_uri()}"', setup.source)
    assert count == 1, setup.source
    setup.source = source
    return notebook


def reader_copy(download: Path, fresh: FreshEnv) -> Path:
    """The download, pointed at the package copy and at the fresh kernel, alone in a folder of
    its own under ``fresh.readers`` (``<readers>/<folder>-<stem>/<name>``)."""
    folder = fresh.readers / download.relative_to(SOURCES).with_suffix("").as_posix().replace(
        "/", "-")
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / download.name
    notebook = pointed_at(nbformat.read(download, as_version=4), fresh.package)
    # The reader's own Jupyter starts its python3 for the notebook's "python3"; here that
    # kernel is the fresh environment's, under its own name.
    notebook.metadata.kernelspec.name = KERNEL
    nbformat.write(notebook, target)
    return target


def stderr_outputs(notebook: nbformat.NotebookNode) -> list[str]:
    """Every stderr stream of the executed notebook (a warning, pip's included)."""
    return [f"cell {i}: {str(o.get('text', ''))[:300]}"
            for i, cell in enumerate(notebook.cells) if cell.cell_type == "code"
            for o in cell.get("outputs", [])
            if o.get("output_type") == "stream" and o.get("name") == "stderr"]


def run_headless(notebook: nbformat.NotebookNode, folder: Path) -> None:
    """Execute ``notebook`` in the fresh kernel with nbclient, in ``folder``; an error in any
    cell raises (nbclient's CellExecutionError). ``JUPYTER_PATH`` must name the kernel's folder
    (the ``fresh_env`` fixture sets it). The book build's patch is applied first: unpatched, a
    cell that displays widgets may wait out the whole timeout (jupyter/nbclient#312,
    moelaws.kernel_polling, tests/browser/test_book_ext.py)."""
    from nbclient import NotebookClient

    from moelaws.kernel_polling import patch_shell_polling

    patch_shell_polling()
    folder.mkdir(parents=True, exist_ok=True)
    NotebookClient(notebook, kernel_name=KERNEL, timeout=900, allow_errors=False,
                   resources={"metadata": {"path": str(folder)}}).execute()


@dataclass
class ReaderEnv:
    """The fresh environment, a download's set-up cell running in it (``setup``: whether
    moelaws is importable once it ran), and the headless downloads queued after it (one at a
    time, beside whatever the session does meanwhile)."""

    fresh: FreshEnv
    importable_before: bool
    setup: Future
    headless: dict[Path, Future] = field(default_factory=dict)
    stopping: threading.Event = field(default_factory=threading.Event)
    """Set when the session ends: a headless download still waiting for the set-up cell then
    does not start."""

    @property
    def importable_after(self) -> bool:
        """Whether moelaws is importable after the set-up cell ran: waits for it to end. If it
        failed, a RuntimeError names its error (a new one each time: the stored error, raised
        again by every test, would carry every earlier test's frames)."""
        error = self.setup.exception()
        if error is not None:
            raise RuntimeError(f"the set-up cell failed: {type(error).__name__}: "
                               f"{str(error)[:2000]}")
        return self.setup.result()

    def headless_result(self, download: Path) -> list[str]:
        """Wait for one headless download's run; its stderr outputs (an error raises)."""
        return self.headless[download].result()


def run_download_headless(download: Path, fresh: FreshEnv) -> list[str]:
    """Run the reader's copy of ``download`` with nbclient; its stderr outputs."""
    copy = reader_copy(download, fresh)
    notebook = nbformat.read(copy, as_version=4)
    run_headless(notebook, copy.parent)
    return stderr_outputs(notebook)


HEADLESS_NICENESS = 10
"""How much lower the headless downloads' CPU priority is than the session's: the chapters
running in JupyterLab one after another are the stage's longest path and take the CPU first;
the headless runs fill the time JupyterLab waits (autosave, charts settling)."""


def run_below() -> None:
    """Lower the calling thread's CPU priority by :data:`HEADLESS_NICENESS`, and so that of the
    kernels it starts (Linux keeps a priority per thread, and a child process starts with its
    parent thread's): the initializer of the headless downloads' worker thread."""
    tid = threading.get_native_id()
    os.setpriority(os.PRIO_PROCESS, tid, os.getpriority(os.PRIO_PROCESS, tid) + HEADLESS_NICENESS)


def run_setup_cell(fresh: FreshEnv) -> bool:
    """Run the first download's set-up cell alone in the fresh kernel (it installs moelaws);
    whether moelaws is importable afterwards."""
    first = nbformat.read(CHAPTER_DOWNLOADS[0], as_version=4)
    setup = pointed_at(first, fresh.package).cells[0]
    run_headless(nbformat.v4.new_notebook(cells=[setup]), fresh.where / "setup")
    return fresh.importable()


def _after_setup(reader: ReaderEnv, download: Path) -> list[str]:
    while not reader.setup.done():
        if reader.stopping.wait(0.5):
            break
    if reader.stopping.is_set():
        raise RuntimeError(f"{download.name} not run: the session ended first")
    if not reader.importable_after:
        raise RuntimeError(f"{download.name} not run: the set-up cell did not install moelaws")
    return run_download_headless(download, reader.fresh)


def start_reader_env(fresh: FreshEnv, setup_pool: ThreadPoolExecutor,
                     pool: ThreadPoolExecutor) -> ReaderEnv:
    """Start the set-up cell on ``setup_pool`` and queue every headless download on ``pool``,
    each to start once the set-up cell has ended: the session goes on meanwhile (JupyterLab's
    tab loads while pip installs), and what needs moelaws in the fresh kernel waits for
    :attr:`ReaderEnv.importable_after`."""
    assert CHAPTER_DOWNLOADS, f"no notebooks under {SOURCES}: build the book first (make book)"
    reader = ReaderEnv(fresh, fresh.importable(), setup_pool.submit(run_setup_cell, fresh))
    for download in HEADLESS_DOWNLOADS:
        reader.headless[download] = pool.submit(_after_setup, reader, download)
    return reader
