"""How much code a reader sees by default: visible code lines per chapter.

A code cell's lines are *visible* unless the cell is collapsed or removed
(``hide-input``, ``hide-cell``, ``remove-input``, ``remove-cell``) or belongs to a solution
(collapsed under its exercise). Blank lines do not count. From a shell::

    python -m moelaws.teaching.code_lines notebooks/*.md
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from moelaws.teaching.exercises import is_solution_cell

__all__ = ["HIDDEN_TAGS", "code_lines", "main"]

HIDDEN_TAGS = frozenset({"hide-input", "hide-cell", "remove-input", "remove-cell"})
"""Cell tags under which a code cell's source is not shown by default."""


def code_lines(notebook: Any) -> dict[str, int]:
    """Non-blank code lines of ``notebook``: ``total``, ``visible``, ``hidden``, ``solutions``.

    ``visible + hidden + solutions == total``; ``hidden`` counts plumbing cells collapsed or
    removed by a tag, ``solutions`` the code of solutions (collapsed with them).
    """
    counts = {"total": 0, "visible": 0, "hidden": 0, "solutions": 0}
    for cell in notebook.cells:
        if cell.get("cell_type") != "code":
            continue
        lines = sum(1 for line in cell.source.splitlines() if line.strip())
        counts["total"] += lines
        if is_solution_cell(cell):
            counts["solutions"] += lines
        elif HIDDEN_TAGS & set(cell.get("metadata", {}).get("tags") or []):
            counts["hidden"] += lines
        else:
            counts["visible"] += lines
    return counts


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m moelaws.teaching.code_lines",
        description="Count the code lines a reader sees by default in each chapter.",
    )
    parser.add_argument("chapters", nargs="+", help="chapter sources (.md)")
    args = parser.parse_args(argv)
    import jupytext

    for chapter in args.chapters:
        c = code_lines(jupytext.read(Path(chapter)))
        print(f"{chapter}: {c['visible']} visible of {c['total']} "
              f"({c['hidden']} collapsed plumbing, {c['solutions']} in solutions)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
