"""A model with unknown training tokens is inside no domain of the leverage law (moved whole from
tests/test_like_for_like.py)."""

from __future__ import annotations

from moelaws.compare import verdicts


def test_unknown_tokens_are_not_inside_a_domain() -> None:
    table = verdicts.question_table("leverage")
    assert not table["in fitted domain"].any()
    assert not table.loc["gpt-oss-20b", "in fitted domain"]  # no flag, but no budget either
