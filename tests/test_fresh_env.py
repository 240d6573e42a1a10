"""The reader's stage's helpers (tests/fresh_env.py) that run without a built book."""

from __future__ import annotations

import asyncio
import copy
import os
import subprocess
import threading
import time
import traceback
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import fresh_env
import jupytext
import nbformat
import pytest
from fresh_env import HEADLESS_NICENESS, prefix_mismatch, run_below

from moelaws.teaching.exercises import find_exercises
from moelaws.teaching.student import STARTER_TAG, STUB_TAG, student_notebook

ROOT = Path(__file__).resolve().parents[1]
CHAPTERS = sorted((ROOT / "notebooks").glob("*.md"))


def _niceness_of_a_child() -> int:
    return int(subprocess.run(["sh", "-c", "ps -o ni= -p $$"], capture_output=True, text=True,
                              check=True).stdout)


async def _niceness_of_an_asyncio_child() -> int:
    process = await asyncio.create_subprocess_exec("sh", "-c", "ps -o ni= -p $$",
                                                   stdout=subprocess.PIPE)
    out, _ = await process.communicate()
    return int(out)


def test_headless_kernels_start_below_the_session() -> None:
    """What the headless downloads' worker thread starts (a kernel, by a plain or an asyncio
    subprocess) runs HEADLESS_NICENESS below the session; the session's own children do not."""
    here = os.getpriority(os.PRIO_PROCESS, 0)
    with ThreadPoolExecutor(max_workers=1, initializer=run_below) as pool:
        plain = pool.submit(_niceness_of_a_child).result()
        in_loop = pool.submit(lambda: asyncio.run(_niceness_of_an_asyncio_child())).result()
    assert HEADLESS_NICENESS > 0
    expected = min(here + HEADLESS_NICENESS, 19)
    assert plain == in_loop == expected, (here, plain, in_loop)
    assert _niceness_of_a_child() == here


@pytest.fixture(scope="module")
def chapter() -> nbformat.NotebookNode:
    return jupytext.read(CHAPTERS[0])


def test_a_student_edition_is_the_start_of_its_chapter(chapter: nbformat.NotebookNode) -> None:
    """As :mod:`moelaws.teaching.student` makes it from a chapter whose starter cells come
    before any solution, its code cells (stubs aside) are the chapter's first code cells."""
    student = student_notebook(chapter)
    assert prefix_mismatch(student, chapter) == ""
    stubs = [c for c in student.cells if STUB_TAG in c.metadata.get("tags", [])]
    assert stubs and all(c.source.lstrip().startswith("#") for c in stubs)


def test_a_starter_cell_after_a_solution_is_not_the_start_of_its_chapter(
        chapter: nbformat.NotebookNode) -> None:
    """The student edition runs that starter without the solution before it: it must run."""
    exercises = find_exercises(chapter)
    assert len(exercises) >= 2
    second = exercises[1]
    edited = copy.deepcopy(chapter)
    starter = nbformat.v4.new_code_cell("given = 1\n", metadata={"tags": [STARTER_TAG]})
    edited.cells.insert(second.end_cell + 1, starter)
    student = student_notebook(edited)
    assert "given = 1" in "".join(c.source for c in student.cells)
    assert "is not the chapter's" in prefix_mismatch(student, edited)


@pytest.mark.parametrize("change", ["stub code", "stub magic", "kernel", "extra cell",
                                    "first cell", "edited cell", "cell tags"])
def test_what_makes_a_student_edition_differ_from_its_chapter(
        chapter: nbformat.NotebookNode, change: str) -> None:
    student = student_notebook(chapter)
    code = [c for c in student.cells if c.cell_type == "code"]
    stub = next(c for c in code if STUB_TAG in c.metadata.get("tags", []))
    if change == "stub code":
        stub.source += "x = 1\n"
    elif change == "stub magic":
        stub.source += "%timeit 1\n"
    elif change == "kernel":
        student.metadata["kernelspec"] = {"name": "other", "display_name": "Other"}
    elif change == "extra cell":
        student.cells.append(nbformat.v4.new_code_cell("x = 1\n"))
    elif change == "first cell":
        code[0].source += "\n"
    elif change == "edited cell":
        code[1].source += "\n"
    else:
        code[1].metadata.setdefault("tags", []).append("raises-exception")
    assert prefix_mismatch(student, chapter)


