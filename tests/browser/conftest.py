"""Fixtures of the browser tests: the built book on a local HTTP server, headless Chromium.

See book_browser.py for what the tests need and how ``make browser`` runs them.
"""

from __future__ import annotations

import functools
import http.server
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from book_browser import (
    BOOK,
    CHROMIUM,
    CHROMIUM_ARGS,
    ENABLED,
    BookPages,
    Visit,
    built_pages,
    open_tab,
)


def _page_of(item: pytest.Item) -> str | None:
    """The book page a test reads: its ``path`` parameter."""
    callspec = getattr(item, "callspec", None)
    path = callspec.params.get("path") if callspec else None
    return path if isinstance(path, str) else None


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Browser tests that read one page (a ``path`` parameter, through ``book_pages``) run
    grouped by page, in the book's page order and otherwise in collection order, after the
    others (which keep their order) and before those marked ``after_pages``: each page is
    loaded once per size and closed when its tests are done."""
    if ENABLED:
        here = Path(__file__).parent
        order = {p: i for i, p in enumerate(built_pages())}

        def key(pair: tuple[int, pytest.Item]) -> tuple[int, int, int]:
            index, item = pair
            if here not in Path(str(item.fspath)).parents:
                return (1, 0, index)
            if item.get_closest_marker("after_pages"):
                return (3, 0, index)
            page = _page_of(item)
            return (1, 0, index) if page is None else (2, order.get(page, len(order)), index)

        items[:] = [item for _, item in sorted(enumerate(items), key=key)]
        return
    skip = pytest.mark.skip(reason="browser tests need a built book: run `make browser`")
    here = Path(__file__).parent
    for item in items:
        if here in Path(str(item.fspath)).parents:
            item.add_marker(skip)


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture(scope="session")
def base_url() -> Iterator[str]:
    """The built book served on an ephemeral port of 127.0.0.1."""
    handler = functools.partial(_QuietHandler, directory=str(BOOK))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/"
    server.shutdown()
    server.server_close()


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    """Debian's Chromium, headless, driven by Playwright (which downloads no browser)."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        chromium = pw.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


@pytest.fixture(scope="session")
def book_pages(browser: Any, base_url: str) -> Iterator[BookPages]:
    """``book_pages(path, size)``: the page loaded once per size for the whole session."""
    pages = BookPages(browser, base_url)
    yield pages
    pages.close()


@pytest.fixture
def tab(browser: Any, base_url: str) -> Iterator[Visit]:
    """A fresh tab for one test."""
    visit = open_tab(browser, base_url)
    yield visit
    visit.page.context.close()


@pytest.fixture
def static_tab(browser: Any, base_url: str) -> Iterator[Visit]:
    """A fresh tab whose pages' own scripts do not run (following the built HTML's links)."""
    visit = open_tab(browser, base_url, javascript=False)
    yield visit
    visit.page.context.close()


@pytest.fixture(scope="session")
def git_status_before() -> str:
    """``git status --porcelain`` before any live client opened anything."""
    from lab_client import git_status

    return git_status()


@pytest.fixture(scope="session")
def lab_server(git_status_before: str, fresh_dir: Path, request: pytest.FixtureRequest,
               tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """One JupyterLab for the session (lab_client.py), on the chapters' generated copies and on
    the reader's copies of the downloads with the fresh environment's kernel (tests/
    fresh_env.py). The fresh environment is made while JupyterLab starts; a download's set-up
    cell then installs moelaws there in the background, while the tab loads (``reader_env``)."""
    from fresh_env import jupyter_path, readers
    from lab_client import launch_server, link_readers, prepare_copies, wait_until_ready

    prepare_copies()
    link_readers(readers(fresh_dir))
    server = launch_server(tmp_path_factory.mktemp("jupyter"), kernels=jupyter_path(fresh_dir))
    try:
        request.getfixturevalue("reader_env")
        yield wait_until_ready(server)
    finally:
        server.process.terminate()
        try:
            server.process.wait(timeout=30)
        except Exception:
            server.process.kill()


def _lab_tab(browser: Any, server: Any, myst: bool) -> Any:
    """A tab on JupyterLab, its application loaded, with or without ``jupyterlab-myst``."""
    from lab_client import HAS_MYST, open_lab_tab, use_myst, wait_for

    use_myst(server, myst)
    tab = open_lab_tab(browser)
    tab.page.goto(server.url("lab"), wait_until="domcontentloaded")
    wait_for(tab.page, "() => !!(window.jupyterapp && window.jupyterapp.started)", 180)
    tab.page.evaluate("() => window.jupyterapp.started")
    tab.page.wait_for_selector(".jp-DirListing", timeout=120_000)
    assert tab.page.evaluate(HAS_MYST) is myst, f"jupyterlab-myst loaded: expected {myst}"
    return tab


@pytest.fixture(scope="session")
def lab_tab(browser: Any, lab_server: Any) -> Iterator[Any]:
    """A reader's own JupyterLab, where the downloads run: without this project's ``live``
    extra, so without ``jupyterlab-myst`` (whose renderer would draw a directive left in a
    download, where JupyterLab's shows it raw). It also costs the browser less: opening and
    running chapters 3 and 4 took it 2 to 5 CPU-seconds less each (one measurement).

    Each chapter's test checks the tab for dialogs and blocked requests when it ends; what
    comes after the last chapter is checked here, at the end of the session, long after its
    save (JupyterLab's "File Changed" question is reported, not failed, as in the tests)."""
    import warnings

    from lab_client import DIALOGS

    tab = _lab_tab(browser, lab_server, myst=False)
    yield tab
    late = tab.page.evaluate(DIALOGS)
    tab.page.context.close()
    for dialog in late:
        if dialog.startswith("File Changed"):
            warnings.warn(f"after the last chapter: {dialog}", stacklevel=1)
    assert not [d for d in late if not d.startswith("File Changed")], (
        f"dialogs open after the last chapter: {late}")
    assert not tab.blocked_requests, f"blocked after the last chapter: {tab.blocked_requests}"


@pytest.fixture(scope="session")
def make_lab_tab(browser: Any, lab_server: Any) -> Iterator[Any]:
    """``make lab``'s and Binder's JupyterLab: with ``jupyterlab-myst``."""
    tab = _lab_tab(browser, lab_server, myst=True)
    yield tab
    tab.page.context.close()
