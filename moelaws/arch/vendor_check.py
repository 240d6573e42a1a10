"""Our counts of real Hugging Face configs against the sizes their vendors state.

The configs and the stated sizes ship with the package, in ``moelaws/data/hf_configs/``: one
``<model>/config.json`` per model and ``sources.json`` with, per model, where the config was
copied from, the vendor's stated total and active parameters (billions), the document that
states them, and the vendor's counting convention. A convention starting with ``with
embeddings`` adds the input embedding and the output head to our non-embedding count; one
starting with ``with output head`` adds the output head only (DeepSeek, gpt-oss).
"""

from __future__ import annotations

import json
import re
import warnings
from pathlib import Path
from typing import Any

import pandas as pd

from moelaws.arch.config import MoEConfig
from moelaws.arch.counting import counts
from moelaws.arch.hf_config import HFConfigWarning, from_hf_config, uncounted
from moelaws.paper_data import data_dir

__all__ = [
    "TOLERANCE",
    "active_countings",
    "stored_configs_dir",
    "stored_models",
    "vendor_check_summary",
    "vendor_check_table",
]

TOLERANCE = 0.02
"""Relative closeness reported beside the rounding test (``within 2 %``); not the test of
reproduction, which is the book's one rounding rule (``within rounding``)."""

_CONVENTIONS = ("with embeddings", "with output head")


def stored_configs_dir() -> Path:
    """The package's ``moelaws/data/hf_configs`` folder (installed with the package).

    Raises
    ------
    ValueError
        If it is absent (an installation without the package data).
    """
    root = data_dir("hf_configs")
    if not (root / "sources.json").is_file():
        raise ValueError(f"no stored Hugging Face configs at {root}: the moelaws installation "
                         "lacks its package data")
    return root


def stored_models(root: Path | None = None) -> list[dict[str, Any]]:
    """The entries of ``sources.json`` (one dict per stored model)."""
    root = root or stored_configs_dir()
    return json.loads((root / "sources.json").read_text(encoding="utf-8"))["models"]


def _with(convention: str, cfg: MoEConfig, non_embedding: float, embedding: float) -> float:
    if convention.startswith("with embeddings"):
        return non_embedding + embedding
    if convention.startswith("with output head"):
        return non_embedding + cfg.vocab_size * cfg.d_model
    raise ValueError(f"unknown convention {convention!r}; it must start with one of "
                     f"{', '.join(_CONVENTIONS)}")


def active_countings(cfg: MoEConfig) -> dict[str, float]:
    """Active parameters of ``cfg`` under the three conventions vendors use.

    ``"no embeddings"`` is our exact non-embedding count (the scaling-law papers' ``N_a``);
    ``"output head"`` adds the output projection (``vocab_size × d_model``; DeepSeek's and
    OpenAI's convention: a table lookup costs no matmul); ``"both embeddings"`` adds the input
    embedding as well (Mistral's, Qwen's and Meta's).

    Parameters
    ----------
    cfg
        The model.

    Returns
    -------
    dict
        The three counts, in parameters.
    """
    c = counts(cfg, "exact")
    return {
        "no embeddings": c.active,
        "output head": _with("with output head", cfg, c.active, c.embedding),
        "both embeddings": _with("with embeddings", cfg, c.active, c.embedding),
    }


