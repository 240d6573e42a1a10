"""The Altair renderer: one Vega-Lite MIME type live, the offline HTML in the book."""

from __future__ import annotations

import json
import sys
import types

import altair as alt
import pandas as pd
import pytest

from moelaws import charts


def _bundle(chart: alt.Chart) -> tuple[dict, dict]:
    out = chart._repr_mimebundle_()
    return out if isinstance(out, tuple) else (out, {})


@pytest.fixture
def chart() -> alt.Chart:
    charts.enable()
    return alt.Chart(pd.DataFrame({"x": [1, 2, 3]})).mark_point().encode(x="x:Q")


def test_output_is_vegalite_v5_json_and_no_html(chart: alt.Chart) -> None:
    """JupyterLab and Notebook 7 draw only vegalite.v3-v5 and prefer text/html to it."""
    data, metadata = _bundle(chart)
    assert set(data) == {charts.LIVE_MIME, "text/plain"}
    assert charts.LIVE_MIME == "application/vnd.vegalite.v5+json"
    assert data[charts.LIVE_MIME]["mark"]["type"] == "point"
    json.dumps(data[charts.LIVE_MIME])
    assert metadata[charts.LIVE_MIME]["embed_options"]["renderer"] == "svg"
    assert _bundle(chart) == (data, metadata), "the output must not change between renders"


def test_colab_gets_altairs_cdn_html(chart: alt.Chart, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "google.colab", types.ModuleType("google.colab"))
    try:
        charts.enable()
        assert alt.renderers.active == "html"
        assert "text/html" in _bundle(chart)[0]
    finally:
        monkeypatch.delitem(sys.modules, "google.colab")
        charts.enable()
    assert alt.renderers.active == charts.RENDERER


def test_book_html_is_offline_and_deterministic() -> None:
    spec = {"mark": "bar", "data": {"values": [{"a": 1}]}}
    html = charts.to_html(spec)
    assert "vegaEmbed(" in html and "moelawsEmbed(" in html
    assert "cdn" not in html.lower() and "https://" not in html
    assert charts.to_html(spec) == html, "the element id must not change between builds"
    start = html.index("var spec = ") + len("var spec = ")
    end = html.index(";\n", start)
    assert json.loads(html[start:end]) == spec


def test_chart_id_depends_on_the_spec() -> None:
    a = charts.chart_id({"mark": "point"})
    assert a == charts.chart_id({"mark": "point"})
    assert a != charts.chart_id({"mark": "line"})
    assert a.startswith("vega-")


def test_mime_plugin_renders_v5_json_as_the_books_html() -> None:
    spec = {"mark": "line", "data": {"values": [{"a": 1}]}}
    plugin = charts.VegaLiteMimeRenderer
    [node] = plugin.handle_mime(None, types.SimpleNamespace(mime_type=charts.LIVE_MIME,
                                                              content=spec), False)
    assert node.astext() == charts.to_html(spec)
    assert "html" in node["format"]
    for old in ("application/vnd.vegalite.v4+json", "application/vnd.vegalite.v6+json"):
        assert plugin.handle_mime(None, types.SimpleNamespace(mime_type=old, content=spec),
                                  False) == []
    assert plugin.handle_mime(None, types.SimpleNamespace(mime_type="text/html", content=""),
                              False) is None
    html_first = {(b, m): p for b, m, p in plugin.mime_priority_overrides}
    for builder in ("html", "dirhtml", "singlehtml"):
        assert html_first[(builder, charts.LIVE_MIME)] < 50, "must beat text/plain and text/html"
