"""Tables 4, 6 and 7 of the constrained paper, transcribed, and what can be recomputed from them.

The CSVs in ``moelaws/data/constrained/`` keep the printed numbers as strings (their printed
precision is what the claims compare against). Table 6 and 7's loss differences are
recomputed from their loss columns; because the losses are printed to 3 (Table 6) or 2
(Table 7) decimals, a recomputed difference is only known within an interval, which
:func:`loss_diffs` reports. Table 7's parameter differences are recomputed from its
configurations with Eq. 1-2.
"""

from __future__ import annotations

from decimal import Decimal

import numpy as np
import pandas as pd

from moelaws.constrained.law import active_params, total_params
from moelaws.paper_data import read_csv
from moelaws.rounding import status_of_interval

TABLES: dict[str, str] = {
    "table4": "table4.csv",
    "table6": "table6.csv",
    "table7": "table7.csv",
}

_PRINTED = {
    "table4": ["N_total_128_8"],
    "table6": ["loss", "loss_diff_pct"],
    "table7": ["loss", "loss_diff_pct", "active_diff_pct", "total_diff_pct"],
}


def read_table(name: str) -> pd.DataFrame:
    """One transcribed table; printed-number columns are kept as strings.

    Parameters
    ----------
    name
        ``"table4"``, ``"table6"`` or ``"table7"``.

    Returns
    -------
    pandas.DataFrame
        The table as transcribed (see ``moelaws/data/constrained/README.md``).

    Raises
    ------
    ValueError
        If ``name`` is not one of :data:`TABLES`.
    """
    if name not in TABLES:
        raise ValueError(f"unknown table {name!r}; choose from {sorted(TABLES)}")
    return read_csv("constrained", TABLES[name], dtype={c: str for c in _PRINTED[name]})


def half_unit(printed: str) -> float:
    """Half a unit in the last printed digit (``"2.960"`` → 0.0005).

    Raises
    ------
    ValueError
        If ``printed`` is not a decimal number.
    """
    try:
        exponent = Decimal(printed.strip()).as_tuple().exponent
    except Exception as exc:
        raise ValueError(f"{printed!r} is not a decimal number") from exc
    if not isinstance(exponent, int):
        raise ValueError(f"{printed!r} is not a finite decimal number")
    return 0.5 * 10.0**exponent


def table4_totals() -> pd.DataFrame:
    """Table 4 with ``N_total`` recomputed by Eq. 1 for ``(n_exp, n_topk, g) = (128, 8, 4)``."""
    t = read_table("table4")
    t["printed"] = t["N_total_128_8"].astype(float)
    t["ours"] = total_params(t["l"], t["d"], 128, 4.0)
    return t


def _groups(name: str, table: pd.DataFrame) -> pd.Series:
    if name == "table6":
        return table["l"].astype(str) + "x" + table["d"].astype(str)
    return pd.Series("all", index=table.index)


