"""Find the exercises and solutions of a chapter notebook (the book's teaching conventions).

A chapter marks an exercise with sphinx-exercise's gated directives and tags every cell of its
solution ``solution`` (see ``book/course.md`` and the README's "Teaching" section)::

    ```{exercise-start} Title
    :label: ex-01-topk
    :class: kind-compute
    ```
    **Compute.** ...
    ```{exercise-end}
    ```

    +++ {"tags": ["solution"]}

    ```{solution-start} ex-01-topk
    :class: dropdown
    ```
    ...
    ```{solution-end}
    ```

This module reads those markers from a notebook (``nbformat`` node, e.g. from
``jupytext.read``); :mod:`moelaws.teaching.student` uses it to make the student edition.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

__all__ = ["KINDS", "SOLUTION_TAG", "Exercise", "find_exercises", "is_solution_cell"]

SOLUTION_TAG = "solution"
"""The cell tag that marks every cell of a solution (markdown and code)."""

KINDS = ("derive", "compute", "explore", "critique", "experiment")
"""The exercise kinds; an exercise carries exactly one ``kind-<kind>`` class."""

_DIRECTIVE = re.compile(r"^(`{3,}|:{3,})\{(?P<name>[a-z-]+)\}[ \t]*(?P<arg>[^\n]*)$", re.M)
_OPTION = re.compile(r"^:(?P<key>[a-z_-]+):[ \t]*(?P<value>[^\n]*)$")


@dataclass
class Exercise:
    """One gated exercise of a notebook and what is known about its solution."""

    label: str
    title: str
    classes: list[str]
    cell: int
    """Index of the cell holding ``{exercise-start}``."""
    end_cell: int
    """Index of the cell holding ``{exercise-end}``."""
    solution_cells: list[int] = field(default_factory=list)
    """Cells from ``{solution-start} label`` to ``{solution-end}``, inclusive."""

    @property
    def kinds(self) -> list[str]:
        """The ``kind-*`` classes without their prefix."""
        return [c.removeprefix("kind-") for c in self.classes if c.startswith("kind-")]


def is_solution_cell(cell: Any) -> bool:
    """Whether a notebook cell carries the ``solution`` tag."""
    return SOLUTION_TAG in (cell.get("metadata", {}).get("tags") or [])


def _directives(source: str) -> list[tuple[str, str, dict[str, str]]]:
    """``(name, argument, options)`` of every directive opened in a markdown source."""
    lines = source.splitlines()
    found = []
    for i, line in enumerate(lines):
        match = _DIRECTIVE.match(line)
        if not match:
            continue
        options = {}
        for option_line in lines[i + 1 :]:
            option = _OPTION.match(option_line)
            if not option:
                break
            options[option["key"]] = option["value"].strip()
        found.append((match["name"], match["arg"].strip(), options))
    return found


def find_exercises(notebook: Any) -> list[Exercise]:
    """The gated exercises of ``notebook`` in order, each with the cells of its solution.

    Raises
    ------
    ValueError
        If the markers are malformed: an exercise without a label or an ``{exercise-end}``,
        a solution naming no exercise or an unknown one, or a solution without an end.
    """
    exercises: list[Exercise] = []
    by_label: dict[str, Exercise] = {}
    open_exercise: Exercise | None = None
    open_solution: Exercise | None = None
    for index, cell in enumerate(notebook.cells):
        if open_solution is not None:
            open_solution.solution_cells.append(index)
        if cell.get("cell_type") != "markdown":
            continue
        for name, arg, options in _directives(cell.source):
            if name == "exercise-start":
                if open_exercise is not None:
                    raise ValueError(f"exercise {open_exercise.label!r} has no exercise-end")
                label = options.get("label", "")
                if not label:
                    raise ValueError(f"cell {index}: exercise {arg!r} has no :label:")
                open_exercise = Exercise(
                    label=label, title=arg, classes=options.get("class", "").split(),
                    cell=index, end_cell=index,
                )
                exercises.append(open_exercise)
                by_label[label] = open_exercise
            elif name == "exercise-end":
                if open_exercise is None:
                    raise ValueError(f"cell {index}: exercise-end without exercise-start")
                open_exercise.end_cell = index
                open_exercise = None
            elif name == "solution-start":
                if arg not in by_label:
                    raise ValueError(f"cell {index}: solution for unknown exercise {arg!r}")
                open_solution = by_label[arg]
                if index not in open_solution.solution_cells:
                    open_solution.solution_cells.append(index)
            elif name == "solution-end":
                if open_solution is None:
                    raise ValueError(f"cell {index}: solution-end without solution-start")
                open_solution = None
    if open_exercise is not None:
        raise ValueError(f"exercise {open_exercise.label!r} has no exercise-end")
    if open_solution is not None:
        raise ValueError(f"the solution of {open_solution.label!r} has no solution-end")
    return exercises
