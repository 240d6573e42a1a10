"""One thread per process for the BLAS libraries and torch, unless the user says otherwise.

The book's chapters, the tests and the benchmark run on shared machines (CI runners, a
two-core laptop, a server shared by several people). NumPy's BLAS and torch otherwise start one
thread per core each, and with another process busy they oversubscribe the cores: a chapter's
training cell went from 3 s to 27 s that way. So every entry point calls :func:`limit` first
(the book's Sphinx extension before any kernel starts, ``tests/conftest.py``, the benchmark):
it sets each thread variable that is not already set, so an explicit ``OMP_NUM_THREADS=4`` in
the environment still wins.
"""

from __future__ import annotations

import os
import sys

THREAD_VARIABLES: tuple[str, ...] = (
    "OMP_NUM_THREADS",
    "OPENBLAS_NUM_THREADS",
    "MKL_NUM_THREADS",
    "VECLIB_MAXIMUM_THREADS",
    "NUMEXPR_NUM_THREADS",
)
"""The environment variables the BLAS libraries, OpenMP and torch read at start-up."""

DEFAULT_THREADS = 1


def limit(threads: int = DEFAULT_THREADS) -> int:
    """Set every unset variable of :data:`THREAD_VARIABLES` to ``threads``; if torch is already
    imported, set its intra-op threads too.

    Processes started afterwards (notebook kernels) inherit the variables; in the current process
    they take effect for libraries loaded afterwards.

    Returns
    -------
    int
        The thread count in force (``OMP_NUM_THREADS``).
    """
    if isinstance(threads, bool) or not isinstance(threads, int) or threads < 1:
        raise ValueError(f"threads must be a positive integer, not {threads!r}")
    for name in THREAD_VARIABLES:
        os.environ.setdefault(name, str(threads))
    in_force = int(os.environ["OMP_NUM_THREADS"])
    torch = sys.modules.get("torch")
    if torch is not None:
        torch.set_num_threads(in_force)
    return in_force
