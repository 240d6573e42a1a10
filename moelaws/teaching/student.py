"""The student edition of a chapter: every solution removed, a stub cell after each exercise.

The book build writes one per chapter beside the executed notebook
(``_build/html/_sources/notebooks/<chapter>.exercises.ipynb``, linked from each chapter's
download menu as "Download exercises (.ipynb)"; see ``book/_ext/moelaws_pages.py``). From a
shell::

    python -m moelaws.teaching.student notebooks/*.md -o students/

That keeps the chapter's MyST Markdown; the book's download is then exported by
:func:`moelaws.notebook_export.export_notebook` (plain Markdown, glued values, a set-up cell),
as ``python -m moelaws.notebook_export --student`` does from a shell.

Every cell tagged ``solution`` goes (the gated ``{solution-start}`` ... ``{solution-end}``
markdown and the solution's code cells); each exercise is followed by an empty code cell, after
its optional starter cells (tagged ``exercise``), that only says where the answer goes. A cell
that holds solution markers but lacks the tag is an error, so no solution can leak.
"""

from __future__ import annotations

import argparse
import copy
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import nbformat

from moelaws.teaching.exercises import find_exercises, is_solution_cell

__all__ = ["STARTER_TAG", "STUB_TAG", "main", "student_notebook", "write_student_edition"]

STARTER_TAG = "exercise"
"""Tag of an exercise's optional starter code cell, kept in both editions."""

STUB_TAG = "answer"
"""Tag of the stub cells the student edition adds."""

SUFFIX = ".exercises.ipynb"
"""A chapter's student edition is ``<chapter>.exercises.ipynb``."""

_MARKERS = ("{solution-start}", "{solution-end}")

_BANNER = (
    "**Student edition.** This notebook is the chapter with the solutions of its exercises "
    "removed. After each exercise an empty code cell marked *Your answer to Exercise ...* "
    "waits for your work; the book's chapter page has the solutions, collapsed."
)


def _stub(number: int, label: str, title: str) -> Any:
    source = f"# Your answer to Exercise {number} ({label})"
    if title:
        source += f": {title}"
    return nbformat.v4.new_code_cell(source=source + "\n", metadata={"tags": [STUB_TAG]})


def student_notebook(notebook: Any) -> Any:
    """A copy of ``notebook`` without solutions and with a stub cell after each exercise.

    Parameters
    ----------
    notebook
        A chapter notebook (``nbformat`` v4 node), with or without outputs.

    Returns
    -------
    nbformat.NotebookNode
        The student edition: solution cells dropped, an untagged-solution check passed, a
        banner after the title and one stub per exercise (tag ``answer``).

    Raises
    ------
    ValueError
        If a cell holds ``{solution-start}``/``{solution-end}`` without the ``solution`` tag,
        if a solution cell lacks the tag, or if the exercise markers are malformed.
    """
    exercises = find_exercises(notebook)
    for exercise in exercises:
        untagged = [i for i in exercise.solution_cells if not is_solution_cell(notebook.cells[i])]
        if untagged:
            raise ValueError(
                f"solution of {exercise.label!r}: cells {untagged} lack the 'solution' tag"
            )
    after: dict[int, Any] = {}
    for number, exercise in enumerate(exercises, start=1):
        position = exercise.end_cell
        while position + 1 < len(notebook.cells) and STARTER_TAG in (
            notebook.cells[position + 1].get("metadata", {}).get("tags") or []
        ):
            position += 1
        after[position] = _stub(number, exercise.label, exercise.title)

    student = copy.deepcopy(notebook)
    cells = []
    for index, cell in enumerate(student.cells):
        if not is_solution_cell(cell):
            if cell.get("cell_type") == "markdown" and any(m in cell.source for m in _MARKERS):
                raise ValueError(f"cell {index} holds a solution marker but no 'solution' tag")
            cells.append(cell)
        if index in after:
            cells.append(after[index])
    banner = nbformat.v4.new_markdown_cell(_BANNER, metadata={"tags": ["student-edition"]})
    title = next((i for i, c in enumerate(cells) if c.get("cell_type") == "markdown"), -1)
    cells.insert(title + 1, banner)
    student.cells = cells
    nbformat.validate(student)
    return student


def write_student_edition(source: str | Path, out_dir: str | Path) -> Path:
    """Write the student edition of a chapter (``.md`` via jupytext, or ``.ipynb``).

    Returns the path written, ``out_dir/<stem>.exercises.ipynb``.
    """
    source = Path(source)
    if source.suffix == ".md":
        import jupytext

        notebook = jupytext.read(source)
    elif source.suffix == ".ipynb":
        notebook = nbformat.read(source, as_version=4)
    else:
        raise ValueError(f"{source}: expected a .md (MyST) or .ipynb chapter")
    target = Path(out_dir) / (source.stem + SUFFIX)
    target.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(student_notebook(notebook), target)
    return target


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m moelaws.teaching.student",
        description="Write the student edition (solutions removed) of chapter notebooks.",
    )
    parser.add_argument("chapters", nargs="+", help="chapter sources (.md) or notebooks (.ipynb)")
    parser.add_argument("-o", "--out-dir", default=".", help="where to write (default: here)")
    args = parser.parse_args(argv)
    for chapter in args.chapters:
        print(write_student_edition(chapter, args.out_dir))
    return 0


if __name__ == "__main__":
    sys.exit(main())
