"""Checks of the leverage paper's statements against its own tables and laws.

Each function computes, from the transcribed tables and the laws, a quantity the text states;
the claims registry (:mod:`moelaws.leverage.claims`) and the chapter use them.
"""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np
import pandas as pd

from moelaws import arch
from moelaws.leverage.budget import (
    TABLE5,
    budget_for_batch_size,
    budget_for_learning_rate,
    compute_optimal_allocation,
    optimal_batch_size,
    optimal_learning_rate,
)
from moelaws.leverage.counting import granularity
from moelaws.leverage.law import efficiency_leverage
from moelaws.leverage.tables import app_i_flops, configs, metrics, model_scale, to_config

HEADLINE = {"A": 0.031, "G": 12.0, "C": 1e22}
"""Sec. 1 and Sec. 4.2.3: "an EL exceeding 7x ... at 1e22 FLOPs with an activation ratio of
3.1 % and a granularity of 12"."""


@lru_cache(maxsize=1)
def all_metrics() -> pd.DataFrame:
    """:func:`moelaws.leverage.tables.metrics` of Tables 8-12, computed once."""
    return metrics()


def table_metrics(table: int) -> pd.DataFrame:
    """The metrics of one of Tables 8-12 (a copy)."""
    m = all_metrics()
    return m[m["table"] == table].reset_index(drop=True).copy()


def moe_mini() -> dict[str, float]:
    """MoE-mini and Dense-6.1B (Table 1 presets): ratios, counts, FLOPs and Eq. 4 predictions.

    ``A`` is Sec. 2.1's (E_a + E_s)/(E + E_s), ``A_routed`` is E_a/E; ``G`` is 2·d/d_expert.
    ``EL_*`` are Eq. 4 at 1e22 FLOPs for: the config (A, G), the config's routed A with its G,
    and the values the text states in Sec. 5 (A = 3.4 %, G = 12).
    """
    moe, dense = arch.preset("MoE-mini"), arch.preset("Dense-6.1B")
    A = arch.activation_ratio(moe)
    A_routed = moe.top_k / moe.n_experts
    G = granularity(moe)
    C = HEADLINE["C"]
    return {
        "A": A,
        "A_routed": A_routed,
        "G": G,
        "N_a": arch.active_params(moe),
        "N_a_dense": arch.active_params(dense),
        "active_ratio": arch.active_params(moe) / arch.active_params(dense),
        "M": model_scale(moe),
        "M_dense": model_scale(dense),
        "M_ratio": model_scale(dense) / model_scale(moe),
        "EL_config": float(efficiency_leverage(A, G, C)),
        "EL_config_routed": float(efficiency_leverage(A_routed, G, C)),
        "EL_text": float(efficiency_leverage(0.034, 12.0, C)),
    }


def _score_flops(cfg: arch.MoEConfig) -> float:
    """Eq. 10's attention-score term per token, ``4·s·d`` per layer (App. I)."""
    return 4.0 * cfg.context_length * cfg.d_model * cfg.n_layers


def moe_mini_flops() -> pd.DataFrame:
    """Forward FLOPs per token of MoE-mini and Dense-6.1B by App. I (Eq. 10-12), split.

    Eq. 10 per token and layer is ``2·d²·(1 + 2·n_kv/n_h)`` for the projections plus
    ``4·s·d`` for the attention scores over the ``s = 4096``-token context; the scores grow
    with ``d``, not ``d²``, so they weigh more in the narrower model. This is why Sec. 5's
    "training costs ... more than seven times" fails under App. I while the active-parameter
    ratio exceeds 7.

    Returns
    -------
    pandas.DataFrame
        One row per model (``MoE-mini``, ``Dense-6.1B``) and a ``dense / MoE`` row:
        ``attention``, ``scores`` (its ``4·s·d·L`` part), ``ffn`` (GFLOPs per token, forward,
        non-embedding), ``attention share`` (of attention + FFN), ``M`` (non-embedding
        training GFLOPs per token, 3 x forward), ``M, logits`` (the same with the logit
        projection, as App. I's Eq. 12 counts it) and ``N_a`` (billions, our exact count).
    """
    rows = {}
    for name in ("MoE-mini", "Dense-6.1B"):
        cfg = arch.preset(name)
        f = app_i_flops(cfg)
        rows[name] = {
            "attention": f["attention"] / 1e9,
            "scores": _score_flops(cfg) / 1e9,
            "ffn": f["ffn"] / 1e9,
            "attention share": f["attention"] / (f["attention"] + f["ffn"]),
            "M": model_scale(cfg) / 1e9,
            "M, logits": 3.0 * sum(f.values()) / 1e9,
            "N_a": arch.active_params(cfg) / 1e9,
        }
    table = pd.DataFrame(rows).T
    table.loc["dense / MoE"] = table.loc["Dense-6.1B"] / table.loc["MoE-mini"]
    return table


MINI_TOKENS = 1e12
"""MoE-mini and Dense-6.1B were each trained on 1T tokens (abstract, Sec. 5)."""

