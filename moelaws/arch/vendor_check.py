"""Our counts of real Hugging Face configs against the sizes their vendors state.

The configs and the stated sizes ship with the package, in ``moelaws/data/hf_configs/``: one
``<model>/config.json`` per model and ``sources.json`` with, per model, where the config was
copied from, the vendor's stated total and active parameters (billions; ``null`` where the
vendor states none), the document that states them, and the vendor's counting convention. A
convention starting with ``with embeddings`` adds the input embedding and the output head to
our non-embedding count; one starting with ``with output head`` adds the output head only
(DeepSeek, gpt-oss); ``without embeddings`` adds nothing; ``not stated`` is compared with
both embeddings (the convention of most vendors) and shown as assumed; a convention whose
text says ``inferred`` was chosen because it is the counting that matches (or, where so
marked, a rough count), and one that says ``(assumed`` was taken without the vendor's word.

A size within rounding is a *reproduction* only under a convention the vendor states; under an
inferred or assumed one it is *consistent* (the convention was picked, or could be, so that it
matches that size, so for that size the check cannot fail; an assumed one tests only the
counting we assumed, not the vendor's), and :func:`vendor_check_tallies` keeps the two apart.
:func:`convention_cross_check` tests an inferred or assumed convention on the model's other
size, the one check of it that can fail. A ``stated_source`` starting ``Secondary:`` quotes the
vendor's figure from a third party (``stated_<quantity>_source`` overrides it for one size).

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
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pandas as pd

from moelaws.arch.config import MoEConfig
from moelaws.arch.counting import counts
from moelaws.arch.hf_config import (
    SUPPORTED_MODEL_TYPES,
    HFConfigWarning,
    from_hf_config,
    model_type_of,
    uncounted,
)
from moelaws.paper_data import data_dir

__all__ = [
    "TOLERANCE",
    "active_countings",
    "checked_families",
    "convention_basis",
    "convention_cross_check",
    "countings_table",
    "dsa_main_model",
    "mtp_layer_params",
    "stored_configs_dir",
    "stored_models",
    "vendor_check_summary",
    "vendor_check_table",
    "vendor_check_tallies",
]

TOLERANCE = 0.02
"""Relative closeness reported beside the rounding test (``within 2 %``); not the test of
reproduction, which is the book's one rounding rule (``within rounding``)."""

_CONVENTIONS = ("with embeddings", "with output head", "without embeddings", "not stated")

_COUNTINGS = ("no embeddings", "output head", "both embeddings")

VERDICTS = ("reproduced", "consistent (inferred)", "consistent (assumed)", "miss", "refused")
"""The verdicts of :func:`vendor_check_table`, in the order the tallies list them."""


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


def _root(root: Any) -> Path:
    """``root`` (a folder holding ``sources.json``; None for the stored configs) as a Path,
    or a ``TypeError`` / ``ValueError`` naming it."""
    if root is None:
        return stored_configs_dir()
    if not isinstance(root, (str, Path)) or isinstance(root, bool):
        raise TypeError(f"root must be a folder path (str or Path) or None, not "
                        f"{type(root).__name__}")
    if not str(root).strip() or not (Path(root) / "sources.json").is_file():
        raise ValueError(f"root {str(root)!r} is not a folder holding a sources.json")
    return Path(root)


def stored_models(root: Path | None = None) -> list[dict[str, Any]]:
    """The entries of ``sources.json`` (one dict per stored model).

    Raises
    ------
    TypeError, ValueError
        For a ``root`` that is not a folder holding ``sources.json``.
    """
    root = _root(root)
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


def mtp_layer_params(cfg: MoEConfig) -> int:
    """Weights of one multi-token-prediction layer of a DeepSeek-V3-style model (GLM-4.5, GLM-5).

    The layer is one MoE decoder layer of the main model's shape plus its input projection
    (``eh_proj``, ``2 d_model × d_model``); it shares the main model's embedding and output
    head. Its few norm vectors (a handful of ``d_model``-vectors) are left out.

    Parameters
    ----------
    cfg
        The main model.

    Returns
    -------
    int
        The layer's weights.
    """
    one_more = cfg.replace(n_layers=cfg.n_layers + 1)
    return int(counts(one_more, "exact").total - counts(cfg, "exact").total
               + 2 * cfg.d_model ** 2)


_DSA_UNREAD = frozenset({"dtype", "head_dim", "qk_head_dim", "rope_interleave"})


