"""The comprehensive paper's part of the hostile-input sweep (``tests/test_hostile_sweep.py``
collects it): base calls a parameter's name alone does not give, and the slow functions' share
of hostile kinds."""

from __future__ import annotations

from typing import Any


def per_function() -> dict[str, dict[str, Any]]:
    """Base calls a name alone does not give (the function's own example arguments)."""
    return {
        "comprehensive.read_table": {"name": "table3"},
        "comprehensive.read_constants": {"table": "table6"},
        "comprehensive.fit_compute_optimal_power_law": {"C_min": 1e18, "C_max": 1e20},
    }


KINDS_PER_PARAMETER: dict[str, int] = {  # measured seconds, as in the sweep's own list
    "comprehensive.fit_compute_optimal_power_law": 6,  # 0.005 s a call, 8 parameters
}
