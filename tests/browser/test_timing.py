"""The timing report exists and every chapter ran within the run time its opening states.

Each chapter opens with "**Run time** under N seconds (or minutes) on two CPU cores"; the
build that ``make test`` runs executes every chapter from scratch and records how long each
took in ``_build/timing.json``. A chapter that became slower than it says fails here, so the
stated run times stay true.
"""

from __future__ import annotations

import json
import re

import pytest
from book_browser import BOOK, ROOT

TIMING = BOOK.parent / "timing.json"
CHAPTERS = sorted((ROOT / "notebooks").glob("*.md"))
_STATED = re.compile(
    r"\*\*Run time\.?\*\*\.?\s+under\s+(\d+|a|one|two|three|four|five)\s+(seconds?|minutes?)",
    re.IGNORECASE,
)
_WORDS = {"a": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5}


def stated_run_time(text: str) -> float:
    """The bound, in seconds, of a chapter's "**Run time** under N seconds|minutes" line."""
    match = _STATED.search(text)
    if match is None:
        raise ValueError("no '**Run time** under N seconds|minutes' statement")
    number, unit = match.group(1).lower(), match.group(2).lower()
    value = float(_WORDS.get(number, number))
    return value * (60.0 if unit.startswith("minute") else 1.0)


def test_stated_run_time_parser() -> None:
    assert stated_run_time("**Run time** under 15 seconds on two CPU cores.") == 15.0
    assert stated_run_time("**Run time** under two minutes on two cores") == 120.0
    assert stated_run_time("**Run time.** Under a minute") == 60.0
    with pytest.raises(ValueError):
        stated_run_time("**Run time** about 20 seconds")


def _report() -> dict:
    assert TIMING.is_file(), f"no timing report at {TIMING}: `make book` writes it"
    return json.loads(TIMING.read_text())


def test_timing_report_covers_every_chapter() -> None:
    report = _report()
    assert report["succeeded"]
    names = {r["docname"] for r in report["notebooks"]}
    assert {f"notebooks/{p.stem}" for p in CHAPTERS} <= names
    assert report["sphinx_seconds"] > 0
    # The budget: the whole book executes and builds from scratch in under 10 minutes.
    assert report["sphinx_seconds"] < 600


@pytest.mark.parametrize("chapter", CHAPTERS, ids=lambda p: p.stem)
def test_chapter_runs_within_its_stated_run_time(chapter) -> None:
    bound = stated_run_time(chapter.read_text())
    record = next(r for r in _report()["notebooks"] if r["docname"] == f"notebooks/{chapter.stem}")
    if not record["executed_in_this_build"]:
        pytest.skip("taken from the execution cache in this build (make test executes all)")
    assert record["runtime_s"] <= bound, (
        f"{chapter.name} ran {record['runtime_s']:.0f} s; its opening says under {bound:.0f} s"
    )
