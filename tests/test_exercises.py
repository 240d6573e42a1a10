"""Every chapter ends with at least five labelled exercises, each with a checked solution.

The conventions (README, "Teaching"): a closing ``## Exercises`` section; gated
``{exercise-start}`` with a label ``ex-<NN>-<slug>`` and exactly one ``kind-*`` class, text
opening with the kind in bold; right after it a gated ``{solution-start} <label>`` with
``:class: dropdown`` (collapsed), every cell of which carries the ``solution`` tag and at least
one code cell of which asserts its result. Parametrised per chapter, so a failure names it.
"""

from __future__ import annotations

import re
from pathlib import Path

import jupytext
import pytest

from moelaws.teaching import KINDS, find_exercises
from moelaws.teaching.exercises import is_solution_cell

ROOT = Path(__file__).resolve().parents[1]
CHAPTERS = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.md"))
MIN_EXERCISES = 5


def _read(path: Path):
    return jupytext.read(path)


def test_every_chapter_is_checked() -> None:
    assert [p.name[:2] for p in CHAPTERS] == [f"{i:02d}" for i in range(8)]


@pytest.mark.parametrize("path", CHAPTERS, ids=[p.stem for p in CHAPTERS])
def test_chapter_has_enough_labelled_exercises(path: Path) -> None:
    notebook = _read(path)
    exercises = find_exercises(notebook)
    assert len(exercises) >= MIN_EXERCISES, (
        f"{path.name}: {len(exercises)} exercises, at least {MIN_EXERCISES} required"
    )
    labels = [e.label for e in exercises]
    assert len(set(labels)) == len(labels), f"duplicate labels {labels}"
    kinds = set()
    for exercise in exercises:
        assert re.fullmatch(rf"ex-{path.name[:2]}-[a-z0-9-]+", exercise.label), exercise.label
        assert len(exercise.kinds) == 1, f"{exercise.label}: kinds {exercise.classes}"
        kind = exercise.kinds[0]
        assert kind in KINDS, f"{exercise.label}: unknown kind {kind!r}"
        body = re.search(
            r"\{exercise-start\}[^\n]*\n(?::[^\n]*\n)*(?:`{3,}|:{3,})[ \t]*\n\s*(?P<body>.*)",
            notebook.cells[exercise.cell].source,
            re.S,
        )
        assert body and body["body"].startswith(f"**{kind.capitalize()}.**"), (
            f"{exercise.label}: the text must open with **{kind.capitalize()}.**"
        )
        kinds.add(kind)
    assert len(kinds) >= 3, f"{path.name}: kinds {sorted(kinds)} are not mixed (3 or more)"


@pytest.mark.parametrize("path", CHAPTERS, ids=[p.stem for p in CHAPTERS])
def test_every_exercise_has_a_tagged_collapsed_checked_solution(path: Path) -> None:
    notebook = _read(path)
    exercises = find_exercises(notebook)
    assert exercises, f"{path.name} has no exercises"
    previous_end = -1
    for number, exercise in enumerate(exercises):
        cells = exercise.solution_cells
        assert cells, f"{exercise.label} has no solution"
        assert exercise.cell > previous_end, f"{exercise.label} is out of order"
        assert cells[0] > exercise.end_cell, f"the solution of {exercise.label} precedes it"
        if number + 1 < len(exercises):
            assert cells[-1] < exercises[number + 1].cell, (
                f"the solution of {exercise.label} comes after the next exercise"
            )
        previous_end = cells[-1]
        untagged = [i for i in cells if not is_solution_cell(notebook.cells[i])]
        assert not untagged, f"{exercise.label}: solution cells {untagged} lack the tag"
        options = re.search(
            rf"\{{solution-start\}}[ \t]+{re.escape(exercise.label)}[ \t]*\n((?::[^\n]*\n)*)",
            notebook.cells[cells[0]].source,
        )
        classes = re.search(r"^:class:([^\n]*)$", options[1] if options else "", re.M)
        assert classes and "dropdown" in classes[1].split(), (
            f"{exercise.label}: the solution must be collapsed (:class: dropdown)"
        )
        code = [notebook.cells[i] for i in cells if notebook.cells[i].cell_type == "code"]
        assert any(re.search(r"^\s*assert\b", c.source, re.M) for c in code), (
            f"{exercise.label}: no solution code cell asserts its result"
        )


@pytest.mark.parametrize("path", CHAPTERS, ids=[p.stem for p in CHAPTERS])
def test_exercises_close_the_chapter(path: Path) -> None:
    notebook = _read(path)
    exercises = find_exercises(notebook)
    assert exercises, f"{path.name} has no exercises"
    headings = [
        (i, line)
        for i, cell in enumerate(notebook.cells)
        if cell.cell_type == "markdown"
        for line in cell.source.splitlines()
        if line.startswith("## ")
    ]
    assert headings and headings[-1][1].strip() == "## Exercises", (
        f"{path.name}: the last section must be '## Exercises'"
    )
    assert exercises[0].cell >= headings[-1][0]


def test_parser_rejects_malformed_markers() -> None:
    import nbformat

    def notebook(*sources: str):
        return nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell(s) for s in sources])

    good = "```{exercise-start} T\n:label: ex-00-a\n:class: kind-derive\n```\n**Derive.** x\n"
    end = "```{exercise-end}\n```"
    with pytest.raises(ValueError, match="no :label:"):
        find_exercises(notebook("```{exercise-start} T\n:class: kind-derive\n```\n" + end))
    with pytest.raises(ValueError, match="no exercise-end"):
        find_exercises(notebook(good))
    with pytest.raises(ValueError, match="unknown exercise"):
        find_exercises(notebook(good + end, "```{solution-start} ex-00-b\n```"))
    with pytest.raises(ValueError, match="no solution-end"):
        find_exercises(notebook(good + end, "```{solution-start} ex-00-a\n```"))
    found = find_exercises(
        notebook(good + end, "```{solution-start} ex-00-a\n:class: dropdown\n```", "x",
                 "```{solution-end}\n```")
    )
    assert [(e.label, e.kinds, e.solution_cells) for e in found] == [
        ("ex-00-a", ["derive"], [1, 2, 3])
    ]
