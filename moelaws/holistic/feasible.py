"""Which hidden sizes d realise a given (M, N_a, N): the feasible region of Sec. 5.1 / Fig. 3
and the median-d proxy of Sec. 4.3.

With the fixed settings of Sec. 4.2.2, Eq. 3 pins three things once (M, N_a, N) is chosen:

* the layer count, L = (M − 6·N_a) / (6·S·N_q·d_qkv);
* the MoE "volume", d·d_m·L_m = (N − N_a) / (3·(N_e − K));
* the attention-plus-dense part of N_a, R = N_a − (K + 1)·(N − N_a)/(N_e − K), which
  satisfies 3·γ·L_d·d² + 2·(N_q + N_kv)·d_qkv·L·d = R (γ = d_d/d = 3).

So d is the one remaining degree of freedom, traded against the number of dense layers L_d:
more dense layers force a smaller d. The feasible d interval runs from the largest L_d
(L_m = 1) to the smallest allowed L_d. With integer layer counts, L must be an integer, which
M's ±5 % tolerance (Table 4 note) allows: every integer L for which 6·N_a + 6·S·N_q·d_qkv·L is
within the tolerance of M is admissible, with N_a and N held exactly.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from moelaws.holistic.law import (
    DENSE_RATIO,
    N_EXPERTS,
    SEQ_LEN,
    TOP_K,
    ArrayLike,
    HeadSettings,
    _check_routing,
    table4_heads,
)
from moelaws.validation import positive


@dataclass(frozen=True)
class FeasibleRange:
    """The feasible hidden sizes of an (M, N_a, N) point (NaN where none exists).

    Attributes
    ----------
    d_min, d_max
        Smallest and largest hidden size (at L_m = 1 with the most layers, and at the fewest
        dense layers with the fewest layers).
    L_min, L_max
        Smallest and largest admissible total layer count.
    """

    d_min: np.ndarray
    d_max: np.ndarray
    L_min: np.ndarray
    L_max: np.ndarray

    @property
    def width(self) -> np.ndarray:
        """d_max − d_min (Fig. 3c)."""
        return self.d_max - self.d_min

    @property
    def median(self) -> np.ndarray:
        """The median-d proxy: the middle of the feasible interval (Sec. 4.3)."""
        return 0.5 * (self.d_min + self.d_max)


def _validate(
    M: ArrayLike, N_a: ArrayLike, N: ArrayLike, n_q: int, n_kv: int, d_qkv: int,
    seq_len: int, top_k: int, n_experts: int, dense_ratio: float,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    M, N_a, N = positive("M", M), positive("N_a", N_a), positive("N", N)
    HeadSettings(d_qkv, n_q, n_kv)
    positive("seq_len", seq_len)
    positive("dense_ratio", dense_ratio)
    _check_routing(top_k, n_experts)
    return np.broadcast_arrays(M, N_a, N)


def _structure(
    M: np.ndarray, N_a: np.ndarray, N: np.ndarray, n_q: int, n_kv: int, d_qkv: int,
    seq_len: int, top_k: int, n_experts: int,
) -> tuple[np.ndarray, float, np.ndarray, np.ndarray, float]:
    attn_flops = 6.0 * seq_len * n_q * d_qkv
    layers = (M - 6.0 * N_a) / attn_flops
    rest = N_a - (top_k + 1) * (N - N_a) / (n_experts - top_k)
    volume = (N - N_a) / (3.0 * (n_experts - top_k))
    attn_params = 2.0 * (n_q + n_kv) * d_qkv
    return layers, attn_params, rest, volume, attn_flops


def hidden_size(
    rest: ArrayLike, attn_params: float, L: ArrayLike, L_d: ArrayLike,
    dense_ratio: float = DENSE_RATIO,
) -> np.ndarray:
    """The d solving 3·γ·L_d·d² + attn_params·L·d = rest (the positive root).

    Written as 2·rest / (b + sqrt(b² + 12·γ·L_d·rest)) with b = attn_params·L, which is
    stable and also covers L_d = 0 (d = rest / b). NaN where rest or L is not positive.
    """
    rest, L, L_d = (np.asarray(v, dtype=float) for v in (rest, L, L_d))
    b = attn_params * L
    with np.errstate(invalid="ignore", divide="ignore"):
        disc = b * b + 12.0 * dense_ratio * L_d * rest
        d = 2.0 * rest / (b + np.sqrt(disc))
    return np.where((rest > 0) & (L > 0) & (L_d >= 0), d, np.nan)


def feasible_d_range(
    M: ArrayLike,
    N_a: ArrayLike,
    N: ArrayLike,
    *,
    n_q: int,
    n_kv: int,
    d_qkv: int,
    seq_len: int = SEQ_LEN,
    top_k: int = TOP_K,
    n_experts: int = N_EXPERTS,
    dense_ratio: float = DENSE_RATIO,
    min_dense_layers: int = 1,
    m_tolerance: float = 0.05,
    integer_layers: bool = True,
) -> FeasibleRange:
    """The interval of hidden sizes d that realise (M, N_a, N) under Eq. 3 (Fig. 3).

    A d is feasible when some layer split L = L_d + L_m with L_d >= ``min_dense_layers`` and
    L_m >= 1 gives N_a exactly, and the MoE width d_m = (N − N_a)/(3·(N_e − K)·d·L_m) is
    positive. With ``integer_layers`` L and L_d are integers and L may be any integer whose
    M = 6·N_a + 6·S·N_q·d_qkv·L is within ``m_tolerance`` of the target; otherwise L is the
    exact real solution of Eq. 3 and L_d ranges continuously over [min_dense_layers, L − 1].
    Every appendix table has at least one dense layer, hence ``min_dense_layers = 1``.

    Parameters
    ----------
    M, N_a, N
        Targets (FLOPs per token, active and total parameters); arrays broadcast.
    n_q, n_kv, d_qkv, seq_len, top_k, n_experts, dense_ratio
        The fixed settings (Table 4 heads; S, K, N_e, d_d/d).
    min_dense_layers, m_tolerance, integer_layers
        See above.

    Returns
    -------
    FeasibleRange
        d_min, d_max, L_min, L_max (NaN where (M, N_a, N) is infeasible: M/N_a <= 6, N <= N_a,
        N/N_a >= (N_e + 1)/(K + 1), or too few layers).

    Raises
    ------
    ValueError
        For non-positive or non-finite targets, invalid head settings, K not in (0, N_e),
        a negative ``min_dense_layers`` or ``m_tolerance`` outside [0, 1).
    """
    M, N_a, N = _validate(M, N_a, N, n_q, n_kv, d_qkv, seq_len, top_k, n_experts, dense_ratio)
    if isinstance(min_dense_layers, bool) or not isinstance(min_dense_layers, int) or (
        min_dense_layers < 0
    ):
        raise ValueError("min_dense_layers must be a non-negative integer")
    if not 0 <= m_tolerance < 1:
        raise ValueError("m_tolerance must lie in [0, 1)")
    layers, attn_params, rest, _, attn_flops = _structure(
        M, N_a, N, n_q, n_kv, d_qkv, seq_len, top_k, n_experts
    )
    min_layers = min_dense_layers + 1
    if integer_layers:
        slack = m_tolerance * M / attn_flops
        with np.errstate(invalid="ignore"):
            L_lo = np.maximum(np.ceil(layers - slack - 1e-9), min_layers)
            L_hi = np.floor(layers + slack + 1e-9)
    else:
        L_lo = L_hi = layers
    ok = (N > N_a) & (rest > 0) & (L_hi >= L_lo) & (L_lo >= min_layers)
    L_lo = np.where(ok, L_lo, np.nan)
    L_hi = np.where(ok, L_hi, np.nan)
    d_max = hidden_size(rest, attn_params, L_lo, np.full_like(L_lo, min_dense_layers),
                        dense_ratio)
    d_min = hidden_size(rest, attn_params, L_hi, L_hi - 1.0, dense_ratio)
    return FeasibleRange(d_min, d_max, L_lo, L_hi)


def median_d(M: ArrayLike, N_a: ArrayLike, N: ArrayLike, **kwargs: object) -> np.ndarray:
    """The median-d proxy of Sec. 4.3: the middle of :func:`feasible_d_range`'s interval.

    Keyword arguments are those of :func:`feasible_d_range`; errors likewise.
    """
    return feasible_d_range(M, N_a, N, **kwargs).median  # type: ignore[arg-type]


@dataclass(frozen=True)
class LayerSolution:
    """The real-valued L, L_d, L_m, d_m that Eq. 3 assigns to (M, N_a, N, d)."""

    L: np.ndarray
    L_d: np.ndarray
    L_m: np.ndarray
    d_m: np.ndarray


def solve_layers(
    M: ArrayLike,
    N_a: ArrayLike,
    N: ArrayLike,
    d: ArrayLike,
    *,
    n_q: int,
    n_kv: int,
    d_qkv: int,
    seq_len: int = SEQ_LEN,
    top_k: int = TOP_K,
    n_experts: int = N_EXPERTS,
    dense_ratio: float = DENSE_RATIO,
) -> LayerSolution:
    """Solve Eq. 3 for the structural parameters once (M, N_a, N, d) are fixed (Sec. 4.2.2).

    L = (M − 6·N_a)/(6·S·N_q·d_qkv); L_d = (R − 2·(N_q + N_kv)·d_qkv·L·d)/(3·γ·d²);
    L_m = L − L_d; d_m = (N − N_a)/(3·(N_e − K)·d·L_m). The values are real; a design rounds
    them (see :func:`moelaws.holistic.design`). Outside the feasible interval L_d or L_m come
    out negative.

    Raises
    ------
    ValueError
        For non-positive or non-finite inputs or invalid settings.
    """
    M, N_a, N = _validate(M, N_a, N, n_q, n_kv, d_qkv, seq_len, top_k, n_experts, dense_ratio)
    d = positive("d", d)
    with np.errstate(over="ignore"):
        if not np.all(np.isfinite(3.0 * dense_ratio * d * d)):
            raise ValueError("d: a hidden size whose square overflows (no model has one); "
                             f"got max {np.max(d):.3g}")
    layers, attn_params, rest, volume, _ = _structure(
        M, N_a, N, n_q, n_kv, d_qkv, seq_len, top_k, n_experts
    )
    L_d = (rest - attn_params * layers * d) / (3.0 * dense_ratio * d * d)
    L_m = layers - L_d
    with np.errstate(divide="ignore", invalid="ignore"):
        d_m = volume / (d * L_m)
    return LayerSolution(layers, L_d, L_m, d_m)


def figure3_grid(
    M: float = 5.9390e9,
    heads: HeadSettings | None = None,
    n_points: int = 60,
    **kwargs: object,
) -> pd.DataFrame:
    """Fig. 3 recomputed: feasible d over the (N_a, N) plane at fixed M.

    N_a spans (0, M/6) and N spans [N_a, 289/9·N_a] on a regular ``n_points`` x ``n_points``
    grid (linear axes, as in Fig. 3); rows where no d is feasible are dropped. Default heads:
    Table 4's at 3e20 (the scale whose M is 5.9390 GFLOPs). Extra keyword arguments go to
    :func:`feasible_d_range`.

    Raises
    ------
    ValueError
        If ``n_points`` < 2 or M is not positive.
    """
    if n_points < 2:
        raise ValueError("n_points must be at least 2")
    if not (math.isfinite(M) and M > 0):
        raise ValueError("M must be finite and positive")
    heads = heads or table4_heads("3e20")
    n_a_axis = np.linspace(M / 6 / n_points, M / 6 * (1 - 1e-9), n_points)
    upper = (N_EXPERTS + 1) / (TOP_K + 1)
    n_axis = np.linspace(n_a_axis[0], upper * n_a_axis[-1], n_points)
    n_a, n = np.meshgrid(n_a_axis, n_axis, indexing="ij")
    rng = feasible_d_range(M, n_a, n, **heads.as_kwargs(), **kwargs)  # type: ignore[arg-type]
    frame = pd.DataFrame(
        {
            "N_a": n_a.ravel(),
            "N": n.ravel(),
            "d_min": np.ravel(rng.d_min),
            "d_max": np.ravel(rng.d_max),
            "width": np.ravel(rng.width),
        }
    )
    return frame.dropna().reset_index(drop=True)
