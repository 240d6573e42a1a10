"""Training throughput of a dense model and of MoE models with the same active FLOPs per token.

Run ``python -m moelaws.torchmoe.bench`` (add ``--json`` for one JSON object). On the machine it
runs on it measures training tokens/s (forward, backward, gradient clipping and a fused AdamW
step) of

* a dense model: 4 layers, d_model 128, 4 heads, context 64, SwiGLU width 512;
* MoE models with E in {8, 16, 32, 64} experts, top-1 of width 512 and top-2 of width 256 (so
  the active FLOPs per token equal the dense model's, up to the router's 2·d·E), with every
  dispatch implementation.

Every model trains on the same number of tokens per step, 4096 by default (64 sequences of 64
tokens; ``--tokens-per-step`` changes it). The choice matters for MoE: each expert sees about
``tokens_per_step * k / E`` rows per step, and the optimizer and gradient clipping touch all
``E`` experts' weights once per step whatever the batch. With 1024 tokens per step the E = 32
top-2 experts get 64 rows each, their weights are streamed through memory for very little
arithmetic, and AdamW plus clipping over 12.9M parameters (1.1M for the dense model) is a
sizeable part of the step, so the MoE/dense ratio is far below what it is at the batch sizes
models are actually trained with (hundreds of thousands of tokens per step and up). 4096 is a
compromise that keeps the whole benchmark to a few minutes on two cores; the ratio generally
improves with more tokens per step.

Measurements are interleaved (every model and dispatch once per round, several rounds) and
the median of the rounds is reported, because the throughput of identical runs varies by
10-20 % on a shared CPU: compare numbers *within* one run, as ratios. ``moe_over_dense_e32``
is the tokens/s of the fast dispatch (:data:`FAST_DISPATCH`) at E = 32, top-2, divided by the
dense model's; 1.0 is ideal. If a CUDA GPU is present the same measurements are repeated on it.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import time
from collections.abc import Sequence

import torch

from moelaws import arch
from moelaws.arch import MoEConfig
from moelaws.torchmoe.model import MoETransformer, available_dispatches
from moelaws.torchmoe.train import TrainSettings, make_optimizer, training_step

__all__ = ["FAST_DISPATCH", "bench_configs", "main", "measure"]

FAST_DISPATCH = "grouped" if "grouped" in available_dispatches() else "sorted"
"""The dispatch that ``moe_over_dense_e32`` reports (grouped_mm where torch has it)."""


def bench_configs(
    experts: Sequence[int] = (8, 16, 32, 64),
    *,
    d_model: int = 128,
    n_layers: int = 4,
    n_heads: int = 4,
    context_length: int = 64,
    vocab_size: int = 128,
    dense_width: int = 512,
) -> dict[str, MoEConfig]:
    """The dense model and its equal-active-FLOPs MoE variants (top-1 and top-2)."""
    base = dict(
        n_layers=n_layers, d_model=d_model, n_heads=n_heads,
        context_length=context_length, vocab_size=vocab_size,
    )
    cfgs = {"dense": MoEConfig(name="dense", d_ff=dense_width, **base)}
    for e in experts:
        for k in (1, 2):
            name = f"E{e}-top{k}"
            cfgs[name] = MoEConfig(
                name=name, n_experts=e, top_k=k, d_expert=dense_width // k, **base
            )
    return cfgs


class _Runner:
    """One model, its optimizer and a few fixed random batches on a device."""

    def __init__(self, cfg: MoEConfig, batch: int, device: str, seed: int = 0) -> None:
        torch.manual_seed(seed)
        self.cfg = cfg
        self.model = MoETransformer(cfg).to(device)
        self.settings = TrainSettings()
        self.opt = make_optimizer(self.model, self.settings)
        gen = torch.Generator().manual_seed(seed)
        data = torch.randint(0, cfg.vocab_size, (4, batch, cfg.context_length + 1), generator=gen)
        self.batches = [(b[:, :-1].to(device), b[:, 1:].to(device)) for b in data]
        self.tokens_per_step = batch * cfg.context_length
        self.device = device
        self.i = 0

    def step(self) -> None:
        x, y = self.batches[self.i % len(self.batches)]
        self.i += 1
        training_step(self.model, self.opt, x, y, self.settings.grad_clip)

    def _sync(self) -> None:
        if self.device.startswith("cuda"):
            torch.cuda.synchronize()

    def tokens_per_second(self, dispatch: str | None, steps: int, warmup: int) -> float:
        if dispatch is not None:
            self.model.dispatch = dispatch
        for _ in range(warmup):
            self.step()
        self._sync()
        start = time.perf_counter()
        for _ in range(steps):
            self.step()
        self._sync()
        return steps * self.tokens_per_step / (time.perf_counter() - start)


def measure(
    device: str = "cpu",
    *,
    experts: Sequence[int] = (8, 16, 32, 64),
    dispatches: Sequence[str] | None = None,
    steps: int = 4,
    warmup: int = 1,
    rounds: int = 3,
    tokens_per_step: int = 4096,
    batch: int | None = None,
    progress: bool = True,
    **model_kwargs,
) -> dict:
    """Interleaved throughput measurements on one device; see the module docstring.

    ``batch`` (sequences per step), if given, overrides ``tokens_per_step``, which must
    otherwise be a multiple of the context length.

    Returns a dict with ``device``, ``dense_tokens_per_s``, ``tokens_per_step``, ``results``
    (one dict per model and dispatch: ``model, n_experts, top_k, dispatch, tokens_per_s,
    over_dense, total_params, flops_ratio, error``) and ``moe_over_dense_e32``.
    """
    from tqdm.auto import tqdm

    torch.set_flush_denormal(True)  # denormals slow CPU matmuls by an order of magnitude
    dispatches = list(dispatches or available_dispatches())
    cfgs = bench_configs(experts, **model_kwargs)
    context = cfgs["dense"].context_length
    if batch is None:
        if tokens_per_step % context:
            raise ValueError(f"tokens_per_step must be a multiple of the context ({context})")
        batch = tokens_per_step // context
    dense_flops = arch.flops(cfgs["dense"], "exact")
    runners = {name: _Runner(cfg, batch, device) for name, cfg in cfgs.items()}
    jobs = [("dense", None)] + [
        (name, d) for name in cfgs if name != "dense" for d in dispatches
    ]
    samples: dict[tuple, list[float]] = {job: [] for job in jobs}
    errors: dict[tuple, str] = {}
    bar = tqdm(total=rounds * len(jobs), desc=f"bench {device}", disable=not progress)
    for _ in range(rounds):
        for job in jobs:
            bar.update(1)
            if job in errors:
                continue
            try:
                samples[job].append(runners[job[0]].tokens_per_second(job[1], steps, warmup))
            except Exception as exc:  # e.g. grouped_mm unsupported for a dtype on a GPU
                errors[job] = f"{type(exc).__name__}: {exc}"[:200]
    bar.close()
    dense = statistics.median(samples[("dense", None)])
    results = []
    for job in jobs:
        cfg = cfgs[job[0]]
        tps = statistics.median(samples[job]) if samples[job] else float("nan")
        results.append(
            {
                "model": job[0],
                "n_experts": cfg.n_experts,
                "top_k": cfg.top_k,
                "dispatch": job[1] or "-",
                "tokens_per_s": tps,
                "over_dense": tps / dense,
                "total_params": runners[job[0]].model.num_params(),
                "flops_ratio": arch.flops(cfg, "exact") / dense_flops,
                "error": errors.get(job, ""),
            }
        )
    e32 = {
        r["dispatch"]: r for r in results
        if r["n_experts"] == 32 and r["top_k"] == 2 and not r["error"]
    }
    # the fast dispatch, or the sorted one where grouped_mm fails (e.g. float32 on some GPUs)
    fast = FAST_DISPATCH if FAST_DISPATCH in e32 else "sorted"
    return {
        "device": device,
        "device_name": _device_name(device),
        "dense_tokens_per_s": dense,
        "moe_over_dense_e32": e32[fast]["over_dense"] if fast in e32 else None,
        "fast_dispatch": fast,
        "tokens_per_step": batch * context,
        "steps": steps,
        "rounds": rounds,
        "results": results,
    }


def _device_name(device: str) -> str:
    if device.startswith("cuda"):
        return torch.cuda.get_device_name(device)
    return f"{platform.processor() or platform.machine()}, {torch.get_num_threads()} threads"


def _table(report: dict) -> str:
    lines = [
        f"device: {report['device']} ({report['device_name']}); "
        f"{report['tokens_per_step']} tokens/step; "
        f"dense: {report['dense_tokens_per_s']:,.0f} tokens/s",
        f"{'model':<10} {'dispatch':<8} {'tokens/s':>10} {'/dense':>7} {'params':>11} "
        f"{'FLOPs/dense':>11}",
    ]
    for r in report["results"]:
        lines.append(
            f"{r['model']:<10} {r['dispatch']:<8} {r['tokens_per_s']:>10,.0f} "
            f"{r['over_dense']:>7.2f} {r['total_params']:>11,} {r['flops_ratio']:>11.3f}"
            + (f"  {r['error']}" if r["error"] else "")
        )
    ratio = report["moe_over_dense_e32"]
    if ratio is not None:
        lines.append(
            f"moe_over_dense_e32 ({report['fast_dispatch']}, E=32, top-2): {ratio:.2f}"
        )
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m moelaws.torchmoe.bench",
        description="Training tokens/s of dense vs equal-active-FLOPs MoE models.",
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--experts", default="8,16,32,64", help="comma-separated E values")
    parser.add_argument("--dispatch", default=None,
                        help=f"comma-separated, from {','.join(available_dispatches())}")
    parser.add_argument("--steps", type=int, default=4, help="timed steps per measurement")
    parser.add_argument("--warmup", type=int, default=1, help="untimed steps per measurement")
    parser.add_argument("--rounds", type=int, default=3, help="interleaved rounds (median)")
    parser.add_argument("--tokens-per-step", type=int, default=4096,
                        help="training tokens per step (a multiple of the context, 64)")
    parser.add_argument("--batch", type=int, default=None,
                        help="sequences per step (overrides --tokens-per-step)")
    parser.add_argument("--d-model", type=int, default=128)
    parser.add_argument("--no-gpu", action="store_true", help="skip CUDA even if present")
    args = parser.parse_args(argv)
    experts = [int(e) for e in args.experts.split(",") if e]
    dispatches = args.dispatch.split(",") if args.dispatch else None
    kwargs = dict(
        experts=experts, dispatches=dispatches, steps=args.steps, warmup=args.warmup,
        rounds=args.rounds, tokens_per_step=args.tokens_per_step, batch=args.batch,
        d_model=args.d_model, progress=not args.json,
    )
    load_before = os.getloadavg()[0] if hasattr(os, "getloadavg") else None
    report = {"torch": torch.__version__, "cpu": measure("cpu", **kwargs)}
    # other processes competing for the cores make every number lower and noisier
    report["load_average_before"] = load_before
    report["cpu_count"] = os.cpu_count()
    report["moe_over_dense_e32"] = report["cpu"]["moe_over_dense_e32"]
    if torch.cuda.is_available() and not args.no_gpu:
        report["gpu"] = measure("cuda", **kwargs)
        report["gpu_moe_over_dense_e32"] = report["gpu"]["moe_over_dense_e32"]
    if args.json:
        print(json.dumps(report))
    else:
        print(f"torch {report['torch']}")
        print(_table(report["cpu"]))
        if "gpu" in report:
            print()
            print(_table(report["gpu"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
