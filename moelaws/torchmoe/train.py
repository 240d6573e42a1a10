"""Training loop and expert-load statistics.

:func:`train` trains a :class:`~moelaws.torchmoe.MoETransformer` on a corpus with AdamW, a
linear warm-up and cosine decay, and returns a :class:`TrainResult`: the loss curves against
tokens and training FLOPs (tokens × ``arch.flops(cfg, "exact", training=True)``), and the
per-expert load on the validation set.

Runs are deterministic on CPU: the same configuration, settings and seed give the same loss
curve, bit for bit, on the same machine, torch build and number of threads. A different
thread count changes the order of floating-point sums, and 600 steps later the validation
loss differs in the third decimal (e.g. 1.4514 with one thread, 1.4493 with two, for the
book's dense pydoc run). :func:`train` turns on ``torch.set_flush_denormal(True)``: denormal
floats otherwise slow CPU matmuls by an order of magnitude or more.

Expert load
-----------
For each MoE layer, the *fraction* of routed assignments that expert ``i`` receives
(``count_i / (N · k)``; 1/E each when balanced) and the *coefficient of variation* of the
counts across experts, ``std / mean`` with the population standard deviation — the imbalance
metric of the efficiency-leverage paper's Table 15. 0 is perfectly balanced; all tokens on one
expert gives ``sqrt(E - 1)``.
"""

from __future__ import annotations

import math
import time
from dataclasses import asdict, dataclass, field

import numpy as np
import pandas as pd
import torch

from moelaws import arch
from moelaws.arch import MoEConfig
from moelaws.arch.hf_config import ConfigLike, as_config
from moelaws.torchmoe.data import Corpus, get_corpus
from moelaws.torchmoe.model import MoETransformer

__all__ = [
    "TrainResult",
    "TrainSettings",
    "coefficient_of_variation",
    "expert_load",
    "make_optimizer",
    "train",
    "training_step",
    "validation_batches",
]

EVAL_SEED = 12345
"""Seed of the validation windows (the same for every run, whatever its seed)."""


@dataclass(frozen=True)
class TrainSettings:
    """Everything about a training run except the architecture, the corpus and the seed.

    The sequence length is the config's ``context_length`` (so that the attention FLOPs that
    ``arch`` counts are the ones the run does).
    """

    steps: int = 600
    batch_size: int = 16
    lr: float = 3e-3
    warmup_steps: int = 30
    min_lr_ratio: float = 0.1
    weight_decay: float = 0.1
    beta1: float = 0.9
    beta2: float = 0.95
    grad_clip: float = 1.0
    eval_every: int = 50
    eval_batches: int = 8
    dispatch: str = "sorted"
    aux_loss_coef: float = 0.01
    z_loss_coef: float = 0.001
    renormalize: bool = False

    def to_dict(self) -> dict:
        return asdict(self)

    def lr_at(self, step: int) -> float:
        """Learning rate of optimizer step ``step`` (0-based): warm-up, then cosine decay."""
        if step < self.warmup_steps:
            return self.lr * (step + 1) / self.warmup_steps
        progress = (step - self.warmup_steps) / max(1, self.steps - self.warmup_steps)
        cosine = 0.5 * (1 + math.cos(math.pi * min(1.0, progress)))
        return self.lr * (self.min_lr_ratio + (1 - self.min_lr_ratio) * cosine)


