"""The holistic design through the ``python -m moelaws design`` command."""

from __future__ import annotations

import json

from cli_runner import run_cli

from moelaws.cli import main


def test_design_table_shows_the_holistic_design() -> None:
    proc = run_cli("design", "--compute", "1e22")
    assert proc.returncode == 0, proc.stderr
    assert "288 experts + 1 shared" in proc.stdout  # the holistic design


def test_design_json_with_all_budgets() -> None:
    proc = run_cli("design", "--compute", "1e23", "--total-params", "3.5e11",
                   "--active-params", "2e10", "--json")
    assert proc.returncode == 0, proc.stderr
    papers = {p["paper"]: p for p in json.loads(proc.stdout)["papers"]}
    assert papers["holistic"]["config"]["n_experts"] == 288


def test_design_flags_a_recommendation_over_the_memory_budget(capsys) -> None:
    assert main(["design", "--compute", "1e23", "--total-params", "3.5e11", "--json"]) == 0
    papers = {p["paper"]: p for p in json.loads(capsys.readouterr().out)["papers"]}
    # The holistic law ignores memory: its 445B design must be flagged, not printed silently.
    assert papers["holistic"]["checks"]["total"] > 4e11
    assert any("exceed --total-params 350B" in f for f in papers["holistic"]["flags"])
    assert main(["design", "--compute", "1e23", "--total-params", "3.5e11"]) == 0
    assert "! OVER BUDGET: total parameters 445" in capsys.readouterr().out
