"""Interactive tables for the static book: sort, search, filter and page with no network.

:func:`interactive_table` renders a DataFrame as a plain HTML ``<table class="moelaws-dt">``
(readable with scripts off) inside a figure with its caption, source, legend and a "Download
CSV" link. One script served from the book's static files, ``_static/moelaws_tables.js``,
turns every such table into a DataTable with the DataTables bundle that ships with ``itables``
(copied to ``_static/vendor`` by ``make vendor``), so the bundle is loaded once per browser
rather than inlined in every page.

:func:`claims_table` is the reproduced-table view of :func:`moelaws.claims.tables.
reproduced_table`: ours beside the paper's value with the difference and relative difference,
the cells of ours that lie outside the claim's tolerance highlighted, and the CSV download
that ``moelaws reproduce --paper P --table T --format csv`` writes (the build writes the file,
``book/_ext/moelaws_pages.py``).
"""

from __future__ import annotations

import html
import json
import math
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

import pandas as pd

from moelaws import papers
from moelaws.claims import tables as claim_tables
from moelaws.claims.report import format_value
from moelaws.validation import public

__all__ = ["CHAPTER_COLUMNS", "DOWNLOAD_DIR", "LEGEND_OUTSIDE", "OUTSIDE_CLASS",
           "InteractiveTable", "chapter_claims_table", "claims_summary", "claims_table",
           "claims_view", "data_interactive_table", "interactive_table", "outside_tolerance",
           "table_id"]

DOWNLOAD_DIR = "_static/download"
"""Where the build writes the CSV downloads, relative to the built book's root."""

OUTSIDE_CLASS = "moelaws-outside"
"""The class of a highlighted cell: ours outside the claim's tolerance (or its relation)."""

LEGEND_OUTSIDE = (
    "Highlighted: our value differs from the paper's by more than the claim's tolerance "
    "(for an inequality claim: ours does not satisfy it), or the rounding of the printed inputs "
    "leaves it undecidable."
)

_CLAIM_COLUMNS = ("reference", "quantity", "kind", "paper value", "ours", "difference",
                  "relative difference", "tolerance", "status", "as expected", "note")


_COLLAPSE_AT = 60


@dataclass(frozen=True)
class InteractiveTable:
    """A rendered interactive table; Jupyter and MyST-NB display its HTML."""

    html: str
    table_id: str
    csv: str | None = None
    highlighted: tuple[tuple[int, str], ...] = field(default=())

    def _repr_html_(self) -> str:
        return self.html

    def __repr__(self) -> str:
        # The plain-text view (a terminal, the notebook's text/plain output) stays one line.
        rows = self.html.count("<tr>") - 1
        return f"<interactive table {self.table_id}: {rows} rows, CSV {self.csv}>"