@dataclass
class TrainResult:
    """Outcome of :func:`train`.

    Attributes
    ----------
    history
        One row per evaluation: ``step, tokens, flops, lr, train_loss`` (mean cross-entropy
        of the steps since the previous row), ``val_loss``, ``balance_loss``, ``z_loss`` (mean
        over those steps; NaN for dense models), ``load_cv`` (mean over MoE layers of the
        coefficient of variation of the training-batch load since the previous row).
    load
        Validation-set routing: one row per ``(layer, expert, group)`` with ``tokens`` (routed
        assignments) and ``fraction`` (of the layer's assignments within that group). Group
        ``"all"`` is every token; a corpus with groups (languages) adds one set of rows per
        group. Empty for dense models.
    """

    cfg: MoEConfig
    settings: TrainSettings
    seed: int
    corpus: str
    history: pd.DataFrame
    load: pd.DataFrame
    n_params: int
    flops_per_token: float
    wall_seconds: float
    train_seconds: float
    model: MoETransformer | None = field(default=None, repr=False)

    @property
    def tokens(self) -> int:
        return int(self.history["tokens"].iloc[-1])

    @property
    def final_val_loss(self) -> float:
        return float(self.history["val_loss"].iloc[-1])

    @property
    def final_train_loss(self) -> float:
        return float(self.history["train_loss"].iloc[-1])

    @property
    def load_cv(self) -> float:
        """Mean over MoE layers of the validation-load coefficient of variation (NaN if dense)."""
        if self.load.empty:
            return math.nan
        per_layer = self.load[self.load["group"] == "all"].groupby("layer")["tokens"]
        return float(per_layer.apply(lambda s: coefficient_of_variation(s.to_numpy())).mean())

    def summary(self) -> dict:
        """One flat row: the run's identity and its final numbers."""
        return {
            "val_loss": self.final_val_loss,
            "train_loss": self.final_train_loss,
            "tokens": self.tokens,
            "flops": float(self.history["flops"].iloc[-1]),
            "flops_per_token": self.flops_per_token,
            "n_params": self.n_params,
            "active_params": arch.active_params(self.cfg, "exact"),
            "load_cv": self.load_cv,
            "wall_seconds": self.wall_seconds,
            "tokens_per_second": self.tokens / self.train_seconds if self.train_seconds else 0.0,
        }


def coefficient_of_variation(counts) -> float:
    """``std / mean`` of per-expert counts (population std); 0 when perfectly balanced."""
    c = np.asarray(counts, dtype=float)
    mean = c.mean()
    return float(c.std() / mean) if mean > 0 else math.nan


def _check_routing(n_experts: int, top_k: int) -> None:
    if not 1 <= top_k <= n_experts:
        raise ValueError(f"need 1 <= top_k <= n_experts, got top_k={top_k}, n_experts={n_experts}")


def max_load_cv(n_experts: int, top_k: int) -> float:
    """Largest CV of per-expert counts that top-``k`` routing of distinct experts can reach.

    Each of ``N`` tokens sends one assignment to each of ``k`` distinct experts, so an expert
    receives at most ``N`` of the ``N k`` assignments; the CV (population std over mean) is
    largest when ``k`` experts take ``N`` each and the rest none: ``sqrt(E/k - 1)``. Only for
    top-1 is this the ``sqrt(E - 1)`` of one expert taking everything.

    Raises
    ------
    ValueError
        Unless ``1 <= top_k <= n_experts``.
    """
    _check_routing(n_experts, top_k)
    return math.sqrt(n_experts / top_k - 1)


def max_balance_loss(n_experts: int, top_k: int) -> float:
    """Largest value of the Switch/GShard balancing loss ``E sum_i f_i P_i`` under top-``k``.

    With distinct experts every load ``f_i = count_i / (N k)`` is at most ``1/k``, and the
    mean probabilities ``P_i`` sum to one, so ``sum_i f_i P_i <= 1/k``: the loss is at most
    ``E/k``, reached when every token puts all its probability on the same ``k`` experts
    (Fedus et al. 2022, Eq. 4; ``E`` for top-1). Its value at an even load is 1, but 1 is not
    a lower bound: an uneven load can meet mean probabilities that avoid the busy experts.

    Raises
    ------
    ValueError
        Unless ``1 <= top_k <= n_experts``.
    """
    _check_routing(n_experts, top_k)
    return n_experts / top_k


def make_optimizer(model: torch.nn.Module, settings: TrainSettings) -> torch.optim.Optimizer:
    """AdamW with weight decay on matrices only, fused when this torch build supports it."""
    decay = [p for p in model.parameters() if p.dim() >= 2]
    no_decay = [p for p in model.parameters() if p.dim() < 2]
    groups = [
        {"params": decay, "weight_decay": settings.weight_decay},
        {"params": no_decay, "weight_decay": 0.0},
    ]
    kwargs = {"lr": settings.lr, "betas": (settings.beta1, settings.beta2)}
    try:  # fused AdamW is several times faster on CPU where it exists
        return torch.optim.AdamW(groups, fused=True, **kwargs)
    except (RuntimeError, TypeError):
        return torch.optim.AdamW(groups, **kwargs)


