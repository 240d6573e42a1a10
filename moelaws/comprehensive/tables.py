"""The paper's tables as data, Table 1 counted with Eq. 2–3, and App. H's sweep.

Transcriptions live in ``moelaws/data/comprehensive/`` (see its README for provenance).
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from moelaws.arch import MoEConfig
from moelaws.comprehensive.law import active_params_eq2, total_params_eq3, uv_routed_factor
from moelaws.paper_data import read_csv
from moelaws.validation import positive

Array = np.ndarray

MARGINAL_G_VALUES: tuple[float, ...] = (1, 2, 3, 4, 8, 16)
"""G values used only by the 90 small models that show the marginal effect of G (App. C.1,
Figure 11); the fitting grid uses G ∈ {2.5, 5, 10, 15, 20}."""

SEQ_LEN = 2048
"""The training sequence length of every model (App. B and its Table 1)."""

VOCAB_SIZE = 128_256
"""The vocabulary size (App. B, Table 1)."""


TABLES: tuple[str, ...] = ("table1", "table2", "table3", "table4", "table6", "table7", "table8",
                           "appendix_h")
"""The transcribed tables, by name (``moelaws/data/comprehensive/<name>.csv``)."""


def read_table(name: str, *, dtype: object = None) -> pd.DataFrame:
    """A transcribed table, as printed, e.g. ``read_table("table4")``; ``dtype=str`` keeps the
    printed strings (and so their precision).

    Raises
    ------
    ValueError
        If ``name`` is not one of :data:`TABLES`.
    TypeError
        If ``dtype`` is not None, ``str`` or a non-empty mapping of column names to ``str``.
    """
    if not (dtype is None or dtype is str or (
            isinstance(dtype, Mapping) and dtype
            and all(isinstance(k, str) and v is str for k, v in dtype.items()))):
        raise TypeError(f"read_table: dtype must be None, str or a mapping of column names to "
                        f"str (to keep the printed strings), not {dtype!r:.60}")
    if name not in TABLES:
        raise ValueError(f"no transcribed table {name!r} in moelaws/data/comprehensive; "
                         f"choose from {list(TABLES)}")
    return read_csv("comprehensive", f"{name}.csv", dtype=dtype)


def table8() -> pd.DataFrame:
    """Table 8: the 450 configurations, in raw counts, with each row's role.

    Columns: ``row``, ``Na``, ``N``, ``D`` (raw counts), ``G``, ``S``, ``mark`` (the paper's
    ✓/✗), ``role``: ``validation`` (✓), ``marginal_G`` (✗ with G in
    :data:`MARGINAL_G_VALUES`, the 90 small models of Figure 11) or ``fitting`` (other ✗).
    """
    df = read_table("table8")
    out = pd.DataFrame({
        "row": df["row"], "Na": df["Na_M"] * 1e6, "N": df["N_M"] * 1e6, "D": df["D_B"] * 1e9,
        "G": df["G"].astype(float), "S": df["S"].astype(float), "mark": df["mark"],
    })
    marginal = out["G"].isin(MARGINAL_G_VALUES)
    out["role"] = np.where(
        out["mark"] == "✓", "validation", np.where(marginal, "marginal_G", "fitting")
    )
    return out


def industrial_models() -> pd.DataFrame:
    """The nine industrial models of Tables 3–4 with the inputs the paper uses: total and
    activated sizes (raw counts, Table 4's "Na-N (Actual)" column), G and S (Table 3)."""
    t3 = read_table("table3")
    t4 = read_table("table4")
    df = pd.DataFrame({
        "model": t4["model"], "N": t4["N_B"] * 1e9, "Na": t4["Na_B"] * 1e9,
        "G": t3["G_actual"].astype(float), "S": t3["n_shared"] / t3["G_actual"],
    })
    df["Na/N"] = df["Na"] / df["N"]
    return df


def table1_counts() -> pd.DataFrame:
    """Table 1's five models counted with Eq. 2–3, next to the printed sizes."""
    t = read_table("table1", dtype={"total_printed": str, "active_printed": str})
    G = t["n_activated_routed"] + t["n_shared"]
    args = dict(d_head=t["d_head"], n_heads=t["n_heads"], d_hidden=t["d_hidden"],
                n_layers=t["n_layers"], d_expert=t["d_expert"])
    out = t[["model", "total_printed", "active_printed"]].copy()
    out["N (Eq. 3)"] = total_params_eq3(G=G, S=t["n_shared"] / G, n_routed=t["n_routed"], **args)
    out["N_a (Eq. 2)"] = active_params_eq2(G=G, **args)
    return out


def table1_configs() -> list[MoEConfig]:
    """Table 1's five models as :class:`moelaws.arch.MoEConfig` (routed and shared experts of
    the printed expert size, 64-wide heads, no dense layers; App. B's :data:`SEQ_LEN` and
    :data:`VOCAB_SIZE`), named by their printed total size, for counting FLOPs the paper does
    not count (its compute is ``D·N_a``)."""
    t = read_table("table1")
    return [MoEConfig(n_layers=int(r.n_layers), d_model=int(r.d_hidden), n_heads=int(r.n_heads),
                      head_dim=int(r.d_head), n_experts=int(r.n_routed),
                      top_k=int(r.n_activated_routed), n_shared=int(r.n_shared),
                      d_expert=int(r.d_expert), vocab_size=VOCAB_SIZE, context_length=SEQ_LEN,
                      name=str(r.model))
            for r in t.itertuples()]


APPENDIX_H_BASE = {
    "d_head": 64, "n_heads": 20, "d_hidden": 1280, "n_layers": 20, "G": 20, "S": 0.2,
    "d_expert": 224, "n_routed": 128,
}
"""App. H's base configuration: Table 1's 2.40B model (20 layers, 20 heads, d = 1280)
re-partitioned to G = 20, S = 0.2 as App. C.4 describes (4x the experts at 1/4 the width:
16 routed + 4 shared of 224 activated, 128 routed in all), which keeps N and N_a."""


def appendix_h_u() -> Array:
    """The width factors ``u`` of App. H's sweep, derived from what the paper prints.

    The paper prints no ``u``: it prints each point's expert width d_expert (112 … 1344), and
    the base width is 224 (:data:`APPENDIX_H_BASE`), so ``u = d_expert / 224``. The sweep then
    *predicts* n_e (Eq. 35) and N_a (Eq. 2) from it; d_expert itself is an input, not a result.
    """
    return read_table("appendix_h")["d_expert"].to_numpy(dtype=float) / APPENDIX_H_BASE["d_expert"]


def appendix_h_sweep(u: Array | tuple[float, ...] | None = None) -> pd.DataFrame:
    """App. H's N_a sweep at fixed N = 2.4B, G = 20, S = 0.2: expert width ``u·224``, routed
    experts ``v·128`` (Eq. 35), and N_a, N from Eq. 2–3.

    Parameters
    ----------
    u
        Width factors; ``None`` (the default) takes the paper's points, :func:`appendix_h_u`.

    Raises
    ------
    ValueError
        For invalid u (see :func:`uv_routed_factor`).
    """
    b = APPENDIX_H_BASE
    u = appendix_h_u() if u is None else positive("u", u)
    v = uv_routed_factor(u, b["S"], b["G"], b["n_routed"])
    d_expert = u * b["d_expert"]
    n_routed = v * b["n_routed"]
    common = dict(d_head=b["d_head"], n_heads=b["n_heads"], d_hidden=b["d_hidden"],
                  n_layers=b["n_layers"], G=b["G"], d_expert=d_expert)
    return pd.DataFrame({
        "u": u, "v": v, "d_expert": d_expert, "n_routed": n_routed,
        "N_a": active_params_eq2(**common),
        "N": total_params_eq3(S=b["S"], n_routed=n_routed, **common),
    })
