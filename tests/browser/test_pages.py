"""Every page of the built book, loaded in headless Chromium with no network.

Each page is loaded once per window size for the whole session and shared with the other
browser tests that read it (``book_pages`` in conftest.py; the tests run grouped by page).
Checked: it loads with no console error and no failed request, loads nothing from another
origin, every Altair chart draws its marks, every formula is typeset by MathJax, and every
static slider (a Vega-Lite binding) changes the chart it drives. A screenshot of every page
at each size is written to ``_build/screenshots/`` (``<page>-desktop.png``, ``<page>-phone.png``:
the window, or the whole page with ``MOELAWS_FULL_SCREENSHOTS=1``). Pages are discovered from
the built book, so a new chapter is tested as soon as it is in the table of contents.
"""

from __future__ import annotations

import json
import re
import subprocess
from html.parser import HTMLParser
from typing import Any

import pytest
from book_browser import (
    BOOK,
    BRANCH,
    NAVIGATION_TIMEOUT_MS,
    REPOSITORY,
    ROOT,
    SCREENSHOTS,
    VIEWPORTS,
    BookPages,
    LoadedPage,
    Visit,
    built_pages,
    open_tab,
    screenshot_name,
)
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from moelaws.notebook_export import build_revision


def is_commit(revision: str) -> bool:
    """Whether ``revision`` is a full commit hash this checkout has."""
    return bool(re.fullmatch(r"[0-9a-f]{40}", revision)) and subprocess.run(
        ["git", "cat-file", "-e", f"{revision}^{{commit}}"], cwd=ROOT, capture_output=True
    ).returncode == 0

PAGES = built_pages()
CDN_HOSTS = re.compile(
    r"unpkg\.com|jsdelivr\.net|cdnjs\.|cdn\.plot\.ly|googleapis\.com|gstatic\.com|"
    r"thebe|binder\.js|requirejs\.org|mathjax\.org",
    re.IGNORECASE,
)


class _Resources(HTMLParser):
    """Every URL a page would load by itself (not the links a reader may follow)."""

    def __init__(self) -> None:
        super().__init__()
        self.urls: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: v or "" for k, v in attrs}
        if tag in ("script", "img", "iframe", "source", "audio", "video", "embed") and a.get(
            "src"
        ):
            self.urls.append(a["src"])
        if tag == "link" and a.get("href") and a.get("rel", "") != "canonical":
            self.urls.append(a["href"])
        if tag == "object" and a.get("data"):
            self.urls.append(a["data"])


def _external(url: str) -> bool:
    return bool(re.match(r"^([a-z][a-z0-9+.-]*:)?//", url, re.IGNORECASE)) and not url.startswith(
        ("http://127.0.0.1", "http://localhost")
    )


@pytest.mark.parametrize("path", PAGES)
def test_page_refers_to_no_other_origin(path: str) -> None:
    html = (BOOK / path).read_text()
    parser = _Resources()
    parser.feed(html)
    external = [u for u in parser.urls if _external(u)]
    assert not external, f"{path} would load {external}"
    scripts = re.findall(r"<script\b[^>]*>(.*?)</script>", html, re.DOTALL | re.IGNORECASE)
    cdn = sorted({m.group(0) for s in scripts for m in CDN_HOSTS.finditer(s)})
    assert not cdn, f"{path}: an inline script names {cdn}"


# JavaScript run in the page.
_CHARTS = """() => [...document.querySelectorAll('.moelaws-vega')].map(el => {
  const svg = el.querySelector('svg');
  const canvas = el.querySelector('canvas');
  const marks = svg ? [...svg.querySelectorAll('.role-mark > *')].filter(
    m => (m.getAttribute('d') || '').length > 2 || m.textContent.trim() ||
         ['circle', 'rect', 'line', 'image'].includes(m.tagName)).length : 0;
  const box = (svg || canvas || el).getBoundingClientRect();
  const err = el.querySelector('.moelaws-vega-error');
  const nan = svg ? (svg.innerHTML.match(/[^"'>]{0,40}NaN[^"'<]{0,40}/) || [null])[0] : null;
  return {id: el.id, svg: !!svg, canvas: !!canvas, marks: marks, nan: nan,
          width: box.width, height: box.height, error: err ? err.textContent : null,
          sliders: el.querySelectorAll('input[type=range]').length};
})"""

