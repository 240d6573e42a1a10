"""Command line of the book's package.

Commands::

    python -m moelaws reproduce [--paper ID] [--json]
    python -m moelaws reproduce --paper ID --table T [--format text|csv|markdown|json]
    python -m moelaws tables [--paper ID]
    python -m moelaws data NAME
    python -m moelaws design --compute C [--total-params N] [--active-params Na] [--json]
    python -m moelaws counts PRESET|CONFIG.json [--json]

``reproduce`` evaluates the registered claims; ``design`` prints each paper's recommendation
for a training-compute budget (FLOPs) and optional memory (total non-embedding parameters) and
inference (active non-embedding parameters) budgets, listing papers whose inputs are missing
as not applicable, with the reason; ``counts`` prints a configuration's parameter and FLOP
counts under every paper's convention, and every paper's ratios. Numbers such as ``1e23`` and
``3.5e11`` are accepted. ``--json`` prints JSON instead of a table (NaN as ``null``).

``reproduce --table T`` (one paper table, e.g. ``"Table 4"``) or ``--format`` prints the
reproduced table of :func:`moelaws.claims.tables.reproduced_table` (paper value beside ours,
difference, relative difference, tolerance, status), as text, CSV, Markdown or JSON records;
``tables`` lists each paper's reproduced tables with their references, and the appendix data
tables the chapters show, which ``data NAME`` writes as CSV.

Exit status: 0 on success; for ``reproduce``, 1 when some claim does not have its expected
status (a claim expected to reproduce that does not, an explained discrepancy that now
reproduces, or a computation error); 2 on bad input (unknown command or option, a
non-positive or non-numeric budget, active above total parameters, an unknown preset, a
missing file, malformed JSON, a configuration with unknown or invalid fields). Errors are one
line on stderr, ``moelaws: error: ...``, never a traceback.
"""

from __future__ import annotations

import argparse
import json
import math
import re
import sys
from collections.abc import Sequence
from typing import Any

import pandas as pd

from moelaws import arch, claims
from moelaws.compare import counting, report

_NEGATIVE_NUMBER = re.compile(r"^-(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$")


class _Parser(argparse.ArgumentParser):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # argparse reads "-1e22" as an option (its matcher knows no exponents), which would
        # hide the real problem, a negative budget, behind "expected one argument".
        self._negative_number_matcher = _NEGATIVE_NUMBER

    def error(self, message: str) -> None:  # type: ignore[override]
        self.exit(2, f"moelaws: error: {message}\n")


def _fmt(x: float) -> str:
    if not math.isfinite(x):
        return "nan"
    return f"{x:.6g}"


