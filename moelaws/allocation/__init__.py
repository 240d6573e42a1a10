"""Expert-attention allocation in MoE (Li et al. 2026): the r*(C, S) law and its checks.

Modules: :mod:`~moelaws.allocation.law` (Eq. 1 and the Section 3.3 coefficient laws),
:mod:`~moelaws.allocation.derivation` (App. A: Eq. 3, the optimality condition, Eq. 4),
:mod:`~moelaws.allocation.extended_loss` (Eq. 2 with Table 1), :mod:`~moelaws.allocation.design`
(App. C FLOPs split and configurations with a chosen r), :mod:`~moelaws.allocation.checks`
(App. B.1, Table 2, the leverage paper's Table 12 and Eq. 5), :mod:`~moelaws.allocation.tables`
(Tables 1 and 2 and the leverage paper's Table 12, as transcribed), :mod:`~moelaws.allocation.toy`
(our toy-scale sweep; imports torch only when regenerating).
"""

from moelaws.allocation.checks import (
    attention_share_at_optimum,
    compute_for_batch,
    compute_for_eta,
    hyperparameter_check,
    leverage_batch_opt,
    leverage_eta_opt,
    table12_config,
    table12_flops,
)
from moelaws.allocation.derivation import (
    capacity_parameters_for_eq4,
    elasticities,
    eq3_loss,
    eq4_coefficients,
    eq4_ratio,
    local_exponent,
    minimise_eq3,
    optimality_gap,
    solve_optimality,
    symbolic_check,
)
from moelaws.allocation.design import config_for_ratio, flops_split
from moelaws.allocation.extended_loss import (
    READINGS,
    deviation,
    loss,
    loss_terms,
    range_minimum,
    uniform_loss,
)
from moelaws.allocation.law import (
    EXPERT_COUNTS,
    SWEPT_RATIOS,
    alpha_r,
    beta_r,
    compute_for_ratio,
    crossover_compute,
    crossover_compute_draws,
    expert_fraction,
    least_ratio_sparsity,
    least_ratio_threshold,
    optimal_ratio,
    optimal_ratio_draws,
    ratio_from_fraction,
    rounding_draws,
    sparsity_from_experts,
)
from moelaws.allocation.tables import TABLES, read_table
from moelaws.validation import guard_public

__all__ = [
    "EXPERT_COUNTS",
    "READINGS",
    "SWEPT_RATIOS",
    "TABLES",
    "alpha_r",
    "attention_share_at_optimum",
    "beta_r",
    "capacity_parameters_for_eq4",
    "compute_for_batch",
    "compute_for_eta",
    "compute_for_ratio",
    "config_for_ratio",
    "crossover_compute",
    "crossover_compute_draws",
    "deviation",
    "elasticities",
    "eq3_loss",
    "eq4_coefficients",
    "eq4_ratio",
    "expert_fraction",
    "flops_split",
    "hyperparameter_check",
    "least_ratio_sparsity",
    "least_ratio_threshold",
    "leverage_batch_opt",
    "leverage_eta_opt",
    "local_exponent",
    "loss",
    "loss_terms",
    "minimise_eq3",
    "optimal_ratio",
    "optimal_ratio_draws",
    "optimality_gap",
    "range_minimum",
    "ratio_from_fraction",
    "read_table",
    "rounding_draws",
    "solve_optimality",
    "sparsity_from_experts",
    "symbolic_check",
    "table12_config",
    "table12_flops",
    "uniform_loss",
]

# Numeric arguments of every public function are checked, and a non-finite result raises
# (moelaws.validation.public).
guard_public(globals(), __all__)
