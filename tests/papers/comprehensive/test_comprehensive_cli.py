"""The comprehensive paper's recommendation through the ``python -m moelaws design`` command."""

from __future__ import annotations

import json

from cli_runner import run_cli


def test_design_json_with_all_budgets() -> None:
    proc = run_cli("design", "--compute", "1e23", "--total-params", "3.5e11",
                   "--active-params", "2e10", "--json")
    assert proc.returncode == 0, proc.stderr
    papers = {p["paper"]: p for p in json.loads(proc.stdout)["papers"]}
    assert papers["comprehensive"]["values"]["given N_a/N verdict"] in {"below", "inside",
                                                                        "above"}
