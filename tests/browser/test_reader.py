"""The book as a reader sees it, on a laptop (1280 x 900) and on a phone (390 x 844).

Fails on: a chart wider than its text column, a page that scrolls sideways, a chart that is not
a numbered figure with a caption and an accessible name, a control that a reader can move
but that changes nothing (ipywidgets panels, which need a kernel, must be replaced by a
kernel-only note whose links are the page's own launch buttons), a fact card numbered as a
table, and launch links not built from the repository URL in ``_config.yml``. Screenshots of
every page at both sizes go to ``_build/screenshots/<page>-desktop.png`` / ``-phone.png``
(of the window, or of the whole page with ``MOELAWS_FULL_SCREENSHOTS=1``; each page is loaded
once per size for the session: ``book_pages`` in conftest.py).
"""

from __future__ import annotations

import re
import urllib.parse
from typing import Any

import pytest
from book_browser import BOOK, BRANCH, REPOSITORY, VIEWPORTS, BookPages, built_pages

PAGES = built_pages()


@pytest.fixture
def seen(path: str, size: str, book_pages: BookPages) -> dict:
    """One page at one size as it stood once loaded (conftest.py's ``book_pages``: charts laid
    out, measured and screenshotted to ``_build/screenshots/<page>-<size>.png``)."""
    loaded = book_pages(path, size)
    assert not [s for s in loaded.settled if s.startswith("charts")], (
        f"{path} ({size}): {loaded.settled}")
    return {"path": path, "size": size, "layout": loaded.layout, "controls": loaded.controls,
            "page": loaded.page}


def _each_page_and_size(test: Any) -> Any:
    return pytest.mark.parametrize(("path", "size"), [(p, v) for v in VIEWPORTS for p in PAGES],
                                   ids=[f"{v}:{p}" for v in VIEWPORTS for p in PAGES])(test)


@_each_page_and_size
def test_no_page_scrolls_sideways(seen: dict) -> None:
    layout = seen["layout"]
    assert layout["scroll"] <= layout["view"], (
        f"{seen['path']} ({seen['size']}) is {layout['scroll']} px wide in a "
        f"{layout['view']} px window"
    )


@_each_page_and_size
def test_charts_fit_their_column(seen: dict) -> None:
    wide = [c for c in seen["layout"]["charts"] if c["right"] > c["room"] + 1]
    assert not wide, f"{seen['path']} ({seen['size']}): charts wider than the column: {wide}"


@pytest.mark.parametrize(("path", "size"), [(p, "desktop") for p in PAGES])
def test_every_chart_is_a_numbered_captioned_figure_with_alt_text(seen: dict) -> None:
    """At the desktop size (captions do not depend on the window size)."""
    for chart in seen["layout"]["charts"]:
        where = f"chart {chart['id']} on {seen['path']}"
        assert chart["caption"], f"{where} is not in a figure with a caption"
        assert chart["number"] and chart["number"].startswith("Fig"), f"{where} is not numbered"
        assert len(chart["caption"]) > len(chart["number"]) + 20, f"{where}: caption too short"
        assert chart["label"], f"{where} has no accessible name (aria-label)"


@pytest.mark.parametrize(("path", "size"), [(p, "desktop") for p in PAGES])
def test_no_control_pretends(seen: dict) -> None:
    """Controls outside Altair charts and interactive tables (tests/browser/test_tables.py and
    test_pages.py prove those change what they drive) would do nothing here (the same
    controls at every size: checked at the desktop size)."""
    assert not seen["controls"], f"{seen['path']}: controls that change nothing: {seen['controls']}"


def _launch_links(path: str, page: Any) -> dict[str, str]:
    hrefs = page.eval_on_selector_all(".bd-header-article a", "els => els.map(a => a.href)")
    found: dict[str, str] = {}
    for href in hrefs:
        if href.startswith("https://mybinder.org/"):
            found.setdefault("binder", href)
        elif href.startswith("https://colab.research.google.com/"):
            found.setdefault("colab", href)
        elif href.endswith(".ipynb"):
            found.setdefault("download", href)
    return found


@pytest.mark.parametrize("path", [p for p in PAGES if p.startswith("notebooks/")])
def test_launch_links_come_from_the_configured_repository(path: str,
                                                          book_pages: BookPages) -> None:
    org, repo = urllib.parse.urlparse(REPOSITORY).path.strip("/").split("/")[:2]
    tab = book_pages(path)
    links = _launch_links(path, tab.page)
    assert links["binder"].startswith(f"https://mybinder.org/v2/gh/{org}/{repo}/{BRANCH}?"), links
    assert f"/github/{org}/{repo}/blob/" in links["colab"], links


def test_widget_manager_is_loaded_by_no_page() -> None:
    for path in PAGES:
        html = (BOOK / path).read_text()
        assert "embed-amd" not in html and "require.min.js" not in html, path
        assert "application/vnd.jupyter.widget-view+json" not in html, path
        assert "application/vnd.jupyter.widget-state+json" not in html, path


@pytest.mark.parametrize(
    "path", [p for p in PAGES if "moelaws-kernel-only" in (BOOK / p).read_text()]
)
def test_kernel_only_panels_link_the_pages_launch_buttons(path: str,
                                                          book_pages: BookPages) -> None:
    tab = book_pages(path)
    launch = _launch_links(path, tab.page)
    notes = tab.page.locator(".moelaws-kernel-only")
    assert notes.count() > 0
    for i in range(notes.count()):
        note = notes.nth(i)
        assert "runs with a Python kernel" in note.inner_text()
        for name in ("binder", "colab", "download"):
            href = note.locator(f"a.moelaws-launch-{name}").evaluate("a => a.href")
            assert href == launch[name], (path, name, href, launch)


def test_kernel_only_panels_exist() -> None:
    """The chapters' ipywidgets panels are there, marked kernel-only (not silently dropped)."""
    notes = sum((BOOK / p).read_text().count('class="moelaws-kernel-only') for p in PAGES)
    assert notes >= 8, notes


def test_fact_cards_are_not_numbered_tables() -> None:
    numbered = re.compile(
        r'class="caption-number">[^<]*</span>\s*<span class="caption-text">Fact card'
    )
    cards = 0
    for path in PAGES:
        html = (BOOK / path).read_text()
        assert not numbered.search(html), f"{path}: a fact card is numbered as a table"
        cards += html.count("moelaws-fact-card-title")
    assert cards >= 3, cards
