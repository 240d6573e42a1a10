"""The ``python -m moelaws`` commands: reproduce, design, counts."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from cli_runner import run_cli, run_process

from moelaws import arch, claims, conventions, papers
from moelaws.cli import main


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return run_cli(*args)


@pytest.mark.parametrize("args, status, stream, text", [
    (("--version",), 0, "stdout", "moelaws"),
    ((), 2, "stderr", "reproduce"),
])
def test_entry_point_smoke(args, status, stream, text) -> None:
    """A real ``python -m moelaws`` process: the entry point the in-process tests bypass."""
    proc = run_process(*args)
    assert proc.returncode == status, proc.stderr
    assert text in getattr(proc, stream)
    assert "Traceback" not in proc.stderr


@pytest.mark.parametrize("args", [["reproduce", "--paper", "nope"], ["frobnicate"], []])
def test_bad_arguments_exit_non_zero_without_traceback(args: list[str]) -> None:
    proc = run(*args)
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr
    assert proc.stderr.strip()


def test_exit_status_is_one_when_a_claim_fails(monkeypatch: pytest.MonkeyPatch, capsys) -> None:
    bad = claims.Claim(paper=papers.ids()[0], ref="r", quantity="q", printed="1",
                       compute=lambda: 2.0, kind="reproduction")
    monkeypatch.setattr(claims, "results", lambda papers=None: [claims.evaluate(bad)])
    assert main(["reproduce"]) == 1
    assert "!!" in capsys.readouterr().out


# --- design and counts -----------------------------------------------------------------------


def test_design_table_lists_every_paper_and_what_is_missing() -> None:
    proc = run("design", "--compute", "1e22")
    assert proc.returncode == 0, proc.stderr
    for paper in papers.ids("recommend"):
        assert f"== {paper}:" in proc.stdout
    assert "not applicable: needs --total-params and --active-params" in proc.stdout
    assert "arch check" in proc.stdout


def test_design_json_with_all_budgets() -> None:
    proc = run("design", "--compute", "1e23", "--total-params", "3.5e11",
               "--active-params", "2e10", "--json")
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert data["budget"] == {"compute": 1e23, "total_params": 3.5e11, "active_params": 2e10}
    papers = {p["paper"]: p for p in data["papers"]}
    assert all(p["applicable"] for p in papers.values())


def test_counts_table_for_a_preset() -> None:
    proc = run("counts", "mixtral-8x7b")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("Mixtral-8x7B")
    for conv in conventions.names():
        assert f"\n{conv} " in proc.stdout


def test_counts_json_from_a_config_file(tmp_path) -> None:
    cfg = arch.preset("OLMoE-1B-7B").replace(name="my-olmoe", n_experts=32)
    path = tmp_path / "cfg.json"
    path.write_text(json.dumps(cfg.to_dict()))
    proc = run("counts", str(path), "--json")
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert data["config"]["name"] == "my-olmoe"
    assert data["counts"]["exact"]["total"] == arch.counts(cfg, "exact").total


BAD_JSON = {
    "malformed.json": "{not json",
    "unknown.json": '{"n_layers": 2, "d_model": 64, "n_heads": 4, "colour": "red"}',
    "invalid.json": '{"n_layers": 0, "d_model": 64, "n_heads": 4}',
    "badmla.json": '{"n_layers": 2, "d_model": 64, "n_heads": 4, "mla": {"rank": 3}}',
}


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["design", "--compute", "-1e22"], "positive"),
        (["design", "--compute", "0"], "positive"),
        (["design", "--compute", "lots"], "not a number"),
        (["design", "--compute", "inf"], "positive"),
        (["design", "--total-params", "1e9"], "required: --compute"),
        (["design", "--compute", "1e22", "--total-params", "1e9", "--active-params", "2e9"],
         "exceeds"),
        (["design", "--compute", "1e22", "--active-params", "-5"], "positive"),
        (["counts", "Mixtral-9x9B"], "choose from DeepSeek-V3"),
        (["counts", "missing.json"], "no such configuration file"),
        (["counts", "malformed.json"], "not valid JSON"),
        (["counts", "unknown.json"], "unknown configuration fields: colour"),
        (["counts", "invalid.json"], "n_layers must be a positive integer"),
        (["counts", "badmla.json"], "invalid configuration"),
        (["counts"], "required"),
    ],
)
def test_design_and_counts_bad_input(tmp_path, args: list[str], message: str) -> None:
    for name, text in BAD_JSON.items():
        (tmp_path / name).write_text(text)
    args = [str(tmp_path / a) if a.endswith(".json") else a for a in args]
    proc = run(*args)
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    assert lines[0].startswith("moelaws: error: ")
    assert message in lines[0]
    assert proc.stdout == ""


def test_output_cut_short_by_its_reader_is_not_an_error() -> None:
    proc = subprocess.Popen(
        [sys.executable, "-m", "moelaws", "design", "--compute", "1e22", "--json"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.readline()
    proc.stdout.close()
    err = proc.stderr.read().decode()
    assert proc.wait() == 0
    assert "Broken pipe" not in err and "Traceback" not in err