def loss_diffs(name: str) -> pd.DataFrame:
    """Loss differences (%) to the best row, recomputed from the printed losses.

    Table 6's differences are relative to the best of each model size (Table 1); Table 7's to
    its best row, ``(l, d, n_exp, n_topk) = (8, 336, 43, 4)`` (Table 2), which ties at 3.19
    with ``(16, 272, 32, 2)`` as printed. The reference of a group is its row whose printed
    difference is 0 (checked to have the group's lowest printed loss). With every loss known
    only to ``±h`` (half a unit of its last printed digit), the difference
    ``100·(L/L_ref − 1)`` lies in ``[100·((L−h)/(L_ref+h) − 1), 100·((L+h)/(L_ref−h) − 1)]``
    (the reference row's own difference is 0 by definition).

    Parameters
    ----------
    name
        ``"table6"`` or ``"table7"``.

    Returns
    -------
    pandas.DataFrame
        The table plus ``group``, ``ref_loss``, ``ours`` (central value), ``lower``,
        ``upper`` (the rounding interval), ``printed`` (the printed difference as a float),
        ``half_width`` (largest distance from ``ours`` to an interval end), ``consistent``
        (the printed difference, ± half its last digit, meets the interval),
        ``central_matches`` (the central value rounds to the printed difference: within half a
        unit of its last digit) and ``status`` (the book's rounding rule,
        :func:`moelaws.rounding.status_of_interval`: reproduced, undecidable or discrepancy).

    Raises
    ------
    ValueError
        If ``name`` is not ``"table6"`` or ``"table7"``.
    """
    if name not in ("table6", "table7"):
        raise ValueError(f"loss differences exist for table6 and table7, not {name!r}")
    t = read_table(name)
    t["group"] = _groups(name, t)
    loss = t["loss"].astype(float)
    h = t["loss"].map(half_unit)
    is_zero = t["loss_diff_pct"].astype(float) == 0
    if not is_zero.groupby(t["group"]).sum().eq(1).all():
        raise ValueError(f"{name}: each group needs exactly one reference row (printed 0)")
    ref_of_group = t.index[is_zero].to_series(index=t["group"][is_zero])
    ref_idx = t["group"].map(ref_of_group)
    if (loss[ref_idx].to_numpy() > loss.groupby(t["group"]).transform("min").to_numpy()).any():
        raise ValueError(f"{name}: a reference row is not the group's lowest printed loss")
    ref = loss[ref_idx].to_numpy()
    ref_h = h[ref_idx].to_numpy()
    is_ref = ref_idx.to_numpy() == t.index.to_numpy()
    t["ref_loss"] = ref
    t["ours"] = 100 * (loss / ref - 1)
    t["lower"] = np.where(is_ref, 0.0, 100 * ((loss - h) / (ref + ref_h) - 1))
    t["upper"] = np.where(is_ref, 0.0, 100 * ((loss + h) / (ref - ref_h) - 1))
    t["printed"] = t["loss_diff_pct"].astype(float)
    t["half_width"] = np.maximum(t["upper"] - t["ours"], t["ours"] - t["lower"])
    p_h = t["loss_diff_pct"].map(half_unit)
    t["consistent"] = (t["printed"] + p_h >= t["lower"]) & (t["printed"] - p_h <= t["upper"])
    t["status"] = [status_of_interval(lo, hi, p, tol) for lo, hi, p, tol
                   in zip(t["lower"], t["upper"], t["printed"], p_h, strict=True)]
    t["central_matches"] = (t["ours"] - t["printed"]).abs() <= p_h
    return t


def reference_loss_interval(name: str) -> pd.DataFrame:
    """Unrounded reference losses consistent with both the loss and the difference columns.

    Each row ``i`` requires ``L_i ∈ [p_i − h, p_i + h]`` and ``L_i = L_ref·(1 + δ_i/100)`` with
    ``δ_i`` within half a unit of its printed value, hence
    ``L_ref ∈ [(p_i − h)/(1 + δ_i⁺/100), (p_i + h)/(1 + δ_i⁻/100)]``. Intersecting over the
    rows of a group (and the reference's own rounding interval) gives the values of ``L_ref``
    that make the whole table self-consistent; an empty interval means no unrounded losses
    could have produced both printed columns.

    Parameters
    ----------
    name
        ``"table6"`` or ``"table7"``.

    Returns
    -------
    pandas.DataFrame
        One row per group: ``lower``, ``upper``, ``consistent`` (``lower ≤ upper``).

    Raises
    ------
    ValueError
        If ``name`` is not ``"table6"`` or ``"table7"``.
    """
    t = loss_diffs(name)
    loss = t["loss"].astype(float)
    h = t["loss"].map(half_unit)
    p_h = t["loss_diff_pct"].map(half_unit)
    lo = (loss - h) / (1 + (t["printed"] + p_h) / 100)
    hi = (loss + h) / (1 + (t["printed"] - p_h) / 100)
    frame = pd.DataFrame({"group": t["group"], "lo": lo, "hi": hi})
    out = frame.groupby("group", sort=False).agg(lower=("lo", "max"), upper=("hi", "min"))
    out["consistent"] = out["lower"] <= out["upper"]
    return out


def table7_param_diffs() -> pd.DataFrame:
    """Table 7's ``N_active`` and ``N_total`` differences (%) recomputed with Eq. 1-2, g = 4.

    Both are relative to the reference row ``(8, 336, 43, 4)``.

    Returns
    -------
    pandas.DataFrame
        Table 7 plus ``total``, ``active`` (Eq. 1-2), ``ours_total_diff``,
        ``ours_active_diff``, ``ours_gamma`` (``d/l``).
    """
    t = read_table("table7")
    t["total"] = total_params(t["l"], t["d"], t["n_exp"], 4.0)
    t["active"] = active_params(t["l"], t["d"], t["n_topk"], 4.0)
    ref = t[(t["l"] == 8) & (t["d"] == 336)].iloc[0]
    t["ours_total_diff"] = 100 * (t["total"] / ref["total"] - 1)
    t["ours_active_diff"] = 100 * (t["active"] / ref["active"] - 1)
    t["ours_gamma"] = t["d"] / t["l"]
    return t
