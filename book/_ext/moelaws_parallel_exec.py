"""Sphinx extension: execute the chapters two at a time before Sphinx reads them.

Sphinx reads the documents one after another, and MyST-NB executes a notebook when it reads
it: nine chapters ran one at a time while the second core idled (127 of ``make book``'s 161
seconds). Before the reading starts (``env-before-read-docs``), this extension finds the
notebooks MyST-NB would execute (execution mode ``cache``, not excluded, no match in
jupyter-cache) and executes them in worker processes, ``MOELAWS_EXEC_JOBS`` at a time (default:
two, or one per core if fewer), each with MyST-NB's own reader, settings and executor
(``jupyter_cache``'s ``single_nb_execution``, as ``myst_nb.core.execute.cache`` calls it). When
Sphinx comes to a notebook (``source-read``), it waits for that notebook's execution and stores
it in the cache exactly as MyST-NB stores an execution; MyST-NB then finds it there.

What the other extensions see stays the same: the files the kernel read are recorded in the
document's folder of ``moelaws_exec_cache.py`` (``reads_dir``), which keeps them; the kernel's
CPU time is measured in its worker (the worker's reaped children) and reported by
``moelaws_execution.py``'s timing report, where the notebook counts as executed in this build.
A notebook whose execution failed here is not stored: MyST-NB executes it again when Sphinx
reads it, and reports the failure as it always does (a failing chapter so runs twice). A
notebook that cannot be read here, or that runs in a temporary folder
(``execution_in_temp``), is left to MyST-NB. A failed or interrupted build (Ctrl+C, which the
workers ignore) cancels what has not started and ends the workers.
"""

from __future__ import annotations

import os
import re
import signal
import time
from concurrent.futures import Future, ProcessPoolExecutor
from multiprocessing import get_context
from pathlib import Path, PurePosixPath
from typing import Any

JOBS_VARIABLE = "MOELAWS_EXEC_JOBS"


def jobs() -> int:
    """How many notebooks execute at a time: ``$MOELAWS_EXEC_JOBS``, else min(2, cores)."""
    text = os.environ.get(JOBS_VARIABLE, "").strip()
    if text:
        if not text.isdigit() or int(text) < 1:
            raise ValueError(f"{JOBS_VARIABLE} must be a whole number >= 1, not {text!r}")
        return int(text)
    return max(1, min(2, os.cpu_count() or 1))


def execute(source: str, cwd: str, timeout: int | None, allow_errors: bool,
            reads_dir: str) -> dict[str, Any]:
    """Execute one notebook (nbformat JSON) in a worker process, as MyST-NB's cache mode does.

    Returns the executed notebook, its execution time (s), the CPU time of its kernel (this
    worker's reaped children) and the error's class name (``None`` when it ran through)."""
    import nbformat
    from jupyter_cache.executors.utils import single_nb_execution
    from moelaws_execution import _children_cpu as children_cpu

    from moelaws.kernel_polling import patch_shell_polling

    os.environ["MOELAWS_READS_DIR"] = reads_dir
    patch_shell_polling()
    notebook = nbformat.reads(source, as_version=4)
    before = children_cpu()
    result = single_nb_execution(notebook, cwd=cwd, timeout=timeout, allow_errors=allow_errors,
                                 meta_override=True)
    return {"notebook": nbformat.writes(notebook), "seconds": result.time,
            "cpu": round(children_cpu() - before, 2),
            "error": None if result.err is None else type(result.err).__name__}


