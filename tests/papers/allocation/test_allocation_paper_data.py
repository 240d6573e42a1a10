"""The allocation paper's transcribed tables read through moelaws.paper_data."""

from __future__ import annotations

from moelaws import paper_data


def test_read_csv_reads_a_transcribed_table() -> None:
    table = paper_data.read_csv("allocation", "table1.csv", dtype={"printed": str})
    assert len(table) > 0 and table["printed"].map(type).eq(str).all()
