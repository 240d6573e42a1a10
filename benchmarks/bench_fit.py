"""Benchmark of :func:`moelaws.fit.fit_law`: the vectorised multi-start against polishing every
start (the pre-vectorisation behaviour, ``n_polish=None``), from one run.

Usage: ``python benchmarks/bench_fit.py [--repeats 1] [--loss huber]``. Not part of the test
suite. Polishing every start takes minutes (about 4 for the Huber loss, more for the
likelihood, on two busy cores).

Problem: Hoffmann et al.'s law ``L = E + A/N^α + B/D^β`` at 240 Chinchilla-style points
(seeded, 1% log-normal noise) fitted with the Huber loss over their 4500-start grid; the
same for the Huber likelihood with a fitted scale. Prints both times, the ratio and the
relative difference of the optimal objectives.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import pandas as pd

from moelaws import fit

TRUE = {"a": np.log(406.4), "b": np.log(410.7), "e": np.log(1.69), "alpha": 0.34, "beta": 0.28}


def data(n: int = 240, noise: float = 0.01, seed: int = 0) -> pd.DataFrame:
    """Chinchilla-style synthetic losses (seeded)."""
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame({"N": 10 ** rng.uniform(7, 10, n), "D": 10 ** rng.uniform(9, 11.5, n)})
    law = fit.chinchilla_law()
    frame["loss"] = law.predict(TRUE, frame) * np.exp(rng.normal(0, noise, n))
    return frame


def timed(**kwargs) -> tuple[float, fit.FitResult]:
    t0 = time.perf_counter()
    res = fit.fit_law(fit.chinchilla_law(), data(), progress=False, **kwargs)
    return time.perf_counter() - t0, res


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=1, help="runs of the fast mode to time")
    parser.add_argument("--loss", choices=["huber", "huber_likelihood"], action="append",
                        help="only this objective (repeatable; default both)")
    args = parser.parse_args()
    for loss in args.loss or ["huber", "huber_likelihood"]:
        t_old, old = timed(loss=loss, n_polish=None)
        runs = [timed(loss=loss) for _ in range(args.repeats)]
        t_new, new = min(r[0] for r in runs), runs[0][1]
        rel = abs(new.loss - old.loss) / abs(old.loss)
        print(f"{loss}: polish every start {t_old:.2f} s (loss {old.loss:.12g}); "
              f"polish the best {fit.N_POLISH} {t_new:.2f} s (loss {new.loss:.12g}); "
              f"speed-up {t_old / t_new:.1f}x; relative objective difference {rel:.1e}; "
              f"converged {new.converged}")


if __name__ == "__main__":
    main()
