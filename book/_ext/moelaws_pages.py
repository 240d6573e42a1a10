"""Sphinx extension: what a chapter's static page shows and links to.

* Fact cards (:func:`_unnumber_fact_cards`): each chapter opens with a fact card, a titled
  ``list-table`` ("Fact card: <paper>"). Sphinx numbers every captioned table (Jupyter Book and
  sphinx-exercise turn ``numfig`` on), so it would be "Table 1" beside the paper's own Table 1;
  its title becomes a heading (``rubric``) above an unnumbered table instead.
* Kernel-only panels (:func:`_mark_kernel_only`): an ipywidgets panel runs Python when a
  control moves, which the static book cannot do. Each widget view becomes a note saying the
  panel runs with a live kernel, linking to the page's Binder, Colab and notebook download; its
  saved state is dropped (``nb_ipywidgets_js: {}`` in ``_config.yml`` already keeps RequireJS
  and the widget manager off the pages). Each panel has a static twin on its page (an Altair
  chart whose sliders run in the browser).
* Exercises numbered per page (:func:`_number_exercises_per_page`): sphinx-exercise numbers
  exercises through Sphinx's figure numbering, which without section numbers counts through the
  whole book; each page's exercises are renumbered 1, 2, ... ("Solution to Exercise 3"
  follows, as it reads the same table).
* Header buttons (:func:`_header_buttons`), after sphinx-book-theme has made them: the Colab
  button opens the chapter's executed notebook on the GitHub Pages branch
  (``moelaws_pages_branch``; Colab only opens ``.ipynb`` files, the theme points it at the
  ``.md`` source); the download menu of a page with exercises gains "Download exercises
  (.ipynb)"; the kernel-only notes get the page's launch and download links.
* Downloads (:func:`_write_downloads`), at the end of an HTML build: each chapter's executed
  notebook under ``_sources`` (``_sources/<doc>.ipynb``, copied there by sphinx-book-theme for
  the pages written in this build) is read once; from it, before its export (which turns the
  exercise markers into plain headings), :func:`moelaws.teaching.student.student_notebook`
  makes the student edition ``<doc>.exercises.ipynb`` (solutions removed, an answer cell after
  each exercise); both are written once, as :func:`moelaws.notebook_export.export_notebook`
  makes them: plain Markdown that JupyterLab, Notebook 7, VS Code and Colab render (glue values
  in the prose) and a first cell that installs ``moelaws[notebook]`` from the repository at the
  commit the book was built from when the kernel lacks it. A page not written again by an
  incremental build keeps its earlier export, which has no exercise markers left: its student
  edition from that build is exported again, so both name this build's commit. Then the CSV of
  every interactive table (:func:`write_downloads`), from the package, not from the execution
  cache, when a built page links one.
* No thebe (:func:`_drop_thebe`): Jupyter Book v1 always loads sphinx-thebe, which adds a script
  naming a CDN URL to every page even with ``launch_buttons.thebe: false``; it is dropped.

The repository's URL and branch come from ``_config.yml``'s ``repository:`` section.
"""

from __future__ import annotations

import html
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

from docutils import nodes

FACT_CARD = "Fact card"
FACT_CARD_CLASS = "moelaws-fact-card"
WIDGET_VIEW = '<script type="application/vnd.jupyter.widget-view+json">'
KERNEL_ONLY_CLASS = "moelaws-kernel-only"
_LINKS = ("binder", "colab", "download")
NOTICE = (
    f'<div class="{KERNEL_ONLY_CLASS} admonition note" role="note">'
    '<p class="admonition-title">Live panel: runs with a Python kernel</p>'
    "<p>The controls of this panel run Python code, which this static page cannot do; the "
    "charts with sliders on this page run in your browser. To use the panel, "
    '<a class="moelaws-launch-binder" href="#">launch Binder</a>, '
    '<a class="moelaws-launch-colab" href="#">open it in Colab</a> or '
    '<a class="moelaws-launch-download" href="#">download the notebook</a>.</p></div>'
)
EXERCISES_ENTRY = {
    "type": "link",
    "text": "Download exercises (.ipynb)",
    "icon": "fas fa-pencil-alt",
    "tooltip": "Download the exercises without solutions (student notebook)",
    "label": "download-exercises-button",
}


def is_fact_card(node: nodes.Node) -> bool:
    """Whether ``node`` is a table whose title starts with "Fact card"."""
    if not isinstance(node, nodes.table):
        return False
    titles = [child for child in node.children if isinstance(child, nodes.title)]
    return bool(titles) and titles[0].astext().startswith(FACT_CARD)


def is_widget_view(node: nodes.Node) -> bool:
    """Whether ``node`` is MyST-NB's raw HTML for an ipywidgets view."""
    return (
        isinstance(node, nodes.raw)
        and node.get("format") == "html"
        and node.astext().lstrip().startswith(WIDGET_VIEW)
    )


