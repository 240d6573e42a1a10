"""Sphinx extension: executing the chapters (threads, widget cells), a timing report.

Whether a cached execution is still valid (the environment, the files each chapter read) is
decided by ``moelaws_exec_cache.py``; this extension only executes and times.

Downloadable notebooks: for a notebook taken from the cache, MyST-NB writes the executed copy
(``_build/jupyter_execute``, offered as the chapter's ".ipynb" download) without its outputs;
they are merged back from the cache.

Threads: before any kernel starts, :func:`moelaws.threads.limit` sets one BLAS/OpenMP/torch
thread per process (unless the environment already sets a count); kernels inherit it, so a
chapter on a shared machine does not oversubscribe the cores.

Execution of widget cells: nbclient (which executes the chapters) can miss a cell's reply
while an ipywidgets Output widget sends on the same socket, and wait out the whole execution
timeout (15 minutes; jupyter/nbclient#312). :func:`moelaws.kernel_polling.patch_shell_polling`,
which the parallel executor calls, makes the kernel client poll in short slices.

Timing report: at the end of the build, the execution time of every notebook (from MyST-NB's
per-document ``exec_data``), the CPU time its kernel used (the build's reaped child processes'
CPU time, measured around the reading of each notebook: unlike wall-clock time it does not grow
when other processes share the cores), the load average and the build's own duration are
printed and written to ``_build/timing.json``, followed by the last measured duration of
``make test`` and of the benchmark in this checkout (``_build/durations.json``, which those
commands write). Run this file as a script to print that report again, or to record a
duration::

    python book/_ext/moelaws_execution.py _build/timing.json [--total SECONDS]
    python book/_ext/moelaws_execution.py _build/timing.json --record NAME SECONDS [--note TEXT]
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import platform
import sys
import time
from pathlib import Path
from typing import Any

TIMING_FILE = "timing.json"
DURATIONS_FILE = "durations.json"
"""``_build/durations.json``: the last measured duration of each long command run in this
checkout (``make test``, the benchmark: ``make bench``), shown by the timing report."""
def _build_start(app: Any) -> None:
    app.moelaws_build_start = time.time()


def _restore_cached_outputs(app: Any, doctree: Any) -> None:
    config = getattr(app.env, "mystnb_config", None)
    if config is None or config.execution_mode != "cache":
        return
    docname = app.env.docname
    if not (getattr(app.env, "nb_metadata", {}) or {}).get(docname, {}).get("exec_data"):
        return
    path = Path(config.output_folder, *f"{docname}.ipynb".split("/"))
    if not path.is_file():
        return
    import nbformat
    from jupyter_cache import get_cache

    notebook = nbformat.read(path, as_version=4)
    if any(cell.get("outputs") for cell in notebook.cells):
        return
    try:
        _, merged = get_cache(config.execution_cache_path).merge_match_into_notebook(notebook)
    except KeyError:
        return
    nbformat.write(merged, path)


def _children_cpu() -> float:
    """CPU seconds of this process's finished (reaped) children: the notebook kernels."""
    import resource

    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _cpu_start(app: Any, docname: str, source: list[str]) -> None:
    app.moelaws_cpu_start = getattr(app, "moelaws_cpu_start", {})
    app.moelaws_cpu_start[docname] = _children_cpu()


def _cpu_end(app: Any, doctree: Any) -> None:
    docname = app.env.docname
    start = getattr(app, "moelaws_cpu_start", {}).get(docname)
    if start is not None:
        app.moelaws_cpu = getattr(app, "moelaws_cpu", {})
        # Executed beside the others by moelaws_parallel_exec.py, which measured its kernel
        # (then taken from the cache here: nothing more, unless it was executed again).
        before = getattr(app, "moelaws_preexecuted", {}).get(docname, 0.0)
        app.moelaws_cpu[docname] = round(before + _children_cpu() - start, 2)


def timing_records(env: Any, start: float, cpu: dict[str, float] | None = None,
                   preexecuted: set[str] | frozenset[str] = frozenset()
                   ) -> list[dict[str, Any]]:
    """Execution data of every notebook in ``env``: how long it ran (wall clock), the CPU time
    of its kernel (``cpu``, by docname; ``None`` when not measured) and whether it ran now
    (``preexecuted``: executed in this build before Sphinx read it, then taken from the
    cache)."""
    cpu = cpu or {}
    metadata = getattr(env, "nb_metadata", {}) or {}
    records = []
    for docname in sorted(metadata):
        data = metadata[docname].get("exec_data")
        if not data:
            continue
        mtime = data.get("mtime") or 0.0
        runtime = data.get("runtime")
        records.append(
            {
                "docname": docname,
                "runtime_s": None if runtime is None else round(float(runtime), 2),
                "kernel_cpu_s": cpu.get(docname),
                # jupyter-cache reports method "cache" for hits and misses alike: a notebook
                # executed in this build has an execution time stamp after the build began.
                "executed_in_this_build": bool(mtime >= start) or docname in preexecuted,
                "mode": data.get("method"),
                "succeeded": bool(data.get("succeeded")),
                "error": data.get("error"),
            }
        )
    return records


