"""Altair charts that work in the offline static book and in a live notebook.

Altair's default HTML output loads Vega from a CDN and writes a random element id, so pages
would need the network and would change at every build. :func:`enable` registers a renderer
(``moelaws``) whose HTML calls ``vegaEmbed`` from scripts the book serves itself
(``_static/vendor``, installed from npm at build time) and whose element id is a hash of the
chart's specification, so a rebuilt page is byte-for-byte the same. In the book the call goes
through ``moelawsEmbed`` (``book/_static/moelaws-charts.js``), which lays a chart wider than
its column out again at the column's width and stacks side-by-side panels on a phone. The MIME
bundle also carries the Vega-Lite JSON, which JupyterLab renders natively in a live session.
"""

from __future__ import annotations

import hashlib
import json
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


def chart_id(spec: dict[str, Any]) -> str:
    """A deterministic element id for a chart: a hash of its specification."""
    digest = hashlib.sha256(json.dumps(spec, sort_keys=True).encode()).hexdigest()
    return f"vega-{digest[:12]}"


def to_html(spec: dict[str, Any]) -> str:
    """The HTML fragment that embeds ``spec`` with the page's own vegaEmbed."""
    return _TEMPLATE.format(div_id=chart_id(spec), spec=json.dumps(spec, sort_keys=True))


def _render(spec: dict[str, Any], **_: Any) -> dict[str, Any]:
    mime = f"application/vnd.vegalite.v{alt.SCHEMA_VERSION.split('.')[0].lstrip('v')}+json"
    return {
        "text/html": to_html(spec),
        mime: spec,
        "text/plain": "<Altair chart: open the book page or a Jupyter front end to see it>",
    }


def enable(max_rows: int | None = 20_000) -> None:
    """Register and enable the book's renderer; call once at the top of a chapter.

    Parameters
    ----------
    max_rows
        Altair's data-row limit (raised from 5000 so chapter charts with dense grids work;
        ``None`` disables the check).
    """
    if RENDERER not in alt.renderers.names():
        alt.renderers.register(RENDERER, _render)
    alt.renderers.enable(RENDERER)
    if max_rows is None:
        alt.data_transformers.disable_max_rows()
    else:
        alt.data_transformers.enable("default", max_rows=max_rows)


class VegaLiteMimeRenderer:
    """MyST-NB mime-render plugin (entry point ``myst_nb.mime_renderers``).

    Chart outputs carry both our ``text/html`` and the Vega-Lite JSON. MyST-NB converts every
    mime type of an output before choosing one, and warns on the Vega-Lite type it does not
    know, which ``-W`` turns into a build error. This plugin accepts that type and renders it
    as nothing; the HTML output is the one the page shows.
    """

    mime_priority_overrides = tuple(
        ("*", f"application/vnd.vegalite.v{major}+json", None) for major in (4, 5, 6)
    )

    @staticmethod
    def handle_mime(renderer: Any, data: Any, inline: bool) -> list[Any] | None:
        if data.mime_type.startswith("application/vnd.vegalite."):
            return []
        return None