def repository(app: Any) -> tuple[str, str, str]:
    """``(org, repo, branch)`` of the GitHub repository named in ``_config.yml``."""
    options = app.config.html_theme_options
    parts = urlparse(options.get("repository_url", "")).path.strip("/").split("/")
    if len(parts) < 2:
        raise ValueError("_config.yml: repository.url must be https://github.com/ORG/REPO")
    return parts[0], parts[1], options.get("repository_branch") or "main"


def colab_url(app: Any, docname: str) -> str:
    """Colab's address of ``docname``'s executed notebook on the GitHub Pages branch."""
    org, repo, _ = repository(app)
    base = app.config.html_theme_options.get("launch_buttons", {}).get("colab_url", "")
    branch = app.config.moelaws_pages_branch
    return f"{base.rstrip('/')}/github/{org}/{repo}/blob/{branch}/_sources/{docname}.ipynb"


def _walk(buttons: list[dict[str, Any]]):
    for button in buttons:
        yield button
        yield from _walk(button.get("buttons", []) or [])


def launch_links(buttons: list[dict[str, Any]], binder: str, colab: str) -> dict[str, str]:
    """The page's Binder, Colab and notebook-download URLs, read from its header buttons."""
    found: dict[str, str] = {}
    for button in _walk(buttons):
        url = str(button.get("url", ""))
        if binder and url.startswith(binder.rstrip("/")):
            found.setdefault("binder", url)
        elif colab and url.startswith(colab.rstrip("/")):
            found.setdefault("colab", url)
        elif url.endswith(".ipynb"):
            found.setdefault("download", url)
    return found


def _unnumber_fact_cards(app: Any, doctree: nodes.document) -> None:
    for table in list(doctree.findall(is_fact_card)):
        title = next(child for child in table.children if isinstance(child, nodes.title))
        table.remove(title)
        heading = nodes.rubric("", "", *title.children, classes=[f"{FACT_CARD_CLASS}-title"])
        table["classes"].append(FACT_CARD_CLASS)
        table.parent.insert(table.parent.index(table), heading)


def _mark_kernel_only(app: Any, doctree: nodes.document) -> None:
    for node in list(doctree.findall(is_widget_view)):
        node.replace_self(nodes.raw("", NOTICE, format="html"))
    metadata = (getattr(app.env, "nb_metadata", None) or {}).get(app.env.docname, {})
    js_files = metadata.get("js_files", {})
    for key in [k for k in js_files if k.startswith("ipywidgets")]:
        del js_files[key]


def _number_exercises_per_page(app: Any, env: Any) -> list[str]:
    for figures in env.toc_fignumbers.values():
        numbers = figures.get("exercise")
        if not numbers or any(len(n) != 1 for n in numbers.values()):
            continue  # a numbered toctree gives "chapter.n" numbers: per chapter already
        for position, figure_id in enumerate(sorted(numbers, key=numbers.get), start=1):
            numbers[figure_id] = (position,)
    return []


def _has_exercises(doctree: Any) -> bool:
    from sphinx_exercise.nodes import exercise_enumerable_node, exercise_node

    kinds = (exercise_node, exercise_enumerable_node)
    return doctree is not None and next(
        doctree.findall(lambda n: isinstance(n, kinds)), None) is not None


def _header_buttons(app: Any, pagename: str, templatename: str, context: dict, doctree: Any):
    from moelaws.teaching.student import SUFFIX

    buttons = context.get("header_buttons", []) or []
    options = app.config.html_theme_options.get("launch_buttons", {})
    colab = options.get("colab_url", "").rstrip("/")
    for button in _walk(buttons):
        if colab and str(button.get("url", "")).startswith(colab + "/github/"):
            button["url"] = colab_url(app, pagename)
    if context.get("ipynb_source") and _has_exercises(doctree):
        url = f"{context['pathto']('_sources', 1)}/{pagename}{SUFFIX}"
        for menu in (b for b in buttons if b.get("label") == "download-buttons"):
            entries = menu.setdefault("buttons", [])
            labels = [b.get("label") for b in entries]
            at = labels.index("download-notebook-button") + 1 if (
                "download-notebook-button" in labels) else 0
            entries.insert(at, {**EXERCISES_ENTRY, "url": url})
    body = context.get("body", "")
    if KERNEL_ONLY_CLASS not in body:
        return
    links = launch_links(buttons, options.get("binderhub_url", ""), colab)
    missing = [name for name in _LINKS if name not in links]
    if missing:
        raise RuntimeError(f"{pagename}: a kernel-only panel but no launch link for {missing}")
    for name in _LINKS:
        body = body.replace(
            f'class="moelaws-launch-{name}" href="#"',
            f'class="moelaws-launch-{name}" href="{html.escape(links[name], quote=True)}"',
        )
    context["body"] = body


