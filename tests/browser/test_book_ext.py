"""The book's Sphinx extension (book/_ext/moelaws_execution.py), piece by piece: execution and
timing (its cache's validity is tested in tests/test_exec_cache.py)."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from types import SimpleNamespace

import pytest
from book_browser import ROOT
from book_extensions import load_extension

from moelaws import kernel_polling

EXT_PATH = ROOT / "book" / "_ext" / "moelaws_execution.py"
ext = load_extension("moelaws_execution")


def test_timing_records_and_report() -> None:
    start = 1000.0
    env = SimpleNamespace(
        nb_metadata={
            "notebooks/a": {"exec_data": {"mtime": 1001.0, "runtime": 12.345, "method": "cache",
                                          "succeeded": True, "error": None}},
            "notebooks/b": {"exec_data": {"mtime": 10.0, "runtime": 3.0, "method": "cache",
                                          "succeeded": True, "error": None}},
            "book/intro": {},
        }
    )
    records = ext.timing_records(env, start)
    assert [r["docname"] for r in records] == ["notebooks/a", "notebooks/b"]
    assert [r["executed_in_this_build"] for r in records] == [True, False]
    assert records[0]["runtime_s"] == 12.35
    report = {
        "notebooks": records, "executed_seconds": 12.3, "executed_count": 1,
        "sphinx_seconds": 20.0, "total_seconds": 25.0, "execution_cache": "kept",
    }
    text = ext.format_report(report)
    assert "notebooks/a" in text and "executed" in text and "from cache" in text
    assert "Whole book command: 25.0 s" in text


def test_timing_report_command_records_the_total(tmp_path: Path) -> None:
    path = tmp_path / "timing.json"
    path.write_text(json.dumps({
        "notebooks": [], "executed_seconds": 0.0, "executed_count": 0,
        "sphinx_seconds": 3.0, "total_seconds": None, "execution_cache": "new",
    }))
    out = subprocess.run([sys.executable, str(EXT_PATH), str(path), "--total", "7"],
                         capture_output=True, text=True, check=True).stdout
    assert "Whole book command: 7.0 s" in out
    assert json.loads(path.read_text())["total_seconds"] == 7.0


def test_timing_report_shows_the_last_test_and_benchmark_durations(tmp_path: Path) -> None:
    """`make test` and `make bench` record their durations beside the timing report, which
    prints the last of each (issue 27: "the timings report shows them")."""
    path = tmp_path / "timing.json"
    path.write_text(json.dumps({
        "notebooks": [], "executed_seconds": 0.0, "executed_count": 0,
        "sphinx_seconds": 3.0, "total_seconds": None, "execution_cache": "new",
    }))
    for name, seconds, note in (("make test", "512", "all stages"),
                                ("benchmark", "83", "median 0.98, min 0.92"),
                                ("make test", "498", "again")):
        out = subprocess.run([sys.executable, str(EXT_PATH), str(path), "--record", name,
                              seconds, "--note", note], capture_output=True, text=True,
                             check=True).stdout
        assert f"{name} took {seconds} s" in out
    report = subprocess.run([sys.executable, str(EXT_PATH), str(path)], capture_output=True,
                            text=True, check=True).stdout
    assert "Last make test in this checkout: 498 s" in report and ": again" in report
    assert "Last benchmark in this checkout: 83 s" in report
    assert "512" not in report
    assert "Last " not in ext.format_report(json.loads(path.read_text()))


_WIDGET_CELL = textwrap.dedent(
    """
    import altair as alt
    import ipywidgets as widgets
    import numpy as np
    import pandas as pd
    from IPython.display import display

    from moelaws import charts

    charts.enable()


    def show(x=1):
        frame = pd.DataFrame({"a": np.arange(400), "b": np.arange(400) * x})
        display(alt.Chart(frame).mark_circle().encode(x="a:Q", y="b:Q"))


    widgets.interactive(show, x=widgets.IntSlider(value=1, min=0, max=5))
    """
)


def test_widget_cells_do_not_wait_out_the_timeout(monkeypatch: pytest.MonkeyPatch) -> None:
    """Unpatched, most of these cells take the whole timeout (jupyter/nbclient#312): a reply
    whose wake-up was lost is noticed only when the socket's poll for it ends.

    What is checked is what the patch guarantees, not a duration (which a loaded machine
    stretches): every poll of the client's sockets ends within :data:`POLL_SLICE_S`, so a lost
    wake-up costs a slice, not the cell's timeout. Unpatched, the polls ask for the whole
    timeout (30 000 ms) or for no limit at all.
    """
    import zmq.asyncio
    from nbclient import NotebookClient
    from nbformat.v4 import new_code_cell, new_notebook

    kernel_polling.patch_shell_polling()
    kernel_polling.patch_shell_polling()
    polls: list[int | None] = []
    poll = zmq.asyncio.Socket.poll

    def recorded(self: object, timeout: int | None = None, *args: object, **kwargs: object):
        polls.append(timeout)
        return poll(self, timeout, *args, **kwargs)

    monkeypatch.setattr(zmq.asyncio.Socket, "poll", recorded)
    kernelspec = {"name": "python3", "display_name": "Python 3", "language": "python"}
    notebook = new_notebook(cells=[new_code_cell(_WIDGET_CELL) for _ in range(6)],
                            metadata={"kernelspec": kernelspec})
    NotebookClient(notebook, timeout=30, resources={"metadata": {"path": str(ROOT)}}).execute()
    assert polls
    longest = kernel_polling.POLL_SLICE_S * 1000
    too_long = [t for t in polls if t is None or t > longest]
    assert not too_long, f"{len(too_long)} of {len(polls)} polls outlast a slice: {too_long[:5]}"
    for cell in notebook.cells:
        assert any("application/vnd.jupyter.widget-view+json" in o.get("data", {})
                   for o in cell.outputs)


@pytest.mark.parametrize("timeout", [0.0, 0.3])
def test_patched_get_msg_still_times_out(timeout: float) -> None:
    import asyncio
    from queue import Empty

    from jupyter_client.channels import AsyncZMQSocketChannel

    kernel_polling.patch_shell_polling()

    class Socket:
        async def poll(self, timeout_ms: int | None) -> int:
            await asyncio.sleep((timeout_ms or 0) / 1000)
            return 0

    channel = SimpleNamespace(socket=Socket())
    start = time.monotonic()
    with pytest.raises(Empty):
        asyncio.run(AsyncZMQSocketChannel.get_msg(channel, timeout=timeout))
    # Only the lower bound is exact (a sleep never ends early); a loaded machine may be late.
    assert time.monotonic() - start >= timeout - 0.01
