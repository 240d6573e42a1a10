"""The corrections page: every entry has its date, chapter (a linked section that exists),
what was wrong and what is right, and the page sits in the back matter before the
bibliography."""

from __future__ import annotations

import datetime
import re
from pathlib import Path

import pytest
from conftest import toc_chapters

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "book" / "corrections.md"
HEADER = ["Date", "Chapter", "What was wrong", "What is right"]
_LINK = re.compile(
    r"^\[(?P<text>[^\]]+)\]\(\.\./(?P<doc>notebooks/[\w-]+)\.md#(?P<anchor>[\w-]+)\)$"
)


def _cells(line: str) -> list[str]:
    return [c.strip() for c in line.strip().strip("|").split(" | ")]


def corrections_table(text: str) -> list[dict[str, str]]:
    """The rows of the page's corrections table, as dicts keyed by :data:`HEADER`."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("| Date |"))
    assert _cells(lines[start]) == HEADER
    rows = []
    for line in lines[start + 2:]:
        if not line.startswith("|"):
            break
        cells = _cells(line)
        assert len(cells) == len(HEADER), f"a correction needs {len(HEADER)} cells: {line}"
        rows.append(dict(zip(HEADER, cells, strict=True)))
    return rows


def heading_anchors(doc: Path) -> set[str]:
    """The anchors MyST gives a document's headings (``myst_heading_anchors``), outside code."""
    anchors, in_code = set(), False
    for line in doc.read_text(encoding="utf-8").splitlines():
        if line.startswith("```"):
            in_code = not in_code
        elif not in_code and re.match(r"^#{1,3} ", line):
            title = line.lstrip("#").strip().lower()
            anchors.add(re.sub(r"[^\w\- ]", "", title).replace(" ", "-"))
    return anchors


ROWS = corrections_table(PAGE.read_text(encoding="utf-8"))


def test_the_page_has_corrections() -> None:
    assert len(ROWS) >= 8


@pytest.mark.parametrize("row", ROWS, ids=[f"{i}" for i in range(len(ROWS))])
def test_each_correction_is_complete_and_links_an_existing_section(row: dict[str, str]) -> None:
    date = datetime.date.fromisoformat(row["Date"])
    assert datetime.date(2026, 11, 1) <= date <= datetime.date.today()
    assert len(row["What was wrong"]) > 10 and len(row["What is right"]) > 10
    assert row["What was wrong"] != row["What is right"]
    link = _LINK.match(row["Chapter"])
    assert link, ("the chapter cell links its section, "
                  f"[Chapter N, section](../notebooks/F.md#anchor): {row['Chapter']}")
    assert link["doc"] in toc_chapters()
    assert link["anchor"] in heading_anchors(ROOT / f"{link['doc']}.md")


def test_the_checks_can_fail() -> None:
    bad = PAGE.read_text(encoding="utf-8").replace("| 2026-11-23 | [Chapter 1", "| | [Chapter 1")
    with pytest.raises(ValueError):
        datetime.date.fromisoformat(corrections_table(bad)[0]["Date"])
    assert "no-such-section" not in heading_anchors(ROOT / "notebooks" / "05_constrained.md")
    assert "our-toy-re-run-of-sec-3-figure-1-table-3" in heading_anchors(
        ROOT / "notebooks" / "05_constrained.md")
    with pytest.raises(AssertionError):
        corrections_table(PAGE.read_text(encoding="utf-8").replace(
            " | What is right |", " |"))


def test_rows_are_in_date_order() -> None:
    dates = [row["Date"] for row in ROWS]
    assert dates == sorted(dates)


def test_the_page_is_in_the_back_matter_before_the_bibliography() -> None:
    files = toc_chapters()
    assert files.index("book/corrections") == files.index("book/bibliography") - 1