def write_downloads(outdir: Path) -> list[Path]:
    """Write every table's CSV into ``outdir/_static/download``; return the files written.

    Every reproduced table (:func:`moelaws.claims.tables.reproduced_table`: each paper table,
    each paper's whole registry and every claim) and every appendix-data table a chapter shows
    (:mod:`moelaws.data_tables`), under the name its "Download CSV" link uses, with the bytes
    of ``moelaws reproduce --paper P --table T --format csv``.
    """
    from moelaws.claims import registered_papers, results
    from moelaws.claims import tables as claim_tables
    from moelaws.data_tables import all_data_tables, data_csv, data_csv_name
    from moelaws.interactive_tables import DOWNLOAD_DIR

    # Every claim evaluated once: each table is a selection of the same results.
    evaluated = results()
    files = {claim_tables.csv_name(): claim_tables.to_csv(
        claim_tables.reproduced_table(evaluated=evaluated))}
    for paper in registered_papers():
        files[claim_tables.csv_name(paper)] = claim_tables.to_csv(
            claim_tables.reproduced_table(paper, evaluated=evaluated))
    for row in claim_tables.list_tables(evaluated=evaluated).itertuples(index=False):
        files[row.csv] = claim_tables.to_csv(
            claim_tables.reproduced_table(row.paper, row.table, evaluated=evaluated))
    for name in all_data_tables():
        files[data_csv_name(name)] = data_csv(name)
    folder = outdir / DOWNLOAD_DIR
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        (folder / name).write_bytes(text.encode("utf-8"))
    return [folder / name for name in files]


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


def _write_downloads(app: Any, exception: Exception | None) -> None:
    if exception is not None or app.builder.format != "html":
        return
    import nbformat

    from moelaws.interactive_tables import DOWNLOAD_DIR
    from moelaws.notebook_export import GlueStore, bib_labels, export_notebook
    from moelaws.teaching import find_exercises
    from moelaws.teaching.student import SUFFIX, student_notebook

    sources = Path(app.outdir, "_sources")
    executed = Path(app.env.mystnb_config.output_folder)
    cell = setup_cell(app)
    bib: dict[str, tuple[str, str]] = {}
    for bibfile in app.config.bibtex_bibfiles:
        bib.update(bib_labels(Path(app.srcdir, bibfile)))
    titles = {doc.rsplit("/", 1)[-1]: title.astext() for doc, title in app.env.titles.items()}
    # Each chapter's notebook is read once; it and its student edition (made from it, not from
    # its export) are each exported and written once: reading and writing an executed notebook
    # costs about 0.13 CPU-seconds each, on the book build's longest path.
    for path in sorted(p for p in sources.rglob("*.ipynb") if not p.name.endswith(SUFFIX)):
        notebook = nbformat.read(path, as_version=4)
        editions = {path: notebook}
        student = path.with_name(path.stem + SUFFIX)
        if find_exercises(notebook):
            editions[student] = student_notebook(notebook)
        elif student.is_file():
            editions[student] = nbformat.read(student, as_version=4)
        glue = GlueStore(executed / path.relative_to(sources).parent, path.stem)
        for target, edition in editions.items():
            nbformat.write(export_notebook(edition, glue, setup_cell=cell, bib=bib,
                                           titles=titles), target)
    # The tables' CSVs: writing them evaluates every paper's claims (about 6 CPU-seconds), wasted
    # on a book whose pages link none (the two-page books of tests/browser/test_build_strict.py).
    outdir = Path(app.outdir)
    if any(f"{DOWNLOAD_DIR}/" in page.read_text(errors="replace")
           for page in outdir.rglob("*.html")):
        write_downloads(outdir)


def _is_thebe(script: Any) -> bool:
    name = str(getattr(script, "filename", "") or "")
    body = str(getattr(script, "attributes", {}).get("body", ""))
    return name.endswith("sphinx-thebe.js") or "THEBE_JS_URL" in body


def _drop_thebe(app: Any, pagename: str, templatename: str, context: dict, doctree: Any) -> None:
    scripts = context.get("script_files")
    if scripts is not None:
        scripts[:] = [s for s in scripts if not _is_thebe(s)]


def setup(app: Any) -> dict[str, Any]:
    app.add_config_value("moelaws_pages_branch", "gh-pages", "html")
    app.connect("doctree-read", _unnumber_fact_cards)
    app.connect("doctree-read", _mark_kernel_only)
    # After Sphinx's toctree collector has assigned the figure numbers (priority 500).
    app.connect("env-get-updated", _number_exercises_per_page, priority=900)
    # After sphinx-book-theme has made the header buttons (priority 501).
    app.connect("html-page-context", _header_buttons, priority=600)
    app.connect("html-page-context", _drop_thebe)
    app.connect("build-finished", _write_downloads)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
