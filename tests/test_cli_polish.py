"""The command line as a newcomer meets it: usage with no command, --version, the reproduce
table's columns, budgets never silently exceeded, and the constrained design's error."""

from __future__ import annotations

import json

import pytest

from moelaws import __version__, claims
from moelaws.cli import main
from moelaws.constrained import design as con_design


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


def test_reproduce_table_separates_result_from_expectation(capsys) -> None:
    assert main(["reproduce", "--paper", "anatomy"]) == 0
    out = capsys.readouterr().out
    header = next(line for line in out.splitlines() if "tolerance (abs.)" in line)
    for column in ("result", "expected?", "why (discrepancy)"):
        assert column in header
    expected_dis = [c for c in claims.all_claims("anatomy") if c.expected == "discrepancy"]
    assert expected_dis, "the anatomy chapter has explained discrepancies"
    dis_lines = [line for line in out.splitlines() if "discrepancy  as expected" in line]
    assert len(dis_lines) == len(expected_dis)
    first_words = expected_dis[0].explanation.split()[:4]
    assert any(" ".join(first_words) in line for line in dis_lines)
    assert "±0.5 (printed precision)" in out


def test_reproduce_notes_print_full_explanations(capsys) -> None:
    main(["reproduce", "--paper", "anatomy", "--notes"])
    out = capsys.readouterr().out
    dis = next(c for c in claims.all_claims("anatomy") if c.expected == "discrepancy")
    assert dis.explanation.strip() in out


def test_unexpected_result_is_marked_not_as_expected(monkeypatch, capsys) -> None:
    bad = claims.Claim(paper="anatomy", ref="r", quantity="q", printed="1", compute=lambda: 2.0,
                       kind="reproduction")
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
    # The holistic law ignores memory: its 445B design must be flagged, not printed silently.
    assert papers["holistic"]["checks"]["total"] > 4e11
    assert any("exceed --total-params 350B" in f for f in papers["holistic"]["flags"])
    assert main(["design", "--compute", "1e23", "--total-params", "3.5e11"]) == 0
    assert "! OVER BUDGET: total parameters 445" in capsys.readouterr().out


def test_constrained_error_names_the_expert_grid() -> None:
    with pytest.raises(ValueError, match="no configuration fits") as exc:
        con_design.optimize(1e12, 4e10, 128)
    assert "expert-count grid binds" in str(exc.value)
    assert "256 experts" in str(exc.value)
    assert "n_experts=(..., 256)" in str(exc.value)
    # The advice works: widening the grid as the message says finds a design.
    assert con_design.optimize(1e12, 4e10, 128, n_experts=(2, 4, 128, 256)).n_exp == 256


def test_constrained_error_for_budgets_truly_too_small() -> None:
    with pytest.raises(ValueError, match="budgets are too small"):
        con_design.optimize(1e3, 1e2, 64)
