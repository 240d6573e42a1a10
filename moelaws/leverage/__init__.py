"""Efficiency leverage of MoE language models (Tian et al. 2025, arXiv:2507.17702).

Modules: :mod:`~moelaws.leverage.law` (Eq. 1 and Eq. 4 with Table 6's coefficients, the
optimal granularity, the logarithm-base analysis), :mod:`~moelaws.leverage.budget` (Eq. 5
hyper-parameters, Table 5 allocation), :mod:`~moelaws.leverage.curves` (Algorithm 1: EL from
loss curves), :mod:`~moelaws.leverage.tables` (the transcribed Tables 2, 7 and 8-12),
:mod:`~moelaws.leverage.checks` (the paper's statements recomputed),
:mod:`~moelaws.leverage.recovery` (our parameter-recovery experiment for Eq. 4) and
:mod:`~moelaws.leverage.toy` (our toy-scale training runs; imports torch only to train).
"""

from moelaws.leverage.budget import (
    Allocation,
    budget_for_batch_size,
    budget_for_learning_rate,
    compute_optimal_allocation,
    compute_optimal_budget,
    optimal_batch_size,
    optimal_learning_rate,
)
from moelaws.leverage.curves import (
    LeverageResult,
    LossCurve,
    fit_loss_curve,
    leverage_from_loss_curves,
)
from moelaws.leverage.law import (
    LOG_BASE_C,
    LOG_BASE_G,
    TABLE6,
    activation_hat,
    efficiency_leverage,
    landscape,
    leverage_exponent,
    log_base_analysis,
    optimal_granularity,
)
from moelaws.validation import guard_public

__all__ = [
    "LOG_BASE_C",
    "LOG_BASE_G",
    "TABLE6",
    "Allocation",
    "LeverageResult",
    "LossCurve",
    "activation_hat",
    "budget_for_batch_size",
    "budget_for_learning_rate",
    "compute_optimal_allocation",
    "compute_optimal_budget",
    "efficiency_leverage",
    "fit_loss_curve",
    "landscape",
    "leverage_exponent",
    "leverage_from_loss_curves",
    "log_base_analysis",
    "optimal_batch_size",
    "optimal_granularity",
    "optimal_learning_rate",
]

# Numeric arguments of every public function are checked, and a non-finite result raises
# (moelaws.validation.public).
guard_public(globals(), __all__)
