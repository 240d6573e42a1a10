"""Command line of the book's package.

Commands::

    python -m moelaws reproduce [--paper ID] [--json]
    python -m moelaws design --compute C [--total-params N] [--active-params Na] [--json]
    python -m moelaws counts PRESET|CONFIG.json [--json]

``reproduce`` evaluates the registered claims; ``design`` prints each paper's recommendation
for a training-compute budget (FLOPs) and optional memory (total non-embedding parameters) and
inference (active non-embedding parameters) budgets, listing papers whose inputs are missing
as not applicable, with the reason; ``counts`` prints a configuration's parameter and FLOP
counts under every paper's convention, and every paper's ratios. Numbers such as ``1e23`` and
``3.5e11`` are accepted. ``--json`` prints JSON instead of a table (NaN as ``null``).

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
import warnings
from collections.abc import Sequence
from typing import Any

from moelaws import arch, claims, validation
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
    papers = args.paper or None
    results = claims.results(papers)
    if args.json:
        print(json.dumps([r.as_dict() for r in results], indent=2))
    else:
        _print_table(results)
    return 0 if all(r.ok for r in results) else 1


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
    config = counting.load_config(args.config)
    total = arch.total_params(config)
    low, high, _ = validation.CLI_RANGES["total_params"]
    if not low <= total <= high:
        raise ValueError(f"{args.config}: {total:.3g} total parameters is outside the accepted "
                         f"range [{low:g}, {high:g}]")
    data = counting.counts_report(config)
    if args.json:
        print(json.dumps(data, indent=2))
    else:
        print(validation.cli_text(report.counts_text(data), "counts"), end="")
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
    rep.set_defaults(func=_reproduce)

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
