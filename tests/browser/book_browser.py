"""Shared helpers of the browser tests: where the book is, its pages, a guarded browser tab.

The browser tests need a built book (``_build/html``) and Debian's Chromium, so ``pytest tests``
skips them; ``make browser`` (part of ``make test``) builds the book, installs Chromium if it
is missing and runs them with ``MOELAWS_BROWSER_TESTS=1``, which turns a missing book or
browser into a failure. Environment variables: ``MOELAWS_BOOK_HTML`` (the built book),
``MOELAWS_SCREENSHOTS`` (where page screenshots go), ``MOELAWS_FULL_SCREENSHOTS=1`` (screenshots
of whole pages, not of the window: ``make screenshots``), ``CHROMIUM`` (the browser binary:
Debian's ``chromium-headless-shell`` by default; the full ``/usr/bin/chromium`` works too).
"""

from __future__ import annotations

import os
import re
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[2]
BOOK = Path(os.environ.get("MOELAWS_BOOK_HTML", ROOT / "_build" / "html"))
SCREENSHOTS = Path(os.environ.get("MOELAWS_SCREENSHOTS", ROOT / "_build" / "screenshots"))
CHROMIUM = Path(os.environ.get("CHROMIUM", "/usr/bin/chromium-headless-shell"))
FULL_SCREENSHOTS = os.environ.get("MOELAWS_FULL_SCREENSHOTS") == "1"
"""Screenshots of whole pages (``make screenshots``), for a person to look through; otherwise of
the window at the top of the page. No test reads them, and for a whole page Chromium paints all
of it: 75 CPU-seconds for every page at both sizes (up to 7 for one chapter), against 3.9 for the
window."""
ENABLED = os.environ.get("MOELAWS_BROWSER_TESTS") == "1"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
VIEWPORT = {"width": 1280, "height": 900}
NAVIGATION_TIMEOUT_MS = 120_000
"""How long a page may take to load and fall quiet (``goto``, :meth:`Visit.wait_until_quiet`):
a wait for readiness, not a check of speed; a page that never loads still fails. The same limit
is every other wait's default (an element to appear, a script's condition) and the pages'
settling time."""
QUIET_MS = 500
"""A page has fallen quiet when none of its requests has been open for this long (Playwright's
``networkidle`` rule, which :meth:`Visit.wait_until_quiet` applies itself; unlike Playwright it
also counts EventSource streams, of which the book has none)."""
_REPOSITORY = yaml.safe_load((ROOT / "_config.yml").read_text())["repository"]
REPOSITORY = _REPOSITORY["url"].rstrip("/")
"""The repository URL, written once in ``_config.yml``."""
BRANCH = _REPOSITORY.get("branch", "main")

if ENABLED and not (BOOK / "index.html").is_file():
    raise RuntimeError(f"no built book at {BOOK}: run `make book` first")
if ENABLED and not CHROMIUM.is_file():
    raise RuntimeError(f"no Chromium at {CHROMIUM}: run `make chromium` first")


def is_redirect(path: Path) -> bool:
    """Whether a built file is only a redirect stub (Jupyter Book's root index.html)."""
    head = path.read_text(errors="replace")[:500].lower()
    return 'http-equiv="refresh"' in head and "<body" not in head


def built_pages() -> list[str]:
    """Every HTML page of the built book (relative paths), redirect stubs excepted."""
    if not BOOK.is_dir():
        return []
    pages = []
    for path in sorted(BOOK.rglob("*.html")):
        rel = path.relative_to(BOOK)
        if rel.parts[0].startswith("_") or is_redirect(path):
            continue
        pages.append(rel.as_posix())
    return pages


@dataclass
class RequestWatch:
    """The tab's requests still open, and when one last started or ended (monotonic seconds)."""

    pending: dict[Any, str] = field(default_factory=dict)
    last_change: float = field(default_factory=time.monotonic)

    def started(self, request: Any) -> None:
        self.pending[request] = request.url
        self.last_change = time.monotonic()

    def ended(self, request: Any) -> None:
        self.pending.pop(request, None)
        self.last_change = time.monotonic()


