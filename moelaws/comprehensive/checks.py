"""The paper against itself: whether Table 2's printed constants, anywhere within their
rounding, reproduce Table 4.

Table 4's theoretical column is Eq. 14 (= Eq. 29) at G = 7, S = 0.31 with Table 2's constants.
Eight of its nine rows agree with the printed constants; Qwen3-30B-A3B's does not. Every
constant moves every row at once, so the question is not whether some constant within its
rounding fixes that one row, but whether one set of constants fixes all nine together.
"""

from __future__ import annotations

from collections.abc import Sequence
from decimal import Decimal

import numpy as np
import pandas as pd

from moelaws.comprehensive.law import CONSTANT_NAMES, _structure_formula
from moelaws.comprehensive.optima import _active_ratio_formula
from moelaws.comprehensive.tables import industrial_models, read_table
from moelaws.validation import count


def constant_box() -> pd.DataFrame:
    """Each Table 2 constant's interval ``value ± half a unit of its last printed digit``."""
    printed = read_table("table2", dtype=str).set_index("constant")["value"]
    half = {name: 0.5 * 10.0 ** Decimal(text).as_tuple().exponent
            for name, text in printed.items()}
    value = printed.astype(float)
    return pd.DataFrame({"printed": printed, "low": value - pd.Series(half),
                         "high": value + pd.Series(half)}).loc[list(CONSTANT_NAMES)]


def theoretical_ratios(N: np.ndarray, draws: np.ndarray, names: Sequence[str]) -> np.ndarray:
    """Table 4's theoretical N_a/N (Eq. 14 at G = 7, S = 0.31) for every set of constants.

    Parameters
    ----------
    N
        The models' total sizes, shape ``(n_models,)``.
    draws
        One set of constants per row, shape ``(n_draws, len(names))``; each row is what
        :func:`~moelaws.comprehensive.optima.optimal_active_ratio` would receive as ``params``.
    names
        The constants' names, in the columns' order.

    Returns
    -------
    numpy.ndarray
        Shape ``(n_draws, n_models)``: row ``i`` equals ``optimal_active_ratio(N, 7.0, 0.31,
        dict(zip(names, draws[i])))``, evaluated for all rows at once.
    """
    p = {name: draws[:, [j]] for j, name in enumerate(names)}
    A = _structure_formula(np.asarray(7.0), np.asarray(0.31), p)
    return _active_ratio_formula(np.asarray(N, dtype=float), A, p)


def joint_rounding_draws(n_draws: int = 20_000, seed: int = 0) -> dict[str, float]:
    """Draw all 12 constants uniformly within their printed rounding and recompute Table 4.

    Parameters
    ----------
    n_draws
        Number of constant sets drawn.
    seed
        Seed of the draws.

    Returns
    -------
    dict
        ``all_nine`` (fraction of draws whose theoretical column rounds to every printed value),
        ``other_eight`` (every printed value but Qwen3-30B-A3B's) and ``qwen_alone`` (Qwen3's
        printed 40.04 % alone).
    """
    n_draws = int(count("n_draws", n_draws))
    box = constant_box()
    table4 = read_table("table4", dtype=str)
    printed = table4["theoretical_pct"].astype(float).to_numpy()
    qwen = table4["model"].to_numpy() == "Qwen3-30B-A3B"
    N = industrial_models()["N"].to_numpy()
    rng = np.random.default_rng(seed)
    draws = rng.uniform(box["low"].to_numpy(), box["high"].to_numpy(), (n_draws, len(box)))
    hits = np.round(100 * theoretical_ratios(N, draws, box.index), 2) == printed
    return {"all_nine": float(hits.all(axis=1).mean()),
            "other_eight": float(hits[:, ~qwen].all(axis=1).mean()),
            "qwen_alone": float(hits[:, qwen].all(axis=1).mean()),
            "n_draws": n_draws}
