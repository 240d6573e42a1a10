"""The allocation paper's part of the hostile-input sweep (``tests/test_hostile_sweep.py``
collects it): base calls a parameter's name alone does not give, and the slow functions' share
of hostile kinds."""

from __future__ import annotations

from typing import Any


def per_function() -> dict[str, dict[str, Any]]:
    """Base calls a name alone does not give (the function's own example arguments)."""
    from moelaws import allocation, arch

    return {
        "allocation.config_for_ratio": {"base": arch.MoEConfig(
            n_layers=2, d_model=64, n_heads=4, head_dim=32, n_experts=16, top_k=2, n_shared=0,
            d_expert=64, vocab_size=100, context_length=64), "r": 2.0},
        "allocation.eq4_ratio": {"C": 1e20, "alpha_A": 2.0, "alpha_E": 3.0, "gamma_A": 0.5,
                                 "gamma_E": 0.3, "mu_A": 0.6, "mu_E": 0.7},
        "allocation.table12_config": {"row": allocation.read_table("leverage_table12").iloc[6]},
        "allocation.ratio_from_fraction": {"f": 0.5},
    }


KINDS_PER_PARAMETER: dict[str, int] = {  # measured seconds, as in the sweep's own list
    "allocation.loss_terms": 16,  # 0.003 s a call, 6 parameters
    "allocation.minimise_eq3": 9,  # 0.004 s a call, 7 parameters
}
