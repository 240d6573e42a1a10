"""Kernel clients that notice every reply: jupyter_client's asynchronous channels polled in slices.

nbclient waits for a cell's reply by polling the kernel's shell socket. An ipywidgets Output
widget (``widgets.interactive``) makes the kernel send on that same socket meanwhile, and the
poll can then miss the reply's wake-up: the cell waits out the whole execution timeout before
going on (jupyter/nbclient#312). Every nbclient this project runs (the book build, the reader's
stage's headless pages, ``execute_chapter``, the solution-mutation kernel) calls
:func:`patch_shell_polling` first.
"""

from __future__ import annotations

import time
from queue import Empty
from typing import Any

__all__ = ["POLL_SLICE_S", "patch_shell_polling"]

POLL_SLICE_S = 0.25
"""The longest single poll of a kernel client's socket, in seconds."""


def patch_shell_polling() -> None:
    """Make jupyter_client's asynchronous channels wait for a message in short slices.

    ``get_msg(timeout)`` keeps its meaning (a message, or :class:`queue.Empty` once
    ``timeout`` seconds have passed); only the socket is polled again every
    :data:`POLL_SLICE_S` seconds, so that a reply whose wake-up was lost is still noticed.
    Calling it again changes nothing.
    """
    from jupyter_client.channels import AsyncZMQSocketChannel

    original = AsyncZMQSocketChannel.get_msg
    if getattr(original, "_moelaws_sliced", False):
        return

    async def get_msg(self: Any, timeout: float | None = None) -> dict[str, Any]:
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            left = POLL_SLICE_S if deadline is None else deadline - time.monotonic()
            try:
                return await original(self, timeout=max(0.0, min(POLL_SLICE_S, left)))
            except Empty:
                if deadline is not None and time.monotonic() >= deadline:
                    raise

    get_msg._moelaws_sliced = True  # type: ignore[attr-defined]
    get_msg._moelaws_original = original  # type: ignore[attr-defined]
    AsyncZMQSocketChannel.get_msg = get_msg  # type: ignore[method-assign]
