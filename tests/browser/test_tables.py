"""The book's interactive tables in headless Chromium, with every request to another host blocked.

Every interactive table of every built page (found in the HTML: ``table.moelaws-dt``) must
sort by a column header, filter its rows with the search box, highlight exactly the cells the
package says lie outside tolerance, and offer a CSV download equal, byte for byte, to what the
command line writes (``moelaws reproduce --paper P --table T --format csv``; for appendix data,
``moelaws data NAME``). The reproducibility page must fit a 390 px phone with no sideways
scroll and filter to one paper's discrepancies with one click. Screenshots of the
reproducibility page at 1280 and 390 px go to ``_build/screenshots/`` (the window, or the whole
page with ``MOELAWS_FULL_SCREENSHOTS=1``).
"""

from __future__ import annotations

import functools
import re
from pathlib import Path
from typing import Any

import pytest
from book_browser import BOOK, FULL_SCREENSHOTS, SCREENSHOTS, BookPages, Visit, built_pages
from cli_runner import run_cli

from moelaws.claims import tables as claim_tables
from moelaws.data_tables import DATA_TABLES, data_table

_TABLE = re.compile(r'<table class="moelaws-dt[^"]*" id="([^"]+)"')
_CSV = re.compile(r'data-csv="([^"]+)"')
REPRODUCIBILITY = "book/reproducibility.html"


def _interactive_tables() -> list[tuple[str, str, str]]:
    """(page, table id, CSV name) of every interactive table of the built book."""
    found = []
    for page in built_pages():
        text = (BOOK / page).read_text(errors="replace")
        for figure in text.split('<figure class="moelaws-dt-figure"')[1:]:
            table = _TABLE.search(figure)
            csv = _CSV.search(figure)
            assert table and csv, f"{page}: an interactive table without its table or CSV link"
            found.append((page, table.group(1), csv.group(1)))
    return found


TABLES = _interactive_tables()


def _cli_args(csv: str) -> list[str]:
    """The command whose output the download ``csv`` must equal."""
    data = re.fullmatch(r"data-(.+)\.csv", csv)
    if data:
        return ["data", data.group(1)]
    if csv == claim_tables.csv_name():
        return ["reproduce", "--format", "csv"]
    for row in claim_tables.list_tables().itertuples(index=False):
        if row.csv == csv:
            return ["reproduce", "--paper", row.paper, "--table", row.table, "--format", "csv"]
    paper = re.fullmatch(r"reproduce-(\w+)\.csv", csv)
    assert paper, f"no command writes {csv}"
    return ["reproduce", "--paper", paper.group(1), "--format", "csv"]


@functools.cache
def _cli_output(csv: str) -> bytes:
    """What ``python -m moelaws ARGS`` writes (its ``main``, run in this process:
    tests/cli_runner.py)."""
    proc = run_cli(*_cli_args(csv), text=False)
    assert proc.returncode in (0, 1), proc.stderr
    return proc.stdout


def _expected_highlights(csv: str) -> list[tuple[int, str]]:
    """(row, column) of every cell the package says must be highlighted, in registry order."""
    data = re.fullmatch(r"data-(.+)\.csv", csv)
    if data:
        spec = DATA_TABLES[data.group(1)]
        if spec.highlight is None:
            return []
        marks = spec.highlight(data_table(data.group(1))).reset_index(drop=True)
        return [(i, col) for i in range(len(marks)) for col in marks.columns if marks.at[i, col]]
    args = _cli_args(csv)
    paper = args[args.index("--paper") + 1] if "--paper" in args else None
    table = args[args.index("--table") + 1] if "--table" in args else None
    df = claim_tables.reproduced_table(paper, table)
    paper_value = df["paper value"].astype(float)
    outside = [
        (status != "reproduced") if rel != "=" else abs(ours - value) > tol * (1 + 1e-9)
        for rel, ours, value, tol, status in zip(df["relation"], df["ours"], paper_value,
                                                 df["tolerance"], df["status"], strict=True)
    ]
    return [(i, "ours") for i, out in enumerate(outside) if out]


