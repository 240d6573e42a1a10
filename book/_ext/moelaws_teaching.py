"""Sphinx extension for teaching: exercises numbered per chapter, and the student edition.

* sphinx-exercise numbers exercises through Sphinx's figure numbering, which, in a toctree
  without section numbers, counts through the whole book (chapter 1's first exercise would be
  "Exercise 6"). After Sphinx assigns the numbers, each chapter's exercises are renumbered
  1, 2, ... in order, so "Exercise 3" is the third exercise of the page it is on (titles and
  "Solution to Exercise 3" follow, since both read the same table).
* At the end of an HTML build, each chapter's executed notebook (``_sources/<doc>.ipynb``,
  written by MyST-NB) gets a sibling ``_sources/<doc>.exercises.ipynb`` made by
  :func:`moelaws.teaching.student.student_notebook`: every ``solution``-tagged cell removed and
  an empty "Your answer to Exercise ..." cell after each exercise; the outputs of the other
  cells stay. The download menu of every notebook page with exercises gains a "Download
  exercises (.ipynb)" entry beside the theme's ``.ipynb`` and ``.md`` entries. This runs before
  ``moelaws_launch``'s build-finished hook, which then gives the student notebook the same
  setup cell for Colab.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

LABEL = "download-exercises-button"
TEXT = "Download exercises (.ipynb)"


def exercises_file(docname: str) -> str:
    """The student notebook of ``docname``, relative to ``_sources``."""
    from moelaws.teaching.student import SUFFIX

    return f"{docname}{SUFFIX}"


def _has_exercises(doctree: Any) -> bool:
    from sphinx_exercise.nodes import exercise_enumerable_node, exercise_node

    kinds = (exercise_node, exercise_enumerable_node)
    if doctree is None:
        return False
    return next(doctree.findall(lambda n: isinstance(n, kinds)), None) is not None


def _add_download(app: Any, pagename: str, templatename: str, context: dict, doctree: Any):
    if not context.get("ipynb_source") or not _has_exercises(doctree):
        return
    url = f"{context['pathto']('_sources', 1)}/{exercises_file(pagename)}"
    for button in context.get("header_buttons", []) or []:
        if button.get("label") == "download-buttons":
            entries = button.setdefault("buttons", [])
            labels = [b.get("label") for b in entries]
            notebook = "download-notebook-button"
            at = labels.index(notebook) + 1 if notebook in labels else 0
            entries.insert(at, {
                "type": "link",
                "url": url,
                "text": TEXT,
                "icon": "fas fa-pencil-alt",
                "tooltip": "Download the exercises without solutions (student notebook)",
                "label": LABEL,
            })


def _write_student_editions(app: Any, exception: Exception | None) -> None:
    if exception is not None or app.builder.format != "html":
        return
    import nbformat

    from moelaws.teaching import find_exercises
    from moelaws.teaching.student import SUFFIX, student_notebook

    sources = Path(app.outdir, "_sources")
    for path in sorted(sources.rglob("*.ipynb")):
        if path.name.endswith(SUFFIX):
            continue
        notebook = nbformat.read(path, as_version=4)
        if not find_exercises(notebook):
            continue  # a page without exercises offers no student edition
        target = path.with_name(path.stem + SUFFIX)
        nbformat.write(student_notebook(notebook), target)


def _number_exercises_per_page(app: Any, env: Any) -> list[str]:
    for figures in env.toc_fignumbers.values():
        numbers = figures.get("exercise")
        if not numbers or any(len(n) != 1 for n in numbers.values()):
            continue  # a numbered toctree gives "chapter.n" numbers: per chapter already
        for position, figure_id in enumerate(sorted(numbers, key=numbers.get), start=1):
            numbers[figure_id] = (position,)
    return []


def setup(app: Any) -> dict[str, Any]:
    # After Sphinx's toctree collector has assigned the figure numbers (priority 500).
    app.connect("env-get-updated", _number_exercises_per_page, priority=900)
    # After sphinx-book-theme's add_header_buttons has made the download menu.
    app.connect("html-page-context", _add_download, priority=600)
    # Before moelaws_launch adds the Colab setup cell to every notebook under _sources.
    app.connect("build-finished", _write_student_editions, priority=400)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
