"""The page loader's wait for a page to fall quiet (book_browser.Visit.wait_until_quiet), on
small pages of its own served here: it waits for requests that start after ``load`` and for its
quiet period between them, it ends where Playwright's ``networkidle`` does not come, a request
refused by the tab's guard ends it too, and it names the requests still open when it gives up."""

from __future__ import annotations

import functools
import http.server
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from book_browser import QUIET_MS, Visit

SLOW_S = 1.5
"""How long the server holds ``slow.txt``: three times the quiet period."""
GAP_MS = 150
"""How long ``late.html`` waits after ``slow.txt`` before its next request: well inside the quiet
period, and three times the wait's polling interval."""

PAGES = {
    "late.html": f"""<!doctype html><html><head><title>late</title></head><body><p>late</p>
<script>window.addEventListener('load', () => fetch('slow.txt').then(r => r.text())
  .then(() => new Promise(done => setTimeout(done, {GAP_MS})))
  .then(() => fetch('second.txt')));</script></body></html>""",
    # Parsing takes about 2 s in short scripts, then a synchronous request starts and ends
    # before domcontentloaded: Playwright's "networkidle" fires during the parse and the
    # domcontentloaded event takes it back (microsoft/playwright#42598). Seen here with
    # Playwright 1.65.2: wait_for_load_state("networkidle") timed out (5 s) in 5 of 5 loads.
    "parse.html": "<!doctype html><html><head><title>parse</title></head><body>"
    + "".join(f"<script>{{const t0 = Date.now(); while (Date.now() - t0 < 100) {{}}}}</script>"
              f"<p>{i}</p>" for i in range(20))
    + """<script>{const x = new XMLHttpRequest(); x.open('GET', 'data.txt', false); x.send();}
</script></body></html>""",
    "elsewhere.html": """<!doctype html><html><head><title>elsewhere</title></head><body>
<script>fetch('http://elsewhere.invalid/x.txt').catch(() => {});</script></body></html>""",
    "never.html": """<!doctype html><html><head><title>never</title></head><body>
<script>fetch('never.txt');</script></body></html>""",
    "data.txt": "synchronous",
    "slow.txt": "slow",
    "second.txt": "second",
    "never.txt": "never",
}


@pytest.fixture(scope="module")
def base_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """This module's pages, served here instead of the book (conftest.py's ``tab`` opens
    them)."""
    folder: Path = tmp_path_factory.mktemp("quiet")
    for name, text in PAGES.items():
        (folder / name).write_text(text)
    release = threading.Event()

    class Handler(http.server.SimpleHTTPRequestHandler):
        def do_GET(self) -> None:
            if self.path == "/slow.txt":
                time.sleep(SLOW_S)
            elif self.path == "/never.txt":
                release.wait(60)
            super().do_GET()

        def log_message(self, format: str, *args: Any) -> None:
            pass

    server = http.server.ThreadingHTTPServer(
        ("127.0.0.1", 0), functools.partial(Handler, directory=str(folder)))
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}/"
    release.set()
    server.shutdown()
    server.server_close()


def test_waits_for_requests_after_load_and_the_quiet_between(tab: Visit) -> None:
    """A wait that returned at ``load``, ignored open requests or had no quiet period would
    return before ``second.txt`` (started GAP_MS after ``slow.txt`` ended) finished."""
    finished: list[str] = []
    tab.page.on("requestfinished", lambda r: finished.append(r.url.rsplit("/", 1)[-1]))
    tab.page.goto(tab.url("late.html"), wait_until="load")
    tab.wait_until_quiet()
    assert {"slow.txt", "second.txt"} <= set(finished), finished
    assert GAP_MS < QUIET_MS


def test_falls_quiet_where_networkidle_does_not_come(tab: Visit) -> None:
    """A wait built on Playwright's ``networkidle`` times out here (see ``parse.html``)."""
    tab.page.goto(tab.url("parse.html"), wait_until="load")
    tab.wait_until_quiet(timeout_ms=30_000)


def test_a_request_the_guard_refuses_ends(tab: Visit) -> None:
    """The tab's guard aborts a request to another host; the wait must count it as ended
    (``requestfailed``), or every page that tried one would hang."""
    tab.page.goto(tab.url("elsewhere.html"), wait_until="load")
    tab.wait_until_quiet(timeout_ms=30_000)
    assert tab.blocked_requests == ["http://elsewhere.invalid/x.txt"]


def test_names_the_requests_still_open(tab: Visit) -> None:
    tab.page.goto(tab.url("never.html"), wait_until="load")
    started = time.monotonic()
    with pytest.raises(AssertionError, match=r"never fell quiet in 2000 ms.*never\.txt"):
        tab.wait_until_quiet(timeout_ms=2000)
    assert time.monotonic() - started >= 2.0
