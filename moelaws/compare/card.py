"""The five papers' conventions on one card: how each counts N, N_a and compute, and what its
G, S and r mean, with the values each gives one configuration.

The definitions and the G, S, r values are each paper's ``card`` role (:mod:`moelaws.papers`);
the counts come from the paper's convention in :mod:`moelaws.arch`.
"""

from __future__ import annotations

import pandas as pd

from moelaws import papers
from moelaws.arch import MoEConfig
from moelaws.arch.hf_config import ConfigLike, accepts_hf_config


def _values(cfg: MoEConfig, paper: papers.Paper) -> dict[str, float]:
    c = paper.convention.count(cfg)
    return {"N (B)": c.total / 1e9, "N_a (B)": c.active / 1e9,
            "C/D per token (G)": c.compute_per_token / 1e9, **paper.card.values(cfg)}


@accepts_hf_config
def convention_card(cfg: ConfigLike) -> pd.DataFrame:
    """One row per paper: its definitions of N, N_a, C, G, S and its sparsity-like ratio, and
    the values they give ``cfg`` (non-embedding counts in billions; ``C/D per token`` in
    GFLOPs, or in G parameters for the comprehensive paper's C = D·N_a).

    Parameters
    ----------
    cfg : MoEConfig or Hugging Face config (dict, path or directory)

    Raises
    ------
    ValueError
        For a dense configuration.
    """
    if not cfg.is_moe:
        raise ValueError(f"{cfg.name} is dense: the card compares MoE conventions")
    rows = [{"paper": p.id, **p.card.definitions, **_values(cfg, p)}
            for p in papers.having("card")]
    return pd.DataFrame(rows).set_index("paper")


__all__ = ["convention_card"]
