"""The book's named toy-training sweeps, and the command line that runs them.

This module is the book's one entry point for toy training (the runner and its CSV cache are
:mod:`moelaws.torchmoe.runs`, whose names it re-exports). Its named sweeps
(:func:`named_sweeps`) are those of chapter 1 (:data:`SWEEPS`) and those each paper's toy
module registers through its adapter (:mod:`moelaws.papers`, role ``toy_sweeps``: e.g.
``toy_el`` of the leverage chapter, ``toy_design`` of the constrained one, ``toy_allocation``);
they are run or regenerated with::

    python -m moelaws.torchmoe.sweep --run NAME          # train only what the cache lacks
    python -m moelaws.torchmoe.sweep --regenerate NAME   # or --all; --list shows them
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from dataclasses import replace

import pandas as pd

from moelaws.arch import MoEConfig
from moelaws.torchmoe.data import get_corpus
from moelaws.torchmoe.runs import (
    CACHE_DIR,
    CACHE_VERSION,
    curves,
    expert_loads,
    run_key,
    sweep,
)
from moelaws.torchmoe.runs import _read as _read
from moelaws.torchmoe.train import TrainSettings

__all__ = [
    "CACHE_DIR",
    "CACHE_VERSION",
    "SWEEPS",
    "curves",
    "expert_loads",
    "main",
    "named_sweeps",
    "run_key",
    "run_named",
    "sweep",
]


# --- the book's named sweeps ---------------------------------------------------------------

BASE = {"n_layers": 4, "d_model": 128, "n_heads": 4, "context_length": 64}
"""The toy transformer of the chapters: 4 layers, d_model 128, 4 heads, context 64."""


def equal_flops_configs(vocab_size: int) -> dict[str, MoEConfig]:
    """A dense model (SwiGLU width 512) and MoE models with the same active expert width.

    Every MoE layer activates 512 units of expert width per token (top-2 of width 256, or one
    shared plus top-1), so the active FLOPs equal the dense model's up to the router's
    ``2·d·E``.
    """
    base = dict(BASE, vocab_size=vocab_size)
    return {
        "dense": MoEConfig(name="dense", d_ff=512, **base),
        "MoE E=8 top-2": MoEConfig(name="E8k2", n_experts=8, top_k=2, d_expert=256, **base),
        "MoE E=32 top-2": MoEConfig(name="E32k2", n_experts=32, top_k=2, d_expert=256, **base),
        "MoE E=32 top-1 + shared": MoEConfig(
            name="E32k1s1", n_experts=32, top_k=1, n_shared=1, d_expert=256, **base
        ),
    }


def _pydoc_equal_flops() -> dict:
    cfgs = equal_flops_configs(get_corpus("pydoc").vocab_size)
    configs: dict = {k: cfgs[k] for k in ("dense", "MoE E=8 top-2", "MoE E=32 top-2")}
    configs["MoE E=32 top-2, renormalised"] = (
        cfgs["MoE E=32 top-2"], TrainSettings(renormalize=True)
    )
    return {"configs": configs, "corpus": "pydoc", "seeds": (0, 1)}


def _synthetic_equal_flops() -> dict:
    cfgs = equal_flops_configs(get_corpus("synthetic").vocab_size)
    cfgs = {k: cfgs[k] for k in ("dense", "MoE E=32 top-2")}
    return {"configs": cfgs, "corpus": "synthetic", "seeds": (0, 1)}


def _pydoc_balance() -> dict:
    cfg = equal_flops_configs(get_corpus("pydoc").vocab_size)["MoE E=32 top-2"]
    configs = {
        f"balance coef {coef:g}": (cfg, TrainSettings(aux_loss_coef=coef))
        for coef in (0.0, 0.01)
    }
    return {"configs": configs, "corpus": "pydoc", "seeds": (0,)}


LIVE = {"n_layers": 2, "d_model": 64, "n_heads": 4, "context_length": 32}
"""The small MoE chapter 1 trains live (with 8 experts of width 64, top-2)."""

LIVE_SETTINGS = TrainSettings(steps=150, eval_every=25, lr=5e-3)
"""Chapter 1's live training run: 150 steps, a few seconds on two CPU cores."""


def _synthetic_balance_live() -> dict:
    vocab = get_corpus("synthetic").vocab_size
    cfg = MoEConfig(name="live MoE", n_experts=8, top_k=2, d_expert=64, vocab_size=vocab, **LIVE)
    configs = {
        f"balance coef {coef:g}": (cfg, replace(LIVE_SETTINGS, aux_loss_coef=coef))
        for coef in (0.0, 0.01, 0.1)
    }
    return {"configs": configs, "corpus": "synthetic", "seeds": (0, 1)}


SWEEPS: dict[str, Callable[[], dict]] = {
    "pydoc_equal_flops": _pydoc_equal_flops,
    "synthetic_equal_flops": _synthetic_equal_flops,
    "pydoc_balance": _pydoc_balance,
    "synthetic_balance_live": _synthetic_balance_live,
}
"""The sweeps the book shows: name -> function returning :func:`sweep`'s arguments."""


def run_named(
    name: str, *, retrain: bool = False, progress: bool = True, **overrides
) -> pd.DataFrame:
    """Run one of :data:`SWEEPS` (from the cache where possible)."""
    if name not in SWEEPS:
        raise ValueError(f"unknown sweep {name!r}; choose from {', '.join(SWEEPS)}")
    kwargs = SWEEPS[name]()
    kwargs.update(overrides)
    return sweep(name, retrain=retrain, progress=progress, **kwargs)


def named_sweeps() -> dict[str, Callable[..., pd.DataFrame]]:
    """Every named sweep of the book: ``{name: run}``, ``run(retrain=..., progress=...)``.

    Chapter 1's :data:`SWEEPS` first, then each paper's toy sweeps in reading order (role
    ``toy_sweeps`` of :class:`moelaws.papers.Paper`).

    Raises
    ------
    ValueError
        If two sweeps share a name.
    """
    from functools import partial

    from moelaws import papers

    out: dict[str, Callable[..., pd.DataFrame]] = {name: partial(run_named, name)
                                                   for name in SWEEPS}
    for paper in papers.having("toy_sweeps"):
        for name, run in paper.toy_sweeps().items():
            if name in out:
                raise ValueError(f"sweep name {name!r} of paper {paper.id!r} is already taken")
            out[name] = run
    return out


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m moelaws.torchmoe.sweep",
        description="Run or regenerate the cached training sweeps of the book.",
    )
    parser.add_argument("--list", action="store_true", help="list the named sweeps")
    parser.add_argument("--run", action="append", default=[], metavar="NAME",
                        help="run a sweep, training only what the cache lacks")
    parser.add_argument("--regenerate", action="append", default=[], metavar="NAME",
                        help="retrain every run of a sweep and rewrite its cache")
    parser.add_argument("--all", action="store_true", help="run every named sweep")
    args = parser.parse_args(argv)
    every = named_sweeps()
    if args.list or not (args.run or args.regenerate or args.all):
        for name in every:
            print(name)
        return 0
    todo = [(n, False) for n in (list(every) if args.all else args.run)]
    todo += [(n, True) for n in args.regenerate]
    for name, retrain in todo:
        if name not in every:
            parser.error(f"unknown sweep {name!r}")
        df = every[name](retrain=retrain, progress=True)
        cols = [c for c in ("label", "seed", "val_loss", "load_cv", "tokens_per_second",
                            "cached") if c in df.columns]
        print(f"== {name}")
        print(df[cols].to_string(index=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
