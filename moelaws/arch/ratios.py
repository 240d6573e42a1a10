"""Ratios of a configuration that no paper owns: the share of experts active and the share of
the activated experts that are shared.

Each paper's own ratios (its granularity, its sparsity) live in its folder
(``moelaws/<paper>/counting.py``); :func:`moelaws.conventions.granularity` and
:func:`moelaws.conventions.sparsity` reach them by the paper's name through the registry.
"""

from __future__ import annotations

from moelaws.arch.config import MoEConfig
from moelaws.arch.hf_config import ConfigLike, accepts_hf_config


def check_moe(cfg: MoEConfig, what: str) -> None:
    """Raise a ValueError naming ``what`` for a dense configuration.

    Raises
    ------
    ValueError
        If ``cfg`` has no experts.
    """
    if not cfg.is_moe:
        raise ValueError(f"{what} is defined for MoE configurations only ({cfg.name} is dense)")


@accepts_hf_config
def activation_ratio(cfg: ConfigLike) -> float:
    """The share of experts active per token, A = (E_a + E_s) / (E + E_s), shared experts
    counted in both (the leverage paper's A, Sec. 2.1; 1 − the allocation paper's S).
    Dense models have A = 1.

    Parameters
    ----------
    cfg : MoEConfig or Hugging Face config (dict, path or directory)
    """
    if not cfg.is_moe:
        return 1.0
    return (cfg.top_k + cfg.n_shared) / (cfg.n_experts + cfg.n_shared)


@accepts_hf_config
def sharing_ratio(cfg: ConfigLike) -> float:
    """Shared share of the activated experts: E_s/(E_a + E_s) (leverage Sec. 2.1) = n_s/G
    (comprehensive Eq. 3) — the two papers' S coincide in formula.

    Parameters
    ----------
    cfg : MoEConfig or Hugging Face config (dict, path or directory)

    Raises
    ------
    ValueError
        For a dense configuration.
    """
    check_moe(cfg, "sharing ratio")
    return cfg.n_shared / (cfg.top_k + cfg.n_shared)