_MATH = """() => {
  const math = [...document.querySelectorAll('.math')];
  return {
    math: math.length,
    typeset: math.filter(m => m.querySelector('mjx-container')).length,
    untypeset: math.filter(m => !m.querySelector('mjx-container'))
                   .slice(0, 5).map(m => m.textContent.slice(0, 80)),
    errors: [...document.querySelectorAll('mjx-merror')].slice(0, 5)
                .map(e => e.getAttribute('data-mjx-error') || e.textContent),
  };
}"""


def _slug(path: str) -> str:
    return path[: -len(".html")] if path.endswith(".html") else path


@pytest.fixture
def loaded(path: str, book_pages: BookPages) -> LoadedPage:
    """The page as loaded once for the session (conftest.py): charts drawn, formulas typeset,
    screenshotted; it fails if the charts did not settle."""
    page = book_pages(path)
    assert not [s for s in page.settled if s.startswith("charts")], (
        f"{path}: {page.settled}: {page.problems()}")
    return page


@pytest.mark.parametrize("path", PAGES)
def test_charts_render(loaded: LoadedPage) -> None:
    charts = loaded.page.evaluate(_CHARTS)
    # Every chart written in the page is in the DOM (charts drawn by an embedded widget's
    # output come on top of those).
    written = (BOOK / loaded.path).read_text().count('class="moelaws-vega"')
    assert len(charts) >= written
    for c in charts:
        assert c["error"] is None, f"chart {c['id']} failed to render: {c['error']}"
        assert c["svg"] or c["canvas"], f"chart {c['id']} drew nothing"
        assert c["width"] > 50 and c["height"] > 50, f"chart {c['id']} is empty: {c}"
        if c["svg"]:
            assert c["marks"] > 0, f"chart {c['id']} has axes but no marks"
            assert c["nan"] is None, f"chart {c['id']} draws at NaN: {c['nan']}"


@pytest.mark.parametrize("path", PAGES)
def test_math_renders(loaded: LoadedPage) -> None:
    math = loaded.page.evaluate(_MATH)
    if math["math"]:
        assert loaded.mathjax == "typeset", loaded.mathjax
    assert math["typeset"] == math["math"], f"formulas left as TeX: {math['untypeset']}"
    assert not math["errors"], f"MathJax errors: {math['errors']}"


def _changes_chart(page: Any, chart: Any, values: list[str], set_value: Any) -> bool:
    """Whether setting one of ``values`` (in turn) redraws ``chart``'s SVG within 5 s."""
    before = chart.locator("svg").first.inner_html()
    for value in values:
        set_value(value)
        try:
            page.wait_for_function(
                "([el, before]) => el.innerHTML !== before",
                arg=[chart.locator("svg").first.element_handle(), before],
                timeout=5_000,
            )
        except PlaywrightTimeout:
            continue
        return True
    return False


@pytest.mark.parametrize("path", PAGES)
def test_sliders_change_their_chart(loaded: LoadedPage) -> None:
    page = loaded.page
    charts = page.locator(".moelaws-vega").filter(has=page.locator("input[type=range]"))
    for i in range(charts.count()):
        chart = charts.nth(i)
        name = chart.get_attribute("id")
        sliders = chart.locator("input[type=range]")
        for j in range(sliders.count()):
            slider = sliders.nth(j)
            slider.scroll_into_view_if_needed()
            lo = float(slider.get_attribute("min") or "0")
            hi = float(slider.get_attribute("max") or "100")
            now = float(slider.input_value())
            values = [f"{v:g}" for v in (hi, lo, (lo + hi) / 2) if v != now]
            changed = _changes_chart(page, chart, values, slider.fill)
            assert changed, f"slider {j} of chart {name} on {loaded.path} changes nothing"


@pytest.mark.parametrize("path", PAGES)
def test_menus_change_their_chart(loaded: LoadedPage) -> None:
    """Vega-Lite select bindings (drop-down menus under a chart) drive it as sliders do."""
    page = loaded.page
    charts = page.locator(".moelaws-vega").filter(has=page.locator("select"))
    for i in range(charts.count()):
        chart = charts.nth(i)
        menus = chart.locator("select")
        for j in range(menus.count()):
            menu = menus.nth(j)
            menu.scroll_into_view_if_needed()
            options = menu.locator("option").evaluate_all("els => els.map(e => e.value)")
            now = menu.input_value()
            values = [o for o in options if o != now]
            changed = _changes_chart(page, chart, values, menu.select_option)
            assert changed, (
                f"menu {j} of chart {chart.get_attribute('id')} on {loaded.path} "
                "changes nothing"
            )


