"""``glue`` that works inside and outside the book.

The book (MyST-NB) substitutes ``{glue:text}`` roles with values the chapters glue. A chapter
opened elsewhere (a downloaded notebook in Colab, a fresh Jupyter, VS Code) has no MyST-NB and
needs none: its prose already carries the values (:mod:`moelaws.notebook_export`). Chapters
import ``glue`` from here: it is MyST-NB's when MyST-NB is importable, and otherwise only
displays the value when asked to (``display=True``), as MyST-NB would.
"""

from __future__ import annotations

from typing import Any

__all__ = ["glue"]


def glue(name: str, variable: Any, display: bool = True) -> None:
    """Glue ``variable`` under ``name`` for the book (``myst_nb.glue``); elsewhere a no-op.

    Parameters
    ----------
    name
        The key the chapter's ``{glue:text}`` roles use.
    variable
        The value; MyST-NB keeps its display bundle.
    display
        Whether the cell also shows the value (MyST-NB's meaning).
    """
    # A NumPy scalar's text form is "np.float64(0.76)" (NumPy 2), which a formatted
    # {glue:text} role cannot read: glue the Python number it holds.
    if type(variable).__module__ == "numpy" and hasattr(variable, "item") and not getattr(
            variable, "shape", ()):
        variable = variable.item()
    try:
        from myst_nb import glue as myst_glue
    except ImportError:
        if display:
            from IPython.display import display as show

            show(variable)
        return
    myst_glue(name, variable, display=display)
