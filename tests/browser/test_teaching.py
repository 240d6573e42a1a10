"""The teaching pages in the browser: exercises, collapsed solutions, the student edition.

Each chapter page offers "Download exercises (.ipynb)" in its download menu, the link serves a
notebook with no solution and one answer cell per exercise, the exercises are numbered in
order, and every solution starts collapsed and opens on a click. The course and notation pages
render, and every exercise the course page cites resolves to an exercise of the book.
"""

from __future__ import annotations

import json
import re
import urllib.parse

import pytest
from book_browser import BOOK, NAVIGATION_TIMEOUT_MS, BookPages, built_pages

from moelaws import papers as registry

PAGES = built_pages()
CHAPTERS = [p for p in PAGES if p.startswith("notebooks/")]


def _exercise_count(path: str) -> int:
    return len(re.findall(r'class="[^"]*\bexercise\b[^"]*admonition', (BOOK / path).read_text()))


def test_chapters_are_found() -> None:
    assert len(CHAPTERS) == 8, CHAPTERS


@pytest.mark.parametrize("path", CHAPTERS)
def test_download_exercises_link_serves_the_student_edition(path: str,
                                                            book_pages: BookPages) -> None:
    tab = book_pages(path)
    page = tab.page
    link = page.locator("a.btn-download-exercises-button")
    assert link.count() == 1, f"{path}: no 'Download exercises (.ipynb)' entry"
    page.locator(".dropdown-download-buttons > button").click()  # open the download menu
    link.wait_for(state="visible", timeout=NAVIGATION_TIMEOUT_MS)
    assert link.inner_text().strip() == "Download exercises (.ipynb)"
    href = link.get_attribute("href") or ""
    assert href.endswith(path.replace(".html", ".exercises.ipynb")), href
    response = page.request.get(urllib.parse.urljoin(page.url, href))
    assert response.ok, f"{href}: HTTP {response.status}"
    notebook = json.loads(response.text())
    assert notebook["nbformat"] == 4
    text = response.text()
    for marker in ("{solution-start}", "{solution-end}", '"solution"'):
        assert marker not in text, f"{href}: {marker} survives"
    stubs = [c for c in notebook["cells"] if "answer" in c["metadata"].get("tags", [])]
    assert len(stubs) == _exercise_count(path)
    assert all("".join(s["source"]).startswith("# Your answer to Exercise") for s in stubs)
    assert "moelaws-setup" in notebook["cells"][0]["metadata"].get("tags", [])
    assert not tab.problems(), tab.problems()


@pytest.mark.parametrize("path", [p for p in CHAPTERS if _exercise_count(p)])
def test_exercises_are_numbered_and_solutions_collapsed(path: str, book_pages: BookPages) -> None:
    """On the page as loaded for the session: no test before this one opens a solution."""
    tab = book_pages(path)
    page = tab.page
    titles = page.locator("div.exercise > p.admonition-title").all_inner_texts()
    numbers = [int(m.group(1)) for t in titles if (m := re.match(r"Exercise (\d+)", t))]
    assert numbers == list(range(1, len(titles) + 1)), titles
    solutions = page.locator("div.solution.dropdown")
    assert solutions.count() == len(titles)
    for i in range(solutions.count()):
        solution = solutions.nth(i)
        body = solution.locator(":scope > :not(.admonition-title)").first
        assert not body.is_visible(), f"{path}: solution {i + 1} is open on load"
    first = solutions.first
    # The title holds a link back to the exercise: open the dropdown by its toggle button (or
    # the title's start), not by the link in the middle of the title.
    toggle = first.locator("button.toggle-button")
    if toggle.count():
        toggle.first.click()
    else:
        first.locator(".admonition-title").click(position={"x": 4, "y": 4})
    first.locator(":scope > :not(.admonition-title)").first.wait_for(
        state="visible", timeout=NAVIGATION_TIMEOUT_MS
    )
    assert not tab.problems(), tab.problems()


@pytest.mark.parametrize("path", ["book/course.html"])
def test_course_page_renders_and_its_exercises_resolve(path: str, book_pages: BookPages) -> None:
    tab = book_pages(path)
    page = tab.page
    assert "Teaching a course module" in page.locator("h1").first.inner_text()
    sessions = page.locator("h3").all_inner_texts()
    assert sum(s.startswith("Session") for s in sessions) == 6, sessions
    hrefs = page.eval_on_selector_all(
        "a.reference.internal", "els => els.map(a => a.getAttribute('href'))"
    )
    cited = [h for h in hrefs if "#ex-" in h]
    assert len(cited) >= 15, cited
    for href in cited:
        target, anchor = href.split("#")
        html = (BOOK / "book" / target).resolve().read_text()
        assert f'id="{anchor}"' in html, f"course page cites a missing exercise {href}"
    assert page.get_by_text("The project: design an MoE").count() >= 1
    assert not tab.problems(), tab.problems()


@pytest.mark.parametrize("path", ["book/notation.html"])
def test_notation_page_has_the_symbol_table_and_glossary(path: str,
                                                         book_pages: BookPages) -> None:
    tab = book_pages(path)
    page = tab.page
    table = page.locator("table#notation-symbols")
    assert table.count() == 1
    rows = table.locator("tbody tr")
    assert rows.count() >= 25
    papers = page.locator("table#notation-papers thead th").all_inner_texts()
    # One column per paper with a law (chapter 0 has none), in reading order.
    assert [p.strip() for p in papers[1:]] == list(registry.ids("verdict")), papers
    assert page.locator("table#notation-papers tbody tr").count() == rows.count()
    page.wait_for_function(
        "() => document.querySelectorAll('table.moelaws-notation mjx-container').length > 80",
        timeout=NAVIGATION_TIMEOUT_MS,
    )
    terms = page.locator("dl.glossary dt").all_inner_texts()
    for term in ("activation ratio", "granularity", "efficiency leverage", "shared expert"):
        assert any(t.strip().startswith(term) for t in terms), terms
    assert not tab.problems(), tab.problems()