def _cell(value: object) -> tuple[str, str | None]:
    """The text shown for a value and, for numbers, the value DataTables sorts by."""
    if isinstance(value, bool):
        return ("yes" if value else "no"), None
    if isinstance(value, int):
        return str(value), str(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            # Empty sorts as missing and keeps the column numeric for DataTables.
            return "", ""
        return f"{value:.6g}", repr(value)
    if value is None or (not isinstance(value, str) and pd.isna(value)):
        return "", None
    return str(value), None


def _strings(label: str, value: object) -> list[str]:
    """A sequence of column names (a list or tuple of strings; one string is refused, since
    it would be read letter by letter)."""
    if isinstance(value, str) or not isinstance(value, Sequence):
        raise TypeError(f"{label} must be a list or tuple of strings, not {value!r:.40}")
    bad = [v for v in value if not isinstance(v, str)]
    if bad:
        raise TypeError(f"{label} must hold strings only, not {bad[0]!r:.40}")
    return list(value)


def _functions(label: str, value: object) -> None:
    bad = [k for k, f in dict(value or {}).items() if not callable(f)]  # type: ignore[call-overload]
    if bad:
        raise TypeError(f"{label} must map column names to functions of the row; {bad[0]!r} "
                        "does not")


def _page_length(value: int) -> None:
    if value < 1:
        raise ValueError("page_length must be at least 1")


def table_id(text: str) -> str:
    """An HTML id for a table, from its CSV name or caption (a non-empty text with at least
    one letter or digit, else ``ValueError``)."""
    if not re.search(r"[a-z0-9]", re.sub(r"\.csv$", "", text.lower())):
        raise ValueError(f"text must contain a letter or a digit to make a table id, not {text!r}")
    stem = re.sub(r"\.csv$", "", text.lower())
    return "moelaws-table-" + re.sub(r"[^a-z0-9]+", "-", stem).strip("-")


def interactive_table(
    df: pd.DataFrame,
    *,
    caption: str,
    source: str,
    csv: str | None = None,
    highlight: Callable[[pd.DataFrame], pd.DataFrame] | None = None,
    legend: str = "",
    filters: Sequence[str] = (),
    display: Mapping[str, Callable[[pd.Series], str]] | None = None,
    sort_by: Mapping[str, Callable[[pd.Series], float]] | None = None,
    collapse: Sequence[str] = (),
    more_csv: Sequence[tuple[str, str]] = (),
    page_length: int = 10,
    name: str | None = None,
) -> InteractiveTable:
    """Render ``df`` as an interactive table of the static book.

    Parameters
    ----------
    df
        The rows to show, in order; the index is not shown.
    caption
        What the table is (one sentence).
    source
        Where its numbers come from in the paper (table, equation, appendix), shown in the
        caption.
    csv
        File name of its CSV download under :data:`DOWNLOAD_DIR` (written by the build), or
        ``None`` for no download link.
    highlight
        A function of ``df`` returning a boolean frame (same index, any subset of the columns)
        that marks the cells to highlight with :data:`OUTSIDE_CLASS`.
    legend
        What a highlighted cell means (shown under the caption when ``highlight`` is given).
    filters
        Columns that get a drop-down filter (one exact value, or all) above the table.
    display
        Per-column formatters of the shown text, functions of the row; the cell still sorts
        by its raw number.
    sort_by
        Per-column sort keys, functions of the row (e.g. a printed value's number).
    collapse
        Columns whose long texts (notes) show their start, the rest on a click; the search
        still reads the whole text.
    more_csv
        Further downloads, (label, file name under :data:`DOWNLOAD_DIR`): e.g. one CSV per
        paper table of a chapter's table of claims.
    page_length
        Rows per page.
    name
        Seeds the HTML id (defaults to ``csv`` or ``caption``).

    Returns
    -------
    InteractiveTable
        Its ``_repr_html_`` is the figure.

    Raises
    ------
    ValueError
        If a filter or highlight names a column ``df`` lacks, or ``page_length`` < 1.
    TypeError
        If an argument is not of its annotated kind (``filters`` and ``collapse`` are lists or
        tuples of column names, ``highlight`` a function, ``display`` and ``sort_by`` map column
        names to functions, ``more_csv`` holds (label, file name) pairs).
    """
    filters = _strings("filters", filters)
    collapse = _strings("collapse", collapse)
    _check_options(df, filters, page_length, highlight, display, sort_by, more_csv)
    _check_texts(caption=caption, source=source, csv=csv, name=name)
    marks = _marks(df, highlight)
    tid = table_id(name or csv or caption)
    columns = list(df.columns)
    head = "".join(f"<th>{html.escape(str(c))}</th>" for c in columns)
    body, highlighted = _body(df, _Formats(dict(display or {}), dict(sort_by or {}),
                                           tuple(collapse)), marks)
    config = {"pageLength": page_length, "filters": [columns.index(c) for c in filters]}
    figcaption = _figcaption(caption, source, legend if highlight is not None else "", csv,
                             more_csv)
    figure = (
        f'<figure class="moelaws-dt-figure" id="{tid}-figure">{figcaption}'
        '<div class="moelaws-dt-scroll">'
        f'<table class="moelaws-dt display compact" id="{tid}" '
        f"data-moelaws='{html.escape(json.dumps(config), quote=True)}'>"
        f"<thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"
        "</div></figure>"
    )
    return InteractiveTable(figure, tid, csv, highlighted)


def _check_options(
    df: pd.DataFrame,
    filters: Sequence[str],
    page_length: int,
    highlight: object,
    display: object,
    sort_by: object,
    more_csv: object,
) -> None:
    """The argument checks of :func:`interactive_table` other than its texts."""
    missing = [c for c in filters if c not in df.columns]
    if missing:
        raise ValueError(f"filter columns not in the table: {missing}")
    _page_length(page_length)
    if highlight is not None and not callable(highlight):
        raise TypeError(f"highlight must be a function of the frame, not {highlight!r:.40}")
    _functions("display", display)
    _functions("sort_by", sort_by)
    if not _is_pairs(more_csv):
        raise TypeError("more_csv must be a list or tuple of (label, file name) pairs of "
                        f"strings, not {more_csv!r:.40}")


def _is_pairs(value: object) -> bool:
    """Whether ``value`` is a list or tuple of (str, str) tuples."""
    return isinstance(value, list | tuple) and all(
        isinstance(pair, tuple) and len(pair) == 2 and all(isinstance(x, str) for x in pair)
        for pair in value)


def _check_texts(**texts: str | None) -> None:
    """``ValueError`` for a given text that is empty or blank (None means not given)."""
    for label, value in texts.items():
        if value is not None and not value.strip():
            raise ValueError(f"{label} must not be empty")


def _marks(df: pd.DataFrame, highlight: Callable[[pd.DataFrame], pd.DataFrame] | None
           ) -> pd.DataFrame:
    """The cells to highlight: ``highlight(df)`` spread over every column (False elsewhere)."""
    marks = pd.DataFrame(False, index=df.index, columns=df.columns)
    if highlight is None:
        return marks
    found = highlight(df)
    unknown = [c for c in found.columns if c not in df.columns]
    if unknown:
        raise ValueError(f"highlighted columns not in the table: {unknown}")
    marks.loc[:, found.columns] = found.fillna(False).astype(bool).to_numpy()
    return marks


@dataclass(frozen=True)
class _Formats:
    """How cells are shown: per-column formatters and sort keys (functions of the row) and the
    columns whose long texts collapse."""

    display: Mapping[str, Callable[[pd.Series], str]]
    sort_by: Mapping[str, Callable[[pd.Series], float]]
    collapse: tuple[str, ...]

    def text_and_order(self, row: pd.Series, col: str) -> tuple[str, str | None]:
        """The shown text of a cell and the value DataTables sorts it by (None: its text)."""
        text, order = _cell(row[col])
        if col in self.display:
            text = self.display[col](row)
        if col in self.sort_by:
            order = _cell(float(self.sort_by[col](row)))[1]
        # A number shown as is sorts by its text; a formatted one by its raw value.
        if order and col not in self.display and col not in self.sort_by:
            order = None
        return text, order

    def content(self, col: str, text: str) -> str:
        """A cell's HTML content: the escaped text, collapsed behind its start if long."""
        if col in self.collapse and len(text) > _COLLAPSE_AT:
            return (f"<details><summary>{html.escape(text[:_COLLAPSE_AT])}…</summary>"
                    f"{html.escape(text[_COLLAPSE_AT:])}</details>")
        return html.escape(text)


def _body(df: pd.DataFrame, formats: _Formats, marks: pd.DataFrame
          ) -> tuple[str, tuple[tuple[int, str], ...]]:
    """The table's body rows, and the (row position, column) of each highlighted cell."""
    rows, highlighted = [], []
    for pos, (idx, row) in enumerate(df.iterrows()):
        cells = []
        for col in df.columns:
            text, order = formats.text_and_order(row, col)
            attrs = f' data-order="{html.escape(order)}"' if order is not None else ""
            if marks.at[idx, col]:
                attrs += f' class="{OUTSIDE_CLASS}"'
                highlighted.append((pos, str(col)))
            cells.append(f"<td{attrs}>{formats.content(col, text)}</td>")
        rows.append("<tr>" + "".join(cells) + "</tr>")
    return "".join(rows), tuple(highlighted)


def _figcaption(caption: str, source: str, legend: str, csv: str | None,
                more_csv: Sequence[tuple[str, str]]) -> str:
    """The caption, source, legend (empty: none) and download links above the table."""
    parts = [
        f'<figcaption><span class="moelaws-dt-caption">{html.escape(caption)}</span> '
        f'<span class="moelaws-dt-source">Source: {html.escape(source)}.</span>'
    ]
    if legend:
        parts.append(
            f'<span class="moelaws-dt-legend"><span class="{OUTSIDE_CLASS} moelaws-swatch">'
            f"</span> {html.escape(legend)}</span>"
        )
    if csv is not None:
        href = f"../{DOWNLOAD_DIR}/{csv}"
        parts.append(
            f'<a class="moelaws-dt-csv" href="{html.escape(href)}" data-csv="{html.escape(csv)}"'
            f' download="{html.escape(csv)}">Download CSV</a>'
        )
    if more_csv:
        links = " · ".join(
            f'<a class="moelaws-dt-csv-more" href="../{DOWNLOAD_DIR}/{html.escape(name)}" '
            f'data-csv="{html.escape(name)}" download="{html.escape(name)}">'
            f"{html.escape(label)}</a>"
            for label, name in more_csv
        )
        parts.append(f'<span class="moelaws-dt-more">CSV of one paper table: {links}</span>')
    parts.append("</figcaption>")
    return "".join(parts)


def _signed(value: object, scale: float = 1.0, suffix: str = "") -> str:
    if not isinstance(value, float) or not math.isfinite(value):
        return ""
    return f"{value * scale:+.3g}{suffix}"


def claims_view(df: pd.DataFrame) -> pd.DataFrame:
    """The shown form of a reproduced table (``reproduced_table``'s frame).

    ``paper value`` gains its relation (``">7"``); the other columns keep their numbers,
    formatted by :func:`claims_table`.
    """
    view = df.copy()
    view["paper value"] = [("" if rel == "=" else rel) + printed
                           for rel, printed in zip(df["relation"], df["paper value"], strict=True)]
    return view


def outside_tolerance(df: pd.DataFrame) -> pd.DataFrame:
    """The cells to highlight in a reproduced table: ``ours`` where the status is not
    ``reproduced`` (our value outside the claim's tolerance, or failing its relation)."""
    return pd.DataFrame({"ours": df["status"] != "reproduced"}, index=df.index)


def claims_table(
    paper: str | None = None,
    table: str | None = None,
    *,
    caption: str | None = None,
    columns: Sequence[str] = _CLAIM_COLUMNS,
    filters: Sequence[str] = ("status",),
    page_length: int = 10,
) -> InteractiveTable:
    """A reproduced table of the claims registry as an interactive table.

    Parameters
    ----------
    paper, table
        As for :func:`moelaws.claims.tables.reproduced_table`: one paper table, every claim of
        a paper (``table=None``) or every claim (both ``None``).
    caption
        Overrides the default caption.
    columns
        Which columns to show (the CSV download always has every column).
    filters
        Columns with a drop-down filter.
    page_length
        Rows per page.

    Returns
    -------
    InteractiveTable
        Highlights ``ours`` where it lies outside the tolerance; its CSV download is the
        output of ``moelaws reproduce [--paper P] [--table T] --format csv``.
    """
    columns = _strings("columns", columns)
    filters = _strings("filters", filters)
    if caption is not None and not caption.strip():
        raise ValueError("caption must not be empty (None gives the default caption)")
    _page_length(page_length)
    df = claim_tables.reproduced_table(paper, table)
    unknown = [c for c in columns if c not in df.columns and c != "printed"]
    if unknown:
        raise ValueError(f"columns not in the reproduced table: {unknown}; choose from "
                         f"{list(df.columns)}")
    view = claims_view(df).assign(printed=df["paper value"])
    if caption is None:
        what = papers.get(paper).title if paper is not None else "every paper"
        caption = (f"{table} of {what}: the paper's values beside ours" if table
                   else f"Every reproduced number of {what}: the paper's values beside ours")
    source = (f"{table} of the paper, transcribed in moelaws.claims" if table else
              "each row's reference (paper table, equation or section), in moelaws.claims")
    display = {
        # Our value as the registry's report prints it: one digit beyond the paper's.
        "ours": lambda r: (format_value(r["ours"], r["printed"])
                           if math.isfinite(r["ours"]) else ""),
        "difference": lambda r: _signed(r["difference"]),
        "relative difference": lambda r: _signed(r["relative difference"], 100.0, " %"),
        "tolerance": lambda r: f"{r['tolerance']:.3g}",
    }
    shown = view[list(columns)]
    return interactive_table(
        shown,
        caption=caption,
        source=source,
        csv=claim_tables.csv_name(paper, table),
        highlight=lambda d: outside_tolerance(view).loc[d.index],
        legend=LEGEND_OUTSIDE,
        filters=[c for c in filters if c in shown.columns],
        display={c: _on_view(view, f) for c, f in display.items() if c in shown.columns},
        sort_by={"paper value": _on_view(view, lambda r: float(r["printed"]))}
        if "paper value" in shown.columns else None,
        collapse=("note",),
        more_csv=[(t, claim_tables.csv_name(paper, t)) for t in
                  claim_tables.list_tables(paper)["table"]] if paper and not table else (),
        page_length=page_length,
    )


def _on_view(view: pd.DataFrame, fmt: Callable[[pd.Series], str]) -> Callable[[pd.Series], str]:
    """A formatter that reads the full row of ``view`` (the shown row may lack its inputs)."""
    return lambda row: fmt(view.loc[row.name])


def claims_summary(target: InteractiveTable) -> str:
    """Per-paper counts above a claims table, with a one-click filter to each paper's
    discrepancies in ``target`` (a :func:`claims_table` of every paper with ``paper`` and
    ``status`` filters).

    Returns
    -------
    str
        An HTML table: paper, claims, reproduced, discrepancies (a button), undecidable,
        errors, not as expected.
    """
    df = claim_tables.reproduced_table()
    rows = []
    for paper, group in df.groupby("paper", sort=False):
        n_dis = int((group["status"] == "discrepancy").sum())
        spec = json.dumps({"table": target.table_id, "paper": paper, "status": "discrepancy"})
        button = (
            f'<button type="button" class="moelaws-filter-button" '
            f"data-moelaws-filter='{html.escape(spec, quote=True)}'>"
            f"show {n_dis} {'discrepancy' if n_dis == 1 else 'discrepancies'}</button>"
            if n_dis else "0"
        )
        cells = {
            "paper": f"<b>{html.escape(str(paper))}</b>: "
                     f"{html.escape(papers.get(str(paper)).title)}",
            "claims": str(len(group)),
            "reproduced": str(int((group["status"] == "reproduced").sum())),
            "discrepancies": button,
            "undecidable": str(int((group["status"] == "undecidable").sum())),
            "errors": str(int((group["status"] == "error").sum())),
            "not as expected": str(int((group["as expected"] != "yes").sum())),
        }
        rows.append("<tr>" + "".join(f'<td data-label="{k}">{v}</td>' for k, v in cells.items())
                    + "</tr>")
    head = "".join(f"<th>{k}</th>" for k in
                   ("paper", "claims", "reproduced", "discrepancies", "undecidable", "errors",
                    "not as expected"))
    return (f'<table class="moelaws-summary"><thead><tr>{head}</tr></thead>'
            f"<tbody>{''.join(rows)}</tbody></table>")


CHAPTER_COLUMNS: tuple[str, ...] = ("table", *_CLAIM_COLUMNS)
"""The columns of a chapter's table of claims: the paper table first, to filter by it."""


def chapter_claims_table(paper: str) -> InteractiveTable:
    """Every claim of ``paper`` as an interactive table, for the end of its chapter.

    The ``table``, ``kind`` and ``status`` columns get drop-down filters (one paper table,
    one kind of claim, or the discrepancies); the CSV download is
    ``moelaws reproduce --paper P --format csv``.

    Raises
    ------
    ValueError
        If ``paper`` is not a known paper id.
    """
    return claims_table(paper, columns=CHAPTER_COLUMNS, filters=("table", "kind", "status"))


def data_interactive_table(name: str, page_length: int = 10) -> InteractiveTable:
    """An appendix-data table of :mod:`moelaws.data_tables` as an interactive table.

    Its caption and source are the registry's; its CSV download is
    :func:`moelaws.data_tables.data_csv` of the same rows.

    Raises
    ------
    ValueError
        If ``name`` is not a known data table.
    """
    from moelaws import data_tables

    df = data_tables.data_table(name)
    spec = data_tables.data_spec(name)
    return interactive_table(
        df,
        caption=spec.caption,
        source=spec.source,
        csv=data_tables.data_csv_name(name),
        highlight=spec.highlight,
        legend=spec.legend,
        page_length=page_length,
    )


for _name in __all__:
    if callable(globals()[_name]) and not isinstance(globals()[_name], type):
        globals()[_name] = public(globals()[_name])
