"""Command line: ``python -m moelaws reproduce [--paper ID] [--json]``.

Exit status: 0 when every evaluated claim has its expected status, 1 when some claim does not
(a claim expected to reproduce that does not, an explained discrepancy that now reproduces, or
a computation error), 2 on bad arguments. Errors are one line on stderr, never a traceback.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections.abc import Sequence

from moelaws import claims


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        self.exit(2, f"moelaws: error: {message}\n")


def _fmt(x: float) -> str:
    if not math.isfinite(x):
        return "nan"
    return f"{x:.6g}"


def _reproduce(args: argparse.Namespace) -> int:
    papers = args.paper or None
    results = claims.results(papers)
    if args.json:
        print(json.dumps([r.as_dict() for r in results], indent=2))
    else:
        _print_table(results)
    return 0 if all(r.ok for r in results) else 1


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
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point; returns the exit status."""
    args = build_parser().parse_args(argv)
    try:
        return int(args.func(args))
    except (ValueError, OSError) as exc:
        print(f"moelaws: error: {exc}", file=sys.stderr)
        return 2
