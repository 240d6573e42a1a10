"""Train lists of configurations, with results cached as CSV so chapters re-run instantly.

A run is identified by a hash of its architecture (:class:`~moelaws.arch.MoEConfig` without
its ``name``/``source`` labels), its :class:`~moelaws.torchmoe.train.TrainSettings`, its seed,
the corpus name and the corpus's data fingerprint, and :data:`CACHE_VERSION`. A sweep ``NAME``
keeps three small CSV files in :data:`CACHE_DIR`:

``NAME.runs.csv``
    One row per run: key, label, seed, corpus, the config and settings fields, and the
    final numbers (:meth:`TrainResult.summary`).
``NAME.curves.csv``
    The loss curve of each run (at most ``curve_points`` evaluation points).
``NAME.load.csv``
    Validation-set expert load per (layer, expert, group) of each MoE run.

A run found in the cache is read back (also from another sweep's files); a miss trains for
real and is appended to the cache. The committed caches were made with one CPU thread
(``OMP_NUM_THREADS=1``); retraining with another thread count gives the same curves up to
floating-point noise (about 0.002 nats at the end of a run).

Each paper's toy module calls :func:`sweep` here; the book's named sweeps and the command
line that runs them are in :mod:`moelaws.torchmoe.sweep`, above the registry of papers.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from moelaws.arch import MoEConfig
from moelaws.torchmoe.data import Corpus, get_corpus
from moelaws.torchmoe.train import TrainSettings, train

__all__ = ["CACHE_DIR", "CACHE_VERSION", "curves", "expert_loads", "run_key", "sweep"]

CACHE_DIR = Path(__file__).resolve().parent.parent / "data" / "torchmoe_cache"
CACHE_VERSION = 1
"""Bump when the model or training loop changes in a way that changes results."""

_LABELS = ("name", "source")
# MoEConfig fields added after the caches were written: left out of the key at their default,
# so that the keys of the cached runs stay valid.
_LATER_DEFAULTS = {"shared_expert_gate": False, "sliding_window": None, "n_sliding_layers": 0}


def run_key(cfg: MoEConfig, settings: TrainSettings, seed: int, corpus: Corpus) -> str:
    """The cache key of one run: 16 hex digits of a hash of everything that determines it."""
    payload = {
        "version": CACHE_VERSION,
        "cfg": {k: v for k, v in cfg.to_dict().items()
                if k not in _LABELS and not (k in _LATER_DEFAULTS and v == _LATER_DEFAULTS[k])},
        "settings": settings.to_dict(),
        "seed": seed,
        "corpus": corpus.name,
        "data": corpus.fingerprint,
    }
    text = json.dumps(payload, sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def _paths(name: str, cache_dir: Path) -> dict[str, Path]:
    return {part: cache_dir / f"{name}.{part}.csv" for part in ("runs", "curves", "load")}


def _read(path: Path) -> pd.DataFrame:
    return pd.read_csv(path) if path.exists() else pd.DataFrame()


def _downsample(history: pd.DataFrame, points: int) -> pd.DataFrame:
    if len(history) <= points:
        return history
    keep = np.unique(np.linspace(0, len(history) - 1, points).round().astype(int))
    return history.iloc[keep]


def _normalise(configs) -> list[tuple[str, MoEConfig, TrainSettings | None]]:
    items = configs.items() if isinstance(configs, dict) else [(c.name, c) for c in configs]
    out = []
    for label, value in items:
        if isinstance(value, tuple):
            cfg, settings = value
        else:
            cfg, settings = value, None
        out.append((str(label), cfg, settings))
    labels = [label for label, _, _ in out]
    if len(set(labels)) != len(labels):
        raise ValueError(f"sweep labels must be unique, got {labels}")
    return out


def sweep(
    name: str,
    configs: dict[str, MoEConfig | tuple[MoEConfig, TrainSettings]] | Sequence[MoEConfig],
    *,
    corpus: str | Corpus = "pydoc",
    settings: TrainSettings | None = None,
    seeds: Sequence[int] = (0,),
    cache_dir: str | Path | None = None,
    retrain: bool = False,
    progress: bool = True,
    curve_points: int = 40,
) -> pd.DataFrame:
    """Train every config for every seed (or read it from the cache); one row per run.

    Parameters
    ----------
    name
        The sweep's name: its cache files are ``NAME.{runs,curves,load}.csv``.
    configs
        ``{label: cfg}`` or ``{label: (cfg, settings)}`` (per-config settings), or a list of
        configs labelled by their ``name``. ``vocab_size`` must match the corpus.
    corpus
        A corpus or its name (``"pydoc"``, ``"synthetic"``).
    settings
        Training settings for configs that bring none.
    seeds
        Seeds to run each config with.
    cache_dir
        Where the CSV files live (default :data:`CACHE_DIR`).
    retrain
        Train again even where the cache has the run (and replace it).
    progress
        Show progress bars for runs that train.

    Returns
    -------
    pandas.DataFrame
        ``label, seed, key, corpus``, the config and settings fields, and the final numbers
        (``val_loss``, ``train_loss``, ``tokens``, ``flops``, ``flops_per_token``,
        ``n_params``, ``active_params``, ``load_cv``, ``wall_seconds``,
        ``tokens_per_second``), in the order of ``configs`` × ``seeds``. ``cached`` says
        whether the row was read from the cache.
    """
    from tqdm.auto import tqdm

    cache = Path(cache_dir) if cache_dir is not None else CACHE_DIR
    paths = _paths(name, cache)
    corpus_obj: Corpus | None = corpus if isinstance(corpus, Corpus) else None
    corpus_name = corpus if isinstance(corpus, str) else corpus.name
    items = _normalise(configs)
    default_settings = settings or TrainSettings()

    def the_corpus() -> Corpus:
        nonlocal corpus_obj
        if corpus_obj is None:
            corpus_obj = get_corpus(corpus_name)
        return corpus_obj

    stored = {part: _read(path) for part, path in paths.items()}
    known = set(stored["runs"]["key"]) if "key" in stored["runs"] else set()
    plan = [
        (label, cfg, s or default_settings, seed) for label, cfg, s in items for seed in seeds
    ]
    rows = []
    todo = [p for p in plan if retrain or run_key(p[1], p[2], p[3], the_corpus()) not in known]
    bar = tqdm(total=len(todo), desc=f"sweep {name}", disable=not (progress and todo))
    for label, cfg, s, seed in plan:
        key = run_key(cfg, s, seed, the_corpus())
        if key in known and not retrain:
            row = stored["runs"].loc[stored["runs"]["key"] == key].iloc[0].to_dict()
            row.update(label=label, cached=True)
            rows.append(row)
            continue
        found = None if retrain else _find_elsewhere(key, cache, name)
        if found is not None:  # the same run cached by another sweep: copy it over
            row_frame, curve, load = found
            row = row_frame.iloc[0].to_dict()
            cached = True
        else:
            result = train(
                cfg, the_corpus(), s, seed=seed, progress=progress, keep_model=False,
                desc=f"{label} seed {seed}",
            )
            bar.update(1)
            row = {
                "key": key, "label": label, "seed": seed, "corpus": the_corpus().name,
                "corpus_fingerprint": the_corpus().fingerprint,
            }
            row.update(
                {k: v for k, v in cfg.to_dict().items() if k not in _LABELS and k != "mla"}
            )
            row.update(s.to_dict())
            row.update(result.summary())
            curve = _downsample(result.history, curve_points).assign(key=key)
            load = result.load.assign(key=key)
            cached = False
        row["label"] = label
        for part, new in (("runs", pd.DataFrame([row])), ("curves", curve), ("load", load)):
            old = stored[part]
            if not old.empty and "key" in old:
                old = old[old["key"] != key]
            frames = [f for f in (old, new) if not f.empty]
            stored[part] = pd.concat(frames, ignore_index=True) if frames else new
        cache.mkdir(parents=True, exist_ok=True)
        for part, path in paths.items():
            if not stored[part].empty:
                stored[part].to_csv(path, index=False, float_format="%.6g")
        known.add(key)
        row["cached"] = cached
        rows.append(row)
    bar.close()
    return pd.DataFrame(rows).reset_index(drop=True)


def _find_elsewhere(key: str, cache: Path, name: str):
    """The rows of run ``key`` from another sweep's cache files, or None."""
    for runs_path in sorted(cache.glob("*.runs.csv")):
        other = runs_path.name[: -len(".runs.csv")]
        if other == name:
            continue
        runs = _read(runs_path)
        if "key" not in runs or key not in set(runs["key"]):
            continue
        parts = _paths(other, cache)
        curve, load = _read(parts["curves"]), _read(parts["load"])
        return (
            runs[runs["key"] == key],
            curve[curve["key"] == key] if "key" in curve else curve,
            load[load["key"] == key] if "key" in load else load,
        )
    return None


def _part(name: str, runs: pd.DataFrame, part: str, cache_dir) -> pd.DataFrame:
    cache = Path(cache_dir) if cache_dir is not None else CACHE_DIR
    data = _read(_paths(name, cache)[part])
    if data.empty:
        return data
    ids = runs[["key", "label", "seed"]]
    return ids.merge(data, on="key", how="inner")


def curves(name: str, runs: pd.DataFrame, *, cache_dir: str | Path | None = None) -> pd.DataFrame:
    """Loss curves of the runs in ``runs`` (a frame returned by :func:`sweep`), with labels."""
    return _part(name, runs, "curves", cache_dir)


def expert_loads(
    name: str, runs: pd.DataFrame, *, cache_dir: str | Path | None = None
) -> pd.DataFrame:
    """Validation expert load of ``runs``: ``layer, expert, group, tokens, fraction``."""
    return _part(name, runs, "load", cache_dir)