def _ignore_interrupts() -> None:
    """A worker leaves Ctrl+C to the build, which stops the workers (:func:`_stop`)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _stop(app: Any) -> None:
    """Cancel the executions not started and end the workers (and so their kernels, which
    exit with the process that started them)."""
    pool = getattr(app, "moelaws_exec_pool", None)
    if pool is None:
        return
    app.moelaws_exec_pool = None
    for future, *_ in getattr(app, "moelaws_pending_exec", {}).values():
        future.cancel()
    for process in list((pool._processes or {}).values()):
        process.terminate()
    pool.shutdown(wait=False, cancel_futures=True)


def _to_execute(env: Any, docname: str) -> tuple[Any, Any, Any] | None:
    """``(notebook, nb_config, read_fmt)`` when MyST-NB would execute ``docname`` now."""
    from jupyter_cache import get_cache
    from myst_nb.core.nb_to_tokens import nb_node_to_dict
    from myst_nb.core.read import create_nb_reader

    nb_config = getattr(env, "mystnb_config", None)
    if nb_config is None or nb_config.execution_mode != "cache":
        return None
    path = Path(env.doc2path(docname))
    content = path.read_text(encoding=env.config.source_encoding)
    reader = create_nb_reader(str(path), env.myst_config, nb_config, content)
    if reader is None:
        return None
    notebook = reader.read(content)
    # As myst_nb.sphinx_.Parser.parse: the kernel's alias, then the notebook's own settings.
    kernel = notebook.metadata.get("kernelspec", {}).get("name")
    for pattern, alias in (nb_config.kernel_rgx_aliases or {}).items():
        if kernel is not None and re.fullmatch(pattern, kernel):
            notebook.metadata["kernelspec"]["name"] = alias
            break
    if nb_config.metadata_key in notebook.metadata:
        overrides = nb_node_to_dict(notebook.metadata[nb_config.metadata_key])
        overrides.pop("output_folder", None)
        nb_config = nb_config.copy(**overrides)
    # A notebook that runs in a temporary folder is left to MyST-NB, which makes the folder.
    if nb_config.execution_mode != "cache" or nb_config.execution_in_temp:
        return None
    posix = PurePosixPath(path.as_posix())
    if any(posix.match(p) for p in nb_config.execution_excludepatterns or ()):
        return None
    try:
        get_cache(nb_config.execution_cache_path).match_cache_notebook(notebook)
        return None
    except KeyError:
        return notebook, nb_config, reader.read_fmt


def _start(app: Any, env: Any, docnames: list[str]) -> None:
    import nbformat
    from moelaws_exec_cache import reads_dir

    app.moelaws_preexecuted = {}
    app.moelaws_pending_exec = {}
    stale = {}
    for docname in sorted(docnames):
        try:
            found = _to_execute(env, docname)
        except Exception:  # MyST-NB reads it again and reports what is wrong
            found = None
        if found is not None:
            stale[docname] = found
    workers = min(jobs(), len(stale))
    if workers < 2:
        return
    os.environ.pop("MOELAWS_READS_DIR", None)
    pool = ProcessPoolExecutor(max_workers=workers, mp_context=get_context("spawn"),
                               initializer=_ignore_interrupts)
    app.moelaws_exec_pool = pool
    for docname, (notebook, nb_config, read_fmt) in stale.items():
        path = Path(env.doc2path(docname))
        cwd = str(path.parent)
        future = pool.submit(execute, nbformat.writes(notebook), cwd,
                             nb_config.execution_timeout, nb_config.execution_allow_errors,
                             str(reads_dir(app, docname)))
        app.moelaws_pending_exec[docname] = (future, path, nb_config, read_fmt)
    from sphinx.util import logging

    logging.getLogger(__name__).info(
        f"[moelaws] executing {len(stale)} notebooks, {workers} at a time")


def _store(app: Any, docname: str, future: Future, path: Path, nb_config: Any,
           read_fmt: Any) -> None:
    """Wait for ``docname``'s execution and cache it as MyST-NB's cache client does."""
    import nbformat
    from jupyter_cache import get_cache
    from jupyter_cache.base import CacheBundleIn
    from jupyter_cache.cache.db import NbProjectRecord
    from sphinx.util import logging

    logger = logging.getLogger(__name__)
    started = time.monotonic()
    try:
        result = future.result()
    except (KeyboardInterrupt, SystemExit):
        _stop(app)
        raise
    except Exception as exc:  # the worker died: MyST-NB executes the notebook itself
        logger.info(f"[moelaws] {docname}: parallel execution failed ({exc!r}); executing it "
                    "again while reading")
        return
    if result["error"] is not None:
        logger.info(f"[moelaws] {docname}: {result['error']} in the parallel execution; "
                    "executing it again while reading, to report it")
        return
    cache = get_cache(nb_config.execution_cache_path)
    if read_fmt is not None:
        stage = cache.add_nb_to_project(str(path), read_data=read_fmt)
    else:
        stage = cache.add_nb_to_project(str(path))
    NbProjectRecord.remove_tracebacks([stage.pk], cache.db)
    notebook = nbformat.reads(result["notebook"], as_version=4)
    cache.cache_notebook_bundle(
        CacheBundleIn(notebook, stage.uri, data={"execution_seconds": result["seconds"]}),
        check_validity=False, overwrite=True)
    app.moelaws_preexecuted[docname] = result["cpu"]
    logger.info(f"[moelaws] {docname}: executed in {result['seconds']:.2f} s beside the "
                f"others (waited {time.monotonic() - started:.1f} s for it)")


def _source_read(app: Any, docname: str, source: list[str]) -> None:
    pending = getattr(app, "moelaws_pending_exec", {}).pop(docname, None)
    if pending is not None:
        _store(app, docname, *pending)


def _finish(app: Any, exception: Exception | None) -> None:
    if exception is not None:
        _stop(app)
        return
    pool = getattr(app, "moelaws_exec_pool", None)
    if pool is not None:
        pool.shutdown(wait=True, cancel_futures=True)
        app.moelaws_exec_pool = None


def setup(app: Any) -> dict[str, Any]:
    app.connect("env-before-read-docs", _start)
    # Before moelaws_exec_cache's source-read handler (500), which empties a document's folder
    # of recorded reads unless the document was executed here.
    app.connect("source-read", _source_read, priority=400)
    app.connect("build-finished", _finish)
    return {"parallel_read_safe": False, "parallel_write_safe": True}
