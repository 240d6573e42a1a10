"""Command line of the book's package.

Commands (``moelaws`` is installed with the package; ``python -m moelaws`` is the same)::

    moelaws reproduce [--paper ID] [--notes] [--json]
    moelaws reproduce --paper ID --table T [--format text|csv|markdown|json]
    moelaws tables [--paper ID]
    moelaws data NAME
    moelaws design --compute C [--total-params N] [--active-params Na] [--json]
    moelaws counts PRESET|CONFIG.json|DIR [--json]
    moelaws --version

``reproduce`` evaluates the registered claims (a table per paper: paper value, ours, the
absolute tolerance in the quantity's own unit, the result, whether that result is the expected
one, and a one-line explanation of each discrepancy; ``--notes`` prints the full notes);
``design`` prints each paper's recommendation
for a training-compute budget (FLOPs) and optional memory (total non-embedding parameters) and
inference (active non-embedding parameters) budgets, listing papers whose inputs are missing
as not applicable, with the reason; ``counts`` prints a configuration's parameter and FLOP
counts under every paper's convention, and every paper's ratios; it reads a preset, a JSON
file of ``MoEConfig`` fields, or a Hugging Face ``config.json`` (or its directory). Numbers
such as ``1e23`` and ``3.5e11`` are accepted. ``--json`` prints JSON instead of a table (NaN
as ``null``).

``moelaws`` with no command prints the usage and the list of commands on stderr and exits
with status 2, as for any other usage error.

``reproduce --table T`` (one paper table, e.g. ``"Table 4"``) or ``--format`` prints the
reproduced table of :func:`moelaws.claims.tables.reproduced_table` (paper value beside ours,
difference, relative difference, tolerance, status), as text, CSV, Markdown or JSON records;
``tables`` lists each paper's reproduced tables with their references, and the appendix data
tables the chapters show, which ``data NAME`` writes as CSV.

Exit status: 0 on success; for ``reproduce``, 1 when some claim does not have its expected
status (a claim expected to reproduce that does not, an explained discrepancy that now
reproduces, or a computation error); 2 on bad input (unknown command or option, a
non-positive or non-numeric budget, active above total parameters, an unknown preset, a
missing file, malformed JSON, a configuration with unknown or invalid fields, a Hugging Face
config the reader refuses: a field of the wrong JSON type or out of range, a layout the counts
cannot represent, a FIFO, a device or a file above 1 MiB); 70 (``EX_SOFTWARE``) on an unexpected
error, a bug in moelaws: one line ``moelaws: error: <type>: <message> (this is a bug in moelaws;
please report it with the command line)``; 130 when interrupted (Ctrl-C). Errors are one line on
stderr, ``moelaws: error: ...``, never a traceback; set ``MOELAWS_DEBUG=1`` to get the traceback
of an unexpected error instead.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import sys
import warnings
from collections.abc import Sequence
from typing import Any

import pandas as pd
from tabulate import tabulate

from moelaws import arch, claims, papers, validation
from moelaws.compare import counting, report

EXIT_USAGE = 2
"""Bad input: an unknown command or option, an out-of-range budget, a missing or invalid file."""
EXIT_SOFTWARE = 70
"""An unexpected exception, a bug in moelaws (``EX_SOFTWARE`` of BSD's ``sysexits.h``)."""
EXIT_INTERRUPTED = 130
"""Interrupted by Ctrl-C (128 + SIGINT, as shells report it)."""

EPILOG = (
    "exit status: 0 success; 1 a claim without its expected status (reproduce); 2 bad input; "
    f"{EXIT_SOFTWARE} an unexpected error (a bug in moelaws; set MOELAWS_DEBUG=1 for the "
    f"traceback); {EXIT_INTERRUPTED} interrupted."
)

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
        _print_table(results, notes=args.notes)
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
        shown = ["reference", "quantity", "kind", "paper value", "ours", "difference",
                 "relative difference", "tolerance", "status", "as expected"]
        with pd.option_context("display.max_colwidth", 60, "display.width", 200):
            print(df[shown].to_string(index=False, float_format=_fmt))
    return 0 if (df["as expected"] == "yes").all() else 1


def _tables(args: argparse.Namespace) -> int:
    from moelaws.claims import tables

    listing = tables.list_tables(args.paper)
    for paper, rows in listing.groupby("paper", sort=False):
        print(f"== {paper}: {papers.get(str(paper)).title}")
        for row in rows.itertuples(index=False):
            print(f"{row.table:<9} {row.claims:>3} claims ({row.reproduced} reproduced, "
                  f"{row.discrepancy} discrepancies, {row.undecidable} undecidable)  "
                  f"{row.references}")
        print()
    from moelaws import data_tables

    print("== appendix data (moelaws data NAME)")
    for name, spec in data_tables.all_data_tables().items():
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
    for name, value in budget.items():
        if value is not None:
            validation.cli_value(name, value)
    with warnings.catch_warnings():
        # The report flags budgets outside each law's fitted range itself.
        warnings.simplefilter("ignore", validation.ExtrapolationWarning)
        recs = recommend.recommend(**budget)
    validation.cli_text(report.design_text(budget, recs), "design")
    if args.json:
        print(json.dumps({"budget": budget, "papers": [r.as_dict() for r in recs]}, indent=2))
    else:
        print(report.design_text(budget, recs), end="")
    return 0


def _counts(args: argparse.Namespace) -> int:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", arch.HFConfigWarning)
        cfg = counting.load_config(args.config)
    for w in caught:
        print(f"moelaws: warning: {w.message}", file=sys.stderr)
    total = arch.total_params(cfg)
    low, high, _ = validation.CLI_RANGES["total_params"]
    if not low <= total <= high:
        raise ValueError(f"{args.config}: {total:.3g} total parameters is outside the accepted "
                         f"range [{low:g}, {high:g}]")
    data = counting.counts_report(cfg)
    if args.json:
        print(json.dumps(data, indent=2))
    else:
        print(validation.cli_text(report.counts_text(data), "counts"), end="")
    return 0


def _tolerance(claim: claims.Claim) -> str:
    how = "custom" if claim.tolerance is not None else "printed precision"
    return f"±{_fmt(claim.tol)} ({how})"


def _one_line(text: str, width: int = 90) -> str:
    first = (text.strip().splitlines() or [""])[0].split(". ")[0].rstrip(".")
    return first if len(first) <= width else first[: width - 1] + "…"


def _print_table(results: list[claims.ClaimResult], notes: bool = False) -> None:
    by_paper: dict[str, list[claims.ClaimResult]] = {}
    for r in results:
        by_paper.setdefault(r.claim.paper, []).append(r)
    for paper, rows in by_paper.items():
        print(f"== {paper}: {papers.get(paper).title}")
        table = []
        for r in rows:
            label = f"{r.claim.ref}: {r.claim.quantity}"
            if len(label) > 90:
                label = label[:89] + "…"
            rel = "" if r.claim.relation == "=" else r.claim.relation
            why = _one_line(r.error or (r.claim.explanation
                                        if r.status in ("discrepancy", "undecidable") else ""))
            table.append([
                "ok" if r.ok else "!!", label, r.claim.kind, f"{rel}{r.claim.printed}",
                _fmt(r.ours),
                _tolerance(r.claim), r.status,
                "as expected" if r.ok else f"NOT as expected (expected {r.claim.expected})", why,
            ])
        print(tabulate(table, headers=["", "claim", "kind", "paper", "ours", "tolerance (abs.)",
                                       "result", "expected?", "why (discrepancy)"],
                       tablefmt="plain", disable_numparse=True))
        if notes:
            for r in rows:
                if r.note:
                    print(f"   {r.claim.ref}: {r.note}")
        n_rep = sum(r.status == "reproduced" for r in rows)
        n_dis = sum(r.status == "discrepancy" for r in rows)
        n_und = sum(r.status == "undecidable" for r in rows)
        n_bad = sum(not r.ok for r in rows)
        print(
            f"-- {paper}: {len(rows)} claims, {n_rep} reproduced, {n_dis} discrepancies "
            f"(explained: {n_dis - sum(1 for r in rows if r.status == 'discrepancy' and not r.ok)})"
            f", {n_und} undecidable from the printed rounding, {n_bad} not as expected\n"
        )


def build_parser() -> argparse.ArgumentParser:
    from moelaws import __version__

    parser = _Parser(prog="moelaws", description=__doc__.splitlines()[0], epilog=EPILOG)
    parser.add_argument("--version", action="version", version=f"moelaws {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    rep = sub.add_parser("reproduce", help="evaluate the registered claims")
    with_claims = papers.ids("claims")
    rep.add_argument(
        "--paper",
        action="append",
        choices=with_claims,
        metavar="ID",
        help=f"only this paper's claims (repeatable); one of {', '.join(with_claims)}",
    )
    rep.add_argument("--json", action="store_true", help="print a JSON list instead of a table")
    rep.add_argument("--notes", action="store_true",
                     help="print each claim's full note (explanation, tolerance reason)")
    rep.add_argument("--table", metavar="T",
                     help="one reproduced paper table, e.g. 'Table 4' (see `tables`); needs "
                          "one --paper")
    rep.add_argument("--format", choices=("text", "csv", "markdown", "json"),
                     help="print the reproduced table (of --table, else of every claim) as "
                          "text, CSV, Markdown or JSON records")
    rep.set_defaults(func=_reproduce)

    tab = sub.add_parser("tables", help="each paper's reproduced tables and their references")
    tab.add_argument("--paper", choices=with_claims, metavar="ID",
                     help=f"only this paper; one of {', '.join(with_claims)}")
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
    cnt.add_argument("config", metavar="PRESET|CONFIG.json|DIR",
                     help=f"a preset ({', '.join(arch.PRESETS)}), a JSON file of MoEConfig "
                          "fields, or a Hugging Face config.json of an MoE model (or a "
                          "directory holding one): any model_type, with refinements for "
                          f"{', '.join(arch.SUPPORTED_MODEL_TYPES)}")
    cnt.add_argument("--json", action="store_true",
                     help="print JSON: {config, counts: {convention: {...}}, ratios}")
    cnt.set_defaults(func=_counts)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point; returns the exit status."""
    try:
        parser = build_parser()
        if not (sys.argv[1:] if argv is None else argv):
            parser.print_help(sys.stderr)
            return EXIT_USAGE
        args = parser.parse_args(argv)
        return int(args.func(args))
    except BrokenPipeError:
        # The reader went away (``| head``): stop quietly, as Unix tools do.
        sys.stderr.close()
        return 0
    except (ValueError, OSError) as exc:
        print(f"moelaws: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        if _debug():
            raise
        print("moelaws: error: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except Exception as exc:  # the last resort: one line, never a traceback
        if _debug():
            raise
        print(f"moelaws: error: {_one_line_error(exc)} (this is a bug in moelaws; please "
              "report it with the command line)", file=sys.stderr)
        return EXIT_SOFTWARE


def _debug() -> bool:
    """Whether ``MOELAWS_DEBUG`` asks for tracebacks (any value but empty or ``0``)."""
    return os.environ.get("MOELAWS_DEBUG", "") not in ("", "0")


def _one_line_error(exc: BaseException) -> str:
    message = " ".join(str(exc).split())
    if len(message) > 300:
        message = message[:299] + "…"
    return f"{type(exc).__name__}: {message}" if message else type(exc).__name__
