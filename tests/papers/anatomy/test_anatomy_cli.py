"""Chapter 0's claims through the ``python -m moelaws`` command line."""

from __future__ import annotations

import json

from cli_runner import run_cli, run_process

from moelaws import claims
from moelaws.cli import main


def test_reproduce_table_lists_every_anatomy_claim() -> None:
    proc = run_cli("reproduce", "--paper", "anatomy")
    assert proc.returncode == 0, proc.stderr
    n = len(claims.all_claims("anatomy"))
    assert proc.stdout.count("\nok ") + proc.stdout.startswith("ok ") >= n
    assert f"-- anatomy: {n} claims" in proc.stdout
    assert "DeepSeek-V3" in proc.stdout


def test_reproduce_json() -> None:
    proc = run_cli("reproduce", "--paper", "anatomy", "--json")
    assert proc.returncode == 0, proc.stderr
    records = json.loads(proc.stdout)
    assert len(records) == len(claims.all_claims("anatomy"))
    keys = {"paper", "ref", "quantity", "paper_value", "ours", "abs_err", "rel_err", "tolerance",
            "status", "note"}
    assert all(keys <= set(r) for r in records)
    deepseek = next(r for r in records if r["quantity"] == "total parameters, main model (B)")
    assert deepseek["paper_value"] == 671.0
    assert abs(deepseek["ours"] - 671.03) < 0.01


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


def test_entry_point_smoke() -> None:
    """A real ``python -m moelaws`` process: the entry point the in-process tests bypass."""
    proc = run_process("reproduce", "--paper", "anatomy", "--json")
    assert proc.returncode == 0, proc.stderr
    assert "DeepSeek-V3" in proc.stdout
    assert "Traceback" not in proc.stderr
