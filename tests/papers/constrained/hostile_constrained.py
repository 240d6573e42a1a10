"""The constrained paper's part of the hostile-input sweep (``tests/test_hostile_sweep.py``
collects it): base calls a parameter's name alone does not give."""

from __future__ import annotations

from typing import Any

import pandas as pd


def per_function() -> dict[str, dict[str, Any]]:
    """Base calls a name alone does not give (the function's own example arguments)."""
    return {
        "constrained.implied_granularity": {"N_total": 234e9, "N_active": 21.7e9, "n_exp": 128,
                                            "n_topk": 7},
        "constrained.landscape": {"n_experts": [64, 128]},
        "constrained.data_tables.inconsistent": {
            "df": pd.DataFrame({"consistent": [True, False]})},
    }
