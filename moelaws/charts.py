"""Altair charts that draw in the offline static book and in every live Jupyter front end.

A chart's output is its Vega-Lite specification under one MIME type,
``application/vnd.vegalite.v5+json`` (:data:`LIVE_MIME`), and no ``text/html``:

- JupyterLab 4 and Notebook 7 draw that type with the Vega they bundle (Vega-Lite 5; Altair 6
  writes Vega-Lite 6 specifications, which it draws with a console warning). They cannot draw
  an HTML output that calls ``vegaEmbed`` (they ship none), and they prefer ``text/html`` to
  their own Vega renderer, so a bundle carrying both shows a blank chart.
- The book: :class:`VegaLiteMimeRenderer` (a MyST-NB mime-render plugin) turns the same JSON into
  the HTML of :func:`to_html`, which calls ``vegaEmbed`` from scripts the book serves itself
  (``_static/vendor``, installed from npm at build time) through ``moelawsEmbed``
  (``book/_static/moelaws-charts.js``: a chart wider than its column is laid out again at the
  column's width, side-by-side panels stack on a phone). Its element id is a hash of the
  specification, so a rebuilt page is byte-for-byte the same.
- Colab (online, no Vega-Lite MIME renderer): :func:`enable` switches to Altair's own ``html``
  renderer, which loads Vega from a CDN.
"""

from __future__ import annotations

import hashlib
import json
import sys
from typing import Any

import altair as alt

RENDERER = "moelaws"

_TEMPLATE = """<div id="{div_id}" class="moelaws-vega"></div>
<script type="text/javascript">
(function () {{
  var spec = {spec};
  function show() {{
    if (typeof moelawsEmbed === "function") {{
      moelawsEmbed("{div_id}", spec);
      return;
    }}
    vegaEmbed("#{div_id}", spec, {{"renderer": "svg", "actions": false}}).catch(function (err) {{
      var el = document.getElementById("{div_id}");
      el.innerHTML = "<pre class='moelaws-vega-error'>" + String(err) + "</pre>";
      console.error(err);
    }});
  }}
  if (typeof vegaEmbed === "function") {{
    show();
  }} else {{
    window.addEventListener("load", show);
  }}
}})();
</script>"""


SPEC_KEYS = frozenset({"$schema", "mark", "layer", "hconcat", "vconcat", "concat", "facet",
                       "repeat", "spec", "params", "encoding", "data"})
"""Top-level keys of which a Vega-Lite specification has at least one."""


def check_vega_spec(spec: Any) -> None:
    """``TypeError`` unless ``spec`` is a dict (``chart.to_dict()``), ``ValueError`` unless it
    has at least one of the Vega-Lite top-level keys :data:`SPEC_KEYS`."""
    if not isinstance(spec, dict):
        raise TypeError(f"spec must be a Vega-Lite specification (a dict, e.g. "
                        f"chart.to_dict()), not {type(spec).__name__}")
    if not SPEC_KEYS & set(spec):
        raise ValueError(f"spec is not a Vega-Lite specification: it has none of the keys "
                         f"{sorted(SPEC_KEYS)} (got {sorted(map(str, spec))[:5]})")


def chart_id(spec: dict[str, Any]) -> str:
    """A deterministic element id for a chart: a hash of its specification (checked with
    :func:`check_vega_spec`)."""
    check_vega_spec(spec)
    digest = hashlib.sha256(json.dumps(spec, sort_keys=True).encode()).hexdigest()
    return f"vega-{digest[:12]}"


def to_html(spec: dict[str, Any]) -> str:
    """The HTML fragment that embeds ``spec`` with the page's own vegaEmbed (checked with
    :func:`check_vega_spec`)."""
    return _TEMPLATE.format(div_id=chart_id(spec), spec=json.dumps(spec, sort_keys=True))


LIVE_MIME = "application/vnd.vegalite.v5+json"
"""The one MIME type a chart's output carries (see the module docstring)."""

_PLAIN = "<Altair chart: open the book page or a Jupyter front end to see it>"


def _render(spec: dict[str, Any], **_: Any) -> tuple[dict[str, Any], dict[str, Any]]:
    return (
        {LIVE_MIME: spec, "text/plain": _PLAIN},
        {LIVE_MIME: {"embed_options": {"renderer": "svg", "actions": False}}},
    )


def in_colab() -> bool:
    """Whether this kernel runs in Google Colab (which draws Altair's CDN-loading HTML)."""
    return "google.colab" in sys.modules


def enable(max_rows: int | None = 20_000) -> None:
    """Register and enable the book's renderer; call once at the top of a chapter.

    In Colab, Altair's own ``html`` renderer is enabled instead (Colab draws it, online).

    Parameters
    ----------
    max_rows
        Altair's data-row limit (raised from 5000 so chapter charts with dense grids work;
        ``None`` disables the check).
    """
    if in_colab():
        alt.renderers.enable("html")
    else:
        if RENDERER not in alt.renderers.names():
            alt.renderers.register(RENDERER, _render)
        alt.renderers.enable(RENDERER)
    if max_rows is None:
        alt.data_transformers.disable_max_rows()
    else:
        alt.data_transformers.enable("default", max_rows=max_rows)


class VegaLiteMimeRenderer:
    """MyST-NB mime-render plugin (entry point ``myst_nb.mime_renderers``).

    In the HTML builders a chart's :data:`LIVE_MIME` output is preferred to any other and
    rendered as :func:`to_html` (the book's own offline ``vegaEmbed``). Other Vega-Lite types
    (notebooks executed by an older version of this module) are accepted and rendered as nothing,
    so that MyST-NB does not warn about them (``-W`` would fail the build).
    """

    mime_priority_overrides = (
        *((builder, LIVE_MIME, 25) for builder in ("html", "dirhtml", "singlehtml")),
        *(("*", f"application/vnd.vegalite.v{major}+json", None) for major in (4, 6)),
    )

    @staticmethod
    def handle_mime(renderer: Any, data: Any, inline: bool) -> list[Any] | None:
        if data.mime_type == LIVE_MIME:
            from docutils import nodes

            return [nodes.raw(text=to_html(data.content), format="html",
                              classes=["output", "text_html"])]
        if data.mime_type.startswith("application/vnd.vegalite."):
            return []
        return None