@pytest.mark.parametrize("path", PAGES)
def test_no_errors_and_no_failed_requests(loaded: LoadedPage) -> None:
    """After the slider and menu moves on the page, so that it also covers what they did."""
    loaded.wait_until_quiet()
    assert not loaded.problems(), "\n".join(loaded.problems())


@pytest.mark.after_pages
def test_every_page_was_tested(book_pages: BookPages) -> None:
    """At least the introduction and one chapter were found, every page was loaded at both
    sizes, each once, and their screenshots saved."""
    assert any(p.startswith("notebooks/") for p in PAGES), PAGES
    assert "genindex.html" in PAGES and "search.html" in PAGES
    wanted = [(path, size) for path in PAGES for size in VIEWPORTS]
    assert sorted(book_pages.loads) == sorted(wanted), "pages loaded more than once or never"
    for path, size in wanted:
        assert (SCREENSHOTS / screenshot_name(path, size)).stat().st_size > 1000, path


def test_requests_to_another_origin_are_blocked_and_reported(tab: Visit) -> None:
    """The guard every test's tab has (book_browser.open_tab): what a page would fetch from
    another host never leaves the machine, and it is reported, so the checks above can fail."""
    tab.page.goto(tab.url("book/intro.html"))
    tab.page.evaluate("""async () => {
      await fetch('https://cdn.example.org/x.js').catch(() => null);
      const img = new Image(); img.src = 'http://example.com/a.png';
      await new Promise(r => { img.onerror = r; img.onload = r; });
      await fetch('/book/intro.html');
    }""")
    assert tab.blocked_requests == ["https://cdn.example.org/x.js", "http://example.com/a.png"]
    assert "request to another origin (blocked): http://example.com/a.png" in tab.problems()


def test_index_redirects_to_the_first_page(tab: Visit) -> None:
    tab.page.goto(tab.url("index.html"))
    tab.page.wait_for_function("() => !location.pathname.endsWith('/index.html')")
    tab.page.wait_for_selector("article.bd-article h1")
    tab.page.wait_for_load_state("load")
    assert not tab.problems(), tab.problems()


def _path(tab: Visit, url: str) -> str:
    """The book page a URL of the served book points to (no fragment, no query)."""
    return url[len(tab.base_url) :].split("#")[0].split("?")[0]


def _here(tab: Visit) -> str:
    return _path(tab, tab.page.url)


def _title(tab: Visit) -> str:
    heading = tab.page.locator("article.bd-article h1").first.inner_text()
    return heading.strip().rstrip("#¶ ").strip()


def _toc(tab: Visit) -> list[tuple[str, str]]:
    """The table of contents as (page path, title) in reading order, from the sidebar of the
    page index.html leads to (the tab is left there)."""
    tab.page.goto(tab.url("index.html"))
    tab.page.wait_for_function("() => !location.pathname.endsWith('/index.html')")
    tab.page.wait_for_selector("nav.bd-docs-nav")
    first = (_here(tab), _title(tab))
    links = tab.page.eval_on_selector_all(
        "nav.bd-docs-nav a.reference.internal",
        "els => els.map(a => [a.href, a.textContent.trim()])",
    )
    rest = [(_path(tab, h), t) for h, t in links if "#" not in h]
    return [first, *rest]


@pytest.fixture(scope="module")
def toc(browser: Any, base_url: str) -> list[tuple[str, str]]:
    """The table of contents for the search tests, read once with scripts off (the sidebar is
    the built HTML's)."""
    tab = open_tab(browser, base_url, javascript=False)
    try:
        return _toc(tab)
    finally:
        tab.page.context.close()


def _follow(tab: Visit, selector: str) -> None:
    with tab.page.expect_navigation(wait_until="domcontentloaded"):
        tab.page.locator(selector).first.click()


_LINKS = """() => ({
  sidebar: [...document.querySelectorAll('nav.bd-docs-nav a.reference.internal')]
    .map(a => [a.href, a.getAttribute('href'), a.textContent.trim()]),
  previous: [...document.querySelectorAll('a.left-prev')].map(a => a.href),
  next: [...document.querySelectorAll('a.right-next')].map(a => a.href),
})"""


