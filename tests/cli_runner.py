"""Run the ``moelaws`` command line in this process, as ``python -m moelaws`` would.

Starting a Python process costs about two seconds per command (imports), so the CLI tests call
:func:`moelaws.cli.main` with redirected streams and get back what ``subprocess.run`` returns.
A few tests in ``test_cli.py`` still start a real process (``SMOKE``) so that the entry point
itself (``python -m moelaws``) stays tested.
"""

from __future__ import annotations

import contextlib
import io
import subprocess
import sys

from moelaws.cli import main


def run_cli(*args: str, text: bool = True) -> subprocess.CompletedProcess:
    """``main(args)`` with stdout and stderr captured; exit status as a process would give it.

    An exception that ``main`` does not turn into an exit status propagates (a real process
    would print a traceback): the calling test fails on it.
    """
    buffers = io.BytesIO(), io.BytesIO()
    out, err = (io.TextIOWrapper(b, encoding="utf-8", newline="", write_through=True)
                for b in buffers)
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(list(args))
        except SystemExit as exc:  # argparse: --version, --help and usage errors
            code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    stdout, stderr = (b.getvalue() for b in buffers)
    if text:
        stdout, stderr = stdout.decode("utf-8"), stderr.decode("utf-8")
    return subprocess.CompletedProcess(["moelaws", *args], code, stdout, stderr)


def run_process(*args: str) -> subprocess.CompletedProcess[str]:
    """``python -m moelaws ARGS`` in a new process (the entry point's smoke tests)."""
    return subprocess.run([sys.executable, "-m", "moelaws", *args], capture_output=True,
                          text=True, check=False)
