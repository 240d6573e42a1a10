"""The student edition: no solution survives, one harmless stub per exercise, and it runs.

Every chapter's student notebook is checked here statically (no solution cell, marker or
solution-only line; no later cell reads a name only a solution defines). That each one runs is
checked by ``make live`` (part of ``make test``): tests/test_downloads.py runs every chapter's
student notebook, as the book offers it (built by the same :func:`student_notebook`), top to
bottom in a fresh environment, and fails on an error or any stderr output.
"""

from __future__ import annotations

import ast
import builtins
from pathlib import Path

import jupytext
import nbformat
import pytest
from book_extensions import load_extension

from moelaws.teaching import find_exercises
from moelaws.teaching.exercises import is_solution_cell
from moelaws.teaching.student import STUB_TAG, main, student_notebook, write_student_edition

ROOT = Path(__file__).resolve().parents[1]
CHAPTERS = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.md"))
IDS = [p.stem for p in CHAPTERS]


def _code(source: str) -> str:
    """A code cell's Python, without IPython magics and shell escapes."""
    lines = [ln for ln in source.splitlines() if not ln.lstrip().startswith(("%", "!"))]
    return "\n".join(lines)


def _solution_only_lines(notebook) -> set[str]:
    """Distinctive lines of solution cells that no other cell of the chapter contains."""
    shared = "\n".join(c.source for c in notebook.cells if not is_solution_cell(c))
    lines = set()
    for cell in notebook.cells:
        if is_solution_cell(cell):
            for line in cell.source.splitlines():
                line = line.strip()
                if len(line) >= 25 and line not in shared and not line.startswith("```"):
                    lines.add(line)
    return lines


@pytest.mark.parametrize("path", CHAPTERS, ids=IDS)
def test_no_solution_survives(path: Path) -> None:
    chapter = jupytext.read(path)
    student = student_notebook(chapter)
    text = nbformat.writes(student)
    assert not any(is_solution_cell(c) for c in student.cells)
    for marker in ("{solution-start}", "{solution-end}", '"solution"'):
        assert marker not in text, f"{path.name}: {marker} survives"
    leaked = [line for line in _solution_only_lines(chapter) if line in text]
    assert not leaked, f"{path.name}: solution lines survive: {leaked[:3]}"
    exercises = find_exercises(chapter)
    stubs = [c for c in student.cells if STUB_TAG in c.metadata.get("tags", [])]
    assert [s.source.split("(")[1].split(")")[0] for s in stubs] == [e.label for e in exercises]
    for stub in stubs:
        assert stub.source.startswith("# Your answer to Exercise ")
        exec(compile(stub.source, "<stub>", "exec"), {})  # a stub must not raise
    kept = [c for c in chapter.cells if not is_solution_cell(c)]
    assert len(student.cells) == len(kept) + len(stubs) + 1  # + the banner


def _names(tree: ast.AST) -> tuple[set[str], set[str]]:
    """(names a cell binds, names it reads)."""
    bound, read = set(), set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            (bound if isinstance(node.ctx, ast.Store | ast.Del) else read).add(node.id)
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            bound.add(node.name)
            bound.update(a.arg for a in ast.walk(node.args) if isinstance(a, ast.arg))
        elif isinstance(node, ast.Import | ast.ImportFrom):
            bound.update((a.asname or a.name).split(".")[0] for a in node.names)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            bound.add(node.name)
        elif isinstance(node, ast.Lambda):
            bound.update(a.arg for a in ast.walk(node.args) if isinstance(a, ast.arg))
    return bound, read


@pytest.mark.parametrize("path", CHAPTERS, ids=IDS)
def test_no_cell_needs_a_solution(path: Path) -> None:
    """A name read by a non-solution cell is bound by some non-solution cell (or a builtin)."""
    chapter = jupytext.read(path)
    bound_outside, reads = set(dir(builtins)), []
    for index, cell in enumerate(chapter.cells):
        if cell.cell_type != "code":
            continue
        bound, read = _names(ast.parse(_code(cell.source)))
        if is_solution_cell(cell):
            continue
        bound_outside |= bound
        reads.append((index, read))
    missing = [(i, sorted(r - bound_outside)) for i, r in reads if r - bound_outside]
    assert not missing, f"{path.name}: cells read names only a solution binds: {missing}"


