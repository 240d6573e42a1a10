"""What each of the five laws says about one real configuration.

Each paper's adapter (:mod:`moelaws.papers`, role ``verdict``) returns a flat record (a dict)
of the quantities the chapter compares: the model's value under that paper's own convention
next to what the law prescribes, the convention used, caveats and out-of-regime flags.
:func:`question_table` stacks one paper's records over the presets; :func:`verdicts` gives all
of them in one tidy (long) table. The helpers below are shared by the adapters' verdicts.

Every number comes from the paper subpackages and the counts of :mod:`moelaws.arch`; this
module only feeds them a configuration and a token count.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import pandas as pd

from moelaws import arch, papers
from moelaws.compare.tokens import _preset_names, training_tokens
from moelaws.roles import (
    MLA_CAVEAT,
    NAN,
    caveats,
    position,
    require_moe,
    tokens_or_nan,
)


def _is_nan(value: object) -> bool:
    return isinstance(value, float) and math.isnan(value)


def moe_presets() -> list[str]:
    """Names of the MoE presets of :data:`moelaws.arch.PRESETS` (the dense one is left out)."""
    return [name for name, cfg in arch.PRESETS.items() if cfg.is_moe]


def question_table(
    paper: str,
    models: Sequence[str] | None = None,
    assumed_tokens: Mapping[str, float] | None = None,
) -> pd.DataFrame:
    """One paper's verdicts over the presets, one row per model (wide).

    Parameters
    ----------
    paper
        A paper id with a ``verdict`` role (:func:`moelaws.papers.ids`).
    models
        Preset names; default all MoE presets.
    assumed_tokens
        ``{preset: tokens}`` assumptions for models without published token counts (or to
        override them); rows using one say so in ``tokens source``.

    Returns
    -------
    pandas.DataFrame
        Indexed by model; columns as returned by that paper's ``verdict`` role, plus
        ``tokens source``, ``outside fitted range`` (the number of flags) and ``in fitted
        domain`` (no flag and a known budget: the only rows on which a verdict may be
        read).

    Raises
    ------
    ValueError
        For an unknown paper or preset, an empty ``models``, a dense preset, or a
        non-positive assumed count.
    TypeError
        If ``models`` is not a list or tuple of preset names.
    """
    verdict = papers.get(paper, "verdict").verdict
    rows = []
    for name in _preset_names("models", models) if models is not None else moe_presets():
        cfg = arch.preset(name)
        tok = training_tokens(cfg.name, assumed_tokens)
        row = verdict(cfg, tok.tokens)
        row["tokens source"] = ("ASSUMED: " if tok.assumed else "") + tok.source
        row["outside fitted range"] = len(row["flags"])
        # An unknown budget is not evidence of being inside: no verdict without it.
        unknown = any(_is_nan(row.get(key)) for key in ("C (FLOPs)", "D (tokens)"))
        row["in fitted domain"] = not row["flags"] and not unknown
        rows.append({"model": cfg.name, **row})
    return pd.DataFrame(rows).set_index("model")


def verdicts(
    models: Sequence[str] | None = None,
    assumed_tokens: Mapping[str, float] | None = None,
) -> pd.DataFrame:
    """Every paper's verdicts on every preset, as one tidy table.

    Returns
    -------
    pandas.DataFrame
        Columns ``model, paper, quantity, value, convention, caveat, flags``: one row per
        numeric quantity (tuples such as ranges are split into ``low``/``high`` rows), with the
        convention, the caveats and the out-of-range flags of that (model, paper) pair.

    Raises
    ------
    ValueError
        As :func:`question_table`.
    """
    meta = {"convention", "caveat", "flags", "tokens source", "outside fitted range",
            "in fitted domain"}
    records = []
    for paper in papers.ids("verdict"):
        table = question_table(paper, models, assumed_tokens)
        for model, row in table.iterrows():
            common = {"model": model, "paper": paper, "convention": row["convention"],
                      "caveat": row["caveat"], "flags": " | ".join(row["flags"])}
            for quantity, value in row.items():
                if quantity in meta or isinstance(value, str):
                    continue
                if isinstance(value, tuple):
                    parts = (zip(("low", "high"), value, strict=True) if len(value) == 2
                             else enumerate(value))
                    for label, part in parts:
                        records.append({**common, "quantity": f"{quantity} [{label}]",
                                        "value": float(part)})
                else:
                    records.append({**common, "quantity": quantity, "value": float(value)})
    cols = ["model", "paper", "quantity", "value", "convention", "caveat", "flags"]
    return pd.DataFrame(records)[cols]


__all__ = [
    "MLA_CAVEAT",
    "NAN",
    "caveats",
    "moe_presets",
    "position",
    "question_table",
    "require_moe",
    "tokens_or_nan",
    "verdicts",
]


from moelaws.validation import guard_public  # noqa: E402

# caveats takes *extra strings, which the guard would check as one string: it checks none
guard_public(globals(), [name for name in __all__ if name != "caveats"])
