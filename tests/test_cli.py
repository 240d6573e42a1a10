"""The ``python -m moelaws reproduce`` command."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from moelaws import claims
from moelaws.cli import main


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "moelaws", *args], capture_output=True, text=True, check=False
    )


def test_reproduce_table_lists_every_anatomy_claim() -> None:
    proc = run("reproduce", "--paper", "anatomy")
    assert proc.returncode == 0, proc.stderr
    n = len(claims.all_claims("anatomy"))
    assert proc.stdout.count("\nok ") + proc.stdout.startswith("ok ") >= n
    assert f"-- anatomy: {n} claims" in proc.stdout
    assert "DeepSeek-V3" in proc.stdout


def test_reproduce_json() -> None:
    proc = run("reproduce", "--paper", "anatomy", "--json")
    assert proc.returncode == 0, proc.stderr
    records = json.loads(proc.stdout)
    assert len(records) == len(claims.all_claims("anatomy"))
    keys = {"paper", "ref", "quantity", "paper_value", "ours", "abs_err", "rel_err", "tolerance",
            "status", "note"}
    assert all(keys <= set(r) for r in records)
    deepseek = next(r for r in records if r["quantity"] == "total parameters, main model (B)")
    assert deepseek["paper_value"] == 671.0
    assert abs(deepseek["ours"] - 671.03) < 0.01


@pytest.mark.parametrize("args", [["reproduce", "--paper", "nope"], ["frobnicate"], []])
def test_bad_arguments_exit_non_zero_without_traceback(args: list[str]) -> None:
    proc = run(*args)
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr
    assert proc.stderr.strip()


def test_exit_status_is_one_when_a_claim_fails(monkeypatch: pytest.MonkeyPatch, capsys) -> None:
    bad = claims.Claim(paper="anatomy", ref="r", quantity="q", printed="1", compute=lambda: 2.0)
    monkeypatch.setattr(claims, "results", lambda papers=None: [claims.evaluate(bad)])
    assert main(["reproduce"]) == 1
    assert "!!" in capsys.readouterr().out
