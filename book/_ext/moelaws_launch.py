"""Sphinx extension: launch buttons that open a runnable notebook.

Jupyter Book v1 points every launch button at the chapter's source file. Binder can open our
MyST Markdown sources (the environment it builds from ``binder/`` includes jupytext), but Colab
only opens ``.ipynb`` files from GitHub. So:

* the Colab button is pointed at the chapter's executed notebook (the ``.ipynb`` offered under
  "download") as published on the GitHub Pages branch (``moelaws_pages_branch``, default
  ``gh-pages``; README's "Publishing" section says how the built book gets there);
* every downloadable notebook (``_sources/**/*.ipynb``: the chapters and their student editions)
  is rewritten by :func:`moelaws.notebook_export.export_notebook`, the one converter of the
  package: plain Markdown that JupyterLab, Notebook 7, VS Code and Colab render (glue values
  in the prose, no MyST roles or directives) and a first cell that installs
  ``moelaws[notebook]`` from the repository at the commit the book was built from when the
  running kernel lacks it (Colab, a fresh Jupyter), and does nothing where it is installed.

The repository's URL and branch come from ``_config.yml``'s ``repository:`` section, the one
place they are written.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any
from urllib.parse import urlparse

from moelaws.notebook_export import SETUP_TAG

__all__ = ["SETUP_TAG", "colab_url", "repository", "setup_cell"]


def repository(app: Any) -> tuple[str, str, str]:
    """``(org, repo, branch)`` of the GitHub repository named in ``_config.yml``."""
    options = app.config.html_theme_options
    parts = urlparse(options.get("repository_url", "")).path.strip("/").split("/")
    if len(parts) < 2:
        raise ValueError("_config.yml: repository.url must be https://github.com/ORG/REPO")
    return parts[0], parts[1], options.get("repository_branch") or "main"


def setup_cell(app: Any) -> dict[str, Any]:
    """The code cell that installs ``moelaws[notebook]`` when it is missing.

    It installs from the repository at the commit the book is built from (``git rev-parse
    HEAD``), or at ``_config.yml``'s branch outside a git checkout.
    """
    from moelaws import notebook_export

    org, repo, branch = repository(app)
    revision = notebook_export.build_revision(app.srcdir, branch)
    url = f"https://github.com/{org}/{repo}"
    return notebook_export.setup_cell(notebook_export.install_requirement(url, revision))


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


def _export_downloads(app: Any, exception: Exception | None) -> None:
    """Every ``_sources/**/*.ipynb`` becomes its exported form (glue from MyST-NB's output)."""
    if exception is not None or app.builder.format != "html":
        return
    import nbformat

    from moelaws.notebook_export import GlueStore, bib_labels, export_notebook
    from moelaws.teaching.student import SUFFIX

    sources = Path(app.outdir, "_sources")
    executed = Path(app.env.mystnb_config.output_folder)
    cell = setup_cell(app)
    bib: dict[str, tuple[str, str]] = {}
    for bibfile in app.config.bibtex_bibfiles:
        bib.update(bib_labels(Path(app.srcdir, bibfile)))
    titles = {doc.rsplit("/", 1)[-1]: title.astext() for doc, title in app.env.titles.items()}
    for path in sorted(sources.rglob("*.ipynb")):
        relative = path.relative_to(sources)
        name = path.name.removesuffix(SUFFIX).removesuffix(".ipynb")
        glue = GlueStore(executed / relative.parent, name)
        notebook = export_notebook(nbformat.read(path, as_version=4), glue,
                                   setup_cell=cell, bib=bib, titles=titles)
        nbformat.write(notebook, path)


def setup(app: Any) -> dict[str, Any]:
    app.add_config_value("moelaws_pages_branch", "gh-pages", "html")
    # After sphinx-book-theme's add_launch_buttons (priority 501) has built the buttons.
    app.connect("html-page-context", _retarget_colab, priority=600)
    app.connect("build-finished", _export_downloads)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
