"""Our toy-scale re-run of the paper's Sec. 3 experiment (Figure 1, Table 3), with torchmoe.

The paper trains every ``(n_exp, n_topk)`` in :data:`PAPER_EXPERTS` on the seven cores of
Table 4 (``g = 4``, 9B tokens) and regresses the losses, which it does not publish. We train
the same nine expert configurations with ``g = 4`` on three tiny cores (:data:`TOY_CORES`,
``d/l = 32`` like the paper's Γ) for a few hundred steps on the character-level ``pydoc``
corpus, and apply the same analysis (:mod:`moelaws.constrained.regression`) to our losses.

Training is slow on CPU, so the runs are cached in ``moelaws/data/constrained/toy_design.*.csv``
(written by :func:`moelaws.torchmoe.runs.sweep`); :func:`load_runs` only reads that file and
never trains. The runs are the named sweeps ``toy_design`` (with its seed check) and
``toy_design_seeds`` of the book's one training entry point::

    python -m moelaws.torchmoe.sweep --run toy_design          # trains only what the cache lacks
    python -m moelaws.torchmoe.sweep --regenerate toy_design   # retrains everything
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

import pandas as pd

from moelaws.constrained.law import active_params, total_params
from moelaws.paper_data import data_dir

PAPER_EXPERTS: tuple[tuple[int, int], ...] = (
    (32, 2), (64, 2), (64, 4), (128, 2), (128, 8), (256, 2), (256, 4), (256, 8), (256, 16),
)
"""The ``(n_exp, n_topk)`` combinations of App. C.1."""

TOY_CORES: tuple[tuple[int, int], ...] = ((2, 64), (3, 96), (4, 128))
"""Our ``(l, d)`` cores (the paper's Table 4 runs from (6, 288) to (16, 1024))."""

G = 4
"""Granularity ``d / d_exp``, fixed as in the paper's Sec. 3."""

SWEEP_NAME = "toy_design"
CORPUS = "pydoc"
SEED = 0
STEPS = 300
BATCH_SIZE = 16
EVAL_EVERY = 50
"""Sequences per step and steps between evaluations of the toy runs (:func:`settings`), readable
without importing torch."""

SEED_SWEEP_NAME = "toy_design_seeds"
SEED_CHECK: tuple[tuple[int, int, int, int], ...] = ((2, 64, 32, 2), (2, 64, 128, 8))
"""``(l, d, n_exp, n_topk)`` runs repeated with :data:`EXTRA_SEEDS` to gauge seed noise."""
EXTRA_SEEDS: tuple[int, ...] = (1, 2)


def cache_dir() -> Path:
    """The folder holding the cached runs (this package's data folder)."""
    return data_dir("constrained")


def settings():
    """Training settings of the toy runs (imports torch)."""
    from moelaws.torchmoe.train import TrainSettings

    return TrainSettings(steps=STEPS, batch_size=BATCH_SIZE, lr=3e-3, warmup_steps=30,
                         eval_every=EVAL_EVERY, eval_batches=8)


def label(layers: int, d: int, n_exp: int, n_topk: int) -> str:
    """Run label, e.g. ``"l2-d64-E32-k2"``."""
    return f"l{layers}-d{d}-E{n_exp}-k{n_topk}"


def configs(vocab_size: int, cores: Sequence[tuple[int, int]] = TOY_CORES,
            experts: Sequence[tuple[int, int]] = PAPER_EXPERTS) -> dict:
    """The toy configurations: 4 heads, ``d_exp = d/4``, context 64, no shared experts.

    Raises
    ------
    ValueError
        If a ``d`` is not divisible by ``4·G`` or ``n_topk > n_exp``.
    """
    from moelaws.arch import MoEConfig

    out = {}
    for layers, d in cores:
        if d % (4 * G):
            raise ValueError(f"d={d} must be divisible by {4 * G} (4 heads, g={G})")
        for n_exp, n_topk in experts:
            if n_topk > n_exp:
                raise ValueError(f"n_topk={n_topk} exceeds n_exp={n_exp}")
            name = label(layers, d, n_exp, n_topk)
            out[name] = MoEConfig(
                name=name, n_layers=layers, d_model=d, n_heads=4, n_experts=n_exp, top_k=n_topk,
                d_expert=d // G, vocab_size=vocab_size, context_length=64,
                source="moelaws.constrained.toy (our toy run)",
            )
    return out


def regenerate(*, retrain: bool = False, progress: bool = True) -> pd.DataFrame:
    """Train (or read from the cache) every toy run; returns :func:`load_runs`' frame."""
    import torch

    from moelaws.torchmoe.data import get_corpus
    from moelaws.torchmoe.runs import sweep

    torch.set_num_threads(1)
    corpus = get_corpus(CORPUS)
    sweep(SWEEP_NAME, configs(corpus.vocab_size), corpus=corpus, settings=settings(),
          seeds=(SEED,), cache_dir=cache_dir(), retrain=retrain, progress=progress)
    regenerate_seeds(retrain=retrain, progress=progress)
    return load_runs()


def regenerate_seeds(*, retrain: bool = False, progress: bool = True) -> pd.DataFrame:
    """Train (or read) the :data:`SEED_CHECK` runs with :data:`EXTRA_SEEDS`."""
    import torch

    from moelaws.torchmoe.data import get_corpus
    from moelaws.torchmoe.runs import sweep

    torch.set_num_threads(1)
    corpus = get_corpus(CORPUS)
    every = configs(corpus.vocab_size)
    chosen = {label(*run): every[label(*run)] for run in SEED_CHECK}
    sweep(SEED_SWEEP_NAME, chosen, corpus=corpus, settings=settings(), seeds=EXTRA_SEEDS,
          cache_dir=cache_dir(), retrain=retrain, progress=progress)
    return load_seed_runs()


def load_runs(path: str | Path | None = None) -> pd.DataFrame:
    """The cached toy runs with the paper's variables (never trains).

    Parameters
    ----------
    path
        The ``runs`` CSV (default: the packaged ``toy_design.runs.csv``).

    Returns
    -------
    pandas.DataFrame
        One row per run: ``label, seed, l, d, n_exp, n_topk, s, loss`` (final validation loss,
        nats per character), ``N_total`` and ``N_active`` (Eq. 1-2 with ``g = 4``),
        ``n_params`` (every weight of the torch model), ``wall_seconds``.

    Raises
    ------
    FileNotFoundError
        If the cache has not been generated.
    """
    csv = Path(path) if path is not None else cache_dir() / f"{SWEEP_NAME}.runs.csv"
    return _read_runs(csv, (SEED,))


def load_seed_runs(path: str | Path | None = None) -> pd.DataFrame:
    """The seed-noise runs: :data:`SEED_CHECK` with seed 0 (from :func:`load_runs`) and
    :data:`EXTRA_SEEDS` (never trains).

    Parameters
    ----------
    path
        The extra seeds' ``runs`` CSV (default: the packaged ``toy_design_seeds.runs.csv``).

    Returns
    -------
    pandas.DataFrame
        :func:`load_runs`' columns plus ``seed``, for the :data:`SEED_CHECK` runs.

    Raises
    ------
    FileNotFoundError
        If a cache has not been generated.
    """
    csv = Path(path) if path is not None else cache_dir() / f"{SEED_SWEEP_NAME}.runs.csv"
    extra = _read_runs(csv, EXTRA_SEEDS)
    base = load_runs().assign(seed=SEED)
    labels = {label(*run) for run in SEED_CHECK}
    both = pd.concat([base[base["label"].isin(labels)], extra], ignore_index=True)
    return both.sort_values(["label", "seed"]).reset_index(drop=True)


def load_curves(path: str | Path | None = None) -> pd.DataFrame:
    """Validation-loss curves of the cached toy runs (seed 0; never trains).

    Parameters
    ----------
    path
        The ``curves`` CSV (default: the packaged ``toy_design.curves.csv``); its ``runs``
        sibling supplies the labels.

    Returns
    -------
    pandas.DataFrame
        ``label, l, d, n_exp, n_topk, step, tokens, val_loss``.

    Raises
    ------
    FileNotFoundError
        If the cache has not been generated.
    """
    csv = Path(path) if path is not None else cache_dir() / f"{SWEEP_NAME}.curves.csv"
    runs_csv = csv.with_name(csv.name.replace(".curves.", ".runs."))
    for f in (csv, runs_csv):
        if not f.exists():
            raise FileNotFoundError(
                f"{f} not found; run `python -m moelaws.torchmoe.sweep --run {SWEEP_NAME}`")
    keys = pd.read_csv(runs_csv)[["key", "label", "seed", "steps"]]
    keys = keys[(keys["seed"] == SEED) & (keys["steps"] == STEPS)]
    curves = pd.read_csv(csv).merge(keys[["key", "label"]], on="key")
    runs = load_runs(runs_csv)[["label", "l", "d", "n_exp", "n_topk"]]
    out = curves.merge(runs, on="label")
    return out[["label", "l", "d", "n_exp", "n_topk", "step", "tokens", "val_loss"]]


def _read_runs(csv: Path, seeds: Sequence[int]) -> pd.DataFrame:
    if not csv.exists():
        raise FileNotFoundError(
            f"{csv} not found; run `python -m moelaws.torchmoe.sweep --run {SWEEP_NAME}`")
    raw = pd.read_csv(csv)
    wanted = set(configs(int(raw["vocab_size"].iloc[0])))
    raw = raw[raw["label"].isin(wanted) & raw["seed"].isin(seeds) & (raw["steps"] == STEPS)]
    out = pd.DataFrame({
        "label": raw["label"],
        "seed": raw["seed"].astype(int),
        "l": raw["n_layers"].astype(int),
        "d": raw["d_model"].astype(int),
        "n_exp": raw["n_experts"].astype(int),
        "n_topk": raw["top_k"].astype(int),
        "loss": raw["val_loss"].astype(float),
        "n_params": raw["n_params"],
        "wall_seconds": raw["wall_seconds"],
    })
    out["s"] = out["n_exp"] / out["n_topk"]
    out["N_total"] = total_params(out["l"], out["d"], out["n_exp"], G)
    out["N_active"] = active_params(out["l"], out["d"], out["n_topk"], G)
    return out.sort_values(["l", "n_exp", "n_topk", "seed"]).reset_index(drop=True)


NAMED_SWEEPS: dict[str, Callable[..., pd.DataFrame]] = {
    SWEEP_NAME: regenerate,
    SEED_SWEEP_NAME: regenerate_seeds,
}
"""The named sweeps of ``python -m moelaws.torchmoe.sweep`` (``run(retrain=, progress=)``)."""