def test_a_student_edition_longer_than_its_chapter_is_not_its_start(
        chapter: nbformat.NotebookNode) -> None:
    """The chapter's code ends where the student edition's would go on: not covered."""
    student = student_notebook(chapter)
    shortest = copy.deepcopy(student)
    shortest.cells = [c for c in student.cells if STUB_TAG not in c.metadata.get("tags", [])]
    assert prefix_mismatch(student, shortest) == ""
    student.cells.append(nbformat.v4.new_code_cell("x = 1\n"))
    assert "code cells against the chapter's" in prefix_mismatch(student, shortest)


class _Fresh:
    def importable(self) -> bool:
        return False


def _reader(monkeypatch: pytest.MonkeyPatch, setup: Any, runs: list[str]) -> Any:
    """start_reader_env with the set-up cell and the headless run replaced by ``setup`` and a
    recorder, on two one-thread executors as the ``reader_env`` fixture makes them."""
    monkeypatch.setattr(fresh_env, "CHAPTER_DOWNLOADS", [Path("chapter.ipynb")])
    monkeypatch.setattr(fresh_env, "HEADLESS_DOWNLOADS", [Path("a.ipynb"), Path("b.ipynb")])
    monkeypatch.setattr(fresh_env, "run_setup_cell", lambda fresh: setup())
    monkeypatch.setattr(fresh_env, "run_download_headless",
                        lambda download, fresh: runs.append(download.name) or [])
    return fresh_env.start_reader_env


def test_headless_downloads_start_after_the_setup_cell(monkeypatch: pytest.MonkeyPatch) -> None:
    runs: list[str] = []
    gate = threading.Event()

    def setup() -> bool:
        gate.wait(10)
        runs.append("setup")
        return True

    start = _reader(monkeypatch, setup, runs)
    with ThreadPoolExecutor(1) as setup_pool, ThreadPoolExecutor(1) as pool:
        reader = start(_Fresh(), setup_pool, pool)
        assert reader.importable_before is False and not reader.setup.done()
        time.sleep(0.3)
        assert runs == [], "a headless download started before the set-up cell ended"
        gate.set()
        assert reader.importable_after is True
        assert [reader.headless_result(Path(n)) for n in ("a.ipynb", "b.ipynb")] == [[], []]
    assert runs == ["setup", "a.ipynb", "b.ipynb"]


def test_a_failed_setup_cell_is_reported_to_every_test(monkeypatch: pytest.MonkeyPatch) -> None:
    def fail() -> bool:
        raise ValueError("pip failed")

    runs: list[str] = []
    start = _reader(monkeypatch, fail, runs)
    with ThreadPoolExecutor(1) as setup_pool, ThreadPoolExecutor(1) as pool:
        reader = start(_Fresh(), setup_pool, pool)
        depths = []
        for _ in range(3):
            with pytest.raises(RuntimeError, match="set-up cell failed: ValueError: pip failed"):
                assert reader.importable_after
            error = reader.setup.exception()
            depths.append(len(traceback.extract_tb(error.__traceback__)))
        with pytest.raises(RuntimeError, match="set-up cell failed"):
            reader.headless_result(Path("a.ipynb"))
    assert len(set(depths)) == 1, f"the stored error grew: {depths}"
    assert runs == []


def test_an_ended_session_starts_no_waiting_download(monkeypatch: pytest.MonkeyPatch) -> None:
    runs: list[str] = []
    gate = threading.Event()
    start = _reader(monkeypatch, lambda: gate.wait(10), runs)
    with ThreadPoolExecutor(1) as setup_pool, ThreadPoolExecutor(1) as pool:
        reader = start(_Fresh(), setup_pool, pool)
        reader.stopping.set()
        pool.shutdown(wait=True, cancel_futures=True)
        gate.set()
    assert runs == []
    with pytest.raises(RuntimeError, match="session ended first"):
        reader.headless[Path("a.ipynb")].result()