def format_report(report: dict[str, Any], durations: dict[str, Any] | None = None) -> str:
    """The timing report as text: one line per notebook, then the totals, then the last
    measured duration of each long command (``durations``, from :data:`DURATIONS_FILE`)."""
    lines = ["Notebook execution times (s): wall clock, kernel CPU"]
    for rec in report["notebooks"]:
        runtime = "-" if rec["runtime_s"] is None else f"{rec['runtime_s']:8.1f}"
        cpu = rec.get("kernel_cpu_s")
        cpu_text = "-" if cpu is None or not rec["executed_in_this_build"] else f"{cpu:8.1f}"
        how = "executed" if rec["executed_in_this_build"] else "from cache"
        ok = "" if rec["succeeded"] else f"  FAILED ({rec['error']})"
        lines.append(f"  {rec['docname']:<40} {runtime:>8} {cpu_text:>8}  {how}{ok}")
    lines.append(
        f"  {'executed in this build (sum)':<40} {report['executed_seconds']:8.1f}"
        f"  ({report['executed_count']} of {len(report['notebooks'])} notebooks)"
    )
    lines.append(f"Sphinx build (reading, executing, writing): {report['sphinx_seconds']:.1f} s")
    if report.get("total_seconds") is not None:
        lines.append(f"Whole book command: {report['total_seconds']:.1f} s")
    lines.append(f"Execution cache: {report['execution_cache']}")
    if report.get("load_average"):
        lines.append(f"Load average (1, 5, 15 min) at the end: {report['load_average']}, "
                     f"{report.get('cpu_count')} cores, {report.get('threads')} thread(s) per "
                     "kernel")
    for name, run in (durations or {}).items():
        note = f": {run['note']}" if run.get("note") else ""
        lines.append(f"Last {name} in this checkout: {run['seconds']:.0f} s "
                     f"(finished {run.get('finished', '?')}, load average at the end "
                     f"{run.get('load_average', '?')}){note}")
    return "\n".join(lines)


def record_duration(path: Path, name: str, seconds: float, note: str = "") -> dict[str, Any]:
    """Record that ``name`` (a command) took ``seconds`` in ``path`` (``durations.json``)."""
    runs = json.loads(path.read_text()) if path.is_file() else {}
    runs[name] = {
        "seconds": round(seconds, 1),
        "finished": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
        "load_average": [round(x, 2) for x in os.getloadavg()],
        "note": note,
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(runs, indent=2) + "\n")
    return runs


def _write_timing(app: Any, exception: Exception | None) -> None:
    from sphinx.util import logging

    start = getattr(app, "moelaws_build_start", time.time())
    records = timing_records(app.env, start, getattr(app, "moelaws_cpu", {}),
                             set(getattr(app, "moelaws_preexecuted", {})))
    executed = [r for r in records if r["executed_in_this_build"]]
    report = {
        "finished": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
        "succeeded": exception is None and all(r["succeeded"] for r in records),
        "sphinx_seconds": round(time.time() - start, 1),
        "total_seconds": None,
        "execution_cache": getattr(app, "moelaws_cache_note", "") or "not used",
        "executed_count": len(executed),
        "executed_seconds": round(sum(r["runtime_s"] or 0.0 for r in executed), 1),
        "cpu_count": os.cpu_count(),
        "load_average": [round(x, 2) for x in os.getloadavg()],
        "threads": os.environ.get("OMP_NUM_THREADS"),
        "python": platform.python_version(),
        "notebooks": records,
    }
    path = Path(app.outdir).parent / TIMING_FILE
    path.write_text(json.dumps(report, indent=2) + "\n")
    cached = len(records) - report["executed_count"]
    logging.getLogger(__name__).info(
        f"[moelaws] {report['executed_count']} of {len(records)} notebooks executed in "
        f"{report['executed_seconds']:.1f} s"
        + (f", {cached} from the cache" if cached else "")
        + f"; timing report: {path}"
    )


def setup(app: Any) -> dict[str, Any]:
    from moelaws import threads
    from moelaws.kernel_polling import patch_shell_polling

    threads.limit()
    patch_shell_polling()
    app.connect("source-read", _cpu_start)
    app.connect("doctree-read", _cpu_end)
    # Before moelaws_exec_cache's builder-inited handler (950), so that the build's duration
    # includes emptying the cache.
    app.connect("builder-inited", _build_start, priority=900)
    app.connect("doctree-read", _restore_cached_outputs)
    app.connect("build-finished", _write_timing)
    return {"parallel_read_safe": True, "parallel_write_safe": True}


def main(argv: list[str] | None = None) -> int:
    """Print a timing report, first recording the whole command's duration in it; or, with
    ``--record NAME SECONDS``, record a long command's duration for the report."""
    parser = argparse.ArgumentParser(description="Print the book's timing report.")
    parser.add_argument("report", type=Path, help="the timing.json a build wrote")
    parser.add_argument("--total", type=float, help="the whole build command's duration (s)")
    parser.add_argument("--record", nargs=2, metavar=("NAME", "SECONDS"),
                        help=f"record NAME's duration in {DURATIONS_FILE} beside REPORT")
    parser.add_argument("--note", default="", help="what --record's run measured")
    args = parser.parse_args(argv)
    durations_path = args.report.parent / DURATIONS_FILE
    if args.record:
        name, seconds = args.record[0], float(args.record[1])
        record_duration(durations_path, name, seconds, args.note)
        print(f"{name} took {seconds:.0f} s (recorded in {durations_path})")
        return 0
    report = json.loads(args.report.read_text())
    if args.total is not None:
        report["total_seconds"] = args.total
        args.report.write_text(json.dumps(report, indent=2) + "\n")
    durations = json.loads(durations_path.read_text()) if durations_path.is_file() else None
    print(format_report(report, durations))
    return 0


if __name__ == "__main__":
    sys.exit(main())