MINI_READINGS = ("Sec. 2.1 A", "E_a/E", "(E_a+E_s)/E", "Sec. 5 text (3.4 %, 12)")
"""The readings of MoE-mini's activation ratio (and granularity) :func:`moe_mini_budgets`
compares: the paper defines one (Sec. 2.1) and quotes numbers that fit the others."""


def moe_mini_budgets() -> pd.DataFrame:
    """Eq. 4 for MoE-mini at the compute it was trained with, not only at the nominal 1e22.

    MoE-mini's training compute is App. I's non-embedding FLOPs per token (Eq. 10-12, M)
    times its 1T tokens. For each reading of its activation ratio (:data:`MINI_READINGS`)
    returns ``A``, ``G``, EL at the nominal 1e22 and at the trained compute, and the compute
    at which Eq. 4 reaches EL = 7 (root of Eq. 4 in log10 C, bracketed within the law's
    warning-free range). ``trained C, logits`` and ``EL at trained C, logits`` count the
    logit projection too, as App. I's Eq. 12 does (3 x its 2 d V forward FLOPs per token).
    """
    from scipy.optimize import brentq

    moe = arch.preset("MoE-mini")
    G = granularity(moe)
    trained = model_scale(moe) * MINI_TOKENS
    trained_logits = trained + 3.0 * app_i_flops(moe)["logits"] * MINI_TOKENS
    readings = {
        "Sec. 2.1 A": (arch.activation_ratio(moe), G),
        "E_a/E": (moe.top_k / moe.n_experts, G),
        "(E_a+E_s)/E": ((moe.top_k + moe.n_shared) / moe.n_experts, G),
        "Sec. 5 text (3.4 %, 12)": (0.034, 12.0),
    }
    rows = {}
    for name, (A, g) in readings.items():
        el7 = brentq(lambda lc, A=A, g=g: float(efficiency_leverage(A, g, 10**lc)) - 7, 18, 26)
        rows[name] = {"A": A, "G": g, "EL at 1e22": float(efficiency_leverage(A, g, 1e22)),
                      "EL at trained C": float(efficiency_leverage(A, g, trained)),
                      "EL at trained C, logits": float(efficiency_leverage(A, g,
                                                                          trained_logits)),
                      "C for EL = 7": 10**el7, "trained C": trained,
                      "trained C, logits": trained_logits}
    return pd.DataFrame(rows).T


ATTENTION_READINGS = ("all forward FLOPs", "non-embedding FLOPs", "projections as printed",
                      "projections, usual count")
"""The readings of attention's share :func:`attention_share_readings` computes."""


def attention_share_readings(table: int = 12) -> pd.DataFrame:
    """Attention's share of one table's FLOPs under four readings (App. F.4's "20 %-50 %").

    Per configuration of Tables 8-12 (``table``), from App. I's forward FLOPs per token
    (:func:`~moelaws.leverage.tables.app_i_flops`): attention over everything (logits
    included, as App. I counts), over the non-embedding FLOPs (attention + FFN), Eq. 10's
    projections alone (the score term ``4·s·d`` left out) over projections + FFN, and the
    same with the projections priced the usual way, ``4·d·(n_h·d_h)·(1 + n_kv/n_h)`` per
    layer (Q, K, V and O at two FLOPs per multiply-add; App. I prints
    ``2·d·(n_h·d_h)·(1 + 2·n_kv/n_h)``). Returns one row per reading, indexed
    :data:`ATTENTION_READINGS` in that order, with its ``min`` and ``max`` over the table's
    rows.

    Raises
    ------
    ValueError
        If ``table`` is not one of Tables 8-12.
    """
    metrics = table_metrics(table)
    projections: dict[str, list[float]] = {name: [] for name in ATTENTION_READINGS[2:]}
    for _, row in configs(table).iterrows():
        cfg = to_config(row)
        fwd = app_i_flops(cfg)
        q_width = cfg.n_heads * cfg.attn_head_dim
        printed = fwd["attention"] - _score_flops(cfg)
        usual = cfg.n_layers * 4.0 * cfg.d_model * q_width * (1 + cfg.kv_heads / cfg.n_heads)
        for name, value in zip(ATTENTION_READINGS[2:], (printed / (printed + fwd["ffn"]),
                                                        usual / (usual + fwd["ffn"])), strict=True):
            projections[name].append(value)
    # The first two readings are table_metrics' attention shares (the same App. I FLOPs).
    shares = {ATTENTION_READINGS[0]: list(metrics["attn_share"]),
              ATTENTION_READINGS[1]: list(metrics["attn_share_nonemb"]), **projections}
    return pd.DataFrame({name: {"min": min(v), "max": max(v)} for name, v in shares.items()}).T


