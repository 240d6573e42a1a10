"""Chapter 0's claims are reproductions of printed sizes: their kind in records and tables."""

from __future__ import annotations

import math

import pytest

from moelaws import claims
from moelaws.cli import main


def test_reproduce_text_has_a_kind_column(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["reproduce", "--paper", "anatomy"]) == 0
    out = capsys.readouterr().out
    header = next(line for line in out.splitlines() if "tolerance (abs.)" in line)
    assert "kind" in header and "reproduction" in out


def test_nan_free_json_records() -> None:
    for r in claims.results("anatomy"):
        record = r.as_dict()
        assert record["kind"] == "reproduction" and record["ours_range"] is None
        assert not any(isinstance(v, float) and math.isnan(v) for v in record.values())
