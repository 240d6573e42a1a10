"""Sphinx extension: a chapter's fact card is not numbered as one of the paper's tables.

Each chapter opens with a fact card, written as a titled ``list-table`` ("Fact card: <paper>").
With numbered figures and tables, Sphinx would call it "Table 1" next to the paper's own
Table 1, 2, ... that the chapter discusses. Its title becomes a heading above an unnumbered
table instead (Sphinx numbers only tables with a caption).
"""

from __future__ import annotations

from typing import Any

from docutils import nodes

PREFIX = "Fact card"
CLASS = "moelaws-fact-card"


def is_fact_card(node: nodes.Node) -> bool:
    """Whether ``node`` is a table whose title starts with "Fact card"."""
    if not isinstance(node, nodes.table):
        return False
    titles = [child for child in node.children if isinstance(child, nodes.title)]
    return bool(titles) and titles[0].astext().startswith(PREFIX)


def _unnumber_fact_cards(app: Any, doctree: nodes.document) -> None:
    for table in list(doctree.findall(is_fact_card)):
        title = next(child for child in table.children if isinstance(child, nodes.title))
        table.remove(title)
        heading = nodes.rubric("", "", *title.children, classes=[f"{CLASS}-title"])
        table["classes"].append(CLASS)
        table.parent.insert(table.parent.index(table), heading)


def setup(app: Any) -> dict[str, Any]:
    app.connect("doctree-read", _unnumber_fact_cards)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
