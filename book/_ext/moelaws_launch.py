"""Sphinx extension: launch buttons that open a runnable notebook.

Jupyter Book v1 points every launch button at the chapter's source file. Binder can open our
MyST Markdown sources (the environment it builds from ``binder/`` includes jupytext), but Colab
only opens ``.ipynb`` files from GitHub. So:

* the Colab button is pointed at the chapter's executed notebook (the ``.ipynb`` offered under
  "download") as published on the GitHub Pages branch (``moelaws_pages_branch``, default
  ``gh-pages``; README's "Publishing" section says how the built book gets there);
* every downloadable notebook (``_sources/**/*.ipynb``) gets a first cell that installs the
  ``moelaws`` package from the repository when the running kernel lacks it (Colab, a fresh
  Jupyter), and does nothing in the book's own environment.

The repository's URL and branch come from ``_config.yml``'s ``repository:`` section, the one
place they are written.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any
from urllib.parse import urlparse

SETUP_TAG = "moelaws-setup"

_SETUP_SOURCE = '''\
# Outside the book's environment (Colab, a fresh kernel) moelaws is not installed yet: install
# it from the repository. In the book's environment this cell does nothing.
import importlib.util
import subprocess
import sys

if importlib.util.find_spec("moelaws") is None:
    package = "moelaws @ {requirement}"
    subprocess.check_call([sys.executable, "-m", "pip", "install", "--quiet", package])'''


def repository(app: Any) -> tuple[str, str, str]:
    """``(org, repo, branch)`` of the GitHub repository named in ``_config.yml``."""
    options = app.config.html_theme_options
    parts = urlparse(options.get("repository_url", "")).path.strip("/").split("/")
    if len(parts) < 2:
        raise ValueError("_config.yml: repository.url must be https://github.com/ORG/REPO")
    return parts[0], parts[1], options.get("repository_branch") or "main"


def setup_cell(app: Any) -> dict[str, Any]:
    """The code cell that installs ``moelaws`` from the repository when it is missing."""
    org, repo, branch = repository(app)
    requirement = f"git+https://github.com/{org}/{repo}@{branch}"
    return {
        "cell_type": "code",
        "execution_count": None,
        "id": SETUP_TAG,
        "metadata": {"tags": [SETUP_TAG]},
        "outputs": [],
        "source": _SETUP_SOURCE.format(requirement=requirement),
    }


def colab_url(app: Any, docname: str) -> str:
    """Colab's address of ``docname``'s executed notebook on the GitHub Pages branch."""
    org, repo, _ = repository(app)
    base = app.config.html_theme_options.get("launch_buttons", {}).get("colab_url", "")
    branch = app.config.moelaws_pages_branch
    return f"{base.rstrip('/')}/github/{org}/{repo}/blob/{branch}/_sources/{docname}.ipynb"


def _retarget_colab(app: Any, pagename: str, templatename: str, context: dict, doctree: Any):
    base = app.config.html_theme_options.get("launch_buttons", {}).get("colab_url", "")
    if not base:
        return

    def visit(buttons: list[dict[str, Any]]) -> None:
        for button in buttons:
            if str(button.get("url", "")).startswith(base.rstrip("/") + "/github/"):
                button["url"] = colab_url(app, pagename)
            visit(button.get("buttons", []) or [])

    visit(context.get("header_buttons", []) or [])


def _add_setup_cells(app: Any, exception: Exception | None) -> None:
    if exception is not None or app.builder.format != "html":
        return
    import nbformat

    for path in sorted(Path(app.outdir, "_sources").rglob("*.ipynb")):
        notebook = nbformat.read(path, as_version=4)
        if notebook.cells and SETUP_TAG in notebook.cells[0].get("metadata", {}).get("tags", []):
            continue
        notebook.cells.insert(0, nbformat.from_dict(setup_cell(app)))
        nbformat.write(notebook, path)


def setup(app: Any) -> dict[str, Any]:
    app.add_config_value("moelaws_pages_branch", "gh-pages", "html")
    # After sphinx-book-theme's add_launch_buttons (priority 501) has built the buttons.
    app.connect("html-page-context", _retarget_colab, priority=600)
    app.connect("build-finished", _add_setup_cells)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
