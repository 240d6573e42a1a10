"""The page loader's wait for a page to fall quiet (book_browser.Visit.wait_until_quiet), on
small pages of its own served here: it waits for a request that starts after ``load``, it ends
where Playwright's ``networkidle`` never comes, and it names the requests still open when it
gives up."""

from __future__ import annotations

import functools
import http.server
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from book_browser import Visit, open_tab

SLOW_S = 1.5
"""How long the server holds ``slow.txt``: three times the quiet period."""

PAGES = {
    "late.html": """<!doctype html><html><head><title>late</title></head><body><p>late</p>
<script>window.addEventListener('load', () => fetch('slow.txt').then(r => r.text())
  .then(t => { document.body.dataset.slow = t; }));</script></body></html>""",
    # Parsing takes about 2 s in short scripts, then a synchronous request starts and ends
    # before domcontentloaded: Playwright's "networkidle" fires during the parse and the
    # domcontentloaded event takes it back for good (microsoft/playwright#42598). Seen: 5 of 5
    # loads with wait_for_load_state("networkidle") timed out (5 s), here at 1.65.2.
    "parse.html": "<!doctype html><html><head><title>parse</title></head><body>"
    + "".join(f"<script>{{const t0 = Date.now(); while (Date.now() - t0 < 100) {{}}}}</script>"
              f"<p>{i}</p>" for i in range(20))
    + """<script>{const x = new XMLHttpRequest(); x.open('GET', 'data.txt', false); x.send();
  document.body.dataset.sync = x.responseText;}</script></body></html>""",
    "never.html": """<!doctype html><html><head><title>never</title></head><body>
<script>fetch('never.txt');</script></body></html>""",
    "data.txt": "synchronous",
    "slow.txt": "slow",
    "never.txt": "never",
}


HOLD_S = {"/slow.txt": SLOW_S, "/never.txt": 30.0}


class _Handler(http.server.SimpleHTTPRequestHandler):
    def do_GET(self) -> None:
        time.sleep(HOLD_S.get(self.path, 0.0))
        super().do_GET()

    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    folder: Path = tmp_path_factory.mktemp("quiet")
    for name, text in PAGES.items():
        (folder / name).write_text(text)
    server = http.server.ThreadingHTTPServer(
        ("127.0.0.1", 0), functools.partial(_Handler, directory=str(folder)))
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}/"
    server.shutdown()
    server.server_close()


@pytest.fixture
def site_tab(browser: Any, site: str) -> Iterator[Visit]:
    visit = open_tab(browser, site)
    yield visit
    visit.page.context.close()


def test_waits_for_a_request_started_after_load(site_tab: Visit) -> None:
    site_tab.page.goto(site_tab.url("late.html"), wait_until="load")
    site_tab.wait_until_quiet()
    assert site_tab.page.evaluate("document.body.dataset.slow") == "slow"


def test_falls_quiet_where_networkidle_never_comes(site_tab: Visit) -> None:
    site_tab.page.goto(site_tab.url("parse.html"), wait_until="load")
    site_tab.wait_until_quiet(timeout_ms=30_000)
    assert site_tab.page.evaluate("document.body.dataset.sync") == "synchronous"


def test_names_the_requests_still_open(site_tab: Visit) -> None:
    site_tab.page.goto(site_tab.url("never.html"), wait_until="load")
    with pytest.raises(AssertionError, match=r"never fell quiet in 2000 ms.*never\.txt"):
        site_tab.wait_until_quiet(timeout_ms=2000)