def dsa_main_model(data: Mapping[str, Any]) -> tuple[MoEConfig, int]:
    """A ``glm_moe_dsa`` config (GLM-5) read as the DeepSeek-V3 layout it extends, and the
    weights of its sparse-attention indexer, which :class:`MoEConfig` cannot hold.

    The reader refuses the config (``index_n_heads``); this reads it without the indexer's
    fields as ``deepseek_v3`` (MLA, shared and routed experts, dense first layers) and counts
    the indexer of every layer as transformers' ``GlmMoeDsaIndexer`` builds it: ``wq_b``
    (``q_lora_rank`` to heads × width), ``wk`` (``d_model`` to width), its LayerNorm (weight
    and bias) and ``weights_proj`` (``d_model`` to heads).

    Parameters
    ----------
    data
        The parsed ``config.json``.

    Returns
    -------
    tuple
        The main model without the indexer, and the indexer's weights (all layers).

    Raises
    ------
    ValueError
        If ``data`` is not a ``glm_moe_dsa`` config, its ``head_dim`` or ``qk_head_dim``
        disagree with its MLA widths, or the reader finds a field it does not understand
        beyond those.
    """
    if data.get("model_type") != "glm_moe_dsa":
        raise ValueError(f"model_type {data.get('model_type')!r} is not 'glm_moe_dsa'")
    rope, nope = data["qk_rope_head_dim"], data["qk_nope_head_dim"]
    if data.get("head_dim", rope) != rope or data.get("qk_head_dim", rope + nope) != rope + nope:
        raise ValueError("head_dim or qk_head_dim disagrees with qk_rope_head_dim and "
                         "qk_nope_head_dim")
    mla = {k: v for k, v in data.items() if not k.startswith("index")}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", HFConfigWarning)
        cfg = from_hf_config(mla | {"model_type": "deepseek_v3"}, name="GLM-5 (MLA reading)")
    for w in caught:
        fields = str(w.message).split(": ")[-1].split(", ")
        if not set(fields) <= _DSA_UNREAD:
            raise ValueError(f"unexpected reader warning: {w.message}")
    heads, width = data["index_n_heads"], data["index_head_dim"]
    d = data["hidden_size"]
    indexer = data["num_hidden_layers"] * (
        data["q_lora_rank"] * heads * width + d * width + 2 * width + d * heads)
    return cfg, int(indexer)


def convention_basis(convention: str) -> str:
    """Whether a ``sources.json`` convention is the vendor's (``"stated"``), ``"inferred"``
    by matching our count, or ``"assumed"`` (``not stated``, or marked ``(assumed``)."""
    if convention.startswith("not stated") or "(assumed" in convention:
        return "assumed"
    if "inferred" in convention:
        return "inferred"
    return "stated"


def _agreeing(cfg: MoEConfig, quantity: str, stated: float, half_unit: float
              ) -> dict[str, float]:
    """Our three countings of ``quantity`` (billions), and which lie within rounding."""
    c = counts(cfg, "exact")
    ours = c.total if quantity == "total" else c.active
    ways = {"no embeddings": ours, "output head": ours + cfg.vocab_size * cfg.d_model,
            "both embeddings": ours + c.embedding}
    return {way: value / 1e9 for way, value in ways.items()
            if abs(value / 1e9 - stated) <= half_unit}


def convention_cross_check(table: pd.DataFrame, root: Path | None = None) -> pd.DataFrame:
    """Whether one counting fits both stated sizes of each model whose convention for either
    size was inferred or assumed.

    A convention inferred from one size (the counting that matches it) is only tested by the
    other size: if no counting matches both, the vendor counts its two sizes differently or
    our count (or the stated figure) is off.

    Parameters
    ----------
    table
        :func:`vendor_check_table`'s result.

    Returns
    -------
    pandas.DataFrame
        Indexed by model (read, with both sizes stated, at least one convention not stated by
        the vendor): ``total agrees with`` and ``active agrees with`` (the countings within
        rounding, or ``"none"``), ``both agree with`` (the countings common to the two, or
        ``"none"``) and ``one counting fits both`` (bool).
    """
    root = root or stored_configs_dir()
    rows = []
    for model, group in table[table["read by"] != "refused"].groupby("model", sort=False):
        if len(group) != 2 or (group["basis"] == "stated").all():
            continue
        cfg, _, _ = _read(root / model / "config.json", model)
        agree = {r["quantity"]: list(_agreeing(cfg, r["quantity"], r["stated (B)"],
                                               r["half unit (B)"]))
                 for _, r in group.iterrows()}
        common = [way for way in _COUNTINGS if way in agree["total"] and way in agree["active"]]
        rows.append({"model": model,
                     "total agrees with": ", ".join(agree["total"]) or "none",
                     "active agrees with": ", ".join(agree["active"]) or "none",
                     "both agree with": ", ".join(common) or "none",
                     "one counting fits both": bool(common)})
    return pd.DataFrame(rows).set_index("model")


def checked_families(table: pd.DataFrame) -> list[str]:
    """The model families (``model_type`` values) whose stored configs are read and checked.

    A family counts when at least one of its stored models is read (by a refinement or the
    generic reader, not refused) and has a stated size to compare with; refused families do not.

    Parameters
    ----------
    table
        :func:`vendor_check_table`'s result.

    Returns
    -------
    list of str
        The families' ``model_type`` values, sorted.
    """
    read = table[(table["read by"] != "refused") & table["verdict"].isin(VERDICTS[:-1])]
    return sorted(set(read["model_type"]))


