"""Our toy-scale re-derivation of efficiency leverage (not the paper's experiment).

Table 8's design at toy scale: every MoE activates two routed experts and one shared expert of
width ``d_model`` (G = 2) and varies the number of routed experts E, so all families have the
same active FLOPs per token; the dense counterpart is a standard transformer whose SwiGLU FFN
has the width of the three active experts (``d_ff = 3·d_model``). Each family is trained at
four compute budgets, with two seeds, on the offline ``pydoc`` character corpus with
:mod:`moelaws.torchmoe`: in the ``frontier`` design a larger model for longer at each budget,
in the ``fixed size`` design one small model for longer. EL then follows from the final
validation losses by Algorithm 1 (:func:`moelaws.leverage.curves.leverage_from_loss_curves`).

Runs are cached as CSV next to the paper's tables (``moelaws/data/leverage/toy_el*.csv``);
they are the named sweeps ``toy_el`` and ``toy_el_d32`` of the book's one training entry point:
``python -m moelaws.torchmoe.sweep --regenerate toy_el --regenerate toy_el_d32`` trains them
again (about 25 minutes on two busy CPU cores, one thread). Reading the cache needs only pandas.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from pathlib import Path

import numpy as np
import pandas as pd

from moelaws.arch import MoEConfig
from moelaws.leverage.curves import leverage_from_loss_curves
from moelaws.paper_data import data_dir

DESIGNS: dict[str, tuple[tuple[int, int], ...]] = {
    "frontier": ((32, 120), (48, 200), (64, 300), (96, 450)),
    "fixed size": ((32, 120), (32, 240), (32, 480), (32, 960)),
}
"""(d_model, training steps) of the four budgets of each design, smallest first.
``frontier``: a larger model for longer at each budget, as the paper's Tables 8-10 do;
``fixed size``: one small model trained on more and more tokens."""

CACHE_NAMES: dict[str, str] = {"frontier": "toy_el", "fixed size": "toy_el_d32"}
"""Cache name of each design (files ``<name>.{runs,curves,load}.csv``)."""

EXPERTS: tuple[int, ...] = (8, 32)
"""Routed experts E of the MoE families (A = 3/(E + 1): 33 % and 9.1 %)."""

SEEDS: tuple[int, ...] = (0, 1)
"""Seeds of every run."""

COMMON = {"n_layers": 2, "n_heads": 4, "context_length": 64}
"""Depth, heads and context of every toy model."""

SETTINGS = {"batch_size": 16, "eval_every": 50, "eval_batches": 8, "lr": 3e-3}
"""Training settings shared by every run (the step count varies with the budget)."""


def cache_dir() -> Path:
    """Where the toy runs are cached: the package's ``data/leverage`` folder."""
    return data_dir("leverage")


def family_name(n_experts: int) -> str:
    """``"dense"`` for 0, else ``"MoE E=<n>"``."""
    return "dense" if n_experts == 0 else f"MoE E={n_experts}"


def _design(design: str) -> tuple[tuple[int, int], ...]:
    if design not in DESIGNS:
        raise ValueError(f"design must be one of {', '.join(DESIGNS)}")
    return DESIGNS[design]


def configs(vocab_size: int, design: str = "frontier") -> dict[str, tuple[MoEConfig, int]]:
    """``{label: (cfg, steps)}`` for every family and budget of ``design``.

    Raises
    ------
    ValueError
        If ``vocab_size`` is not positive or ``design`` is unknown.
    """
    if vocab_size <= 0:
        raise ValueError("vocab_size must be positive")
    out = {}
    for d, steps in _design(design):
        base = dict(COMMON, d_model=d, vocab_size=vocab_size)
        tag = f"d={d}" if design == "frontier" else f"d={d} {steps} steps"
        out[f"dense {tag}"] = (MoEConfig(name=f"dense-d{d}", d_ff=3 * d, **base), steps)
        for e in EXPERTS:
            cfg = MoEConfig(name=f"E{e}-d{d}", n_experts=e, top_k=2, n_shared=1, d_expert=d,
                            **base)
            out[f"{family_name(e)} {tag}"] = (cfg, steps)
    return out