def _open(tab: Visit, page: str) -> Any:
    tab.page.goto(tab.url(page), wait_until="load")
    tab.page.wait_for_function("document.documentElement.dataset.moelawsTables === 'ready'",
                               timeout=30_000)
    return tab.page


def test_the_book_has_interactive_tables() -> None:
    pages = {page for page, _, _ in TABLES}
    assert REPRODUCIBILITY in pages
    assert {"notebooks/03_holistic.html", "notebooks/04_comprehensive.html"} <= pages
    assert len(TABLES) >= 9


@pytest.mark.parametrize(("path", "table_id", "csv"), TABLES,
                         ids=[f"{p}#{t}" for p, t, _ in TABLES])
def test_interactive_table(path: str, table_id: str, csv: str, book_pages: BookPages,
                           tmp_path: Path) -> None:
    """On the page as loaded once for the session (conftest.py): each test leaves its table's
    search box empty, and sorting one table leaves the others as they were."""
    tab = book_pages(path)
    assert not [s for s in tab.settled if s.startswith("tables")], tab.settled
    p = tab.page
    api = f"window.moelawsTables[{table_id!r}]"
    total = p.evaluate(f"{api}.rows().count()")
    assert total > 0

    # Sorting: a click on a header orders every row by that column, both ways.
    column = p.evaluate(
        f"""() => {{
          const names = {api}.columns().header().toArray().map(th => th.textContent.trim());
          for (const want of ['relative difference', 'M_dev', 'N', 'ours']) {{
            if (names.includes(want)) return names.indexOf(want);
          }}
          return 0;
        }}"""
    )
    keys_js = f"""() => {api}.rows({{order: 'applied'}}).nodes().toArray().map(tr => {{
        const td = tr.cells[{column}];
        const raw = td.dataset.order ?? td.textContent.trim();
        return raw === '' ? null : (isNaN(Number(raw)) ? raw : Number(raw));
    }})"""
    before = p.evaluate(keys_js)
    header = p.locator(f"#{table_id} thead th").nth(column)
    orders = []
    for direction in ("asc", "desc"):
        # DataTables sorts after the click's event turn: wait for the redraw it ends with.
        p.evaluate(f"() => {{ window._drawn = false; {api}.one('draw', () => {{ "
                   f"window._drawn = true; }}); }}")
        header.click()
        p.wait_for_function("window._drawn === true")
        assert p.evaluate(f"{api}.order()[0]") == [column, direction]
        keys = [k for k in p.evaluate(keys_js) if k is not None]
        orders.append(keys)
    # DataTables orders text case-insensitively (e.g. a column of model names).
    def key(k: Any) -> Any:
        return k.lower() if isinstance(k, str) else k

    assert [key(k) for k in orders[0]] == sorted(map(key, orders[0])), \
        "ascending sort is not ascending"
    assert [key(k) for k in orders[1]] == sorted(map(key, orders[1]), reverse=True), \
        "descending sort is not descending"
    assert orders[0] != orders[1] or len(set(orders[0])) == 1
    assert before != orders[0] or before != orders[1]

    # Search: the box keeps exactly the rows with the word in some cell.
    word = p.evaluate(
        f"""() => {{
          const rows = {api}.rows().nodes().toArray()
            .map(tr => [...tr.cells].map(td => td.textContent.toLowerCase()));
          const words = rows.flat().join(" ")
            .match(/[a-z][a-z_]{{4,}}|[0-9][0-9a-z.]{{3,}}/g) || [];
          for (const w of words) {{
            const n = rows.filter(r => r.some(c => c.includes(w))).length;
            if (n > 0 && n < rows.length) return w;
          }}
          return null;
        }}"""
    )
    assert word, "no word to search for"
    expected = p.evaluate(f"""() => {api}.rows().nodes().toArray()
        .filter(tr => [...tr.cells].some(td => td.textContent.toLowerCase().includes({word!r})))
        .length""")
    p.locator(f"#{table_id}_wrapper .dt-search input").fill(word)
    p.wait_for_function(f"{api}.rows({{search: 'applied'}}).count() === {expected}")
    assert 0 < expected < total
    p.locator(f"#{table_id}_wrapper .dt-search input").fill("")
    p.wait_for_function(f"{api}.rows({{search: 'applied'}}).count() === {total}")

    # Highlights: exactly the cells outside tolerance, over every page of the table.
    shown = p.evaluate(
        f"""() => {{
          const names = {api}.columns().header().toArray().map(th => th.textContent.trim());
          const out = [];
          {api}.rows({{order: 'index'}}).nodes().toArray().forEach((tr, i) => {{
            [...tr.cells].forEach((td, j) => {{
              if (td.classList.contains('moelaws-outside')) out.push([i, names[j]]);
            }});
          }});
          return out;
        }}"""
    )
    assert [tuple(x) for x in shown] == _expected_highlights(csv)
    if shown:
        assert p.locator(f"#{table_id}-figure .moelaws-dt-legend").is_visible()

    # The CSV download is the command line's output.
    link = p.locator(f"#{table_id}-figure a.moelaws-dt-csv")
    with p.expect_download() as info:
        link.click()
    target = tmp_path / csv
    info.value.save_as(target)
    assert target.read_bytes() == _cli_output(csv)
    # So is the CSV of each paper table linked from a chapter's table of claims.
    more = p.locator(f"#{table_id}-figure a.moelaws-dt-csv-more")
    for i in range(more.count()):
        name = more.nth(i).get_attribute("data-csv")
        with p.expect_download() as info:
            more.nth(i).click()
        info.value.save_as(tmp_path / name)
        assert (tmp_path / name).read_bytes() == _cli_output(name), name
    assert not tab.problems(), tab.problems()