def table10_sharing_leverage(activation: str = "A") -> pd.Series:
    """Eq. 4's EL for Table 10's shared-expert series at its largest budget, per row.

    ``activation``: ``"A"`` (Sec. 2.1's ratio, nearly constant across the series) or
    ``"A_routed"`` (E_a/E, which falls as experts move from routed to shared), indexed by the
    shared ratio S = E_s/(E_a + E_s).
    """
    m = table_metrics(10)
    top = m[m["C_max"] == m["C_max"].max()]
    el = efficiency_leverage(top[activation], top["G"], top["C_max"])
    return pd.Series(np.asarray(el, dtype=float), index=top["S"].round(3).to_numpy(),
                     name=f"EL ({activation})")


def dense_limit(C: float = 1e22, G: float = 2.0) -> float:
    """Eq. 4 at A = 1 (a dense model), which Sec. 4.2.1 says is exactly 1."""
    return float(efficiency_leverage(1.0, G, C))


def residual_sd_from_rmse(
    train_rmse: float = 0.2169,
    n_train: int = 200,
    val_rmse: float = 0.5275,
    n_val: int = 24,
    mean: float = -0.0273,
    ddof: int = 1,
) -> float:
    """The standard deviation of all residuals implied by the printed train and validation
    RMSEs and residual mean (Sec. 4.2.3): ``sqrt((Σr² − n·mean²)/(n − ddof))``."""
    if min(train_rmse, val_rmse) < 0 or min(n_train, n_val) < 1:
        raise ValueError("RMSEs must be non-negative and counts positive")
    n = n_train + n_val
    sum_sq = n_train * train_rmse**2 + n_val * val_rmse**2
    return math.sqrt((sum_sq - n * mean**2) / (n - ddof))


def table5() -> pd.DataFrame:
    """Table 5's internal consistency: C = M_opt·D_opt needs the coefficients to multiply to
    1 and the exponents to add up to 1; also the bound on that product from the printed
    rounding of the coefficients."""
    rows = []
    for family, law in TABLE5.items():
        (km, em), (kd, ed) = law["M"], law["D"]
        rows.append(
            {
                "family": family,
                "coefficient product": km * kd,
                "exponent sum": em + ed,
                "rounding bound": 0.5e-4 / km + 0.5e-4 / kd,
            }
        )
    return pd.DataFrame(rows).set_index("family")


def allocation_ratio(C: float, quantity: str) -> float:
    """MoE over dense compute-optimal ``quantity`` (``"M"`` or ``"D"``) at budget ``C``."""
    if quantity not in ("M", "D"):
        raise ValueError("quantity must be 'M' or 'D'")
    moe = compute_optimal_allocation(C, "moe")
    dense = compute_optimal_allocation(C, "dense")
    return float(getattr(moe, quantity) / getattr(dense, quantity))


def hyperparameters() -> pd.DataFrame:
    """Printed η and B of Tables 8-12 per group vs Eq. 5 at the group's max training FLOPs,
    and the budgets at which Eq. 5 gives the printed values."""
    cfg = configs()
    groups = cfg.groupby(["table", "group"]).first().reset_index()
    out = groups[["table", "group", "d_model", "eta", "B", "max_training_flops"]].copy()
    C = groups["C_max"].to_numpy()
    out["eta (Eq. 5 at C_max)"] = optimal_learning_rate(C)
    out["B (Eq. 5 at C_max, sequences)"] = optimal_batch_size(C, unit="sequences")
    out["C from eta / C_max"] = budget_for_learning_rate(groups["eta_value"]) / C
    out["C from B / C_max"] = budget_for_batch_size(groups["B"], unit="sequences") / C
    return out


def hyperparameter(table: int, group: int, which: str) -> float:
    """Eq. 5's η or B (in sequences) at the max training FLOPs of one table group.

    Raises
    ------
    ValueError
        If ``which`` is not ``"eta"`` or ``"B"`` or the group does not exist.
    """
    if which not in ("eta", "B"):
        raise ValueError("which must be 'eta' or 'B'")
    cfg = configs(table)
    rows = cfg[cfg["group"] == group]
    if rows.empty:
        raise ValueError(f"Table {table} has no group {group}")
    C = float(rows["C_max"].iloc[0])
    if which == "eta":
        return float(optimal_learning_rate(C))
    return float(optimal_batch_size(C, unit="sequences"))


def spread(table: int, column: str, *, exclude: tuple[tuple[int, int], ...] = ()) -> float:
    """Largest within-group relative spread, (max − min)/mean, of ``column`` in a table;
    ``exclude`` lists (group, row) pairs to leave out."""
    m = table_metrics(table)
    for group, row in exclude:
        m = m[~((m["group"] == group) & (m["row"] == row))]
    g = m.groupby("group")[column]
    return float(((g.max() - g.min()) / g.mean()).max())


def max_el_at_trained_budgets(activation: str = "A") -> float:
    """Largest Eq. 4 EL over the MoE configurations of Tables 8-10 at their max training
    FLOPs (``activation``: ``"A"`` for Sec. 2.1's ratio, ``"A_routed"`` for E_a/E)."""
    m = all_metrics()
    m = m[m["table"].isin([8, 9, 10]) & (m["A"] < 1)]
    return float(np.max(efficiency_leverage(m[activation], m["G"], m["C_max"])))