def _positive_number(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not (math.isfinite(value) and value > 0):
        raise argparse.ArgumentTypeError(f"{text!r} must be a positive finite number")
    return value


def _reproduce(args: argparse.Namespace) -> int:
    if args.table is not None or args.format is not None:
        return _reproduce_table(args)
    papers = args.paper or None
    results = claims.results(papers)
    if args.json:
        print(json.dumps([r.as_dict() for r in results], indent=2))
    else:
        _print_table(results)
    return 0 if all(r.ok for r in results) else 1


def _reproduce_table(args: argparse.Namespace) -> int:
    from moelaws.claims import tables

    papers = args.paper or []
    if len(papers) > 1:
        raise ValueError("--table and --format take one --paper (or none, for every paper)")
    df = tables.reproduced_table(papers[0] if papers else None, args.table)
    fmt = args.format or "text"
    if fmt == "csv":
        sys.stdout.write(tables.to_csv(df))
    elif fmt == "json":
        records = [{k: None if isinstance(v, float) and not math.isfinite(v) else v
                    for k, v in row.items()} for row in df.to_dict(orient="records")]
        print(json.dumps(records, indent=2, ensure_ascii=False))
    elif fmt == "markdown":
        # Cells are formatted here and not re-parsed, so that "0.00" stays as the paper prints it.
        cells = df.astype(object).map(lambda v: _fmt(v) if isinstance(v, float) else str(v))
        cells = cells.map(lambda v: v.replace("|", "\\|"))
        print(cells.to_markdown(index=False, disable_numparse=True))
    else:
        shown = ["reference", "quantity", "paper value", "ours", "difference",
                 "relative difference", "tolerance", "status", "as expected"]
        with pd.option_context("display.max_colwidth", 60, "display.width", 200):
            print(df[shown].to_string(index=False, float_format=_fmt))
    return 0 if (df["as expected"] == "yes").all() else 1


def _tables(args: argparse.Namespace) -> int:
    from moelaws.claims import tables

    listing = tables.list_tables(args.paper)
    for paper, rows in listing.groupby("paper", sort=False):
        print(f"== {paper}: {claims.PAPER_TITLES[str(paper)]}")
        for row in rows.itertuples(index=False):
            print(f"{row.table:<9} {row.claims:>3} claims ({row.reproduced} reproduced, "
                  f"{row.discrepancy} discrepancies)  {row.references}")
        print()
    from moelaws import data_tables

    print("== appendix data (moelaws data NAME)")
    for name, spec in data_tables.DATA_TABLES.items():
        if args.paper in (None, spec.paper):
            print(f"{name:<22} {spec.source}")
    return 0


def _data(args: argparse.Namespace) -> int:
    from moelaws import data_tables

    sys.stdout.write(data_tables.data_csv(args.name))
    return 0


def _design(args: argparse.Namespace) -> int:
    # Imported here: the design laws pull in scipy and statsmodels, which the other commands
    # do not need.
    from moelaws.compare import recommend

    budget = {"compute": args.compute, "total_params": args.total_params,
              "active_params": args.active_params}
    recs = recommend.recommend(**budget)
    if args.json:
        print(json.dumps({"budget": budget, "papers": [r.as_dict() for r in recs]}, indent=2))
    else:
        print(report.design_text(budget, recs), end="")
    return 0


def _counts(args: argparse.Namespace) -> int:
    data = counting.counts_report(counting.load_config(args.config))
    if args.json:
        print(json.dumps(data, indent=2))
    else:
        print(report.counts_text(data), end="")
    return 0


def _print_table(results: list[claims.ClaimResult]) -> None:
    by_paper: dict[str, list[claims.ClaimResult]] = {}
    for r in results:
        by_paper.setdefault(r.claim.paper, []).append(r)
    for paper, rows in by_paper.items():
        print(f"== {paper}: {claims.PAPER_TITLES[paper]}")
        width = min(max(len(f"{r.claim.ref}: {r.claim.quantity}") for r in rows), 90)
        for r in rows:
            label = f"{r.claim.ref}: {r.claim.quantity}"
            if len(label) > width:
                label = label[: width - 1] + "…"
            rel = "" if r.claim.relation == "=" else r.claim.relation
            mark = "ok " if r.ok else "!! "
            print(
                f"{mark}{label:<{width}}  paper {rel}{r.claim.printed:>10}  ours {_fmt(r.ours):>10}"
                f"  tol {_fmt(r.claim.tol):>8}  {r.status}"
                + ("" if r.ok else f" (expected {r.claim.expected})")
            )
        n_rep = sum(r.status == "reproduced" for r in rows)
        n_dis = sum(r.status == "discrepancy" for r in rows)
        n_bad = sum(not r.ok for r in rows)
        print(
            f"-- {paper}: {len(rows)} claims, {n_rep} reproduced, {n_dis} discrepancies "
            f"(explained: {n_dis - sum(1 for r in rows if r.status == 'discrepancy' and not r.ok)})"
            f", {n_bad} not as expected\n"
        )


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="python -m moelaws", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    rep = sub.add_parser("reproduce", help="evaluate the registered claims")
    rep.add_argument(
        "--paper",
        action="append",
        choices=claims.PAPERS,
        metavar="ID",
        help=f"only this paper's claims (repeatable); one of {', '.join(claims.PAPERS)}",
    )
    rep.add_argument("--json", action="store_true", help="print a JSON list instead of a table")
    rep.add_argument("--table", metavar="T",
                     help="one reproduced paper table, e.g. 'Table 4' (see `tables`); needs "
                          "one --paper")
    rep.add_argument("--format", choices=("text", "csv", "markdown", "json"),
                     help="print the reproduced table (of --table, else of every claim) as "
                          "text, CSV, Markdown or JSON records")
    rep.set_defaults(func=_reproduce)

    tab = sub.add_parser("tables", help="each paper's reproduced tables and their references")
    tab.add_argument("--paper", choices=claims.PAPERS, metavar="ID",
                     help=f"only this paper; one of {', '.join(claims.PAPERS)}")
    tab.set_defaults(func=_tables)

    dat = sub.add_parser("data", help="an appendix data table a chapter shows, as CSV")
    dat.add_argument("name", metavar="NAME", help="a name listed by `tables`, e.g. "
                                                  "holistic-appendix")
    dat.set_defaults(func=_data)

    des = sub.add_parser("design", help="each paper's recommended configuration for a budget")
    des.add_argument("--compute", type=_positive_number, required=True, metavar="C",
                     help="training compute budget in FLOPs, e.g. 1e23")
    des.add_argument("--total-params", type=_positive_number, metavar="N",
                     help="memory budget: total non-embedding parameters, e.g. 3.5e11")
    des.add_argument("--active-params", type=_positive_number, metavar="Na",
                     help="inference budget: active non-embedding parameters per token")
    des.add_argument("--json", action="store_true",
                     help="print JSON: {budget, papers: [{paper, applicable, reason, values, "
                          "config, checks, ratios, open_fields, convention, flags}]}")
    des.set_defaults(func=_design)

    cnt = sub.add_parser("counts", help="a configuration's counts under every paper's convention")
    cnt.add_argument("config", metavar="PRESET|CONFIG.json",
                     help=f"a preset ({', '.join(arch.PRESETS)}) or a JSON file of MoEConfig "
                          "fields")
    cnt.add_argument("--json", action="store_true",
                     help="print JSON: {config, counts: {convention: {...}}, ratios}")
    cnt.set_defaults(func=_counts)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point; returns the exit status."""
    args = build_parser().parse_args(argv)
    try:
        return int(args.func(args))
    except BrokenPipeError:
        # The reader went away (``| head``): stop quietly, as Unix tools do.
        sys.stderr.close()
        return 0
    except (ValueError, OSError) as exc:
        print(f"moelaws: error: {exc}", file=sys.stderr)
        return 2
