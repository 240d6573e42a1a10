"""Our counts of real Hugging Face configs against the sizes their vendors state.

The configs and the stated sizes ship with the package, in ``moelaws/data/hf_configs/``: one
``<model>/config.json`` per model and ``sources.json`` with, per model, where the config was
copied from, the vendor's stated total and active parameters (billions; ``null`` where the
vendor states none), the document that states them, and the vendor's counting convention. A
convention starting with ``with embeddings`` adds the input embedding and the output head to
our non-embedding count; one starting with ``with output head`` adds the output head only
(DeepSeek, gpt-oss); ``without embeddings`` adds nothing; ``not stated`` is compared with
both embeddings (the convention of most vendors) and shown as assumed.

A config is read by its family's refinement or, for a ``model_type`` without one, by the
generic reader (:mod:`moelaws.arch.hf_generic`), whose assumptions and unknown fields are kept
in the table's ``warnings`` column; a config the counts cannot represent is listed with the
reader's reason and no count.
"""

from __future__ import annotations

import json
import math
import re
import warnings
from pathlib import Path
from typing import Any

import pandas as pd

from moelaws.arch.config import MoEConfig
from moelaws.arch.counting import counts
from moelaws.arch.hf_config import (
    SUPPORTED_MODEL_TYPES,
    HFConfigWarning,
    from_hf_config,
    uncounted,
)
from moelaws.paper_data import data_dir

__all__ = [
    "TOLERANCE",
    "active_countings",
    "countings_table",
    "stored_configs_dir",
    "stored_models",
    "vendor_check_summary",
    "vendor_check_table",
]

TOLERANCE = 0.02
"""Relative closeness reported beside the rounding test (``within 2 %``); not the test of
reproduction, which is the book's one rounding rule (``within rounding``)."""

_CONVENTIONS = ("with embeddings", "with output head", "without embeddings", "not stated")


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
    if convention.startswith("without embeddings"):
        return non_embedding
    if convention.startswith(("with embeddings", "not stated")):
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


def countings_table(table: pd.DataFrame, read_by: str = "generic",
                    root: Path | None = None) -> pd.DataFrame:
    """Each stated size of the models ``read_by`` a reader, beside our three countings.

    Where a vendor does not say what its size includes, this shows which counting (without
    embeddings, with the output head, with both embeddings) agrees with it within half a unit
    of its last printed digit, if any.

    Parameters
    ----------
    table
        :func:`vendor_check_table`'s result.
    read_by
        ``"generic"`` or ``"refinement"``.

    Returns
    -------
    pandas.DataFrame
        Indexed by model and quantity: ``stated (B)``, the three countings in billions, and
        ``agrees with`` (the countings within rounding, comma-separated, or ``"none"``).
    """
    root = root or stored_configs_dir()
    rows = []
    for _, r in table[table["read by"] == read_by].iterrows():
        cfg, _, _ = _read(root / r["model"] / "config.json", r["model"])
        c = counts(cfg, "exact")
        ours = c.total if r["quantity"] == "total" else c.active
        ways = {"no embeddings": ours, "output head": ours + cfg.vocab_size * cfg.d_model,
                "both embeddings": ours + c.embedding}
        row = {"model": r["model"], "quantity": r["quantity"], "stated (B)": r["stated (B)"]}
        row |= {way: value / 1e9 for way, value in ways.items()}
        agree = [way for way, value in ways.items()
                 if abs(value / 1e9 - r["stated (B)"]) <= r["half unit (B)"]]
        row["agrees with"] = ", ".join(agree) or "none"
        rows.append(row)
    return pd.DataFrame(rows).set_index(["model", "quantity"])