@dataclass
class Visit:
    """A browser tab on the book, with everything the page did that a reader would not want."""

    page: Any
    base_url: str
    console_errors: list[str] = field(default_factory=list)
    failed_requests: list[str] = field(default_factory=list)
    blocked_requests: list[str] = field(default_factory=list)
    scripts_off: bool = False
    requests: RequestWatch = field(default_factory=RequestWatch)

    def problems(self, navigating: bool = False) -> list[str]:
        """Console errors and failed or blocked requests.

        ``navigating``: leaving a page cancels its pending requests (``net::ERR_ABORTED``);
        tests that move from page to page ignore those. With ``scripts_off`` the browser
        refuses every script request itself (``csp``); those are not the book's failures.
        """
        failed = [
            r for r in self.failed_requests
            if not (navigating and r.endswith("(net::ERR_ABORTED)"))
            and not (self.scripts_off and r.endswith("(csp)"))
        ]
        return (
            [f"console error: {e}" for e in self.console_errors]
            + [f"failed request: {r}" for r in failed]
            + [f"request to another origin (blocked): {r}" for r in self.blocked_requests]
        )

    def url(self, path: str) -> str:
        return self.base_url + path

    def wait_until_quiet(self, timeout_ms: int = NAVIGATION_TIMEOUT_MS) -> None:
        """Wait until no request of the tab has been open for QUIET_MS; an AssertionError names
        the requests still open after ``timeout_ms``.

        Not Playwright's ``wait_for_load_state("networkidle")``: under load its ``networkidle``
        can fire before ``domcontentloaded``, and if a request then starts and ends before that
        event, the event takes ``networkidle`` back, not to come again until another request
        has started and ended (microsoft/playwright#42598, where its maintainers call
        ``networkidle`` discouraged). Chapter 7's page never fell quiet that way in three
        fresh-clone runs (2026-11-27: once in 30 s, twice in 120 s); the mechanism was seen by
        loading it in a loop beside ``make live``, where Playwright's log (``DEBUG=pw:api``)
        showed ``networkidle`` fired 3.6 s before ``domcontentloaded``, every request of the
        page finished, and no ``networkidle`` in the next 120 s.
        """
        deadline, watch = time.monotonic() + timeout_ms / 1000, self.requests
        while True:
            # A round trip to Playwright's driver first: the synchronous API delivers the page's
            # events (a request just started) only inside its own calls.
            self.page.wait_for_timeout(50)
            if not watch.pending and time.monotonic() - watch.last_change >= QUIET_MS / 1000:
                return
            if time.monotonic() > deadline:
                raise AssertionError(
                    f"{self.page.url} never fell quiet in {timeout_ms} ms; requests still open: "
                    f"{sorted(watch.pending.values())}")


def open_tab(browser: Any, base_url: str, viewport: dict[str, int] | None = None,
             javascript: bool = True) -> Visit:
    """A fresh browser context whose every request outside ``base_url`` is blocked.

    ``javascript=False``: the page's own scripts do not run (Playwright's evaluations still do),
    for tests that only follow the static HTML's links from page to page.
    """
    context = browser.new_context(viewport=viewport or VIEWPORT, service_workers="block",
                                  java_script_enabled=javascript)
    context.set_default_navigation_timeout(NAVIGATION_TIMEOUT_MS)
    context.set_default_timeout(NAVIGATION_TIMEOUT_MS)
    page = context.new_page()
    visit = Visit(page, base_url, scripts_off=not javascript)
    page.on("request", visit.requests.started)
    page.on("requestfinished", visit.requests.ended)
    page.on("requestfailed", visit.requests.ended)

    def block(r: Any) -> None:
        visit.blocked_requests.append(r.request.url)
        r.abort()

    # Only requests to another origin are routed to Python (the regular expression is matched
    # in the browser's driver): a round trip per request of the book's own slowed every load.
    context.route(re.compile(rf"^(?!{re.escape(base_url)})"), block)

    def on_console(msg: Any) -> None:
        if msg.type == "error":
            where = msg.location.get("url", "") if msg.location else ""
            visit.console_errors.append(f"{msg.text} ({where})")

    page.on("console", on_console)
    page.on("pageerror", lambda exc: visit.console_errors.append(f"uncaught: {exc}"))

    def on_failed(req: Any) -> None:
        if req.url.startswith(base_url):
            visit.failed_requests.append(f"{req.url} ({req.failure})")

    page.on("requestfailed", on_failed)
    page.on(
        "response",
        lambda resp: visit.failed_requests.append(f"{resp.url} (HTTP {resp.status})")
        if resp.status >= 400
        else None,
    )
    return visit


# --- pages loaded once per window size, for every test that reads them ----------------------

VIEWPORTS = {"desktop": VIEWPORT, "phone": {"width": 390, "height": 844}}
"""The reader's window sizes: a laptop and a phone."""
SETTLE_MS = NAVIGATION_TIMEOUT_MS

WAIT_FOR_MATHJAX = """async () => {
  if (!document.querySelector('script[src*="mathjax"]')) { return "no MathJax on this page"; }
  const t0 = Date.now();
  while (!(window.MathJax && MathJax.startup && MathJax.startup.promise)) {
    if (Date.now() - t0 > 20000) { return "MathJax did not start"; }
    await new Promise(r => setTimeout(r, 100));
  }
  await MathJax.startup.promise;
  return "typeset";
}"""

CHARTS_SETTLED = """() => [...document.querySelectorAll('.moelaws-vega')].every(
  el => (el.getAttribute('data-moelaws-rendered') === '1' && el.querySelector('svg, canvas'))
        || el.querySelector('.moelaws-vega-error'))"""
"""Every chart drew (the book's embedding marks it rendered) or showed its error."""

WIDGETS = """() => ({
  views: document.querySelectorAll(
    'script[type="application/vnd.jupyter.widget-view+json"]').length,
  drawn: document.querySelectorAll('.widget-subarea > .jupyter-widgets').length,
})"""

WIDGETS_SETTLED = f"() => {{ const w = ({WIDGETS})(); return w.drawn >= w.views; }}"

