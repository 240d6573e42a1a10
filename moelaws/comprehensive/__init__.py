"""The comprehensive MoE scaling law L(N, D, N_a, G, S) (anonymous, under review): the law, its
building blocks and its counting rules (Eq. 2-3, :mod:`.law`), its optima (:mod:`.optima`),
the two competing laws it is compared with (:mod:`.baselines`), the paper's tables
(:mod:`.tables`, :mod:`.transcribe`), Table 2's rounding against Table 4 (:mod:`.checks`),
interactive views (:mod:`.views`) and our synthetic parameter-recovery experiment
(:mod:`.recovery`); import the last three modules directly."""

from moelaws.comprehensive.baselines import loss_abnar, loss_krajewski
from moelaws.comprehensive.law import (
    CONSTANT_NAMES,
    active_params_eq2,
    constants,
    loss,
    loss_g_marginal,
    loss_na_marginal,
    loss_nd,
    loss_nd_na,
    loss_nd_na_g,
    loss_s_marginal,
    marginal_coefficients,
    read_constants,
    size_factor,
    size_factor_elasticities,
    structure_factor,
    table2,
    total_params_eq3,
    uv_routed_factor,
)
from moelaws.comprehensive.optima import (
    compute_optimal_active,
    compute_optimal_asymptote,
    compute_optimal_loss,
    compute_optimal_loss_eq32,
    efficiency_aware_active_ratio,
    fit_compute_optimal_power_law,
    optimal_active_ratio,
    optimal_G,
    optimal_S,
    practical_G_range,
    practical_S_range,
    structure_cost,
)
from moelaws.comprehensive.tables import (
    APPENDIX_H_BASE,
    appendix_h_sweep,
    appendix_h_u,
    industrial_models,
    read_table,
    table1_counts,
    table8,
)
from moelaws.validation import guard_public

__all__ = [
    "APPENDIX_H_BASE",
    "CONSTANT_NAMES",
    "active_params_eq2",
    "appendix_h_sweep",
    "appendix_h_u",
    "compute_optimal_active",
    "compute_optimal_asymptote",
    "compute_optimal_loss",
    "compute_optimal_loss_eq32",
    "constants",
    "efficiency_aware_active_ratio",
    "fit_compute_optimal_power_law",
    "industrial_models",
    "loss",
    "loss_abnar",
    "loss_g_marginal",
    "loss_krajewski",
    "loss_na_marginal",
    "loss_nd",
    "loss_nd_na",
    "loss_nd_na_g",
    "loss_s_marginal",
    "marginal_coefficients",
    "optimal_G",
    "optimal_S",
    "optimal_active_ratio",
    "practical_G_range",
    "practical_S_range",
    "read_constants",
    "read_table",
    "size_factor",
    "size_factor_elasticities",
    "structure_cost",
    "structure_factor",
    "table1_counts",
    "table2",
    "table8",
    "total_params_eq3",
    "uv_routed_factor",
]

# Numeric arguments of every public function are checked, and a non-finite result raises
# (moelaws.validation.public).
guard_public(globals(), __all__)