def training_step(
    model: MoETransformer,
    opt: torch.optim.Optimizer,
    x: torch.Tensor,
    y: torch.Tensor,
    grad_clip: float | None,
):
    """One optimizer step on a batch: forward, backward, gradient clipping, update.

    Returns the model output (:class:`~moelaws.torchmoe.model.MoEOutput`) of the forward pass.
    """
    out = model(x, y)
    opt.zero_grad(set_to_none=True)
    out.loss.backward()
    if grad_clip:
        torch.nn.utils.clip_grad_norm_(model.parameters(), grad_clip)
    opt.step()
    return out


def validation_batches(corpus: Corpus, settings: TrainSettings, seq_len: int) -> list:
    """The validation windows every run of :func:`train` is scored and its load counted on.

    ``settings.eval_batches`` batches of ``(x, y, groups)`` drawn from the validation split
    with the fixed seed ``EVAL_SEED``: the same positions whatever the model or its seed.
    """
    gen = torch.Generator().manual_seed(EVAL_SEED)
    return [
        corpus.batch("val", settings.batch_size, seq_len, gen) for _ in range(settings.eval_batches)
    ]


@torch.no_grad()
def _evaluate(model: MoETransformer, batches: list) -> float:
    model.eval()
    losses = [float(model(x, y).ce_loss) for x, y, _ in batches]
    model.train()
    return float(np.mean(losses))


@torch.no_grad()
def expert_load(
    model: MoETransformer, batches: list, group_names: list[str] | None = None
) -> pd.DataFrame:
    """Routed assignments per ``(layer, expert, group)`` over ``batches`` of ``(x, y, groups)``.

    Returns an empty frame for dense models. See :class:`TrainResult` for the columns.
    """
    layers = model.moe_layers()
    if not layers:
        return pd.DataFrame(columns=["layer", "expert", "group", "tokens", "fraction"])
    n_experts = layers[0].n_experts
    n_groups = len(group_names or [])
    totals: dict[int, torch.Tensor] = {}
    by_group: dict[int, torch.Tensor] = {}
    model.eval()
    for x, _, groups in batches:
        out = model(x)
        for r in out.routing:
            flat = r.indices.reshape(-1)
            totals[r.layer] = totals.get(r.layer, 0) + torch.bincount(flat, minlength=n_experts)
            if n_groups and groups is not None:
                g = groups.reshape(-1, 1).expand_as(r.indices).reshape(-1)
                joint = torch.bincount(g * n_experts + flat, minlength=n_groups * n_experts)
                by_group[r.layer] = by_group.get(r.layer, 0) + joint.view(n_groups, n_experts)
    model.train()
    rows = []
    for layer, counts in totals.items():
        sets = [("all", counts)]
        if layer in by_group:
            sets += [(group_names[i], by_group[layer][i]) for i in range(n_groups)]
        for name, c in sets:
            total = max(int(c.sum()), 1)
            rows += [
                (layer, e, name, int(c[e]), int(c[e]) / total) for e in range(n_experts)
            ]
    return pd.DataFrame(rows, columns=["layer", "expert", "group", "tokens", "fraction"])


