"""Sphinx extension: keep every page of the book working with no network.

* sphinx-thebe (always loaded by Jupyter Book v1, unused here) writes an inline script naming a
  CDN URL on every page, twice; drop it and its loader.
* The ipywidgets HTML manager (served from ``_static/vendor``) locates its font files through
  RequireJS's base URL; point that at the vendored copy.
* The widget manager typesets labels with the MathJax 2 API (``MathJax.Hub.Queue``), which
  MathJax 3 lacks; give it a shim that calls MathJax 3's typesetter.
"""

from __future__ import annotations

from typing import Any

_WIDGET_SETUP = """
require.config({baseUrl: "%s"});
window.addEventListener("DOMContentLoaded", function () {
  if (window.MathJax && !window.MathJax.Hub) {
    window.MathJax.Hub = {Queue: function () {
      if (window.MathJax.typesetPromise) { window.MathJax.typesetPromise(); }
    }};
  }
});
"""


def _is_thebe(script: Any) -> bool:
    name = str(getattr(script, "filename", "") or "")
    body = str(getattr(script, "attributes", {}).get("body", ""))
    return name.endswith("sphinx-thebe.js") or "THEBE_JS_URL" in body


def _page_context(app: Any, pagename: str, templatename: str, context: dict, doctree: Any) -> None:
    scripts = context.get("script_files")
    if scripts is None:
        return
    kept = [s for s in scripts if not _is_thebe(s)]
    names = [str(getattr(s, "filename", "") or "") for s in kept]
    if "_static/vendor/require.min.js" in names:
        from sphinx.builders.html._assets import _JavaScript

        base = context["pathto"]("_static/vendor/", 1)
        at = names.index("_static/vendor/require.min.js")
        # Same priority as RequireJS, inserted right after it: a stable sort keeps it there.
        setup = _JavaScript("", body=_WIDGET_SETUP % base, priority=kept[at].priority)
        kept.insert(at + 1, setup)
    scripts[:] = kept


def setup(app: Any) -> dict[str, Any]:
    app.connect("html-page-context", _page_context)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