def test_next_previous_and_sidebar_links_walk_the_table_of_contents(static_tab: Visit) -> None:
    """One walk from the first page to the last by the next links, the built HTML's own,
    followed with the pages' scripts off (each page's scripts are checked, with its console and
    requests, by the tests above). On every page: its title is its sidebar link's, its previous
    link leads to the page before (the first page has none) and every sidebar link leads to its
    page (its own link is ``#``). A link not followed is checked by where its ``href`` resolves
    to, a page this walk loads, and by a trial click (a reader can click it): the previous links
    and the first page's sidebar, which a walk back and a visit from the sidebar to every page
    followed, with 56 page loads where this walk makes 15."""
    tab = static_tab
    toc = _toc(tab)
    paths = [path for path, _ in toc]
    assert len(toc) >= 3 and len(set(paths)) == len(paths), toc
    # Each page as opened from the first page's sidebar: the link a reader clicks for it.
    for path, _ in toc[1:]:
        link = tab.page.locator(
            f'nav.bd-docs-nav a.reference.internal[href$="{path.split("/")[-1]}"]').first
        link.click(trial=True)
        assert _path(tab, link.evaluate("a => a.href")) == path
    walked: list[str] = []
    while True:
        walked.append(_here(tab))
        assert len(walked) <= len(toc), walked
        here = len(walked) - 1
        assert walked == paths[: here + 1], walked
        assert _title(tab) == toc[here][1], f"{walked[-1]}: its sidebar link says {toc[here][1]!r}"
        links = tab.page.evaluate(_LINKS)
        sidebar = [(_path(tab, url), text) for url, href, text in links["sidebar"]
                   if "#" not in url or href == "#"]
        assert sidebar == toc, f"{walked[-1]}: the sidebar leads to {sidebar}"
        previous = [_path(tab, url) for url in links["previous"]]
        assert previous == paths[max(here - 1, 0) : here], f"{walked[-1]}: previous {previous}"
        if previous:
            tab.page.locator("a.left-prev").first.click(trial=True)
        if not links["next"]:
            break
        _follow(tab, "a.right-next")
    assert walked == paths
    tab.page.wait_for_load_state("load")
    assert not tab.problems(navigating=True), tab.problems(navigating=True)


_SEARCH = """async (query) => {
  // What search.html?q= does on load (Search.init): Sphinx's search, its results listed one
  // by one and the summary line written after the last; each result's excerpt is fetched from
  // its page, and the search is done once every result shows one.
  const out = document.getElementById('search-results');
  out.replaceChildren();
  Search.performSearch(query);
  const done = () => out.querySelector('p.search-summary').textContent
    && [...out.querySelectorAll('ul.search li')].every(li => li.querySelector('p.context, span'));
  for (const t0 = Date.now(); !done(); await new Promise(r => setTimeout(r, 20))) {
    if (Date.now() - t0 > 30000) { return null; }
  }
  return [...out.querySelectorAll('ul.search li a')].map(a => a.href);
}"""


def _search_results(tab: Visit) -> list[str]:
    summary = "#search-results p.search-summary"
    tab.page.wait_for_selector(summary, timeout=NAVIGATION_TIMEOUT_MS)
    tab.page.wait_for_function(
        f"() => !document.querySelector('{summary}').textContent.includes('Preparing')"
    )
    hrefs = tab.page.eval_on_selector_all(
        "#search-results ul.search li a", "els => els.map(a => a.href)"
    )
    return [_path(tab, h) for h in hrefs]


def test_search_finds_every_page_by_its_title(tab: Visit, toc: list[tuple[str, str]]) -> None:
    """Every title searched on one search page, by Sphinx's own search script as the page runs
    it for ``search.html?q=`` (test_search_box_submits_a_query opens such a URL from the search
    box): one page load, not one per title."""
    tab.page.goto(tab.url("search.html"))
    tab.page.wait_for_function("() => Search.hasIndex()", timeout=NAVIGATION_TIMEOUT_MS)
    for path, title in toc:
        hrefs = tab.page.evaluate(_SEARCH, title)
        assert hrefs is not None, f"searching {title!r} did not finish"
        found = [_path(tab, h) for h in hrefs]
        assert path in found, f"searching {title!r} finds {found}, not {path}"
    assert not tab.problems(), tab.problems()


