"""The paper's setup (App. B.1, Table 2) and its cross-check against the leverage paper.

The allocation paper and the efficiency-leverage paper (Tian et al. 2025) share authors. The
allocation paper's Table 2 (layers, heads, batch size, learning rate per "activated
parameter" label) matches the leverage paper's Table 12, which lists the configurations of
its own attention/FFN compute-allocation study: 64 routed experts, 1 shared, 2 routed active
(E = 65, S = 95.38 %, one of the allocation paper's four sparsities), per-token compute fixed
within a group while d_model and d_expert trade off. Table 12 is transcribed in
``moelaws/data/allocation/leverage_table12.csv`` (see the README there) and gives the only
concrete architectures behind the allocation paper's labels.

The leverage paper's Eq. 5 gives the compute-optimal hyper-parameters
``η_opt = 1.1576·C^−0.1529`` and ``B_opt = 0.0694·C^0.3644`` (B in tokens; the search grid ran
over 2^18 to 2^21 tokens). They are implemented here, rather than imported from
``moelaws.leverage``, so that this chapter depends on nothing but the printed formula.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache

import numpy as np
import pandas as pd

from moelaws.allocation._domain import Array, check_compute
from moelaws.allocation.counting import allocation_counts
from moelaws.allocation.design import flops_split
from moelaws.allocation.law import compute_for_ratio, optimal_ratio
from moelaws.allocation.tables import read_table
from moelaws.arch import MoEConfig
from moelaws.validation import positive

LEVERAGE_ETA = (1.1576, -0.1529)
"""Leverage paper, App. E.1 Eq. 5: η_opt = 1.1576·C^−0.1529 (C in training FLOPs)."""
LEVERAGE_BATCH = (0.0694, 0.3644)
"""Leverage paper, App. E.1 Eq. 5: B_opt = 0.0694·C^0.3644 (tokens)."""
CONTEXT_LENGTH = 4096
"""App. B.1 (and the leverage paper's App. D): training sequence length."""
VOCAB_SIZE = 128_000
"""App. B.1: "128k" (the leverage paper's tokenizer has 126,464 entries)."""
LEVERAGE_VOCAB_SIZE = 126_464
MAX_TRAINING_FLOPS = 1e21
"""App. B.1: the largest training compute of the experiments."""


def leverage_eta_opt(C: Array) -> np.ndarray:
    """Leverage paper Eq. 5: compute-optimal peak learning rate ``1.1576·C^−0.1529``.

    Raises
    ------
    ValueError
        If ``C`` is not finite and positive.
    """
    coef, exp = LEVERAGE_ETA
    return coef * check_compute(C) ** exp


def leverage_batch_opt(C: Array) -> np.ndarray:
    """Leverage paper Eq. 5: compute-optimal batch size in tokens, ``0.0694·C^0.3644``.

    Raises
    ------
    ValueError
        If ``C`` is not finite and positive.
    """
    coef, exp = LEVERAGE_BATCH
    return coef * check_compute(C) ** exp


def compute_for_eta(eta: Array) -> np.ndarray:
    """Training compute at which leverage Eq. 5 prescribes learning rate ``eta``.

    Raises
    ------
    ValueError
        If ``eta`` is not finite and positive.
    """
    coef, exp = LEVERAGE_ETA
    return (positive("learning rate", eta) / coef) ** (1.0 / exp)


def compute_for_batch(tokens: Array) -> np.ndarray:
    """Training compute at which leverage Eq. 5 prescribes a batch of ``tokens`` tokens.

    Raises
    ------
    ValueError
        If ``tokens`` is not finite and positive.
    """
    coef, exp = LEVERAGE_BATCH
    return (positive("batch size (tokens)", tokens) / coef) ** (1.0 / exp)


def table12_config(row, vocab_size: int = LEVERAGE_VOCAB_SIZE) -> MoEConfig:
    """The :class:`~moelaws.arch.MoEConfig` of one row of ``read_table("leverage_table12")``.

    E routed experts plus E_s shared ones of the same width, E_a routed active, GQA with the
    printed key/value heads, context 4096.

    Raises
    ------
    TypeError
        If ``row`` is not a row (a pandas Series or a mapping) of that table.
    """
    if not isinstance(row, (pd.Series, Mapping)):
        raise TypeError(f"row must be a row of leverage_table12 (a pandas Series or a "
                        f"mapping), not {type(row).__name__}")
    return MoEConfig(
        n_layers=int(row["n_layers"]), d_model=int(row["d_model"]), n_heads=int(row["n_heads"]),
        n_kv_heads=int(row["n_kv_heads"]), n_experts=int(row["E"]), top_k=int(row["E_a"]),
        n_shared=int(row["E_s"]), d_expert=int(row["d_expert"]), vocab_size=vocab_size,
        context_length=CONTEXT_LENGTH,
        name=f"group {int(row['group'])} d={int(row['d_model'])}",
        source="Tian et al. (2025), Table 12",
    )


def value_application_as_printed(cfg: MoEConfig) -> float:
    """App. C attention FLOPs per token with the value-application term read as printed.

    App. C prints ``2·n_ctx·d²`` per sequence for applying attention weights to values, i.e.
    ``2·d²`` per token (a projection-like cost), where ``arch`` reads ``2·n_ctx·d`` per token
    (the cost of the attention weights). The chapter checks which reading keeps the leverage
    Table 12 groups at fixed per-token compute.
    """
    c = allocation_counts(cfg)
    q_width = cfg.n_heads * cfg.attn_head_dim
    arch_term = 2.0 * cfg.context_length * q_width
    return c.attention_flops + cfg.n_layers * (2.0 * cfg.d_model * q_width - arch_term)


@lru_cache(maxsize=4)
def table12_flops(vocab_size: int = LEVERAGE_VOCAB_SIZE) -> pd.DataFrame:
    """Each leverage Table 12 configuration with its App. C counts (:func:`flops_split`).

    Adds ``C_A+C_E`` (forward FLOPs per token), ``C_A+C_E printed`` (the as-printed
    value-application reading, :func:`value_application_as_printed`), ``r printed``, active
    and total non-embedding parameters (allocation convention) and total parameters with
    embeddings.
    """
    rows = []
    for _, row in read_table("leverage_table12").iterrows():
        cfg = table12_config(row, vocab_size)
        split = flops_split(cfg)
        att_printed = value_application_as_printed(cfg)
        counts = allocation_counts(cfg)
        rows.append({
            **row.to_dict(), **split,
            "C_A+C_E": split["C_A"] + split["C_E"],
            "C_A+C_E printed": att_printed + split["C_E"],
            "r printed": split["C_E"] / att_printed,
            "active_params": counts.active,
            "total_params": counts.total,
            "total_params_with_embeddings": counts.total + counts.embedding,
        })
    table = read_table("leverage_table12")
    ints = [c for c in table.columns if pd.api.types.is_integer_dtype(table[c])]
    return pd.DataFrame(rows).astype({c: int for c in ints})


def compute_spread(column: str = "C_A+C_E") -> float:
    """Largest max/min ratio of per-token compute within a Table 12 group (1 = exactly fixed).

    Raises
    ------
    ValueError
        If ``column`` is not a compute column of :func:`table12_flops`.
    """
    if column not in ("C_A+C_E", "C_A+C_E printed", "training_flops_per_token"):
        raise ValueError(f"unknown compute column {column!r}")
    g = table12_flops().groupby("group")[column]
    return float((g.max() / g.min()).max())


def hyperparameter_check() -> pd.DataFrame:
    """Table 2's settings against leverage Eq. 5, one row per label.

    Columns: the Table 2 row; ``batch_tokens`` (batch × 4096); ``C from lr`` and
    ``C from batch`` (the compute at which Eq. 5 prescribes each setting); ``eta at C(batch)``
    (Eq. 5's learning rate at the batch-implied compute); ``lr / eta`` and the leverage Table 12
    group's ``max_training_flops`` with Eq. 5 at that compute (``eta at max C``,
    ``batch at max C`` in sequences).
    """
    t2 = read_table("table2")
    # Group g of Table 12 carries the settings of Table 2's g-th label; group 6 has none.
    t12 = read_table("leverage_table12").groupby("group").first().loc[range(1, len(t2) + 1)]
    t2["batch_tokens"] = t2["batch_size"] * CONTEXT_LENGTH
    t2["C from lr"] = compute_for_eta(t2["learning_rate"])
    t2["C from batch"] = compute_for_batch(t2["batch_tokens"])
    t2["eta at C(batch)"] = leverage_eta_opt(t2["C from batch"])
    t2["lr / eta"] = t2["learning_rate"] / t2["eta at C(batch)"]
    t2["table 12 eta"] = t12["eta"].to_numpy()
    t2["table 12 batch"] = t12["B"].to_numpy()
    t2["max_training_flops"] = t12["max_training_flops"].to_numpy()
    t2["eta at max C"] = leverage_eta_opt(t2["max_training_flops"])
    t2["batch at max C"] = leverage_batch_opt(t2["max_training_flops"]) / CONTEXT_LENGTH
    t2["table 12 eta truncated"] = np.floor(t2["table 12 eta"] * 1e4 + 1e-9) / 1e4
    t2["eta at C(batch) / table 12 eta"] = t2["eta at C(batch)"] / t2["table 12 eta"]
    t2["log2 B_opt(C from lr) / batch"] = np.log2(
        leverage_batch_opt(t2["C from lr"]) / t2["batch_tokens"])
    t2["log2 batch / B_opt(max C)"] = np.log2(t2["batch_size"] / t2["batch at max C"])
    t2["log2 table 12 eta / eta(max C)"] = np.log2(t2["table 12 eta"] / t2["eta at max C"])
    return t2


def attention_share_at_optimum(S: float, vocab_size: int = LEVERAGE_VOCAB_SIZE) -> pd.DataFrame:
    """Eq. 1's ``r*`` at each Table 12 group's budget, and the attention share it implies.

    One row per leverage Table 12 group: the swept ``r`` range (App. C counts), ``r*`` of
    Eq. 1 at the group's maximum training FLOPs, the budget at which ``r*`` equals the group's
    largest swept ratio, and the attention share of *all* forward FLOPs (logits included,
    ``attention_share_with_logits`` of :func:`flops_split`) at ``r*``, from a straight line
    in ``ln r`` through the group's configurations (an extrapolation where ``r*`` lies
    outside the swept range). The leverage paper (Sec. 3, App. F.4) quotes its 30-40 %
    attention optimum without saying which FLOPs it divides by. ``vocab_size`` sets the
    logits' share: the leverage paper's 126,464 (App. D) by default; the allocation paper
    says 128k.

    Raises
    ------
    ValueError
        If ``S`` is outside [0, 1).
    """
    rows = []
    for group, g in table12_flops(vocab_size).groupby("group"):
        budget = float(g["max_training_flops"].iloc[0])
        r_star = float(optimal_ratio(budget, S))
        slope, intercept = np.polyfit(np.log(g["r"]), g["attention_share_with_logits"], 1)
        rows.append({
            "group": int(group), "max_training_flops": budget,
            "r_min": float(g["r"].min()), "r_max": float(g["r"].max()), "r*": r_star,
            "r* / r_max": r_star / float(g["r"].max()),
            "C where r* = r_max": float(compute_for_ratio(float(g["r"].max()), S)),
            "attention share with logits, min (%)": 100 * float(
                g["attention_share_with_logits"].min()),
            "attention share with logits, max (%)": 100 * float(
                g["attention_share_with_logits"].max()),
            "attention share with logits at r* (%)": 100 * (slope * np.log(r_star) + intercept),
        })
    return pd.DataFrame(rows)