def train(
    cfg: ConfigLike,
    corpus: str | Corpus = "pydoc",
    settings: TrainSettings | None = None,
    *,
    seed: int = 0,
    progress: bool = True,
    keep_model: bool = True,
    desc: str | None = None,
) -> TrainResult:
    """Train ``cfg`` on ``corpus`` and return its loss curves and expert load.

    Parameters
    ----------
    cfg : MoEConfig or Hugging Face config (dict, path or directory)
        Architecture (converted by :func:`moelaws.arch.as_config`); its ``vocab_size`` must
        equal the corpus's and its ``context_length`` is the training sequence length.
    corpus
        A :class:`~moelaws.torchmoe.data.Corpus` or a name from ``data.CORPORA``.
    settings
        Optimiser, schedule, batch and MoE-loss settings (defaults: :class:`TrainSettings`).
    seed
        Seeds the initialisation and the training batches (validation windows are fixed).
    progress
        Show a tqdm progress bar.
    keep_model
        Keep the trained model in the result.

    Raises
    ------
    ValueError
        If the vocabulary sizes differ.
    """
    from tqdm.auto import tqdm

    cfg = as_config(cfg)
    settings = settings or TrainSettings()
    corpus = get_corpus(corpus)
    if cfg.vocab_size != corpus.vocab_size:
        raise ValueError(
            f"cfg.vocab_size ({cfg.vocab_size}) != corpus vocabulary ({corpus.vocab_size})"
        )
    # Denormal floats (from tiny gradients and Adam moments) slow CPU matmuls by 10x or more.
    torch.set_flush_denormal(True)
    start = time.perf_counter()
    torch.manual_seed(seed)
    model = MoETransformer(
        cfg,
        dispatch=settings.dispatch,
        aux_loss_coef=settings.aux_loss_coef,
        z_loss_coef=settings.z_loss_coef,
        renormalize=settings.renormalize,
    )
    opt = make_optimizer(model, settings)
    seq_len = cfg.context_length
    tokens_per_step = settings.batch_size * seq_len
    flops_per_token = arch.flops(cfg, "exact", training=True)
    gen = torch.Generator().manual_seed(seed)
    eval_batches = validation_batches(corpus, settings, seq_len)

    rows = []
    window: dict[str, list] = {"ce": [], "bal": [], "z": []}
    window_counts: dict[int, torch.Tensor] = {}
    train_seconds = 0.0

    def record(step: int) -> None:
        cv = [coefficient_of_variation(c.numpy()) for c in window_counts.values()]
        rows.append(
            {
                "step": step,
                "tokens": step * tokens_per_step,
                "flops": step * tokens_per_step * flops_per_token,
                "lr": settings.lr_at(max(step - 1, 0)),
                "train_loss": float(np.mean(window["ce"])) if window["ce"] else math.nan,
                "val_loss": _evaluate(model, eval_batches),
                "balance_loss": float(np.mean(window["bal"])) if window["bal"] else math.nan,
                "z_loss": float(np.mean(window["z"])) if window["z"] else math.nan,
                "load_cv": float(np.mean(cv)) if cv else math.nan,
            }
        )
        for v in window.values():
            v.clear()
        window_counts.clear()

    record(0)
    bar = tqdm(
        range(1, settings.steps + 1), desc=desc or cfg.name, disable=not progress, leave=False
    )
    for step in bar:
        t0 = time.perf_counter()
        for group in opt.param_groups:
            group["lr"] = settings.lr_at(step - 1)
        x, y, _ = corpus.batch("train", settings.batch_size, seq_len, gen)
        out = training_step(model, opt, x, y, settings.grad_clip)
        train_seconds += time.perf_counter() - t0
        window["ce"].append(out.ce_loss.item())
        if out.balance_loss is not None:
            window["bal"].append(out.balance_loss.item())
            window["z"].append(out.z_loss.item())
            for r in out.routing:
                window_counts[r.layer] = window_counts.get(r.layer, 0) + r.counts
        if step % settings.eval_every == 0 or step == settings.steps:
            record(step)
            last = rows[-1]
            bar.set_postfix(train=f"{last['train_loss']:.3f}", val=f"{last['val_loss']:.3f}")
    bar.close()

    load = expert_load(model, eval_batches, corpus.group_names)
    return TrainResult(
        cfg=cfg,
        settings=settings,
        seed=seed,
        corpus=corpus.name,
        history=pd.DataFrame(rows),
        load=load,
        n_params=model.num_params(),
        flops_per_token=flops_per_token,
        wall_seconds=time.perf_counter() - start,
        train_seconds=train_seconds,
        model=model if keep_model else None,
    )
