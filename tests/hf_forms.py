"""One stored Hugging Face config in every accepted form, and exact comparison of results: the
set-up of tests/test_hf_config_api.py and of each paper's own checks of the same kind."""

from __future__ import annotations

import dataclasses
import json
import math
from pathlib import Path
from typing import Any

import pandas as pd

from moelaws import arch

HF_DIR = Path(__file__).resolve().parents[1] / "moelaws" / "data" / "hf_configs"
MODELS = ("Mixtral-8x7B-v0.1", "DeepSeek-V3")
BAD = [3.5, 7, None, ["config.json"], ("a", "b"), b"config.json", object()]
"""Arguments that are no configuration in any form."""


def same(a: Any, b: Any, where: str) -> None:
    """Exact equality, NaN equal to NaN, through dicts, sequences, records and frames."""
    if isinstance(a, pd.DataFrame):
        pd.testing.assert_frame_equal(a, b, check_exact=True, obj=where)
    elif dataclasses.is_dataclass(a):
        same(dataclasses.asdict(a), dataclasses.asdict(b), where)
    elif isinstance(a, dict):
        assert a.keys() == b.keys(), where
        for key in a:
            same(a[key], b[key], f"{where}[{key!r}]")
    elif isinstance(a, (list, tuple)):
        assert type(a) is type(b) and len(a) == len(b), where
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            same(x, y, f"{where}[{i}]")
    elif isinstance(a, float) and math.isnan(a):
        assert isinstance(b, float) and math.isnan(b), where
    else:
        assert a == b, f"{where}: {a!r} != {b!r}"


def config_forms(model: str) -> dict[str, Any]:
    directory = HF_DIR / model
    file = directory / "config.json"
    return {
        "MoEConfig": arch.from_hf_config(directory),
        "dict": json.loads(file.read_text(encoding="utf-8")),
        "file Path": file,
        "file str": str(file),
        "directory Path": directory,
        "directory str": str(directory),
    }
