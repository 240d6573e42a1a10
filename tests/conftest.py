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
from pathlib import Path

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
