"""The command line as a newcomer meets it: usage with no command, --version, the reproduce
table's columns and budgets never silently exceeded (each paper's own cases are in
tests/papers/<id>/)."""

from __future__ import annotations

import json

import pytest

from moelaws import __version__, claims, papers
from moelaws.cli import main


def test_no_command_prints_usage_and_commands(capsys) -> None:
    assert main([]) == 2
    err = capsys.readouterr().err
    assert err.startswith("usage: moelaws ")
    for command in ("reproduce", "design", "counts"):
        assert command in err
    assert "python -m" not in err


def test_version(capsys) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["--version"])
    assert exc.value.code == 0
    assert capsys.readouterr().out.strip() == f"moelaws {__version__}"


def test_usage_line_says_moelaws(capsys) -> None:
    with pytest.raises(SystemExit):
        main(["design", "--help"])
    assert capsys.readouterr().out.startswith("usage: moelaws design")


def test_unexpected_result_is_marked_not_as_expected(monkeypatch, capsys) -> None:
    bad = claims.Claim(paper=papers.ids()[0], ref="r", quantity="q", printed="1",
                       compute=lambda: 2.0, kind="reproduction")
    monkeypatch.setattr(claims, "results", lambda papers=None: [claims.evaluate(bad)])
    assert main(["reproduce"]) == 1
    out = capsys.readouterr().out
    assert "discrepancy  NOT as expected (expected reproduced)" in out


def test_design_flags_a_recommendation_over_the_memory_budget(capsys) -> None:
    assert main(["design", "--compute", "1e23", "--total-params", "3.5e11", "--json"]) == 0
    papers = {p["paper"]: p for p in json.loads(capsys.readouterr().out)["papers"]}
    for name, rec in papers.items():
        if not rec["applicable"] or not rec["checks"]:
            continue
        over = rec["checks"]["total"] > 3.5e11
        flagged = any(f.startswith("OVER BUDGET: total") for f in rec["flags"])
        assert over == flagged, name

