"""Sphinx extension: live (ipywidgets) panels are marked kernel-only in the static book.

An ipywidgets panel runs Python when a control moves. The static book has no kernel, so such a
panel would draw controls that move and change nothing. Every widget view in a chapter is
therefore replaced by a short note saying that the panel runs with a live kernel, with links to
the page's own launch buttons (Binder, Colab) and its notebook download; each such panel has a
static twin on the page (an Altair chart with sliders that run in the browser). The widgets'
saved state and the scripts that would draw them (RequireJS and the widget manager, 3.6 MB) are
dropped, so no page loads them. In Jupyter, Binder or Colab the panels work as written.
"""

from __future__ import annotations

import html
from typing import Any

from docutils import nodes

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


def is_widget_view(node: nodes.Node) -> bool:
    """Whether ``node`` is MyST-NB's raw HTML for an ipywidgets view."""
    return (
        isinstance(node, nodes.raw)
        and node.get("format") == "html"
        and node.astext().lstrip().startswith(WIDGET_VIEW)
    )


def _mark_kernel_only(app: Any, doctree: nodes.document) -> None:
    for node in list(doctree.findall(is_widget_view)):
        node.replace_self(nodes.raw("", NOTICE, format="html"))
    metadata = (getattr(app.env, "nb_metadata", None) or {}).get(app.env.docname, {})
    js_files = metadata.get("js_files", {})
    for key in [k for k in js_files if k.startswith("ipywidgets")]:
        del js_files[key]


def launch_links(buttons: list[dict[str, Any]], binder: str, colab: str) -> dict[str, str]:
    """The page's Binder, Colab and notebook-download URLs, read from its header buttons."""
    found: dict[str, str] = {}

    def visit(items: list[dict[str, Any]]) -> None:
        for item in items:
            url = str(item.get("url", ""))
            if binder and url.startswith(binder.rstrip("/")):
                found.setdefault("binder", url)
            elif colab and url.startswith(colab.rstrip("/")):
                found.setdefault("colab", url)
            elif url.endswith(".ipynb"):
                found.setdefault("download", url)
            visit(item.get("buttons", []) or [])

    visit(buttons)
    return found


def _fill_links(app: Any, pagename: str, templatename: str, context: dict, doctree: Any) -> None:
    body = context.get("body", "")
    if KERNEL_ONLY_CLASS not in body:
        return
    options = app.config.html_theme_options.get("launch_buttons", {})
    links = launch_links(
        context.get("header_buttons", []) or [],
        options.get("binderhub_url", ""),
        options.get("colab_url", ""),
    )
    missing = [name for name in _LINKS if name not in links]
    if missing:
        raise RuntimeError(f"{pagename}: a kernel-only panel but no launch link for {missing}")
    for name in _LINKS:
        body = body.replace(
            f'class="moelaws-launch-{name}" href="#"',
            f'class="moelaws-launch-{name}" href="{html.escape(links[name], quote=True)}"',
        )
    context["body"] = body


def setup(app: Any) -> dict[str, Any]:
    app.connect("doctree-read", _mark_kernel_only)
    # After sphinx-book-theme has built the launch buttons and moelaws_launch retargeted Colab.
    app.connect("html-page-context", _fill_links, priority=700)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
