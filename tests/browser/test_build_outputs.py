"""The built book carries nothing of the machine that built it, and no chapter prints to stderr.

A warning or traceback in a chapter's output names files on the building machine (the checkout,
the virtual environment, the kernel's temporary cells); ``make publish`` would push them. These
tests scan every built page, downloadable notebook and executed notebook (``_build/html`` and
``_build/jupyter_execute``) for such paths, and every executed chapter for stderr output.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest
from book_browser import BOOK, ROOT

EXECUTED = BOOK.parent / "jupyter_execute"

# The kernel's cell files are spelled in pieces so that this file does not name a machine path
# itself (tests/test_portability.py).
KERNEL_CELLS = "/" + "tmp" + "/ipykernel_"
MACHINE_PATHS = re.compile("|".join([*(re.escape(p) for p in sorted({
    str(ROOT), str(ROOT.resolve()), sys.prefix, KERNEL_CELLS, "site-packages/",
    str(Path.home()) + "/",
}, key=len, reverse=True)), r"(?:/[\w.-]+)+/moelaws/[\w/]+\.py"]))
"""This checkout, the environment, the kernel's cells, a home directory, and any absolute path
into the package's source (a warning's location, built on another machine)."""


def _built_files() -> list[Path]:
    roots = [BOOK, EXECUTED]
    return sorted(p for root in roots if root.is_dir() for p in root.rglob("*")
                  if p.suffix in {".html", ".ipynb", ".txt", ".json", ".csv"} and p.is_file())


def test_no_built_output_names_a_path_of_the_building_machine() -> None:
    files = _built_files()
    assert files, f"nothing built under {BOOK}"
    found = {}
    for path in files:
        hits = set(MACHINE_PATHS.findall(path.read_text(errors="replace")))
        if hits:
            found[str(path.relative_to(BOOK.parent))] = sorted(hits)
    assert not found, f"machine paths in built files: {found}"


def test_no_executed_chapter_writes_to_stderr() -> None:
    notebooks = sorted(EXECUTED.rglob("*.ipynb"))
    assert notebooks, f"no executed notebooks under {EXECUTED}"
    stderr = {}
    for path in notebooks:
        cells = json.loads(path.read_text())["cells"]
        for i, cell in enumerate(cells):
            for out in cell.get("outputs", []):
                if out.get("output_type") == "stream" and out.get("name") == "stderr":
                    stderr[f"{path.name} cell {i}"] = "".join(out.get("text", ""))[:200]
    assert not stderr, f"chapters wrote to stderr (warnings?): {stderr}"


def test_the_scan_would_see_a_machine_path(tmp_path: Path) -> None:
    text = f"warning at {ROOT}/moelaws/validation.py:290 and {KERNEL_CELLS}77/1.py:3"
    assert len(MACHINE_PATHS.findall(text)) == 2
    assert MACHINE_PATHS.findall("/" + "home/ci/clone/moelaws/validation.py:290: Warning")
    with pytest.raises(AssertionError):
        assert not MACHINE_PATHS.findall(text)
