"""Holistic MoE scaling laws (Wan et al., arXiv:2603.21862): the (M, N_a, N) constraints.

Modules: :mod:`~moelaws.holistic.law` (Eq. 2-5), :mod:`~moelaws.holistic.feasible` (the
feasible hidden sizes, Fig. 3, the median-d proxy), :mod:`~moelaws.holistic.design` (Sec. 7:
budget -> architecture), :mod:`~moelaws.holistic.tables` (the transcribed tables),
:mod:`~moelaws.holistic.checks` (the paper's statements against its own tables and laws),
:mod:`~moelaws.holistic.fits` (our power-law fits of Fig. 5b and Fig. 6b) and
:mod:`~moelaws.holistic.transcribe` (the parser that produced the appendix CSV).
"""

from moelaws.holistic.design import (
    DESIGN_DOMAIN,
    Design,
    chosen_n_over_na,
    design,
    design_report,
    optimal_m_over_na,
)
from moelaws.holistic.feasible import (
    FeasibleRange,
    LayerSolution,
    feasible_d_range,
    hidden_size,
    median_d,
    solve_layers,
)
from moelaws.holistic.law import (
    DENSE_RATIO,
    N_EXPERTS,
    SEQ_LEN,
    TOP_K,
    VOCAB_SIZE,
    HeadSettings,
    HolisticCounts,
    ResourceRatios,
    coordinates_from_shares,
    counts,
    counts_from_ratios,
    head_settings,
    normalised_coordinates,
    optimal_flops_per_token,
    optimal_tokens,
    ratio_bounds,
    resource_ratios,
    table4_heads,
)
from moelaws.validation import guard_public

__all__ = [
    "DENSE_RATIO",
    "DESIGN_DOMAIN",
    "N_EXPERTS",
    "SEQ_LEN",
    "TOP_K",
    "VOCAB_SIZE",
    "Design",
    "FeasibleRange",
    "HeadSettings",
    "HolisticCounts",
    "LayerSolution",
    "ResourceRatios",
    "chosen_n_over_na",
    "coordinates_from_shares",
    "counts",
    "counts_from_ratios",
    "design",
    "design_report",
    "feasible_d_range",
    "head_settings",
    "hidden_size",
    "median_d",
    "normalised_coordinates",
    "optimal_flops_per_token",
    "optimal_m_over_na",
    "optimal_tokens",
    "ratio_bounds",
    "resource_ratios",
    "solve_layers",
    "table4_heads",
]

# Numeric arguments of every public function are checked, and a non-finite result raises
# (moelaws.validation.public).
guard_public(globals(), __all__)
