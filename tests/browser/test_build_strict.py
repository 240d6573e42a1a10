"""The book build fails on a broken cross-reference and on an unknown citation key.

A two-page book is built in a temporary folder with the project's own ``_config.yml`` (the
chapters' execution switched off), its Sphinx extension, its bibliography and the flags the
Makefile gives ``jupyter-book build`` (``MOELAWS_JB_FLAGS``). A clean page builds; the same
page with a {doc} reference to a missing page and a {cite} of a key that is not in
``book/references.bib`` fails the build, each a warning of its own (one build: under
``--warningiserror`` every warning fails the build, so each of the two would fail it alone).
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import yaml
from book_browser import ROOT

FLAGS = shlex.split(os.environ.get("MOELAWS_JB_FLAGS", "--warningiserror --nitpick --keep-going"))
KNOWN_KEY = re.search(r"@\w+\{([^,\s]+),", (ROOT / "book/references.bib").read_text()).group(1)


def _build(tmp_path: Path, intro: str) -> subprocess.CompletedProcess[str]:
    config = yaml.safe_load((ROOT / "_config.yml").read_text())
    config["execute"]["execute_notebooks"] = "off"
    (tmp_path / "_config.yml").write_text(yaml.safe_dump(config))
    (tmp_path / "_toc.yml").write_text(
        "format: jb-book\nroot: intro\nchapters:\n  - file: page\n"
    )
    (tmp_path / "book").mkdir()
    shutil.copy(ROOT / "book/references.bib", tmp_path / "book/references.bib")
    shutil.copytree(ROOT / "book/_ext", tmp_path / "book/_ext",
                    ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(ROOT / "book/_static", tmp_path / "book/_static",
                    ignore=shutil.ignore_patterns("vendor"))
    (tmp_path / "intro.md").write_text(f"# Introduction\n\n{intro}\n")
    (tmp_path / "page.md").write_text("# References\n\n```{bibliography}\n```\n")
    jupyter_book = Path(sys.executable).with_name("jupyter-book")
    return subprocess.run(
        [str(jupyter_book), "build", ".", "--path-output", ".", *FLAGS],
        cwd=tmp_path, capture_output=True, text=True, timeout=300, check=False,
    )


def test_a_clean_book_builds(tmp_path: Path) -> None:
    result = _build(tmp_path, f"See {{doc}}`page` and {{cite:t}}`{KNOWN_KEY}`.")
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    assert (tmp_path / "_build/html/page.html").is_file()


BROKEN = {
    "See {doc}`no_such_page`.": "unknown document",
    "As shown by {cite:t}`nobody2099nothing`.": "could not find bibtex key",
}
"""A broken reference and the warning it must raise."""


def test_each_broken_reference_fails_the_build(tmp_path: Path) -> None:
    result = _build(tmp_path, "\n\n".join(BROKEN))
    output = result.stdout + result.stderr
    assert result.returncode != 0, output[-3000:]
    warnings = [line for line in output.splitlines() if "WARNING:" in line]
    for message in BROKEN.values():
        assert sum(message in line for line in warnings) == 1, (message, output[-3000:])
    # Nothing else warned: the build failed on these two warnings.
    assert f"build finished with problems, {len(BROKEN)} warnings" in output, output[-3000:]
