"""How the memory/inference-constrained paper counts a configuration: Eq. 1-2's N_total and
N_active, and Sec. 1's granularity g = d/d_exp and sparsity s = n_exp/n_topk (its adapter's
roles ``convention``, ``granularity`` and ``sparsity``).
"""

from __future__ import annotations

import math

from moelaws.arch.config import MoEConfig
from moelaws.arch.counting import Counts, embedding_params
from moelaws.arch.hf_config import ConfigLike, accepts_hf_config
from moelaws.arch.ratios import check_moe
from moelaws.constrained.law import active_params, total_params

CONVENTION = "constrained"
"""The convention's name in :func:`moelaws.conventions.counts` (the paper's id)."""


def constrained_counts(cfg: MoEConfig) -> Counts:
    """Memory/inference-constrained paper, Eq. 1-2: N ≈ l·d²·(4 + 3·n/g), g = d/d_exp.

    The MoE layers are counted by the law itself (:func:`moelaws.constrained.law.total_params`
    and :func:`~moelaws.constrained.law.active_params`). Generalisations: shared experts count
    as experts that are always active (in both totals: ``n_exp + n_shared`` and
    ``n_topk + n_shared``); leading dense layers, which Eq. 1-2 do not have, contribute
    4·d² + 3·d·d_ffn. The counts are integers: the law's floating-point value (g = d/d_exp is
    not exact in binary for every width) is rounded to the integer it approximates, far within
    0.5 at these sizes. The paper defines no compute (NaN).
    """
    d = cfg.d_model
    dense = cfg.n_ffn_dense_layers * (4 * d * d + 3 * d * cfg.d_ff)
    total = active = dense
    if cfg.n_moe_layers:
        l, g = cfg.n_moe_layers, d / cfg.d_expert  # noqa: E741 (the paper's symbol for depth)
        total += round(float(total_params(l, d, cfg.n_experts + cfg.n_shared, g)))
        active += round(float(active_params(l, d, cfg.top_k + cfg.n_shared, g)))
    nan = math.nan
    return Counts(CONVENTION, total, active, embedding_params(cfg), nan, nan, nan, nan)


@accepts_hf_config
def granularity(cfg: ConfigLike) -> float:
    """Sec. 1's granularity g = d/d_exp.

    Parameters
    ----------
    cfg : MoEConfig or Hugging Face config (dict, path or directory)

    Raises
    ------
    ValueError
        For a dense configuration.
    """
    check_moe(cfg, "granularity")
    return cfg.d_model / cfg.d_expert


@accepts_hf_config
def sparsity(cfg: ConfigLike) -> float:
    """Sec. 1's sparsity s = n_exp/n_topk (routed experts), a ratio ≥ 1.

    Parameters
    ----------
    cfg : MoEConfig or Hugging Face config (dict, path or directory)

    Raises
    ------
    ValueError
        For a dense configuration.
    """
    check_moe(cfg, "sparsity")
    return cfg.n_experts / cfg.top_k


__all__ = ["CONVENTION", "constrained_counts", "granularity", "sparsity"]

from moelaws.validation import guard_public  # noqa: E402

guard_public(globals(), __all__)
