"""The leverage paper's published tables (``moelaws/data/leverage``) and what they imply.

Tables 8-12 (every experimental configuration) become :class:`moelaws.arch.MoEConfig` objects,
from which we compute the activation ratio A, granularity G, sharing ratio S, parameter
counts and FLOPs per token; Tables 2 and 7 are the MoE-mini vs Dense-6.1B benchmark scores.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np
import pandas as pd

from moelaws import arch
from moelaws.leverage.budget import SEQ_LEN, compute_optimal_budget
from moelaws.leverage.counting import granularity, leverage_counts
from moelaws.paper_data import read_csv

VOCAB_SIZE = 126_464
"""Vocabulary size (App. D)."""

CATEGORIES: dict[str, str] = {
    "General Knowledge/Reasoning": "General/Reasoning",
    "Professional Knowledge": "Professional",
    "Language Understanding": "Language",
    "Code": "Code",
    "Math": "Math",
}
"""Table 7 category -> Table 2 column."""


TABLES: dict[str, str] = {
    "configs": "configs_tables8_12.csv",
    "table2": "table2_categories.csv",
    "table7": "table7_benchmarks.csv",
}
"""The transcribed tables, by name, and their files (``"configs"``: Tables 8-12)."""

_DTYPES: dict[str, object] = {
    "configs": {"eta": str, "max_training_flops": str},
    "table2": str,
    "table7": {"dense_6_1b": str, "moe_mini": str},
}


@lru_cache(maxsize=len(TABLES))
def _read(name: str) -> pd.DataFrame:
    return read_csv("leverage", TABLES[name], dtype=_DTYPES[name])


def read_table(name: str) -> pd.DataFrame:
    """One transcribed table, as printed (a fresh copy; printed scores and ``eta`` as strings).

    Parameters
    ----------
    name
        ``"configs"`` (Tables 8-12), ``"table2"`` (category averages) or ``"table7"``
        (per-benchmark scores).

    Raises
    ------
    ValueError
        If ``name`` is not one of :data:`TABLES`.
    """
    if name not in TABLES:
        raise ValueError(f"unknown table {name!r}; choose from {sorted(TABLES)}")
    return _read(name).copy()


@lru_cache(maxsize=1)
def _configs() -> pd.DataFrame:
    frame = read_table("configs")
    # Tables 9-11 print no n_kv_heads column; the models share Table 8's backbones, whose
    # n_kv_heads depends on d_model only (2 up to 640, 4 from 768).
    kv_by_width = dict(
        frame.loc[frame["table"] == 8, ["d_model", "n_kv_heads"]].drop_duplicates().to_numpy()
    )
    missing = frame["n_kv_heads"].isna()
    frame["n_kv_heads_inferred"] = missing
    frame.loc[missing, "n_kv_heads"] = frame.loc[missing, "d_model"].map(kv_by_width)
    frame["n_kv_heads"] = frame["n_kv_heads"].astype(int)
    frame["d_ffn"] = frame["d_ffn"].fillna(0).astype(int)
    frame["eta_value"] = frame["eta"].astype(float)
    frame["C_max"] = frame["max_training_flops"].astype(float)
    return frame


def configs(table: int | None = None) -> pd.DataFrame:
    """Tables 8-12: one row per configuration, as transcribed.

    Columns as printed (``eta`` and ``max_training_flops`` as strings), plus ``eta_value``,
    ``C_max`` (floats), ``n_kv_heads`` filled in from Table 8 where the table omits it
    (``n_kv_heads_inferred``), and ``d_ffn`` 0 where there are no dense layers.

    Raises
    ------
    ValueError
        If ``table`` is not one of 8-12.
    """
    frame = _configs()
    if table is not None:
        if table not in (8, 9, 10, 11, 12):
            raise ValueError("the configuration tables are 8, 9, 10, 11 and 12")
        frame = frame[frame["table"] == table]
    return frame.reset_index(drop=True).copy()


def to_config(row: pd.Series | dict) -> arch.MoEConfig:
    """An :class:`~moelaws.arch.MoEConfig` for one row of :func:`configs`."""
    row = dict(row)
    name = f"T{row['table']}-g{row['group']}-r{row['row']}"
    return arch.MoEConfig(
        n_layers=int(row["n_layers"]),
        n_dense_layers=int(row["n_dense_layers"]),
        d_model=int(row["d_model"]),
        d_ff=int(row["d_ffn"]),
        n_heads=int(row["n_heads"]),
        n_kv_heads=int(row["n_kv_heads"]),
        head_dim=int(row["d_model"]) // int(row["n_heads"]),
        n_experts=int(row["E"]),
        top_k=int(row["E_a"]),
        n_shared=int(row["E_s"]),
        d_expert=int(row["d_expert"]),
        vocab_size=VOCAB_SIZE,
        context_length=SEQ_LEN,
        name=name,
        source=f"Leverage paper, Table {row['table']}",
    )


def app_i_flops(cfg: arch.MoEConfig, *, shared_factor: float = 4.0) -> dict[str, float]:
    """Forward FLOPs per token of App. I (Eq. 10-12): attention, FFN and logits.

    Per layer: attention ``2·d·(n_h·d_h)·(1 + 2·n_kv/n_h) + 4·s·d`` (Eq. 10 per token, d² read
    as d·n_h·d_h); dense FFN ``6·d·d_ffn``; MoE FFN ``6·d·E_a·d_expert`` (Eq. 11) plus
    ``shared_factor·d·d_shared`` per shared expert. App. I prints the shared-expert cost as
    4·d·d_shared (``shared_factor=4``, the default, which equals ``arch.counts(cfg,
    "leverage")``); a SwiGLU shared expert costs 6·d·d_shared like a routed one
    (``shared_factor=6``), and only that reading keeps M fixed across Table 10's groups as the
    text says it is. Logits ``2·d·V`` once.
    """
    if shared_factor <= 0:
        raise ValueError("shared_factor must be positive")
    d, s = cfg.d_model, cfg.context_length
    q_width = cfg.n_heads * cfg.attn_head_dim
    attention = cfg.n_layers * (2.0 * d * q_width * (1 + 2 * cfg.kv_heads / cfg.n_heads)
                                + 4.0 * s * d)
    ffn = 6.0 * d * cfg.d_ff * cfg.n_ffn_dense_layers
    if cfg.is_moe:
        per_layer = 6.0 * d * cfg.top_k * cfg.d_expert
        per_layer += shared_factor * d * cfg.shared_width * cfg.n_shared
        ffn += cfg.n_moe_layers * per_layer
    return {"attention": attention, "ffn": ffn, "logits": 2.0 * d * cfg.vocab_size}


def model_scale(cfg: arch.MoEConfig, *, shared_factor: float = 4.0) -> float:
    """M, non-embedding training FLOPs per token (Sec. 2.1; App. I without the logits).

    Sec. 2.1 defines M as the non-embedding FLOPs per token (after Bi et al. 2024) and App. I
    counts training as 3 x forward; the logit projection (the last term of App. I Eq. 12) is
    an embedding cost and is left out. With non-embedding M every model of Tables 8-10 is
    trained on more than three times its compute-optimal tokens, as Sec. 4.1 says; with the
    logits included the smallest ones would not be. ``shared_factor``: see
    :func:`app_i_flops`.
    """
    f = app_i_flops(cfg, shared_factor=shared_factor)
    return 3.0 * (f["attention"] + f["ffn"])


def metrics(frame: pd.DataFrame | None = None) -> pd.DataFrame:
    """A, G, S, N, N_a and FLOPs per token of every configuration of Tables 8-12.

    Columns added to :func:`configs`: ``A`` (Sec. 2.1, (E_a + E_s)/(E + E_s)),
    ``A_routed`` (E_a/E, the ratio the text's quoted values correspond to), ``G``
    (2·d_model/d_expert), ``S`` (E_s/(E_a + E_s)), ``N`` and ``N_a`` (non-embedding weight
    matrices, :func:`~moelaws.leverage.counting.leverage_counts`), ``M``
    (:func:`model_scale`, App. I as printed), ``M_swiglu`` (shared experts at 6·d·d_shared),
    ``flops_per_token`` (App. I training FLOPs per token, logits included), ``attn_share``
    (attention's share of App. I's forward FLOPs, logits included), ``attn_share_nonemb`` (its
    share of the non-embedding FLOPs), ``C_star`` (the budget at which M is compute-optimal,
    Table 5 MoE law) and ``overtraining`` (= C_max / C_star, the multiple of the
    compute-optimal token count).
    """
    frame = configs() if frame is None else frame.copy()
    rows = []
    for _, row in frame.iterrows():
        cfg = to_config(row)
        lev = leverage_counts(cfg)
        fwd = app_i_flops(cfg)
        rows.append(
            {
                "A": arch.activation_ratio(cfg),
                "A_routed": cfg.top_k / cfg.n_experts,
                "G": granularity(cfg),
                "S": arch.sharing_ratio(cfg),
                "N": lev.total,
                "N_a": lev.active,
                "M": model_scale(cfg),
                "M_swiglu": model_scale(cfg, shared_factor=6.0),
                "flops_per_token": 3.0 * sum(fwd.values()),
                "attn_share": fwd["attention"] / sum(fwd.values()),
                "attn_share_nonemb": fwd["attention"] / (fwd["attention"] + fwd["ffn"]),
            }
        )
    out = pd.concat([frame.reset_index(drop=True), pd.DataFrame(rows)], axis=1)
    out["C_star"] = compute_optimal_budget(out["M"].to_numpy(), "moe")
    out["overtraining"] = out["C_max"] / out["C_star"]
    return out


def table7() -> pd.DataFrame:
    """Table 7: per-benchmark scores and printed averages (strings as printed, plus floats
    ``dense`` and ``moe``)."""
    frame = read_table("table7")
    frame["dense"] = frame["dense_6_1b"].astype(float)
    frame["moe"] = frame["moe_mini"].astype(float)
    return frame


def category_means(which: str = "category") -> pd.DataFrame:
    """Our averages of Table 7's per-benchmark rows.

    ``which="category"``: the mean of each category's benchmarks; ``"overall"``: the mean of
    all 34 benchmarks (which reproduces the printed overall average); ``"of categories"``: the
    mean of the five category means (which does not).

    Raises
    ------
    ValueError
        For an unknown ``which``.
    """
    t7 = table7()
    bench = t7[t7["kind"] == "benchmark"]
    if which == "category":
        return bench.groupby("category", sort=False)[["dense", "moe"]].mean()
    if which == "overall":
        return bench[["dense", "moe"]].mean().to_frame("Overall").T
    if which == "of categories":
        means = bench.groupby("category", sort=False)[["dense", "moe"]].mean()
        return means.mean().to_frame("mean of categories").T
    raise ValueError("which must be 'category', 'overall' or 'of categories'")


def benchmark_count() -> int:
    """Number of benchmarks in Table 7 (34)."""
    t7 = table7()
    return int(np.sum(t7["kind"] == "benchmark"))
