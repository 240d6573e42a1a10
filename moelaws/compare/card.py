"""The five papers' conventions on one card: how each counts N, N_a and compute, and what its
G, S and r mean, with the values each gives one configuration."""

from __future__ import annotations

import math

import pandas as pd

from moelaws import arch
from moelaws.arch import MoEConfig
from moelaws.compare.regimes import PAPERS

DEFINITIONS: dict[str, dict[str, str]] = {
    "leverage": {
        "N, N_a": "weight matrices (App. I defines only FLOPs)",
        "compute C": "M·D, M = 3 x App. I forward FLOPs, non-embedding",
        "G": "2·d_model/d_expert",
        "S": "E_s/(E_a + E_s), shared share of active experts",
        "r / sparsity": "A = (E_a + E_s)/(E + E_s)",
    },
    "holistic": {
        "N, N_a": "App. A Eq. 10-12, non-embedding",
        "compute C": "M·D, M = 6·N_a + 6·S·N_q·d_qkv·L",
        "G": "(not a variable: N_e = 288, K = 8 fixed)",
        "S": "sequence length (8192 in the paper; the model's context here)",
        "r / sparsity": "fixed K/N_e = 8/288",
    },
    "comprehensive": {
        "N, N_a": "Eq. 2-3: (4·d_head·n_h + 3·G·d_e)·d·l",
        "compute C": "D·N_a (parameter-tokens, not FLOPs)",
        "G": "n_k + n_s, activated experts",
        "S": "n_s/G (same formula as leverage's S)",
        "r / sparsity": "N_a/N",
    },
    "constrained": {
        "N, N_a": "Eq. 1-2: l·d²·(4 + 3·n/g)",
        "compute C": "none (tokens fixed at 9B)",
        "G": "g = d/d_exp (fixed at 4)",
        "S": "(s) sparsity n_exp/n_topk",
        "r / sparsity": "s = n_exp/n_topk",
    },
    "allocation": {
        "N, N_a": "weight matrices (App. C defines only FLOPs)",
        "compute C": "training FLOPs (3 x App. C forward x D)",
        "G": "-",
        "S": "sparsity (E − E_act)/E, shared in both",
        "r / sparsity": "r = C_E/C_A, App. C forward FLOPs",
    },
}
"""What each paper means by each quantity (text; the values come from :mod:`moelaws.arch`)."""


def _values(cfg: MoEConfig, paper: str) -> dict[str, float]:
    # Each paper's arch convention carries the paper's own name.
    c = arch.counts(cfg, paper)
    nan = math.nan
    g = {"leverage": arch.granularity(cfg, "leverage"),
         "comprehensive": arch.granularity(cfg, "comprehensive"),
         "constrained": arch.granularity(cfg, "constrained")}.get(paper, nan)
    s = {"leverage": arch.sharing_ratio(cfg), "comprehensive": arch.sharing_ratio(cfg),
         "holistic": float(cfg.context_length), "constrained": arch.sparsity(cfg, "constrained"),
         "allocation": arch.sparsity(cfg, "allocation")}[paper]
    r = {"leverage": arch.activation_ratio(cfg), "comprehensive": c.active / c.total,
         "constrained": arch.sparsity(cfg, "constrained"),
         "allocation": arch.expert_attention_ratio(cfg),
         "holistic": cfg.top_k / cfg.n_experts}[paper]
    return {"N (B)": c.total / 1e9, "N_a (B)": c.active / 1e9,
            "C/D per token (G)": c.compute_per_token / 1e9, "G value": g, "S value": s,
            "r / sparsity value": r}


def convention_card(cfg: MoEConfig) -> pd.DataFrame:
    """One row per paper: its definitions of N, N_a, C, G, S and its sparsity-like ratio, and
    the values they give ``cfg`` (non-embedding counts in billions; ``C/D per token`` in
    GFLOPs, or in G parameters for the comprehensive paper's C = D·N_a).

    Raises
    ------
    ValueError
        For a dense configuration.
    """
    if not cfg.is_moe:
        raise ValueError(f"{cfg.name} is dense: the card compares MoE conventions")
    rows = [{"paper": p, **DEFINITIONS[p], **_values(cfg, p)} for p in PAPERS]
    return pd.DataFrame(rows).set_index("paper")


__all__ = ["DEFINITIONS", "convention_card"]