def vendor_check_table(root: Path | None = None) -> pd.DataFrame:
    """Our exact count of each stored config next to its vendor's stated size.

    Returns
    -------
    pandas.DataFrame
        One row per model and quantity (total, active): ``model``, ``quantity``, ``ours (B)``
        (exact convention plus what the vendor's convention includes), ``stated (B)``,
        ``convention``, ``diff (%)`` (ours relative to stated), ``half unit (B)`` (half a
        unit in the last digit the vendor prints; ``stated_<quantity>_printed`` in
        ``sources.json`` gives the printed form where it is not the number in billions, e.g.
        ``"1.04T"``), ``within rounding`` (the book's criterion of a reproduced size:
        ``|ours - stated| <= half unit``), ``within 2 %``, ``note`` (a known discrepancy, or
        what our count leaves out) and ``source`` (the vendor's document).
    """
    root = root or stored_configs_dir()
    rows = []
    for entry in stored_models(root):
        with warnings.catch_warnings():
            # Every stored config converts without unknown fields (tests/test_hf_config.py);
            # a warning here must not print into the chapter.
            warnings.simplefilter("error", HFConfigWarning)
            cfg = from_hf_config(root / entry["model"] / "config.json", name=entry["model"])
        c = counts(cfg, "exact")
        for quantity, ours in (("total", c.total), ("active", c.active)):
            convention = entry[f"{quantity}_convention"]
            value = _with(convention, cfg, ours, c.embedding) / 1e9
            stated = float(entry[f"stated_{quantity}_B"])
            diff = value / stated - 1.0
            half_unit = _half_unit_billions(entry.get(f"stated_{quantity}_printed"), stated)
            note = entry.get(f"{quantity}_discrepancy") or (
                f"not counted: {uncounted(cfg)}" if uncounted(cfg) else "")
            rows.append({
                "model": entry["model"], "quantity": quantity, "ours (B)": value,
                "stated (B)": stated, "convention": convention, "diff (%)": 100.0 * diff,
                "half unit (B)": half_unit, "within rounding": abs(value - stated) <= half_unit,
                "within 2 %": abs(diff) <= TOLERANCE, "note": note,
                "source": entry["stated_source"],
            })
    return pd.DataFrame(rows)


def _half_unit_billions(printed: str | None, stated: float) -> float:
    """Half a unit in the last printed digit of a stated size, in billions.

    ``printed`` is the size as the vendor prints it, with a ``T`` suffix for trillions
    (``"1.04T"``); ``None`` means the stated number in billions as ``sources.json`` holds it.
    """
    # Imported here: the claims registry loads the paper subpackages, which import this package.
    from moelaws.claims.core import printed_tolerance

    if printed is None:
        return printed_tolerance(f"{stated:g}")
    scale = 1000.0 if printed.endswith("T") else 1.0
    number = printed.removesuffix("T").removesuffix("B")
    if abs(float(number) * scale - stated) > 1e-9 * stated:
        raise ValueError(f"printed size {printed!r} disagrees with the stated {stated}B")
    return printed_tolerance(number) * scale


def _short(text: str) -> str:
    """The part of a convention or citation before its first parenthesis, colon or semicolon."""
    return re.split(r" \(|;|:", text, maxsplit=1)[0]


def vendor_check_summary(table: pd.DataFrame | None = None) -> pd.DataFrame:
    """:func:`vendor_check_table` with one row per model, for display.

    Returns
    -------
    pandas.DataFrame
        Indexed by model: for total and active, ours, stated (billions) and the difference
        (%); what each count adds to the non-embedding one (``embeddings`` or ``output head``);
        whether both agree within rounding (the criterion) and within 2 %; and the vendor's
        document, shortened.
    """
    table = vendor_check_table() if table is None else table
    rows = []
    for model, group in table.groupby("model", sort=False):
        row: dict[str, Any] = {"model": model}
        for _, r in group.iterrows():
            q = r["quantity"]
            row[f"{q}: ours (B)"] = r["ours (B)"]
            row[f"{q}: stated (B)"] = r["stated (B)"]
            row[f"{q}: diff (%)"] = r["diff (%)"]
        for _, r in group.iterrows():
            row[f"{r['quantity']} counted with"] = _short(r["convention"]).removeprefix("with ")
        row["within rounding"] = bool(group["within rounding"].all())
        row["within 2 %"] = bool(group["within 2 %"].all())
        row["stated in"] = _short(group["source"].iloc[0])
        rows.append(row)
    return pd.DataFrame(rows).set_index("model")
