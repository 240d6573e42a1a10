"""Every chapter is in Jupytext's own MyST form, so that saving it from JupyterLab rewrites
nothing (tests/browser/test_live_lab.py checks the save itself, slowly, in a real client).
A chapter edited by hand can drift from that form (e.g. a figure caption folded differently);
`jupytext --to md:myst notebooks/*.md` restores it without changing any cell."""

from __future__ import annotations

from pathlib import Path

import jupytext
import pytest

ROOT = Path(__file__).resolve().parents[1]
CHAPTERS = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.md"))
CONFIG = jupytext.config.load_jupytext_configuration_file(str(ROOT / "jupytext.toml"))


@pytest.mark.parametrize("path", CHAPTERS, ids=[p.stem for p in CHAPTERS])
def test_chapter_is_in_jupytext_canonical_form(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    notebook = jupytext.reads(text, fmt="md:myst")
    written = jupytext.writes(notebook, fmt="md:myst", config=CONFIG)
    assert written == text, (f"{path.name} is not in Jupytext's MyST form: run "
                             "`jupytext --to md:myst notebooks/*.md`")


def test_the_check_sees_a_refolded_caption() -> None:
    text = CHAPTERS[0].read_text(encoding="utf-8").replace("\n\n# ", "\n\n\n# ", 1)
    notebook = jupytext.reads(text, fmt="md:myst")
    assert jupytext.writes(notebook, fmt="md:myst", config=CONFIG) != text
