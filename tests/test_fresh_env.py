"""The reader's stage's helpers (tests/fresh_env.py) that run without a built book."""

from __future__ import annotations

import asyncio
import os
import subprocess
from concurrent.futures import ThreadPoolExecutor

from fresh_env import HEADLESS_NICENESS, run_below


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
