"""Chapter 0's claims table: no paper tables of its own."""

from __future__ import annotations

from moelaws.interactive_tables import chapter_claims_table


def test_chapter_claims_table_has_no_paper_tables() -> None:
    assert "moelaws-dt-more" not in chapter_claims_table("anatomy").html  # no paper tables
