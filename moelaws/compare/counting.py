"""A configuration's counts under every paper's convention, for the ``counts`` command.

:func:`load_config` reads a preset name, a JSON file of :class:`~moelaws.arch.MoEConfig`
fields or a Hugging Face ``config.json`` (file or directory); :func:`counts_report` gathers
:func:`moelaws.arch.counts` under each convention of the registry of papers (role
``convention``, with its one-line note) and :func:`moelaws.conventions.all_ratios`.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from moelaws import arch, conventions, papers
from moelaws.arch import MoEConfig
from moelaws.arch.hf_config import ConfigLike, accepts_hf_config, is_hf_config
from moelaws.arch.hf_json import read_json_object

_FLAGS = ("tie_embeddings", "attention_bias", "expert_bias", "shared_expert_gate")


def load_config(spec: str) -> MoEConfig:
    """A preset by name, or a configuration from a JSON file or a directory.

    ``spec`` is read as a file when it ends in ``.json`` or names an existing file or
    directory (a directory must hold a ``config.json``); otherwise as a preset name
    (case-insensitive). A JSON object with ``model_type``, ``architectures``,
    ``hidden_size`` or ``num_hidden_layers`` is a Hugging Face ``config.json`` and is
    converted by :func:`moelaws.arch.from_hf_config` (its warnings about fields it does not
    know reach the caller); any other object holds ``MoEConfig`` fields.

    Raises
    ------
    ValueError
        For an unknown preset (the message lists the valid names), a missing or unreadable
        file, a FIFO or device, a file above 1 MiB, malformed or too deeply nested JSON
        (:func:`moelaws.arch.hf_json.read_json_object`), JSON whose fields are unknown or
        invalid, or a Hugging Face config :func:`moelaws.arch.from_hf_config` refuses.
    """
    path = Path(spec)
    if path.is_dir():
        return arch.from_hf_config(path)
    if spec.lower().endswith(".json") or path.exists() or path.is_symlink():
        # Read defensively (a regular file of at most 1 MiB, nesting capped, strict
        # JSON): the path may name a FIFO, a device or a file of gigabytes.
        data, _ = read_json_object(path)
        if is_hf_config(data):
            return arch.from_hf_config(path)  # read again, as defensively, to name the file
        # MoEConfig takes any truthy value for a flag; from a file, "no" must not mean true.
        for key in _FLAGS:
            if key in data and not isinstance(data[key], bool):
                raise ValueError(f"invalid configuration in {spec}: {key} must be a JSON "
                                 f"boolean (true or false), got {data[key]!r}")
        try:
            return MoEConfig.from_dict(data)
        except ValueError as exc:
            raise ValueError(f"invalid configuration in {spec}: {exc}") from None
    return arch.preset(spec)


def _clean(value: float) -> float | None:
    value = float(value)
    return value if math.isfinite(value) else None


@accepts_hf_config
def counts_report(cfg: ConfigLike) -> dict[str, Any]:
    """Counts of ``cfg`` under every convention, and every paper's ratios.

    Parameters
    ----------
    cfg : MoEConfig or Hugging Face config (dict, path or directory)

    Returns
    -------
    dict
        ``config`` (the fields), ``counts`` (``{convention: {total, active, embedding,
        attention_flops, ffn_flops, logits_flops, forward_flops, compute_per_token, note,
        total_with_embeddings, active_with_embeddings}}``: non-embedding parameters, then
        the same with the input embedding and output head added, as model cards mostly
        count; forward FLOPs per token; NaN as ``None``) and ``ratios``
        (:func:`moelaws.conventions.all_ratios`, NaN as ``None``).
    """
    table = {}
    for paper in papers.having("convention"):
        conv = paper.convention.name
        c = conventions.counts(cfg, conv)
        table[conv] = {
            "total": _clean(c.total), "active": _clean(c.active),
            "embedding": _clean(c.embedding),
            "attention_flops": _clean(c.attention_flops), "ffn_flops": _clean(c.ffn_flops),
            "logits_flops": _clean(c.logits_flops), "forward_flops": _clean(c.forward_flops),
            "compute_per_token": _clean(c.compute_per_token),
            "note": paper.convention.note,
            "total_with_embeddings": _clean(c.total + c.embedding),
            "active_with_embeddings": _clean(c.active + c.embedding),
        }
    ratios = {k: _clean(v) for k, v in conventions.all_ratios(cfg).items()}
    return {"config": cfg.to_dict(), "counts": table, "ratios": ratios}


__all__ = ["counts_report", "load_config"]
