"""The holistic paper's part of the hostile-input sweep (``tests/test_hostile_sweep.py``
collects it): base calls a parameter's name alone does not give, the slow functions' share of
hostile kinds, and the non-finite values its functions document."""

from __future__ import annotations

from typing import Any


def per_function() -> dict[str, dict[str, Any]]:
    """Base calls a name alone does not give (the function's own example arguments)."""
    from moelaws import data_tables

    return {
        "holistic.median_d": {"M": 1e9, "N_a": 1e8, "N": 2.2e9, "n_q": 16, "n_kv": 4,
                              "d_qkv": 128},
        "holistic.table4_heads": {"scale": "1e20"},
        "holistic.data_tables.m_outside_target": {
            "df": data_tables.data_table("holistic-appendix")},
        "holistic.data_tables.eq2_off_by_a_digit": {
            "df": data_tables.data_table("holistic-eq2-table-2")},
    }


KINDS_PER_PARAMETER: dict[str, int] = {  # measured seconds, as in the sweep's own list
    "holistic.design_report": 6,  # 0.006 s a call, 7 parameters
}

NON_FINITE_ALLOWED: dict[str, tuple[str, str]] = {
    "holistic.ratio_bounds": ("['M/N_a'][1]", "the open interval (6, ∞) of Sec. 5.1: infinity "
                                             "is the documented upper end"),
}
