"""The chapters execute two at a time before Sphinx reads them (book/_ext/moelaws_parallel_exec.py).

A real Sphinx + MyST-NB build, in this process, of a tiny book with two notebooks that can only
finish together: each writes that it started, then waits for the other's start (a build that
executed them one after the other fails: the first gives up waiting). Then what the other
extensions rely on: each notebook executed once (MyST-NB found the execution in the cache), the
files each kernel read recorded under its cache record, each kernel's CPU time in the timing
report as executed in this build, an unchanged rebuild a cache hit. A notebook that fails still
fails the build, with its error.
"""

from __future__ import annotations

import json
import os
import textwrap
import time
from pathlib import Path
from types import SimpleNamespace

import pytest
import yaml
from book_extensions import MYST_NOTEBOOK_HEADER, build_in_process, load_extension

ROOT = Path(__file__).resolve().parents[1]
EXT = ROOT / "book" / "_ext"
parallel = load_extension("moelaws_parallel_exec")
cache_ext = load_extension("moelaws_exec_cache")

WAIT_S = 120
"""How long a notebook waits for the other to start: a backstop (kernels start in seconds)."""


def _notebook(name: str, other: str, runs: Path, extra: str = "") -> str:
    """A notebook that waits for ``other`` to start, runs ``extra`` (one line), reads its data."""
    return MYST_NOTEBOOK_HEADER + textwrap.dedent(f"""\
        # {name}

        ```{{code-cell}} ipython3
        import time
        from pathlib import Path

        with open({str(runs)!r}, "a") as log:
            log.write("executed {name}\\n")
        Path("{name}.started").write_text("")
        deadline = time.monotonic() + {WAIT_S}
        while not Path("{other}.started").exists():
            if time.monotonic() > deadline:
                raise RuntimeError("{other} never started beside {name}")
            time.sleep(0.05)
        {extra or "pass"}
        print("VALUE:", Path("data/{name}.txt").read_text().strip())
        ```
        """)


def _tiny_book(src: Path, runs: Path, b_extra: str = "") -> None:
    (src / "data").mkdir(parents=True)
    for name in ("a", "b"):
        (src / "data" / f"{name}.txt").write_text(f"value of {name}\n")
    (src / "a.md").write_text(_notebook("a", "b", runs))
    (src / "b.md").write_text(_notebook("b", "a", runs, b_extra))
    (src / "index.md").write_text("# Tiny\n\n```{toctree}\na\nb\n```\n")
    (src / "conf.py").write_text(textwrap.dedent(f"""
        import sys
        sys.path.insert(0, {str(EXT)!r})
        extensions = ["myst_nb", "moelaws_execution", "moelaws_exec_cache",
                      "moelaws_parallel_exec"]
        nb_execution_mode = "cache"
        nb_execution_raise_on_error = True
        nb_execution_show_tb = True
        nb_execution_cache_path = {str(src / "_build" / ".jupyter_cache")!r}
        exclude_patterns = ["_build"]
        """))


@pytest.mark.slow
def test_notebooks_execute_together_and_the_build_sees_ordinary_executions(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv(parallel.JOBS_VARIABLE, "2")
    # East of UTC, jupyter-cache's time stamps (UTC, read back as local time) predate the
    # build: the report must still count these notebooks as executed in it.
    monkeypatch.setenv("TZ", "Etc/GMT-9")
    time.tzset()
    src, runs = tmp_path / "book", tmp_path / "runs.log"
    _tiny_book(src, runs)
    try:
        status = build_in_process(src)
    finally:
        monkeypatch.undo()
        time.tzset()
    assert status == 0, capsys.readouterr().err[-3000:]
    assert sorted(runs.read_text().splitlines()) == ["executed a", "executed b"]
    for name in ("a", "b"):
        assert f"VALUE: value of {name}" in (src / "_build" / "html" / f"{name}.html").read_text()

    manifest = cache_ext.load_manifest(src / "_build" / ".jupyter_cache")["records"]
    files = {entry["uri"]: sorted(f for f in entry["files"] if f.startswith("data/"))
             for entry in manifest.values()}
    assert files == {"a.md": ["data/a.txt"], "b.md": ["data/b.txt"]}

    report = json.loads((src / "_build" / "timing.json").read_text())
    records = {r["docname"]: r for r in report["notebooks"]}
    assert sorted(records) == ["a", "b"]
    for record in records.values():
        assert record["executed_in_this_build"] and record["succeeded"], record
        assert record["kernel_cpu_s"] > 0, record

    for marker in src.glob("*.started"):
        marker.unlink()
    assert build_in_process(src) == 0, capsys.readouterr().err[-3000:]
    assert len(runs.read_text().splitlines()) == 2, "an unchanged rebuild must be a cache hit"


@pytest.mark.slow
def test_a_failing_notebook_still_fails_the_build(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """The parallel execution stores nothing for it; MyST-NB runs it again and reports it."""
    monkeypatch.setenv(parallel.JOBS_VARIABLE, "2")
    src, runs = tmp_path / "book", tmp_path / "runs.log"
    _tiny_book(src, runs, b_extra='raise ValueError("b is broken")')
    assert build_in_process(src) != 0
    err = capsys.readouterr().err
    assert "b.md: WARNING: Executing notebook failed" in err and "b is broken" in err, err[-3000:]
    assert sorted(runs.read_text().splitlines()) == ["executed a", "executed b", "executed b"]


def test_jobs_come_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(parallel.JOBS_VARIABLE, "3")
    assert parallel.jobs() == 3
    monkeypatch.delenv(parallel.JOBS_VARIABLE)
    assert parallel.jobs() == max(1, min(2, os.cpu_count() or 1))
    for bad in ("0", "two", "-1"):
        monkeypatch.setenv(parallel.JOBS_VARIABLE, bad)
        with pytest.raises(ValueError, match=parallel.JOBS_VARIABLE):
            parallel.jobs()


def test_a_notebook_executed_before_reading_counts_as_executed_in_this_build() -> None:
    """Its record's time stamp is jupyter-cache's (UTC, read as local time by MyST-NB): the
    report goes by what this build executed, not by the stamp."""
    execution = load_extension("moelaws_execution")
    data = {"mtime": 10.0, "runtime": 3.0, "method": "cache", "succeeded": True, "error": None}
    env = SimpleNamespace(nb_metadata={"a": {"exec_data": data}, "b": {"exec_data": data}})
    records = execution.timing_records(env, 1000.0, {"a": 2.5}, preexecuted={"a"})
    assert [(r["docname"], r["executed_in_this_build"]) for r in records] == [
        ("a", True), ("b", False)]


def test_the_book_uses_the_parallel_execution() -> None:
    config = yaml.safe_load((ROOT / "_config.yml").read_text())
    assert config["sphinx"]["local_extensions"].get("moelaws_parallel_exec") == "book/_ext"
    assert config["execute"]["execute_notebooks"] == "cache"