def vendor_check_tallies(table: pd.DataFrame) -> pd.DataFrame:
    """How many stated sizes each reader reproduces, only matches, or misses.

    Parameters
    ----------
    table
        :func:`vendor_check_table`'s result.

    Returns
    -------
    pandas.DataFrame
        Indexed by ``read by`` (``refinement``, ``generic``, ``refused``), one column per
        verdict (:data:`VERDICTS`) and ``sizes`` (their sum): ``reproduced`` (within rounding
        under the convention the vendor states), ``consistent (inferred)`` and ``consistent
        (assumed)`` (within rounding only under a convention picked by matching or taken
        without the vendor's word: not reproductions), ``miss`` and ``refused``.
    """
    tallies = (table.groupby("read by")["verdict"].value_counts().unstack(fill_value=0)
               .reindex(index=["refinement", "generic", "refused"], columns=list(VERDICTS),
                        fill_value=0))
    tallies["sizes"] = tallies.sum(axis=1)
    return tallies.astype(int)


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
        ``agrees with`` (the countings within rounding, comma-separated, or ``"none"``) and
        ``convention`` (:func:`convention_basis` of the convention compared).
    """
    root = root or stored_configs_dir()
    rows = []
    for _, r in table[table["read by"] == read_by].iterrows():
        cfg, _, _ = _read(root / r["model"] / "config.json", r["model"])
        row = {"model": r["model"], "quantity": r["quantity"], "stated (B)": r["stated (B)"]}
        row |= _agreeing(cfg, r["quantity"], r["stated (B)"], math.inf)
        agree = _agreeing(cfg, r["quantity"], r["stated (B)"], r["half unit (B)"])
        row["agrees with"] = ", ".join(agree) or "none"
        row["convention"] = r["basis"]
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
        ``|ours - stated| <= half unit``), ``verdict`` (one of :data:`VERDICTS`: within
        rounding under a stated convention is ``reproduced``, under an inferred or assumed one
        ``consistent (inferred)`` or ``consistent (assumed)``), ``within 2 %``, ``note`` (a
        known discrepancy, or
        what our count leaves out, or why the reader refused the config), ``source`` (the
        vendor's document), ``secondary`` (the document is a third party's quotation),
        ``model_type``, ``read by`` (``refinement``, ``generic`` or
        ``refused``) and ``warnings`` (the reader's assumptions and unknown fields).

    Raises
    ------
    TypeError, ValueError
        For a ``root`` that is not a folder holding ``sources.json``.
    """
    root = _root(root)
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
            basis = convention_basis(convention)
            within = bool(abs(value - stated) <= half_unit)
            verdict = ("refused" if c is None else "miss" if not within else
                       "reproduced" if basis == "stated" else f"consistent ({basis})")
            source = entry.get(f"stated_{quantity}_source") or entry["stated_source"]
            note = entry.get(f"{quantity}_discrepancy") or (
                f"not counted: {refused}" if refused else
                f"not counted: {uncounted(cfg)}" if uncounted(cfg) else "")
            rows.append({
                "model": entry["model"], "quantity": quantity, "ours (B)": value,
                "stated (B)": stated, "convention": convention, "basis": basis,
                "diff (%)": 100.0 * diff, "half unit (B)": half_unit,
                "within rounding": within, "verdict": verdict,
                "within 2 %": abs(diff) <= TOLERANCE, "note": note, "source": source,
                "secondary": source.startswith("Secondary:"), "model_type": model_type,
                "read by": reader,
                "warnings": "; ".join(warned),
            })
    return pd.DataFrame(rows)


def _model_type(path: Path) -> str:
    return str(model_type_of(json.loads(path.read_text(encoding="utf-8"))))


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
    from moelaws.claim import printed_tolerance

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
    basis = convention_basis(convention)
    if convention.startswith("not stated"):
        return "embeddings (assumed)"
    what = _short(convention).removeprefix("with ")
    return what if basis == "stated" else f"{what} ({basis})"


def _stated_in(sources: pd.Series) -> str:
    """The documents of a model's sizes, shortened, each third party's marked ``secondary``."""
    shown = []
    for source in dict.fromkeys(sources):
        short = _short(source.removeprefix("Secondary:").strip())
        shown.append(f"secondary: {short}" if source.startswith("Secondary:") else short)
    return " / ".join(shown)


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
        ``without embeddings``, marked ``(inferred)`` where we chose it because it matches and
        ``(assumed)`` where the vendor does not say); each size's verdict (:data:`VERDICTS`);
        which reader read the config (``refinement``, ``generic``, ``refused``); whether both
        agree within rounding and within 2 %; and the vendor's document, shortened, marked
        ``secondary:`` where a third party's page quotes it.
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
        for _, r in group.iterrows():
            row[f"{r['quantity']} verdict"] = r["verdict"]
        row["read by"] = group["read by"].iloc[0]
        row["within rounding"] = bool(group["within rounding"].all())
        row["within 2 %"] = bool(group["within 2 %"].all())
        row["stated in"] = _stated_in(group["source"])
        rows.append(row)
    return pd.DataFrame(rows).set_index("model")
