"""The allocation paper through the ``python -m moelaws`` commands: design and counts."""

from __future__ import annotations

import json

import pytest
from cli_runner import run_cli

from moelaws import arch


def test_design_json_with_all_budgets() -> None:
    proc = run_cli("design", "--compute", "1e23", "--total-params", "3.5e11",
                   "--active-params", "2e10", "--json")
    assert proc.returncode == 0, proc.stderr
    papers = {p["paper"]: p for p in json.loads(proc.stdout)["papers"]}
    assert any("above the fitted range" in f for f in papers["allocation"]["flags"])


def test_counts_json_from_a_config_file(tmp_path) -> None:
    cfg = arch.preset("OLMoE-1B-7B").replace(name="my-olmoe", n_experts=32)
    path = tmp_path / "cfg.json"
    path.write_text(json.dumps(cfg.to_dict()))
    proc = run_cli("counts", str(path), "--json")
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert data["ratios"]["S = 1-E_act/E (allocation)"] == pytest.approx(1 - 8 / 32)
