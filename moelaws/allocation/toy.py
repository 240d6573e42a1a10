"""Our toy-scale re-derivation: sweep r at fixed per-token compute with ``moelaws.torchmoe``.

This is our experiment, not the paper's. A 2-layer, d_model-64 MoE language model is trained
on the characters of Python's help topics (``torchmoe`` corpus ``"pydoc"``) at two sparsities
(17 and 65 experts, 1 shared + 2 routed active: S = 82.35 % and 95.38 %, two of the paper's
four) and seven ratios r = C_E/C_A from 0.25 to 16. Per-token compute is fixed: the per-head
width sets the attention FLOPs and the expert width takes the rest
(:func:`~moelaws.allocation.design.config_for_ratio`). The learning rate is constant after a
short warm-up, so the validation losses at the evaluation checkpoints are losses at increasing
training compute C = tokens × FLOPs per token, comparable across runs.

The runs are cached as CSV in ``moelaws/data/allocation/`` (files ``toy_allocation.*.csv``
written by :func:`moelaws.torchmoe.runs.sweep`); the chapter reads them with
:func:`load_runs` and :func:`load_curves` and never trains. The runs are the named sweep
``toy_allocation`` of the book's one training entry point::

    python -m moelaws.torchmoe.sweep --run toy_allocation   # trains missing runs
    python -m moelaws.torchmoe.sweep --regenerate toy_allocation   # all 28, ~40 CPU-min
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np
import pandas as pd

from moelaws.allocation.design import config_for_ratio, flops_split
from moelaws.arch import MoEConfig
from moelaws.paper_data import data_dir

SWEEP_NAME = "toy_allocation"
RATIOS: tuple[float, ...] = (0.25, 0.5, 1.0, 2.0, 4.0, 8.0, 16.0)
EXPERTS: tuple[int, ...] = (17, 65)
"""Experts per layer, shared included (1 shared + 16 or 64 routed)."""
SEEDS: tuple[int, ...] = (0, 1)
CHECKPOINTS: tuple[int, ...] = (100, 200, 400)
"""Training steps at which the valley is located (compute budgets 1 : 2 : 4)."""
PYDOC_VOCAB = 103
"""Vocabulary of the ``pydoc`` corpus on CPython 3.11 (regeneration uses the corpus itself)."""


def base_config(n_experts_total: int, vocab_size: int = PYDOC_VOCAB) -> MoEConfig:
    """The toy model at r = 1: 2 layers, d_model 64, 4 heads of width 32, context 64."""
    return MoEConfig(
        n_layers=2, d_model=64, n_heads=4, head_dim=32, n_experts=n_experts_total - 1,
        top_k=2, n_shared=1, d_expert=64, vocab_size=vocab_size, context_length=64,
        name=f"toy E={n_experts_total}",
    )


def flops_per_layer() -> float:
    """The fixed per-token, per-layer budget C_A + C_E: that of 4 heads of width 32 at r = 1."""
    cfg = base_config(EXPERTS[0])
    attention = flops_split(cfg)["C_A"] / cfg.n_layers
    return 2.0 * attention


def toy_configs(vocab_size: int = PYDOC_VOCAB) -> dict[str, MoEConfig]:
    """Every configuration of the sweep, labelled ``"E=<experts> r=<target>"``."""
    budget = flops_per_layer()
    out = {}
    for e in EXPERTS:
        for r in RATIOS:
            cfg = config_for_ratio(base_config(e, vocab_size), r, flops_per_layer=budget)
            out[f"E={e} r={r:g}"] = cfg.replace(name=f"E={e} r={r:g}")
    return out


def settings():
    """Training settings: 400 steps of 16 x 64 tokens, lr 3e-3 constant after 20 warm-up steps."""
    from moelaws.torchmoe.train import TrainSettings

    return TrainSettings(
        steps=400, batch_size=16, lr=3e-3, warmup_steps=20, min_lr_ratio=1.0,
        eval_every=50, eval_batches=8,
    )


def _data_dir() -> Path:
    return data_dir("allocation")


def regenerate(*, retrain: bool = False, progress: bool = True) -> pd.DataFrame:
    """Train the sweep (only runs missing from the cache, unless ``retrain``) and cache it."""
    import torch

    from moelaws.torchmoe.data import get_corpus
    from moelaws.torchmoe.runs import sweep

    corpus = get_corpus("pydoc")
    threads = torch.get_num_threads()
    # the cached runs were trained single-threaded; regenerated ones should match them
    torch.set_num_threads(1)
    try:
        return sweep(
            SWEEP_NAME, toy_configs(corpus.vocab_size), corpus=corpus, settings=settings(),
            seeds=SEEDS, cache_dir=_data_dir(), retrain=retrain, progress=progress,
            curve_points=100,
        )
    finally:
        torch.set_num_threads(threads)


def _annotate(runs: pd.DataFrame) -> pd.DataFrame:
    parts = runs["label"].str.extract(r"E=(?P<E>\d+) r=(?P<r_target>[\d.]+)")
    out = runs.assign(E=parts["E"].astype(int), r_target=parts["r_target"].astype(float))
    split = [flops_split(_config_of(row)) for row in out.itertuples()]
    return out.assign(
        r=[s["r"] for s in split],
        S=[s["S"] for s in split],
        alloc_flops_per_token=[s["training_flops_per_token"] for s in split],
    )


def _config_of(row) -> MoEConfig:
    return MoEConfig(
        n_layers=int(row.n_layers), d_model=int(row.d_model), n_heads=int(row.n_heads),
        head_dim=int(row.head_dim), n_experts=int(row.n_experts), top_k=int(row.top_k),
        n_shared=int(row.n_shared), d_expert=int(row.d_expert),
        vocab_size=int(row.vocab_size), context_length=int(row.context_length),
    )


def load_runs() -> pd.DataFrame:
    """The cached runs, one row per (configuration, seed), with E, target and achieved r, S.

    Raises
    ------
    FileNotFoundError
        If the cache has not been generated.
    """
    path = _data_dir() / f"{SWEEP_NAME}.runs.csv"
    if not path.exists():
        raise FileNotFoundError(
            f"{path} is missing; run python -m moelaws.torchmoe.sweep --run {SWEEP_NAME}")
    return _annotate(pd.read_csv(path))


def load_curves() -> pd.DataFrame:
    """Validation loss of every run at every evaluation step, with E, r, S and compute C.

    ``C`` is training FLOPs so far under the allocation paper's App. C count
    (3 x forward FLOPs per token, logits included, times tokens).
    """
    runs = load_runs()
    curves = pd.read_csv(_data_dir() / f"{SWEEP_NAME}.curves.csv")
    keep = ["key", "label", "seed", "E", "S", "r_target", "r", "alloc_flops_per_token"]
    out = curves.merge(runs[keep], on="key", how="inner")
    return out.assign(C=out["tokens"] * out["alloc_flops_per_token"])


def valley_fit(r: np.ndarray, loss: np.ndarray) -> dict[str, float]:
    """Fit ``loss = c0 + c1·ln r + c2·(ln r)²`` and return its vertex.

    Parameters
    ----------
    r, loss
        At least three positive ratios with at least three distinct values, and losses.

    Returns
    -------
    dict
        ``r_star`` (the vertex ``exp(−c1/(2·c2))``), ``curvature`` ``c2``, ``loss_min`` and
        ``rmse`` of the fit. ``r_star`` is NaN when the fit has no minimum (``c2 <= 0``).

    Raises
    ------
    ValueError
        For fewer than three distinct ratios, non-positive ratios or mismatched lengths.
    """
    x = np.asarray(r, dtype=float)
    y = np.asarray(loss, dtype=float)
    if x.shape != y.shape or x.ndim != 1:
        raise ValueError("r and loss must be 1-D arrays of the same length")
    if np.any(~np.isfinite(x)) or np.any(x <= 0) or np.any(~np.isfinite(y)):
        raise ValueError("ratios must be positive and finite, losses finite")
    if np.unique(x).size < 3:
        raise ValueError("a valley fit needs at least three distinct ratios")
    lx = np.log(x)
    c2, c1, c0 = np.polyfit(lx, y, 2)
    rmse = float(np.sqrt(np.mean((np.polyval([c2, c1, c0], lx) - y) ** 2)))
    if c2 <= 0:
        return {"r_star": np.nan, "curvature": float(c2), "loss_min": np.nan, "rmse": rmse}
    vertex = -c1 / (2 * c2)
    return {
        "r_star": float(np.exp(vertex)),
        "curvature": float(c2),
        "loss_min": float(c0 - c1**2 / (4 * c2)),
        "rmse": rmse,
    }


def _window(ratios: np.ndarray, losses: np.ndarray, width: int | None) -> np.ndarray:
    """The ``width`` consecutive ratios centred (as far as the ends allow) on the lowest loss."""
    order = np.argsort(ratios)
    if width is None or width >= len(order):
        return ratios[order]
    best = int(np.argmin(losses[order]))
    start = min(max(best - width // 2, 0), len(order) - width)
    return ratios[order][start:start + width]


def toy_optima(curves: pd.DataFrame, steps=CHECKPOINTS, window: int | None = 5) -> pd.DataFrame:
    """The fitted valley minimum for each (E, checkpoint): per seed and for the seed mean.

    The quadratic in ``ln r`` is fitted to the ``window`` consecutive ratios centred on the
    ratio with the lowest seed-mean loss (all ratios if ``window`` is None): a log-quadratic
    is a local description of a valley that is flat on one side and steep on the other.

    Returns one row per ``(E, S, step, C, seed)`` with ``seed`` ``"mean"`` for the fit to the
    seed-averaged losses, the :func:`valley_fit` columns, ``best_r`` (the ratio with the
    lowest loss) and ``inside`` (whether the fitted vertex lies within the swept ratios).
    Groups with fewer than three ratios (an incomplete cache) are skipped.
    """
    rows = []
    for (e, step), g in curves[curves["step"].isin(steps)].groupby(["E", "step"]):
        base = {"E": e, "S": g["S"].iloc[0], "step": step, "C": g["C"].mean()}
        mean = g.groupby("r", as_index=False)["val_loss"].mean()
        keep = _window(mean["r"].to_numpy(), mean["val_loss"].to_numpy(), window)
        fits = [(str(seed), gs.groupby("r", as_index=False)["val_loss"].mean())
                for seed, gs in g.groupby("seed")]
        fits.append(("mean", mean))
        for seed, pts in fits:
            pts = pts[pts["r"].isin(keep)]
            if pts["r"].nunique() < 3:
                continue
            v = valley_fit(pts["r"], pts["val_loss"])
            inside = bool(pts["r"].min() <= v["r_star"] <= pts["r"].max())
            best = float(pts.loc[pts["val_loss"].idxmin(), "r"])
            rows.append({**base, "seed": seed, **v, "best_r": best, "inside": inside})
    return pd.DataFrame(rows)


NAMED_SWEEPS: dict[str, Callable[..., pd.DataFrame]] = {SWEEP_NAME: regenerate}
"""The named sweeps of ``python -m moelaws.torchmoe.sweep`` (``run(retrain=, progress=)``)."""
