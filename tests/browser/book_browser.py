"""Shared helpers of the browser tests: where the book is, its pages, a guarded browser tab.

The browser tests need a built book (``_build/html``) and Debian's Chromium, so ``pytest tests``
skips them; ``make browser`` (part of ``make test``) builds the book, installs Chromium if it
is missing and runs them with ``MOELAWS_BROWSER_TESTS=1``, which turns a missing book or
browser into a failure. Environment variables: ``MOELAWS_BOOK_HTML`` (the built book),
``MOELAWS_SCREENSHOTS`` (where page screenshots go), ``CHROMIUM`` (the browser binary).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[2]
BOOK = Path(os.environ.get("MOELAWS_BOOK_HTML", ROOT / "_build" / "html"))
SCREENSHOTS = Path(os.environ.get("MOELAWS_SCREENSHOTS", ROOT / "_build" / "screenshots"))
CHROMIUM = Path(os.environ.get("CHROMIUM", "/usr/bin/chromium"))
ENABLED = os.environ.get("MOELAWS_BROWSER_TESTS") == "1"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
VIEWPORT = {"width": 1280, "height": 900}
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
class Visit:
    """A browser tab on the book, with everything the page did that a reader would not want."""

    page: Any
    base_url: str
    console_errors: list[str] = field(default_factory=list)
    failed_requests: list[str] = field(default_factory=list)
    blocked_requests: list[str] = field(default_factory=list)

    def problems(self, navigating: bool = False) -> list[str]:
        """Console errors and failed or blocked requests.

        ``navigating``: leaving a page cancels its pending requests (``net::ERR_ABORTED``);
        tests that move from page to page ignore those.
        """
        failed = [
            r for r in self.failed_requests if not (navigating and r.endswith("(net::ERR_ABORTED)"))
        ]
        return (
            [f"console error: {e}" for e in self.console_errors]
            + [f"failed request: {r}" for r in failed]
            + [f"request to another origin (blocked): {r}" for r in self.blocked_requests]
        )

    def url(self, path: str) -> str:
        return self.base_url + path


def open_tab(browser: Any, base_url: str) -> Visit:
    """A fresh browser context whose every request outside ``base_url`` is blocked."""
    context = browser.new_context(viewport=VIEWPORT, service_workers="block")
    page = context.new_page()
    visit = Visit(page, base_url)

    def route(r: Any) -> None:
        if r.request.url.startswith(base_url):
            r.continue_()
        else:
            visit.blocked_requests.append(r.request.url)
            r.abort()

    context.route("**/*", route)

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
