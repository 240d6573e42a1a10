"""Strict JSON types and ranges for a config given as a dict (the file path is covered by
tests/test_cli_hostile_configs.py), and the defensive JSON parser on its own."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from moelaws.arch import from_hf_config
from moelaws.arch.hf_fields import LIMITS
from moelaws.arch.hf_json import MAX_DEPTH, parse_json_object

ROOT = Path(__file__).resolve().parents[1] / "moelaws" / "data" / "hf_configs"
MIXTRAL = json.loads((ROOT / "Mixtral-8x7B-v0.1" / "config.json").read_text(encoding="utf-8"))


@pytest.mark.parametrize(
    ("change", "message"),
    [({"tie_word_embeddings": "no"}, "tie_word_embeddings must be a JSON boolean"),
     ({"tie_word_embeddings": 0}, "tie_word_embeddings must be a JSON boolean"),
     ({"num_hidden_layers": float("nan")}, "num_hidden_layers must be a JSON integer"),
     ({"num_hidden_layers": 32.0}, "num_hidden_layers must be a JSON integer"),
     ({"num_hidden_layers": False}, "num_hidden_layers must be a JSON integer"),
     ({"num_key_value_heads": 0}, "num_key_value_heads=0 is outside"),
     ({"vocab_size": LIMITS["vocab"] + 1}, "vocab_size=10000001 is outside"),
     ({"mlp_only_layers": [0, "1"]}, r"mlp_only_layers\[1\] must be a JSON integer"),
     ({"model_type": {"name": "mixtral"}}, "model_type must be a JSON string, got dict")],
)
def test_a_dict_with_a_wrong_type_or_range_is_refused_naming_the_field(change, message) -> None:
    with pytest.raises(ValueError, match=message):
        from_hf_config(MIXTRAL | change)


def test_a_billion_layers_is_refused_before_any_loop() -> None:
    # CPU time, not wall time: a loop over 10^9 layers takes minutes of CPU, and a loaded
    # machine cannot make the refusal fail.
    start = time.process_time()
    for model_type in ("mixtral", "qwen2_moe", "new_moe"):
        with pytest.raises(ValueError, match="num_hidden_layers=1000000000 is outside"):
            from_hf_config(MIXTRAL | {"model_type": model_type, "num_hidden_layers": 10**9,
                                      "decoder_sparse_step": 2})
    assert time.process_time() - start < 1.0


@pytest.mark.parametrize(
    ("text", "message"),
    [("[" * (MAX_DEPTH + 1) + "]" * (MAX_DEPTH + 1), "nests deeper than 32"),
     ('{"a": ' + "[" * 5000 + "]" * 5000 + "}", "nests deeper than 32"),
     ('{"a": NaN}', "NaN is not a JSON number"),
     ('{"a": 1, "a": 2}', "duplicate key 'a'"),
     ('"text"', "not a JSON object"),
     ("", "not valid JSON")],
)
def test_the_parser_refuses(text: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        parse_json_object(text, "f.json")


def test_the_parser_accepts_nesting_up_to_the_cap() -> None:
    inner = "[" * (MAX_DEPTH - 1) + "]" * (MAX_DEPTH - 1)
    assert parse_json_object('{"a": ' + inner + "}", "f.json")["a"] is not None