def test_reproducibility_page_fits_a_phone(tab: Visit) -> None:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    p = _open(tab, REPRODUCIBILITY)
    p.screenshot(path=str(SCREENSHOTS / "tables-reproducibility-1280.png"),
                 full_page=FULL_SCREENSHOTS)
    p.set_viewport_size({"width": 390, "height": 844})
    p.wait_for_timeout(300)
    width = p.evaluate("() => [document.documentElement.scrollWidth, window.innerWidth]")
    assert width[0] <= width[1] == 390, f"sideways scroll on a phone: {width}"
    p.screenshot(path=str(SCREENSHOTS / "tables-reproducibility-390.png"),
                 full_page=FULL_SCREENSHOTS)
    # The same holds with every row shown, the longest notes included.
    p.evaluate("() => Object.values(window.moelawsTables)[0].page.len(-1).draw()")
    width = p.evaluate("() => [document.documentElement.scrollWidth, window.innerWidth]")
    assert width[0] <= width[1], f"sideways scroll with every row shown: {width}"
    assert not tab.problems(), tab.problems()


def test_reproducibility_page_filters_to_one_papers_discrepancies(tab: Visit) -> None:
    p = _open(tab, REPRODUCIBILITY)
    df = claim_tables.reproduced_table()
    buttons = p.locator("button.moelaws-filter-button")
    papers = [paper for paper, g in df.groupby("paper", sort=False)
              if (g["status"] == "discrepancy").any()]
    assert buttons.count() == len(papers) > 0
    for i, paper in enumerate(papers):
        buttons.nth(i).click()  # the one action
        expected = df[(df["paper"] == paper) & (df["status"] == "discrepancy")]
        rows = p.evaluate(
            """() => {
              const api = Object.values(window.moelawsTables)[0];
              const names = api.columns().header().toArray().map(th => th.textContent.trim());
              const p = names.indexOf('paper'), s = names.indexOf('status');
              const r = names.indexOf('reference');
              return api.rows({search: 'applied', order: 'index'}).nodes().toArray()
                .map(tr => [tr.cells[p].textContent, tr.cells[s].textContent,
                            tr.cells[r].textContent]);
            }"""
        )
        assert [tuple(r) for r in rows] == [(paper, "discrepancy", ref)
                                            for ref in expected["reference"]]
        assert p.locator("select[data-column='paper']").input_value() == paper
    assert not tab.problems(), tab.problems()
