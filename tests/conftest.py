"""Shared set-up of the unit tests: one BLAS/torch thread, and the papers' texts.

Threads: see :mod:`moelaws.threads` (set before any test module imports NumPy or torch).

Papers: transcription tests compare our CSVs with a parse of the papers' text extractions,
which live beside the repository in ``../shared/papers`` (as CI provides them; another folder
can be given with ``MOELAWS_PAPERS``). Without them the tests skip on a developer's machine but
fail in CI (``CI=true``), so that CI can never pass without running them.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from moelaws import threads

threads.limit()

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(autouse=True)
def _ieee_floats():
    """Training and the benchmark turn on torch's flush-to-zero of denormals, a process-wide
    CPU state; turn it off after each test so that later tests (Hypothesis's floats above all)
    see IEEE arithmetic."""
    yield
    torch = sys.modules.get("torch")
    if torch is not None:
        torch.set_flush_denormal(False)


def toc_chapters() -> list[str]:
    """The book's chapters as ``_toc.yml`` lists them (paths without suffix), in its order."""
    import yaml

    toc = yaml.safe_load((ROOT / "_toc.yml").read_text(encoding="utf-8"))
    return [chapter["file"] for part in toc["parts"] for chapter in part["chapters"]]


def papers_dir() -> Path:
    """Where the papers' texts are: ``$MOELAWS_PAPERS``, else ``<repo>/../shared/papers``."""
    env = os.environ.get("MOELAWS_PAPERS")
    return Path(env) if env else ROOT.parent / "shared" / "papers"


@pytest.fixture
def paper_text():
    """A function returning the path of one paper's text; skips (fails in CI) when missing."""

    def find(name: str) -> Path:
        path = papers_dir() / name
        if not path.is_file():
            message = (f"{name} not found in {papers_dir()} (the papers beside the repository, "
                       "or MOELAWS_PAPERS)")
            if os.environ.get("CI", "").lower() == "true":
                pytest.fail(message)
            pytest.skip(message)
        return path

    return find


@pytest.fixture(scope="session")
def fresh_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Where the fresh environment will be (known before it is made: JupyterLab starts first)."""
    return tmp_path_factory.mktemp("fresh")


@pytest.fixture(scope="session")
def fresh_env(fresh_dir: Path) -> Iterator[Any]:
    """The reader's fresh environment (tests/fresh_env.py), made once per session; its kernel
    ``moelaws-fresh`` is on ``JUPYTER_PATH`` for this process and what it starts."""
    from fresh_env import make_fresh_env

    fresh = make_fresh_env(fresh_dir)
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("JUPYTER_PATH", os.pathsep.join(
            [str(fresh.jupyter_path), *filter(None, os.environ.get("JUPYTER_PATH", "").split(
                os.pathsep))]))
        yield fresh


@pytest.fixture(scope="session")
def lab_runs() -> dict[str, dict[str, Any]]:
    """What each chapter's download did when it ran in JupyterLab in this session, by the
    download's file name (tests/browser/test_live_lab.py fills it): ``code`` cells, of which
    ``executed``, and its ``errors`` and ``stderr`` outputs. tests/test_downloads.py reads it
    for the student editions that run as their chapter's first cells."""
    return {}


@pytest.fixture(scope="session")
def reader_env(fresh_env: Any) -> Iterator[Any]:
    """The fresh environment with a download's set-up cell installing moelaws there in the
    background (``importable_after`` waits for it), then the downloads that are not chapters
    running headless beside the rest of the session (tests/test_downloads.py checks them;
    tests/browser/test_live_lab.py runs the chapters in JupyterLab meanwhile)."""
    from fresh_env import run_below, start_reader_env

    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="setup") as setup_pool, \
            ThreadPoolExecutor(max_workers=1, thread_name_prefix="headless",
                               initializer=run_below) as pool:
        reader = start_reader_env(fresh_env, setup_pool, pool)
        try:
            yield reader
        finally:
            reader.stopping.set()
            pool.shutdown(wait=True, cancel_futures=True)
