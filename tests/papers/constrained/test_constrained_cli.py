"""The constrained design's errors, as the command line shows them: the grid that binds and budgets
too small."""

from __future__ import annotations

import json

import pytest
from cli_runner import run_cli

from moelaws import arch
from moelaws.constrained import design as con_design


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


def test_design_json_with_all_budgets() -> None:
    proc = run_cli("design", "--compute", "1e23", "--total-params", "3.5e11",
                   "--active-params", "2e10", "--json")
    assert proc.returncode == 0, proc.stderr
    papers = {p["paper"]: p for p in json.loads(proc.stdout)["papers"]}
    con = papers["constrained"]
    assert con["config"]["d_model"] == con["values"]["d"]
    assert con["checks"]["total (constrained)"] <= 3.5e11
    assert con["checks"]["active (constrained)"] <= 2e10


def test_counts_table_for_a_preset() -> None:
    proc = run_cli("counts", "mixtral-8x7b")
    assert proc.returncode == 0, proc.stderr
    assert "s = n_exp/n_topk (constrained)" in proc.stdout


def test_counts_json_from_a_config_file(tmp_path) -> None:
    cfg = arch.preset("OLMoE-1B-7B").replace(name="my-olmoe", n_experts=32)
    path = tmp_path / "cfg.json"
    path.write_text(json.dumps(cfg.to_dict()))
    proc = run_cli("counts", str(path), "--json")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["counts"]["constrained"]["compute_per_token"] is None
