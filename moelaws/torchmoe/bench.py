"""Training throughput of a dense model and of MoE models with the same active FLOPs per token.

Run ``python -m moelaws.torchmoe.bench`` (add ``--json`` for one JSON object): by default it
measures only the headline below (E = 32, top-2 against dense, at least 3 interleaved rounds,
a progress bar on stderr), which takes a minute or two on two cores. ``--sweep`` adds the full
sweep, which prints its expected duration before it starts. On the machine it runs on it
measures training tokens/s (forward, backward, gradient clipping and a fused AdamW step) of

* a dense model: 4 layers, d_model 128, 4 heads, context 64, SwiGLU width 512;
* with ``--sweep``, MoE models with E in {8, 16, 32, 64} experts, top-1 of width 512 and
  top-2 of width 256 (so the active FLOPs per token equal the dense model's, up to the
  router's 2·d·E), with every dispatch implementation.

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

Measurements are interleaved: in every round each MoE model and dispatch is measured right
after a measurement of the dense model, and its ratio to the dense model is taken within that
pair, so that a change in the machine's load between rounds affects both sides of a ratio
alike. Each ratio is reported as the median and the minimum over the rounds, because the
throughput of identical runs varies by 10-20 % on a quiet CPU and far more on a shared one:
compare numbers *within* one run, as ratios.

The headline, ``moe_over_dense_e32``, is E = 32, top-2 against the dense model measured the same
way but at a training-sized batch, :data:`HEADLINE_TOKENS_PER_STEP` tokens per step, with the
:data:`HEADLINE_DISPATCH` dispatch (``--headline-dispatch`` changes it; at this batch the
experts' matmuls are large enough to amortise the optimizer step over all 32 experts'
weights); ``moe_over_dense_e32_min`` is its minimum over the rounds (at least 3). 1.0 is ideal.
(``torch.compile`` of the model measured slower, and is not used.) If a CUDA GPU is present the
same measurements are repeated on it.

Clock: on a CPU, tokens per second are tokens per second of the process's CPU time
(:func:`time.process_time`), with one thread: the wall clock also counts the time other
processes hold the cores, which made identical wall-clock pairs differ by a factor of two on a
shared machine. The headline also reports the same steps' wall-clock ratios, which agree with
the CPU-time ones only on a quiet machine. On a GPU the wall clock is used (after
synchronising).

Threads: :func:`moelaws.threads.limit` sets one thread per process unless ``OMP_NUM_THREADS``
says otherwise (``--threads`` too); the report records the count and the load average before
and after, since other processes competing for the cores make every number lower and noisier.
Speed is reported, never tested: no test fails on a throughput.
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

from moelaws import arch, threads
from moelaws.arch import MoEConfig
from moelaws.torchmoe.model import MoETransformer, available_dispatches
from moelaws.torchmoe.train import TrainSettings, make_optimizer, training_step

__all__ = ["FAST_DISPATCH", "HEADLINE_DISPATCH", "HEADLINE_TOKENS_PER_STEP", "bench_configs",
           "headline", "main", "measure"]

HEADLINE_TOKENS_PER_STEP = 16384
"""Tokens per step of the headline E = 32, top-2 ratio (256 sequences of 64 tokens)."""

HEADLINE_DISPATCH = "sorted"
"""The dispatch of the headline ratio: at a training-sized batch it measured 0.9-1.2."""

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
        """Training tokens per second of :func:`_clock` (CPU time on a CPU, wall clock on a
        GPU)."""
        return self.timed(dispatch, steps, warmup)[0]

    def timed(self, dispatch: str | None, steps: int, warmup: int) -> tuple[float, float]:
        """Training tokens per second of :func:`_clock` and of the wall clock, same steps."""
        if dispatch is not None:
            self.model.dispatch = dispatch
        for _ in range(warmup):
            self.step()
        self._sync()
        clock = _clock(self.device)
        start, wall_start = clock(), time.perf_counter()
        for _ in range(steps):
            self.step()
        self._sync()
        tokens = steps * self.tokens_per_step
        return tokens / (clock() - start), tokens / (time.perf_counter() - wall_start)


def _clock(device: str):
    """The clock a measurement uses: the process's CPU time on a CPU, where the wall clock
    also counts the time other processes hold the cores (on a shared 2-core machine the E = 32
    ratio ranged 0.63-1.32 in wall-clock pairs); the wall clock on a GPU."""
    return time.perf_counter if device.startswith("cuda") else time.process_time


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
    ratios: dict[tuple, list[float]] = {job: [] for job in jobs}
    errors: dict[tuple, str] = {}
    moe_jobs = jobs[1:]
    bar = tqdm(total=rounds * len(moe_jobs), desc=f"sweep {device}", disable=not progress,
               file=sys.stderr)
    for _ in range(rounds):
        for job in moe_jobs:
            bar.update(1)
            if job in errors:
                continue
            # dense, then this MoE job: the pair's ratio sees the same load on both sides
            dense_tps = runners["dense"].tokens_per_second(None, steps, warmup)
            samples[("dense", None)].append(dense_tps)
            try:
                tps = runners[job[0]].tokens_per_second(job[1], steps, warmup)
            except Exception as exc:  # e.g. grouped_mm unsupported for a dtype on a GPU
                errors[job] = f"{type(exc).__name__}: {exc}"[:200]
                continue
            samples[job].append(tps)
            ratios[job].append(tps / dense_tps)
    bar.close()
    dense = statistics.median(samples[("dense", None)])
    ratios[("dense", None)] = [1.0]
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
                "over_dense": statistics.median(ratios[job]) if ratios[job] else float("nan"),
                "over_dense_min": min(ratios[job]) if ratios[job] else float("nan"),
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
        "moe_over_dense_e32_min": e32[fast]["over_dense_min"] if fast in e32 else None,
        "fast_dispatch": fast,
        "tokens_per_step": batch * context,
        "clock": "wall" if device.startswith("cuda") else "process CPU time",
        "steps": steps,
        "rounds": rounds,
        "results": results,
    }


def headline(
    device: str = "cpu",
    *,
    rounds: int = 3,
    steps: int = 3,
    warmup: int = 1,
    tokens_per_step: int = HEADLINE_TOKENS_PER_STEP,
    dispatch: str = HEADLINE_DISPATCH,
    progress: bool = False,
    **model_kwargs,
) -> dict:
    """The headline ratio: E = 32, top-2 (``dispatch``) over dense, interleaved pairs.

    ``progress`` shows a bar (on stderr) over the ``2 * rounds`` measurements.

    Returns
    -------
    dict
        ``ratios`` (one per round, dense measured right before the MoE model), ``median``,
        ``min``, ``dense_tokens_per_s`` and ``moe_tokens_per_s`` (medians), all in
        :func:`_clock`'s time; ``wall_ratios``, ``wall_median`` and ``wall_min``, the same
        steps timed by the wall clock (on a shared CPU they also count other processes' turns
        on the cores); ``clock``, ``tokens_per_step``, ``dispatch``, ``rounds``.
    """
    if rounds < 1 or steps < 1:
        raise ValueError("rounds and steps must be at least 1")
    torch.set_flush_denormal(True)
    cfgs = bench_configs((32,), **model_kwargs)
    context = cfgs["dense"].context_length
    if tokens_per_step % context:
        raise ValueError(f"tokens_per_step must be a multiple of the context ({context})")
    batch = tokens_per_step // context
    dense = _Runner(cfgs["dense"], batch, device)
    moe = _Runner(cfgs["E32-top2"], batch, device)
    dense_tps, moe_tps = [], []
    from tqdm.auto import tqdm

    with tqdm(total=2 * rounds, desc=f"headline {device}", disable=not progress,
              file=sys.stderr) as bar:
        for _ in range(rounds):
            dense_tps.append(dense.timed(None, steps, warmup))
            bar.update(1)
            moe_tps.append(moe.timed(dispatch, steps, warmup))
            bar.update(1)
    ratios = [m[0] / d[0] for m, d in zip(moe_tps, dense_tps, strict=True)]
    wall = [m[1] / d[1] for m, d in zip(moe_tps, dense_tps, strict=True)]
    return {
        "ratios": ratios,
        "median": statistics.median(ratios),
        "min": min(ratios),
        "wall_ratios": wall,
        "wall_median": statistics.median(wall),
        "wall_min": min(wall),
        "clock": "wall" if device.startswith("cuda") else "process CPU time",
        "dense_tokens_per_s": statistics.median(t[0] for t in dense_tps),
        "moe_tokens_per_s": statistics.median(t[0] for t in moe_tps),
        "tokens_per_step": tokens_per_step,
        "dispatch": dispatch,
        "rounds": rounds,
    }


def _sweep_estimate(kwargs: dict) -> str:
    """The sweep's expected duration, from one timed step of its dense model on this machine.

    Every measurement is ``warmup + steps`` training steps and each MoE measurement follows a
    dense one; an MoE step at equal active FLOPs takes about 1-2 dense steps (more with many
    experts: the optimizer touches all their weights), hence the range.
    """
    cfg = bench_configs((), d_model=kwargs["d_model"])["dense"]
    batch = kwargs["batch"] or kwargs["tokens_per_step"] // cfg.context_length
    runner = _Runner(cfg, batch, "cpu")
    runner.step()
    clock = time.perf_counter()
    runner.step()
    step = time.perf_counter() - clock
    n_dispatch = len(kwargs["dispatches"] or available_dispatches())
    pairs = kwargs["rounds"] * 2 * len(kwargs["experts"]) * n_dispatch
    steps = pairs * (kwargs["warmup"] + kwargs["steps"])
    low, high = steps * step * 2 / 60, steps * step * 3 / 60
    return (f"{pairs} dense/MoE pairs of {kwargs['warmup'] + kwargs['steps']} steps; a dense "
            f"step takes {step:.2f} s here, so expect about {low:.0f}-{high:.0f} minutes")


def _device_name(device: str) -> str:
    if device.startswith("cuda"):
        return torch.cuda.get_device_name(device)
    return f"{platform.processor() or platform.machine()}, {torch.get_num_threads()} threads"


def _table(report: dict) -> str:
    if "results" not in report:  # the headline alone (no --sweep)
        lines = [f"device: {report['device']} ({report['device_name']}); clock: "
                 f"{'wall' if report['device'].startswith('cuda') else 'process CPU time'}"]
    else:
        lines = [
            f"device: {report['device']} ({report['device_name']}); "
            f"{report['tokens_per_step']} tokens/step; clock: {report.get('clock', 'wall')}; "
            f"dense: {report['dense_tokens_per_s']:,.0f} tokens/s",
            f"{'model':<10} {'dispatch':<8} {'tokens/s':>10} {'/dense':>7} {'min':>5} "
            f"{'params':>11} {'FLOPs/dense':>11}",
        ]
    for r in report.get("results", []):
        lines.append(
            f"{r['model']:<10} {r['dispatch']:<8} {r['tokens_per_s']:>10,.0f} "
            f"{r['over_dense']:>7.2f} {r['over_dense_min']:>5.2f} {r['total_params']:>11,} "
            f"{r['flops_ratio']:>11.3f}"
            + (f"  {r['error']}" if r["error"] else "")
        )
    ratio = report.get("moe_over_dense_e32")
    if ratio is not None:
        lines.append(
            f"E=32, top-2 at {report['tokens_per_step']} tokens/step ({report['fast_dispatch']}): "
            f"median {ratio:.2f}, min {report['moe_over_dense_e32_min']:.2f} over "
            f"{report['rounds']} rounds"
        )
    head = report.get("headline")
    if head is not None:
        lines.append(
            f"moe_over_dense_e32 (headline: {head['dispatch']}, E=32, top-2, "
            f"{head['tokens_per_step']} tokens/step): median {head['median']:.2f}, "
            f"min {head['min']:.2f} over {head['rounds']} interleaved rounds "
            f"({', '.join(f'{r:.2f}' for r in head['ratios'])}) in {head['clock']}; wall clock: "
            f"median {head['wall_median']:.2f}, min {head['wall_min']:.2f} "
            f"({', '.join(f'{r:.2f}' for r in head['wall_ratios'])})"
        )
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m moelaws.torchmoe.bench",
        description="Training tokens/s of dense vs equal-active-FLOPs MoE models.",
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--sweep", action="store_true",
                        help="also measure every E (--experts) and dispatch (several times "
                             "longer: the expected duration is printed first)")
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
    parser.add_argument("--threads", type=int, default=None,
                        help="torch/BLAS threads (default: OMP_NUM_THREADS, else 1)")
    parser.add_argument("--headline-rounds", type=int, default=3,
                        help="interleaved rounds of the headline E=32, top-2 ratio (0: skip)")
    parser.add_argument("--headline-tokens-per-step", type=int,
                        default=HEADLINE_TOKENS_PER_STEP,
                        help="training tokens per step of the headline ratio")
    parser.add_argument("--headline-dispatch", default=HEADLINE_DISPATCH,
                        choices=available_dispatches(),
                        help="dispatch of the headline's MoE model")
    args = parser.parse_args(argv)
    n_threads = threads.limit() if args.threads is None else args.threads
    torch.set_num_threads(n_threads)
    experts = [int(e) for e in args.experts.split(",") if e]
    dispatches = args.dispatch.split(",") if args.dispatch else None
    kwargs = dict(
        experts=experts, dispatches=dispatches, steps=args.steps, warmup=args.warmup,
        rounds=args.rounds, tokens_per_step=args.tokens_per_step, batch=args.batch,
        d_model=args.d_model, progress=not args.json,
    )
    if not args.sweep and args.headline_rounds < 1:
        parser.error("without --sweep the benchmark is the headline: --headline-rounds must be "
                     "at least 1")
    load_before = os.getloadavg()[0] if hasattr(os, "getloadavg") else None
    started_wall, started_cpu = time.perf_counter(), time.process_time()
    report = {"torch": torch.__version__, "threads": n_threads}
    if args.sweep:
        print(f"sweep: {_sweep_estimate(kwargs)}", file=sys.stderr)
        report["cpu"] = measure("cpu", **kwargs)
    else:
        report["cpu"] = {"device": "cpu", "device_name": _device_name("cpu")}
    head_kwargs = dict(rounds=args.headline_rounds, d_model=args.d_model,
                       tokens_per_step=args.headline_tokens_per_step,
                       dispatch=args.headline_dispatch, progress=True)
    if args.headline_rounds > 0:
        report["cpu"]["headline"] = headline("cpu", **head_kwargs)
    # other processes competing for the cores make every number lower and noisier
    report["load_average_before"] = load_before
    report["load_average_after"] = os.getloadavg()[0] if hasattr(os, "getloadavg") else None
    report["cpu_count"] = os.cpu_count()
    head = report["cpu"].get("headline")
    report["moe_over_dense_e32"] = head["median"] if head else report["cpu"]["moe_over_dense_e32"]
    report["moe_over_dense_e32_min"] = (head["min"] if head
                                        else report["cpu"]["moe_over_dense_e32_min"])
    if torch.cuda.is_available() and not args.no_gpu:
        report["gpu"] = (measure("cuda", **kwargs) if args.sweep
                         else {"device": "cuda", "device_name": _device_name("cuda")})
        if args.headline_rounds > 0:
            report["gpu"]["headline"] = headline("cuda", **head_kwargs)
        gpu_head = report["gpu"].get("headline")
        report["gpu_moe_over_dense_e32"] = (gpu_head["median"] if gpu_head
                                            else report["gpu"]["moe_over_dense_e32"])
    report["duration_s"] = round(time.perf_counter() - started_wall, 1)
    report["cpu_time_s"] = round(time.process_time() - started_cpu, 1)
    if args.json:
        print(json.dumps(report))
    else:
        print(f"torch {report['torch']}, {n_threads} thread(s), load average "
              f"{report['load_average_before']} before, {report['load_average_after']} after; "
              f"took {report['duration_s']:.0f} s (process CPU time {report['cpu_time_s']:.0f} s)")
        print(_table(report["cpu"]))
        if "gpu" in report:
            print()
            print(_table(report["gpu"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