def vendor_check_table(root: Path | None = None) -> pd.DataFrame:
    """Our exact count of each stored config next to its vendor's stated size.

    Returns
    -------
    pandas.DataFrame
        One row per model and quantity (total, active): ``model``, ``quantity``, ``ours (B)``
        (exact convention plus what the vendor's convention includes), ``stated (B)``,
        ``convention``, ``diff (%)`` (ours relative to stated; NaN where the config is
        refused), ``half unit (B)`` (half a
        unit in the last digit the vendor prints; ``stated_<quantity>_printed`` in
        ``sources.json`` gives the printed form where it is not the number in billions, e.g.
        ``"1.04T"``), ``within rounding`` (the book's criterion of a reproduced size:
        ``|ours - stated| <= half unit``), ``within 2 %``, ``note`` (a known discrepancy, or
        what our count leaves out, or why the reader refused the config), ``source`` (the
        vendor's document), ``model_type``, ``read by`` (``refinement``, ``generic`` or
        ``refused``) and ``warnings`` (the reader's assumptions and unknown fields).
    """
    root = root or stored_configs_dir()
    rows = []
    for entry in stored_models(root):
        cfg, refused, warned = _read(root / entry["model"] / "config.json", entry["model"])
        model_type = _model_type(root / entry["model"] / "config.json")
        reader = ("refused" if cfg is None else
                  "refinement" if model_type in SUPPORTED_MODEL_TYPES else "generic")
        c = counts(cfg, "exact") if cfg is not None else None
        for quantity in ("total", "active"):
            if entry.get(f"stated_{quantity}_B") is None:
                continue
            convention = entry[f"{quantity}_convention"]
            stated = float(entry[f"stated_{quantity}_B"])
            half_unit = _half_unit_billions(entry.get(f"stated_{quantity}_printed"), stated)
            if c is None:
                value = math.nan
            else:
                ours = c.total if quantity == "total" else c.active
                value = _with(convention, cfg, ours, c.embedding) / 1e9
            diff = value / stated - 1.0
            note = entry.get(f"{quantity}_discrepancy") or (
                f"not counted: {refused}" if refused else
                f"not counted: {uncounted(cfg)}" if uncounted(cfg) else "")
            rows.append({
                "model": entry["model"], "quantity": quantity, "ours (B)": value,
                "stated (B)": stated, "convention": convention, "diff (%)": 100.0 * diff,
                "half unit (B)": half_unit, "within rounding": abs(value - stated) <= half_unit,
                "within 2 %": abs(diff) <= TOLERANCE, "note": note,
                "source": entry["stated_source"], "model_type": model_type, "read by": reader,
                "warnings": "; ".join(warned),
            })
    return pd.DataFrame(rows)


def _model_type(path: Path) -> str:
    data = json.loads(path.read_text(encoding="utf-8"))
    return str(data.get("model_type"))


def _read(path: Path, name: str) -> tuple[MoEConfig | None, str, list[str]]:
    """The converted config (``None`` if refused), the refusal, and the reader's warnings."""
    with warnings.catch_warnings(record=True) as caught:
        # Recorded, not printed: the table shows them (a warning must not print into a chapter).
        warnings.simplefilter("always", HFConfigWarning)
        try:
            cfg, refused = from_hf_config(path, name=name), ""
        except ValueError as exc:
            cfg, refused = None, f"refused: {exc}"
    prefix = f"{path}: "
    warned = [str(w.message).removeprefix(prefix) for w in caught
              if issubclass(w.category, HFConfigWarning)]
    return cfg, refused, warned


def _half_unit_billions(printed: str | None, stated: float) -> float:
    """Half a unit in the last printed digit of a stated size, in billions.

    ``printed`` is the size as the vendor prints it, with a ``T`` suffix for trillions
    (``"1.04T"``); ``None`` means the stated number in billions as ``sources.json`` holds it.
    """
    # Imported here: the claims registry loads the paper subpackages, which import this package.
    from moelaws.claims.core import printed_tolerance

    if printed is None:
        return printed_tolerance(f"{stated:g}")
    # The printed form may carry a remark after it: "31.6B (the model card rounds to '30B')".
    match = re.match(r"\s*(\d+(?:\.\d+)?)\s*([TB]?)", printed)
    if match is None:
        raise ValueError(f"printed size {printed!r} does not start with a number")
    number = match.group(1)
    scale = 1000.0 if match.group(2) == "T" else 1.0
    if abs(float(number) * scale - stated) > 1e-9 * stated:
        raise ValueError(f"printed size {printed!r} disagrees with the stated {stated}B")
    return printed_tolerance(number) * scale


def _counted_with(convention: str) -> str:
    if convention.startswith("not stated"):
        return "embeddings (assumed)"
    return _short(convention).removeprefix("with ")


def _short(text: str) -> str:
    """The part of a convention or citation before its first parenthesis, colon or semicolon."""
    return re.split(r" \(|;|:", text, maxsplit=1)[0]


def vendor_check_summary(table: pd.DataFrame | None = None) -> pd.DataFrame:
    """:func:`vendor_check_table` with one row per model, for display.

    Returns
    -------
    pandas.DataFrame
        Indexed by model: for total and active, ours, stated (billions) and the difference
        (%); what each count adds to the non-embedding one (``embeddings``, ``output head``,
        ``without embeddings``, or ``embeddings (assumed)`` where the vendor does not say);
        which reader read the config (``refinement``, ``generic``, ``refused``); whether both
        agree within rounding (the criterion) and within 2 %; and the vendor's
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
            row[f"{r['quantity']} counted with"] = _counted_with(r["convention"])
        row["read by"] = group["read by"].iloc[0]
        row["within rounding"] = bool(group["within rounding"].all())
        row["within 2 %"] = bool(group["within 2 %"].all())
        row["stated in"] = _short(group["source"].iloc[0])
        rows.append(row)
    return pd.DataFrame(rows).set_index("model")