TABLES_SETTLED = """() => !document.querySelector('table.moelaws-dt')
  || document.documentElement.dataset.moelawsTables === 'ready'"""

LAYOUT = """() => {
  const article = document.querySelector('article.bd-article') || document.body;
  const column = article.getBoundingClientRect();
  const charts = [...document.querySelectorAll('.moelaws-vega')].map(el => {
    const svg = el.querySelector('svg');
    const box = (svg || el).getBoundingClientRect();
    const figure = el.closest('figure');
    const caption = figure && figure.querySelector('figcaption');
    return {
      id: el.id, width: Math.round(box.width), right: Math.round(box.right),
      room: Math.round(column.right),
      number: caption && caption.querySelector('.caption-number')
        ? caption.querySelector('.caption-number').textContent.trim() : null,
      caption: caption ? caption.textContent.replace(/\\s+/g, ' ').trim() : null,
      label: svg ? (svg.getAttribute('aria-label') || '') : '',
    };
  });
  return {scroll: document.documentElement.scrollWidth, view: document.documentElement.clientWidth,
          charts};
}"""
"""Where the charts sit against the text column, and whether the page scrolls sideways."""

CONTROLS = """() => [...document.querySelectorAll(
    'article input, article select, article textarea, article button')]
  .filter(el => !el.closest('.moelaws-vega, form, details, .dataTables_wrapper, .dt-container,'
                             + ' .moelaws-dt-filters')
                && !el.matches('button.toggle-button, button.copybtn, .moelaws-filter-button')
                && !el.closest('.highlight') && el.type !== 'hidden' && el.offsetParent !== null)
  .map(el => el.outerHTML.slice(0, 120))"""
"""Controls a reader can move outside charts and interactive tables (which change nothing)."""


@dataclass
class LoadedPage(Visit):
    """A page of the book as it stands once loaded: charts drawn, formulas typeset, widgets
    and tables ready; ``layout`` and ``controls`` were measured then, before any test moved
    anything; ``settled`` names what did not settle in time (empty when everything did)."""

    path: str = ""
    size: str = "desktop"
    mathjax: str = ""
    settled: list[str] = field(default_factory=list)
    layout: dict[str, Any] = field(default_factory=dict)
    controls: list[str] = field(default_factory=list)


def screenshot_name(path: str, size: str) -> str:
    """``<page>-<size>.png``, the page's path with ``/`` as ``_``."""
    return f"{path[: -len('.html')].replace('/', '_')}-{size}.png"


def load_page(browser: Any, base_url: str, path: str, size: str) -> LoadedPage:
    """``path`` opened in a fresh tab of the reader's ``size``, waited for until it settles,
    measured and screenshotted to ``SCREENSHOTS/<page>-<size>.png`` (the window, or the whole
    page with ``MOELAWS_FULL_SCREENSHOTS=1``)."""
    visit = open_tab(browser, base_url, viewport=VIEWPORTS[size])
    page = visit.page
    loaded = LoadedPage(page, base_url, visit.console_errors, visit.failed_requests,
                        visit.blocked_requests, requests=visit.requests, path=path, size=size)
    # The same lists and request watch, filled by open_tab's hooks.
    assert loaded.problems() == visit.problems() and loaded.requests is visit.requests
    page.goto(loaded.url(path), wait_until="load")
    loaded.wait_until_quiet()
    loaded.mathjax = page.evaluate(WAIT_FOR_MATHJAX)
    for name, ready in (("charts", CHARTS_SETTLED), ("widgets", WIDGETS_SETTLED),
                        ("tables", TABLES_SETTLED)):
        try:
            page.wait_for_function(ready, timeout=SETTLE_MS)
        except Exception:  # Playwright's TimeoutError: the tests say what did not settle
            loaded.settled.append(f"{name} not ready after {SETTLE_MS} ms")
    loaded.wait_until_quiet()
    loaded.layout = page.evaluate(LAYOUT)
    loaded.controls = page.evaluate(CONTROLS)
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / screenshot_name(path, size)),
                    full_page=FULL_SCREENSHOTS)
    return loaded


class BookPages:
    """The book's pages for a session: each page at each size loaded once (:func:`load_page`)
    and shared by every test that reads it. The browser tests run grouped by page
    (conftest.py), so a page is closed once the next ones are open (``keep`` at a time)."""

    def __init__(self, browser: Any, base_url: str, keep: int = 3) -> None:
        self.browser, self.base_url, self.keep = browser, base_url, keep
        self.open: dict[tuple[str, str], LoadedPage] = {}
        self.loads: list[tuple[str, str]] = []

    def __call__(self, path: str, size: str = "desktop") -> LoadedPage:
        key = (path, size)
        if key not in self.open:
            while len(self.open) >= self.keep:
                oldest = next(iter(self.open))
                self.open.pop(oldest).page.context.close()
            self.open[key] = load_page(self.browser, self.base_url, path, size)
            self.loads.append(key)
        return self.open[key]

    def close(self) -> None:
        for loaded in self.open.values():
            loaded.page.context.close()
        self.open.clear()