def run(design: str = "frontier", *, retrain: bool = False, progress: bool = True,
        threads: int = 1) -> pd.DataFrame:
    """Train every toy run the cache lacks (or all of them with ``retrain``); imports torch.

    ``threads`` sets torch's intra-op threads: one is fastest for models this small on a
    shared machine (more threads mostly wait on each other).
    """
    import torch

    from moelaws.torchmoe.data import get_corpus
    from moelaws.torchmoe.runs import sweep
    from moelaws.torchmoe.train import TrainSettings

    torch.set_num_threads(threads)
    corpus = get_corpus("pydoc")
    items = {
        label: (cfg, TrainSettings(steps=steps, warmup_steps=max(10, steps // 20), **SETTINGS))
        for label, (cfg, steps) in configs(corpus.vocab_size, design).items()
    }
    return sweep(CACHE_NAMES[design], items, corpus=corpus, seeds=SEEDS, cache_dir=cache_dir(),
                 retrain=retrain, progress=progress)


def load_runs(design: str = "frontier") -> pd.DataFrame:
    """The cached runs of ``design`` with ``family`` and ``A`` columns (pandas only).

    Raises
    ------
    FileNotFoundError
        If the cache has not been generated.
    ValueError
        If ``design`` is unknown.
    """
    _design(design)
    path = cache_dir() / f"{CACHE_NAMES[design]}.runs.csv"
    if not path.exists():
        raise FileNotFoundError(
            f"{path} is missing; run python -m moelaws.torchmoe.sweep --run {CACHE_NAMES[design]}")
    runs = pd.read_csv(path)
    runs["family"] = [family_name(int(e)) for e in runs["n_experts"]]
    runs["A"] = np.where(runs["n_experts"] > 0,
                         (runs["top_k"] + runs["n_shared"])
                         / (runs["n_experts"] + runs["n_shared"]).clip(lower=1), 1.0)
    return runs.sort_values(["family", "seed", "flops"]).reset_index(drop=True)


def load_curves(design: str = "frontier") -> pd.DataFrame:
    """The cached loss curves of ``design`` (``key, step, tokens, flops, ..., val_loss``)."""
    _design(design)
    return pd.read_csv(cache_dir() / f"{CACHE_NAMES[design]}.curves.csv")


def leverage_table(runs: pd.DataFrame | None = None) -> pd.DataFrame:
    """EL of each MoE family over the dense family at each MoE budget, per seed and pooled.

    For each seed, the dense and MoE final validation losses at the four budgets are fitted
    with ``L(C) = α·C^β + b`` and EL follows by loss matching (Algorithm 1). ``seed`` is
    ``"pooled"`` for the fit to both seeds' points together. ``reason`` says why an EL is
    undefined (NaN).
    """
    runs = load_runs() if runs is None else runs
    dense = runs[runs["family"] == "dense"]
    rows = []
    seeds = sorted(runs["seed"].unique())
    for family in sorted(f for f in runs["family"].unique() if f != "dense"):
        moe = runs[runs["family"] == family]
        for seed in [*seeds, "pooled"]:
            pick = (lambda f: f) if seed == "pooled" else (lambda f, s=seed: f[f["seed"] == s])
            d_pts = pick(dense)[["flops", "val_loss"]].to_numpy()
            m_pts = pick(moe)[["flops", "val_loss"]].to_numpy()
            budgets = np.unique(m_pts[:, 0])
            res = leverage_from_loss_curves(d_pts, m_pts, budgets)
            frame = res.to_frame().assign(family=family, seed=str(seed),
                                          A=float(moe["A"].iloc[0]))
            rows.append(frame)
    return pd.concat(rows, ignore_index=True)


NAMED_SWEEPS: dict[str, Callable[..., pd.DataFrame]] = {
    name: partial(run, design) for design, name in CACHE_NAMES.items()
}
"""The named sweeps of ``python -m moelaws.torchmoe.sweep`` (``run(retrain=, progress=)``)."""