def test_search_box_submits_a_query(tab: Visit, toc: list[tuple[str, str]]) -> None:
    path, title = next((p, t) for p, t in toc if p.startswith("notebooks/"))
    page = tab.page
    page.goto(tab.url(path))
    page.keyboard.press("Control+k")
    box = page.locator("#pst-search-dialog input[name=q]")
    box.wait_for(state="visible")
    box.fill(title)
    box.press("Enter")
    page.wait_for_url(re.compile(r"search\.html\?q="))
    assert path in _search_results(tab)
    assert not tab.problems(navigating=True), tab.problems(navigating=True)


def _chapters() -> list[str]:
    """Pages made from notebooks (they have code cells)."""
    return [p for p in PAGES if 'class="cell docutils container"' in (BOOK / p).read_text()]


@pytest.mark.parametrize("path", _chapters())
def test_chapter_offers_launch_buttons_and_the_notebook(path: str, loaded: LoadedPage) -> None:
    tab = loaded
    page = tab.page
    links = page.eval_on_selector_all("a", "els => els.map(a => a.getAttribute('href') || '')")
    source = _slug(path)
    binder = [h for h in links if h.startswith("https://mybinder.org/v2/gh/")]
    colab = [h for h in links if h.startswith("https://colab.research.google.com/github/")]
    # JupyterLab opens the MyST source as a notebook (binder/postBuild sets Jupytext's viewer).
    assert binder and binder[0].endswith(f"urlpath=lab/tree/{source}.md"), binder
    # Colab opens only .ipynb files: the executed notebook as published on the Pages branch.
    assert colab and colab[0].endswith(f"/blob/gh-pages/_sources/{source}.ipynb"), colab
    ipynb = [h for h in links if h.endswith(f"_sources/{source}.ipynb")]
    assert ipynb, f"{path} has no .ipynb download"
    response = page.request.get(tab.url(f"_sources/{source}.ipynb"))
    assert response.ok
    notebook = json.loads(response.text())
    assert notebook["nbformat"] == 4
    assert any(c.get("outputs") for c in notebook["cells"] if c["cell_type"] == "code")
    first = notebook["cells"][0]
    assert "moelaws-setup" in first["metadata"].get("tags", []), "no setup cell for Colab"
    # The set-up cell installs the commit the book was built from (the branch outside git).
    revision = re.search(rf'"moelaws\[notebook\] @ git\+{re.escape(REPOSITORY)}@([^"]+)"',
                         "".join(first["source"]))
    assert revision, "".join(first["source"])
    if build_revision(ROOT, BRANCH) == BRANCH:
        assert revision[1] == BRANCH
    else:
        assert is_commit(revision[1]), f"{revision[1]} is not a commit of this repository"
    markdown = "\n".join("".join(c["source"]) for c in notebook["cells"]
                          if c["cell_type"] == "markdown")
    assert not re.findall(r"\{glue|:::\{|```\{|\{[a-z][\w:.-]*\}`", markdown), path
    assert not tab.problems(), tab.problems()


@pytest.mark.parametrize("path", [p for p in PAGES if p.startswith("notebooks/")])
def test_chapter_opens_with_its_goals_and_ends_with_what_reproduced(
        path: str, loaded: LoadedPage) -> None:
    """Every chapter states what you will learn and its run time; one that checks a paper's
    claims closes with the summary generated by moelaws.claims.report.summary_markdown."""
    page = loaded.page
    text = page.locator("article.bd-article").first.inner_text()
    head = text[:3000].lower()
    assert "you will learn" in head, f"{path} does not open with what you will learn"
    assert "run time" in head, f"{path} does not state its run time"
    papers = re.findall(r"claims\.check\(\s*[\"'](\w+)[\"']", text)
    if not papers:
        return
    closing = re.split(r"what reproduced", text, flags=re.IGNORECASE)
    assert len(closing) >= 2, f"{path} has no 'What reproduced, what did not, and why' section"
    assert re.search(r"\d+ claims? checked: \d+ reproduced", closing[-1]), (
        f"{path}: its closing section should display the generated summary: "
        f'Markdown(report.summary_markdown("{papers[-1]}")), with '
        "`from IPython.display import Markdown` and `from moelaws.claims import report`"
    )
