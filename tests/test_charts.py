"""The offline Altair renderer."""

from __future__ import annotations

import json

import altair as alt
import pandas as pd

from moelaws import charts


def test_renderer_emits_deterministic_offline_html() -> None:
    charts.enable()
    chart = alt.Chart(pd.DataFrame({"x": [1, 2, 3]})).mark_point().encode(x="x:Q")
    bundle = chart._repr_mimebundle_()
    bundle = bundle[0] if isinstance(bundle, tuple) else bundle
    html = bundle["text/html"]
    assert "vegaEmbed(" in html
    assert "cdn" not in html.lower() and "https://" not in html.replace(
        "https://vega.github.io/schema", ""
    )
    again = chart._repr_mimebundle_()
    again = again[0] if isinstance(again, tuple) else again
    assert again["text/html"] == html, "the element id must not change between renders"
    vl = [k for k in bundle if k.startswith("application/vnd.vegalite")]
    assert vl and bundle[vl[0]]["mark"]["type"] == "point"


def test_chart_id_depends_on_the_spec() -> None:
    a = charts.chart_id({"mark": "point"})
    assert a == charts.chart_id({"mark": "point"})
    assert a != charts.chart_id({"mark": "line"})
    assert a.startswith("vega-")


def test_html_embeds_the_spec_as_json() -> None:
    spec = {"mark": "bar", "data": {"values": [{"a": 1}]}}
    html = charts.to_html(spec)
    start = html.index("var spec = ") + len("var spec = ")
    end = html.index(";\n", start)
    assert json.loads(html[start:end]) == spec
