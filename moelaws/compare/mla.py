"""The papers' FLOP counts with MLA attention counted by its real weights.

Some papers write attention FLOPs in ``d²`` (App. I of the efficiency-leverage paper, App. C
of the allocation paper), which the package reads as ``d·n_h·d_head``. For multi-head and
grouped-query attention that is the real projection count; for MLA (DeepSeek-V3, Kimi-K2) it
counts the compressed low-rank projections as full multi-head ones, the same trap the
comprehensive paper's Eq. 2 sets (chapter 7). Each such paper's adapter (role ``mla``,
:class:`moelaws.roles.MLARecount`) recounts its attention for MLA models by the real
projection weights, leaving every other term as the paper prints it, and evaluates its law on
the recounted FLOPs; this module puts the papers side by side. For a configuration without
MLA the recount is exactly the paper's own, so only MLA rows move.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import pandas as pd

from moelaws import arch, papers
from moelaws.arch.config import MoEConfig
from moelaws.compare.tokens import _preset_names, training_tokens


def attention_flops(cfg: MoEConfig, paper: str) -> float:
    """A paper's forward attention FLOPs per token, MLA counted by its real weights.

    Parameters
    ----------
    cfg : MoEConfig
    paper
        The id of a paper with an ``mla`` role.

    Returns
    -------
    float
        Over all layers; equal to the paper's own convention's attention FLOPs
        (``moelaws.conventions.counts(cfg, paper).attention_flops``) without MLA.

    Raises
    ------
    ValueError
        For a paper without an ``mla`` role.
    """
    return papers.get(paper, "mla").mla.attention_flops(cfg)


def real_attention_row(cfg: MoEConfig, tokens: float | None) -> dict[str, float]:
    """Each paper's law on its printed attention count and on the MLA-recounted one.

    Parameters
    ----------
    cfg : MoEConfig
        An MoE configuration.
    tokens
        Training tokens D, or ``None`` (then every compute-dependent value is NaN).

    Returns
    -------
    dict
        ``MLA`` (whether the model has MLA attention), then per count (``as printed``: the
        paper's own convention; ``real MLA``: the recount) and per paper with an ``mla``
        role, in reading order, the values of its role's ``row`` (the allocation paper's
        r = C_E/C_A, attention share and r/r*; the leverage paper's M, EL and D/D_opt), each
        named ``"<value> (<count>)"``.
    """
    D = math.nan if tokens is None else float(tokens)
    row: dict[str, float] = {"MLA": cfg.mla is not None}
    recounting = papers.having("mla")
    for label in ("as printed", "real MLA"):
        for paper in recounting:
            c_a = (paper.convention.count(cfg).attention_flops if label == "as printed"
                   else paper.mla.attention_flops(cfg))
            row.update({f"{name} ({label})": value
                        for name, value in paper.mla.row(cfg, D, c_a).items()})
    return row


def real_attention_table(
    models: Sequence[str] | None = None, assumed_tokens: Mapping[str, float] | None = None
) -> pd.DataFrame:
    """:func:`real_attention_row` over MoE presets, one row per model.

    Parameters
    ----------
    models
        Preset names; default all MoE presets.
    assumed_tokens
        ``{preset: tokens}`` for models without a published count.

    Raises
    ------
    TypeError
        If ``models`` is not a list or tuple of names.
    ValueError
        For an empty ``models``, an unknown preset, or a non-positive assumed count.
    """
    names = (_preset_names("models", models) if models is not None
             else [n for n, c in arch.PRESETS.items() if c.is_moe])
    rows = {}
    for name in names:
        cfg = arch.preset(name)
        rows[name] = real_attention_row(cfg, training_tokens(name, assumed_tokens).tokens)
    return pd.DataFrame.from_dict(rows, orient="index")


__all__ = ["attention_flops", "real_attention_row", "real_attention_table"]

from moelaws.validation import guard_public  # noqa: E402

guard_public(globals(), __all__)
