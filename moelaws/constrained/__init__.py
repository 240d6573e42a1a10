"""The memory/inference-constrained MoE design paper (Liew, Shinzato, Dong): laws and routine.

Modules: :mod:`~moelaws.constrained.law` (Eq. 1-4, App. C.2),
:mod:`~moelaws.constrained.design` (Algorithm 1, App. C.3),
:mod:`~moelaws.constrained.checks` (the paper against itself: App. C.3's Qwen3 example, Eq. 3 on
Table 7, App. C.4's rounding),
:mod:`~moelaws.constrained.chinchilla` (Eq. 5 and App. C.4's coefficients),
:mod:`~moelaws.constrained.tables` (Tables 4, 6, 7), :mod:`~moelaws.constrained.regression`
(Table 3's OLS analysis), :mod:`~moelaws.constrained.toy` (our toy-scale runs; imports torch
only when training).
"""

from moelaws.constrained.chinchilla import COEFFICIENTS, chinchilla_loss
from moelaws.constrained.design import (
    DEFAULT_EXPERTS,
    DEFAULT_GAMMAS,
    Design,
    candidates,
    continuous_optimal_experts,
    landscape,
    optimize,
    optimize_grid,
)
from moelaws.constrained.law import (
    EQ4_EXPONENTS,
    EXPONENTS,
    active_params,
    active_total_ratio,
    active_total_ratio_slope,
    eq4_exponents,
    implied_granularity,
    relative_loss,
    relative_loss_sparsity,
    total_params,
)
from moelaws.validation import guard_public

__all__ = [
    "COEFFICIENTS",
    "DEFAULT_EXPERTS",
    "DEFAULT_GAMMAS",
    "EQ4_EXPONENTS",
    "EXPONENTS",
    "Design",
    "active_params",
    "active_total_ratio",
    "active_total_ratio_slope",
    "candidates",
    "chinchilla_loss",
    "continuous_optimal_experts",
    "eq4_exponents",
    "implied_granularity",
    "landscape",
    "optimize",
    "optimize_grid",
    "relative_loss",
    "relative_loss_sparsity",
    "total_params",
]

# Numeric arguments of every public function are checked, and a non-finite result raises
# (moelaws.validation.public).
guard_public(globals(), __all__)
