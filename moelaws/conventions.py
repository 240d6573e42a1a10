"""Every paper's way of counting a configuration, seen from above the registry of papers.

:mod:`moelaws.arch` counts a configuration exactly and knows no paper; each paper's adapter
(:mod:`moelaws.papers`, role ``convention``) names its own counting function, and ``ratios``
its own ratios. This module puts them side by side: :func:`counts` under any convention by
name, :func:`all_ratios` of every paper, each paper's :func:`granularity` and
:func:`sparsity` by name, and the tables of chapter 0 and the command line.

>>> from moelaws import arch, conventions
>>> conventions.names()[:2]
('exact', 'leverage')
>>> round(conventions.total_params(arch.preset("Mixtral-8x7B"), "constrained") / 1e9, 1)
47.2
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path

import pandas as pd

from moelaws import papers
from moelaws.arch.counting import Counts, per_token_totals
from moelaws.arch.hf_config import ConfigLike, accepts_hf_config, as_config
from moelaws.arch.presets import PRESETS


def names() -> tuple[str, ...]:
    """The names of the conventions: ``"exact"`` and each paper's, in the book's reading order.

    They come from the registry of papers (:mod:`moelaws.papers`, role ``convention``).
    """
    return tuple(p.convention.name for p in papers.having("convention"))


@accepts_hf_config
def counts(cfg: ConfigLike, convention: str = "exact") -> Counts:
    """Counts of ``cfg`` under one of :func:`names`.

    Parameters
    ----------
    cfg : MoEConfig or Hugging Face config (dict, path or directory)
    convention
        ``"exact"`` (:func:`moelaws.arch.counts`) or a paper's convention.

    Raises
    ------
    ValueError
        If ``convention`` is unknown.
    """
    for paper in papers.having("convention"):
        if paper.convention.name == convention:
            return paper.convention.count(cfg)
    raise ValueError(f"unknown convention {convention!r}; choose from {', '.join(names())}")


total_params, active_params, flops = per_token_totals(counts)
"""Total and active parameters and FLOPs per token under any of :func:`names` (one definition
with :mod:`moelaws.arch`'s, :func:`moelaws.arch.counting.per_token_totals`)."""


def _definition(role: str, cfg: ConfigLike, convention: str) -> float:
    for paper in papers.having(role):
        if paper.id == convention:
            definition = getattr(paper, role)
            return (definition.of if role == "granularity" else definition)(cfg)
    raise ValueError(f"{role} convention {convention!r} unknown; use "
                     f"{', '.join(papers.ids(role))}")


@accepts_hf_config
def granularity(cfg: ConfigLike, convention: str) -> float:
    """Expert granularity of ``cfg`` under one paper's definition (its adapter's role
    ``granularity``; the same symbol means different things across papers).

    Parameters
    ----------
    cfg : MoEConfig or Hugging Face config (dict, path or directory)
    convention
        The id of a paper with a ``granularity`` role.

    Raises
    ------
    ValueError
        For a dense configuration or an unknown convention.
    """
    return _definition("granularity", cfg, convention)


@accepts_hf_config
def sparsity(cfg: ConfigLike, convention: str) -> float:
    """Sparsity of ``cfg`` under one paper's definition (its adapter's role ``sparsity``).

    Parameters
    ----------
    cfg : MoEConfig or Hugging Face config (dict, path or directory)
    convention
        The id of a paper with a ``sparsity`` role.

    Raises
    ------
    ValueError
        For a dense configuration or an unknown convention.
    """
    return _definition("sparsity", cfg, convention)


@accepts_hf_config
def all_ratios(cfg: ConfigLike) -> dict[str, float]:
    """Every paper's ratios for one configuration (NaN where undefined, e.g. dense models).

    The papers and their ratios come from the registry (:mod:`moelaws.papers`, role
    ``ratios``), in reading order; each name says which paper it belongs to.

    Parameters
    ----------
    cfg : MoEConfig or Hugging Face config (dict, path or directory)
    """
    out: dict[str, float] = {}
    for paper in papers.having("ratios"):
        out.update(paper.ratios(cfg))
    return out


@accepts_hf_config
def table(cfg: ConfigLike) -> pd.DataFrame:
    """One row per convention: total, active and embedding parameters, forward FLOPs per
    token, and the per-token compute that convention multiplies by D.

    Parameters
    ----------
    cfg : MoEConfig or Hugging Face config (dict, path or directory)
    """
    rows = []
    for conv in names():
        c = counts(cfg, conv)
        rows.append(
            {
                "convention": conv,
                "N (non-embedding)": c.total,
                "N_a (non-embedding)": c.active,
                "embedding": c.embedding,
                "forward FLOPs/token": c.forward_flops,
                "compute per token (C/D)": c.compute_per_token,
            }
        )
    return pd.DataFrame(rows).set_index("convention")


def presets_table(configs: Iterable[ConfigLike] | None = None) -> pd.DataFrame:
    """The configurations side by side: exact counts (in billions), FLOPs per token and every
    paper's ratios. Defaults to all presets.

    Parameters
    ----------
    configs : iterable of MoEConfig or Hugging Face config (dict, path or directory)
        Each entry goes through :func:`~moelaws.arch.hf_config.as_config`.

    Raises
    ------
    TypeError
        If ``configs`` is not a list, tuple or other iterable of configurations (a single
        string, path or dict is one configuration: wrap it in a list).
    ValueError
        For an empty ``configs`` or an entry :func:`~moelaws.arch.hf_config.as_config`
        refuses.
    """
    if configs is not None:
        if isinstance(configs, (str, bytes, Path, Mapping)) or not isinstance(configs, Iterable):
            raise TypeError(f"configs must be an iterable of configurations, not "
                            f"{type(configs).__name__}")
        configs = list(configs)
        if not configs:
            raise ValueError("configs is empty; give at least one configuration")
    rows = []
    for entry in configs if configs is not None else PRESETS.values():
        cfg = as_config(entry)
        c = counts(cfg, "exact")
        rows.append(
            {
                "model": cfg.name,
                "layers": cfg.n_layers,
                "d_model": cfg.d_model,
                "experts (routed+shared)": f"{cfg.n_experts}+{cfg.n_shared}" if cfg.is_moe else "-",
                "top-k": cfg.top_k if cfg.is_moe else "-",
                "N (B)": c.total / 1e9,
                "N_a (B)": c.active / 1e9,
                "embedding (B)": c.embedding / 1e9,
                "GFLOPs/token (fwd)": c.forward_flops / 1e9,
                "N/N_a": c.total / c.active,
                **all_ratios(cfg),
            }
        )
    return pd.DataFrame(rows).set_index("model")


__all__ = [
    "active_params",
    "all_ratios",
    "counts",
    "flops",
    "granularity",
    "names",
    "presets_table",
    "sparsity",
    "table",
    "total_params",
]

from moelaws.validation import guard_public  # noqa: E402

# Numeric arguments of every public function are checked, and a non-finite result raises.
guard_public(globals(), __all__)