def _toy_chapter() -> nbformat.NotebookNode:
    md, code = nbformat.v4.new_markdown_cell, nbformat.v4.new_code_cell
    solution = {"tags": ["solution"]}
    return nbformat.v4.new_notebook(cells=[
        md("# Toy chapter"),
        code("x = 2"),
        md("## Exercises\n\n```{exercise-start} Square\n:label: ex-00-sq\n:class: kind-compute\n"
           "```\n**Compute.** Square x.\n```{exercise-end}\n```"),
        code("print('hint: use x')", metadata={"tags": ["exercise"]}),
        md("```{solution-start} ex-00-sq\n:class: dropdown\n```\nThe square is 4.",
           metadata=solution),
        code("answer = x**2\nassert answer == 4  # SECRET-LINE", metadata=solution),
        md("```{solution-end}\n```", metadata=solution),
        md("Closing text."),
    ])


def test_student_notebook_of_a_toy_chapter() -> None:
    student = student_notebook(_toy_chapter())
    sources = [c.source for c in student.cells]
    assert sources[0] == "# Toy chapter"
    assert sources[1].startswith("**Student edition.**")
    assert sources[4] == "print('hint: use x')"  # the starter cell stays, the stub follows it
    assert sources[5] == "# Your answer to Exercise 1 (ex-00-sq): Square\n"
    assert sources[6] == "Closing text."
    assert "SECRET-LINE" not in nbformat.writes(student)


def test_untagged_solution_is_refused() -> None:
    chapter = _toy_chapter()
    chapter.cells[5].metadata = {}
    with pytest.raises(ValueError, match="lack the 'solution' tag"):
        student_notebook(chapter)


def test_command_writes_one_notebook_per_chapter(tmp_path: Path) -> None:
    source = tmp_path / "toy.ipynb"
    nbformat.write(_toy_chapter(), source)
    assert main([str(source), "-o", str(tmp_path / "out")]) == 0
    written = nbformat.read(tmp_path / "out" / "toy.exercises.ipynb", as_version=4)
    assert not any(is_solution_cell(c) for c in written.cells)
    with pytest.raises(ValueError, match=r"expected a \.md"):
        write_student_edition(tmp_path / "toy.txt", tmp_path)


def test_exercises_are_renumbered_per_page() -> None:
    from types import SimpleNamespace

    ext = load_extension("moelaws_pages")
    env = SimpleNamespace(toc_fignumbers={
        "a": {"exercise": {"x1": (1,), "x2": (2,)}, "figure": {"f": (1,)}},
        "b": {"exercise": {"y2": (4,), "y1": (3,)}},
        "c": {"exercise": {"z": (2, 1)}},  # numbered toctree: left alone
    })
    assert ext._number_exercises_per_page(None, env) == []
    assert env.toc_fignumbers["a"]["exercise"] == {"x1": (1,), "x2": (2,)}
    assert env.toc_fignumbers["b"]["exercise"] == {"y1": (1,), "y2": (2,)}
    assert env.toc_fignumbers["c"]["exercise"] == {"z": (2, 1)}
    assert env.toc_fignumbers["a"]["figure"] == {"f": (1,)}


def test_code_lines_counts_visible_hidden_and_solution_code() -> None:
    from moelaws.teaching.code_lines import code_lines

    chapter = _toy_chapter()
    chapter.cells.insert(1, nbformat.v4.new_code_cell("import os\n\nimport sys",
                                                      metadata={"tags": ["hide-input"]}))
    assert code_lines(chapter) == {"total": 6, "visible": 2, "hidden": 2, "solutions": 2}
