"""The holistic paper's laws: Eq. 2 (C -> M, D), Eq. 3 / App. A Eq. 10-12 (counts), Eq. 4
(resource ratios) and Eq. 5 (normalised coordinates), with the fixed settings of Sec. 4.2.2
and the scale-dependent head settings of Table 4.

Units: C in FLOPs, M in FLOPs per token (the paper prints GFLOPs), D in tokens. M is the
*training* FLOPs per token (6 x active parameters plus attention), so that C = M·D.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from moelaws.holistic.tables import SCALES, read_table
from moelaws.validation import integer, non_negative, positive, warn_if_far_outside

ArrayLike = float | np.ndarray

SEQ_LEN = 8192
"""S, the training context length (Sec. 3.4, Table 4)."""
TOP_K = 8
"""K, routed experts activated per token (Sec. 4.2.2)."""
N_EXPERTS = 288
"""N_e, routed experts per MoE layer (Sec. 4.2.2); each MoE layer also has one shared expert."""
DENSE_RATIO = 3.0
"""d_d / d: the dense FFN width is three times the hidden size (Sec. 4.2.2)."""
VOCAB_SIZE = 152064
"""Tokenizer vocabulary (Sec. 3.4, Table 4); embeddings are excluded from N_a and N."""

EQ2_M_COEF = 0.04368
EQ2_M_EXP = 0.5437
EQ2_D_COEF = 22.8929
EQ2_D_EXP = 0.4563
"""Eq. 2 as printed: M_opt = 0.04368·C^0.5437, D_opt = 22.8929·C^0.4563. The text extraction
drops the leading digits ("28929", "04368"); Table 2 fixes them (0.04368·(1e18)^0.5437 =
0.2672e9 and 22.8929·(1e18)^0.4563 = 3.742e9)."""


FITTED_RANGES: dict[str, tuple[float, float]] = {"C": (1e18, 3e20)}
"""The range of each law input the paper fitted, from Table 2's scales.

A law evaluated more than :data:`moelaws.validation.FAR_OUTSIDE_DECADES` decades outside
it warns; a test keeps it equal to the adapter's ``fitted_ranges``."""


def _check_routing(top_k: int, n_experts: int) -> None:
    if not 0 < top_k < n_experts:
        raise ValueError(f"need 0 < top_k < n_experts, got top_k={top_k}, n_experts={n_experts}")


def optimal_flops_per_token(C: ArrayLike) -> np.ndarray:
    """Compute-optimal training FLOPs per token, Eq. 2: M_opt = 0.04368·C^0.5437.

    Parameters
    ----------
    C
        Training compute budget(s) in FLOPs.

    Returns
    -------
    numpy.ndarray
        M_opt in FLOPs per token (Table 2 prints it in GFLOPs).

    Raises
    ------
    ValueError
        If any C is not finite and positive.

    Warns
    -----
    ExtrapolationWarning
        For a budget far (a million times) outside the 1e18-3e20 FLOPs the paper swept.
    """
    c = positive("C", C)
    warn_if_far_outside("holistic", "C", c, FITTED_RANGES["C"])
    return EQ2_M_COEF * c ** EQ2_M_EXP


def optimal_tokens(C: ArrayLike) -> np.ndarray:
    """Compute-optimal number of training tokens, Eq. 2: D_opt = 22.8929·C^0.4563.

    Raises
    ------
    ValueError
        If any C is not finite and positive.

    Warns
    -----
    ExtrapolationWarning
        For a budget far (a million times) outside the 1e18-3e20 FLOPs the paper swept.
    """
    c = positive("C", C)
    warn_if_far_outside("holistic", "C", c, FITTED_RANGES["C"])
    return EQ2_D_COEF * c ** EQ2_D_EXP


@dataclass(frozen=True)
class HeadSettings:
    """Attention head settings: per-head width d_qkv, query heads N_q, key/value heads N_kv."""

    d_qkv: int
    n_q: int
    n_kv: int

    def __post_init__(self) -> None:
        for name in ("d_qkv", "n_q", "n_kv"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
                raise ValueError(f"{name} must be a positive integer, got {value!r}")

    @property
    def width(self) -> int:
        """Query width N_q·d_qkv."""
        return self.n_q * self.d_qkv

    def as_kwargs(self) -> dict[str, int]:
        return {"d_qkv": self.d_qkv, "n_q": self.n_q, "n_kv": self.n_kv}


def table4_heads(scale: str) -> HeadSettings:
    """Head settings Table 4 prints for one of the paper's scales (``"1e18"`` ... ``"3e20"``).

    Raises
    ------
    ValueError
        If ``scale`` is not one of :data:`~moelaws.holistic.tables.SCALES`.
    """
    if scale not in SCALES:
        raise ValueError(f"scale {scale!r} is not one of {', '.join(SCALES)}")
    row = read_table("table4").set_index("scale").loc[scale]
    return HeadSettings(int(row["d_qkv"]), int(row["N_q"]), int(row["N_kv"]))


@lru_cache(maxsize=1)
def head_width_rule() -> tuple[float, float]:
    """Our rule for the query width between and beyond Table 4's scales.

    A least-squares line log2(N_q·d_qkv) = a + b·log10(C) through Table 4's six scales;
    :func:`head_settings` rounds it to a power of two. Returns ``(a, b)``.
    """
    table = read_table("table4")
    log_c = np.log10(table["C"].to_numpy(dtype=float))
    log_w = np.log2((table["N_q"] * table["d_qkv"]).to_numpy(dtype=float))
    slope, intercept = np.polyfit(log_c, log_w, 1)
    return float(intercept), float(slope)


def head_settings(C: float) -> HeadSettings:
    """Head settings for a compute budget: Table 4's pattern, extended by our rule.

    The query width N_q·d_qkv is 2^round(a + b·log10 C) (:func:`head_width_rule`), clipped to
    the paper's stated ranges (N_q from 2^2 to 2^7, d_qkv from 2^6 to 2^7, Sec. 4.2.2);
    d_qkv = 64 up to a width of 512 and 128 above; N_kv = N_q/2 (GQA ratio 2, Sec. 3.4).
    At the six scales of Table 4 the rule returns Table 4's settings exactly.

    Raises
    ------
    ValueError
        If C is not finite and positive.
    """
    c = float(positive("C", C))
    intercept, slope = head_width_rule()
    exponent = int(np.clip(round(intercept + slope * math.log10(c)), 8, 14))
    width = 2**exponent
    d_qkv = 64 if width <= 512 else 128
    n_q = width // d_qkv
    return HeadSettings(d_qkv, n_q, n_q // 2)


@dataclass(frozen=True)
class HolisticCounts:
    """M (training FLOPs per token), N_a (active) and N (total non-embedding parameters)."""

    M: np.ndarray
    N_a: np.ndarray
    N: np.ndarray

    @property
    def m_over_na(self) -> np.ndarray:
        """Active compute density M/N_a (Eq. 5)."""
        return self.M / self.N_a

    @property
    def n_over_na(self) -> np.ndarray:
        """Parameter expansion ratio N/N_a (Eq. 5)."""
        return self.N / self.N_a


def counts(
    d: ArrayLike,
    L_d: ArrayLike,
    L_m: ArrayLike,
    d_m: ArrayLike,
    *,
    n_q: int,
    n_kv: int,
    d_qkv: int,
    seq_len: int = SEQ_LEN,
    top_k: int = TOP_K,
    n_experts: int = N_EXPERTS,
    dense_ratio: float = DENSE_RATIO,
) -> HolisticCounts:
    """M, N_a and N of a configuration, Eq. 3 (App. A Eq. 10-12).

    N_a = 2·d·d_qkv·(N_q + N_kv)·L + 3·d·d_d·L_d + 3·d·d_m·(K + 1)·L_m,
    N = N_a + 3·d·d_m·(N_e − K)·L_m,
    M = 6·N_a + 6·S·N_q·d_qkv·L, with L = L_d + L_m and d_d = dense_ratio·d.

    Eq. 3's text copy reads "6 N_a L" for the first term of M, which would count the
    (already layer-summed) N_a L times; App. A Eq. 12 has 6·N_a, which we use.

    Parameters
    ----------
    d, L_d, L_m, d_m
        Hidden size, dense layers, MoE layers and expert width (arrays broadcast).
    n_q, n_kv, d_qkv
        Attention heads and head width (Table 4 per scale; see :func:`table4_heads`).
    seq_len, top_k, n_experts, dense_ratio
        S, K, N_e and d_d/d (defaults: the paper's 8192, 8, 288, 3).

    Returns
    -------
    HolisticCounts
        Arrays M (FLOPs per token), N_a and N.

    Raises
    ------
    ValueError
        For non-positive d, d_m or head settings, negative or fractional layer counts, a model
        without layers, or K not in (0, N_e).
    """
    d = positive("d", d)
    d_m = positive("d_m", d_m)
    L_d = integer("L_d", L_d)
    L_m = integer("L_m", L_m)
    if np.any(L_d + L_m <= 0):
        raise ValueError("a model needs at least one layer (L_d + L_m > 0)")
    HeadSettings(d_qkv, n_q, n_kv)
    positive("seq_len", seq_len)
    positive("dense_ratio", dense_ratio)
    _check_routing(top_k, n_experts)
    c = counts_from_weights(
        attention=2.0 * d * d_qkv * (n_q + n_kv), dense_ffn=3.0 * d * (dense_ratio * d),
        active_experts=3.0 * d * d_m * (top_k + 1),
        idle_experts=3.0 * d * d_m * (n_experts - top_k),
        query_width=n_q * d_qkv, L_d=L_d, L_m=L_m, seq_len=seq_len)
    if not (np.all(np.isfinite(c.M)) and np.all(np.isfinite(c.N))):
        raise ValueError("the counts overflow: d, d_m or the layer counts are far beyond any model")
    return c


def counts_from_weights(
    *,
    attention: ArrayLike,
    dense_ffn: ArrayLike,
    active_experts: ArrayLike,
    idle_experts: ArrayLike,
    query_width: ArrayLike,
    L_d: ArrayLike,
    L_m: ArrayLike,
    seq_len: ArrayLike = SEQ_LEN,
) -> HolisticCounts:
    """Eq. 3 (App. A Eq. 10-12) from each layer's weights: the one home of its sums.

    N_a = attention·L + dense_ffn·L_d + active_experts·L_m, N = N_a + idle_experts·L_m and
    M = 6·N_a + 6·S·(N_q·d_qkv)·L with L = L_d + L_m. :func:`counts` fills the weights from
    the paper's architecture (2·d·d_qkv·(N_q + N_kv) attention, 3·d·d_d dense FFN,
    3·d·d_m·(K + 1) active and 3·d·d_m·(N_e − K) idle expert weights);
    :func:`moelaws.holistic.counting.holistic_counts` from a real configuration's.

    Parameters
    ----------
    attention, dense_ffn
        Weights of one attention block and of one dense FFN.
    active_experts, idle_experts
        Expert weights of one MoE layer that a token uses (routed top-K and shared) and that
        it does not.
    query_width
        N_q·d_qkv, the width of the attention context term.
    L_d, L_m, seq_len
        Dense and MoE layers, and the sequence length S.

    Returns
    -------
    HolisticCounts
        M, N_a and N (unchecked: :func:`counts` checks the paper's inputs).
    """
    L = L_d + L_m
    n_a = attention * L + dense_ffn * L_d + active_experts * L_m
    n = n_a + idle_experts * L_m
    m = 6.0 * n_a + 6.0 * seq_len * query_width * L
    return HolisticCounts(m, n_a, n)


@dataclass(frozen=True)
class ResourceRatios:
    """Shares of M spent in attention (r_a), dense FFNs (r_d) and MoE layers (r_m), Eq. 4,
    and the MoE share of the active parameters r_m^(N_a) of Eq. 5."""

    r_a: np.ndarray
    r_d: np.ndarray
    r_m: np.ndarray
    r_m_active: np.ndarray


def resource_ratios(
    d: ArrayLike,
    L_d: ArrayLike,
    L_m: ArrayLike,
    d_m: ArrayLike,
    *,
    n_q: int,
    n_kv: int,
    d_qkv: int,
    seq_len: int = SEQ_LEN,
    top_k: int = TOP_K,
    n_experts: int = N_EXPERTS,
    dense_ratio: float = DENSE_RATIO,
) -> ResourceRatios:
    """The compute distribution ratios r_a, r_d, r_m of Eq. 4 for a configuration.

    r_a = (6·P_attn·L + 6·S·N_q·d_qkv·L)/M, r_d = 6·3·d·d_d·L_d/M, r_m = 6·3·(K+1)·d·d_m·L_m/M,
    so that r_a + r_d + r_m = 1; r_m^(N_a) = 3·(K+1)·d·d_m·L_m / N_a. Arguments and errors as
    in :func:`counts`.
    """
    c = counts(
        d, L_d, L_m, d_m, n_q=n_q, n_kv=n_kv, d_qkv=d_qkv, seq_len=seq_len, top_k=top_k,
        n_experts=n_experts, dense_ratio=dense_ratio,
    )
    d, L_d, L_m, d_m = (np.asarray(v, dtype=float) for v in (d, L_d, L_m, d_m))
    dense = 3.0 * d * (dense_ratio * d) * L_d
    moe = 3.0 * d * d_m * (top_k + 1) * L_m
    r_d = 6.0 * dense / c.M
    r_m = 6.0 * moe / c.M
    return ResourceRatios(1.0 - r_d - r_m, r_d, r_m, moe / c.N_a)


def counts_from_ratios(
    M: ArrayLike,
    d: ArrayLike,
    r_a: ArrayLike,
    r_m: ArrayLike,
    *,
    n_q: int,
    n_kv: int,
    seq_len: int = SEQ_LEN,
    top_k: int = TOP_K,
    n_experts: int = N_EXPERTS,
) -> tuple[np.ndarray, np.ndarray]:
    """N_a and N from M, d and the resource ratios, Eq. 4.

    N_a = M/6·(1 − r_a / (1 + 2·d·(1 + N_kv/N_q)/S)),
    N = N_a + M/6·r_m·(N_e − K)/(K + 1), with r_d = 1 − r_a − r_m.

    Raises
    ------
    ValueError
        For non-positive M or d, ratios outside [0, 1] or r_a + r_m > 1.
    """
    M = positive("M", M)
    d = positive("d", d)
    r_a = non_negative("r_a", r_a)
    r_m = non_negative("r_m", r_m)
    if np.any(r_a > 1) or np.any(r_m > 1) or np.any(r_a + r_m > 1 + 1e-12):
        raise ValueError("resource ratios must lie in [0, 1] with r_a + r_m <= 1 (r_d >= 0)")
    HeadSettings(1, n_q, n_kv)
    _check_routing(top_k, n_experts)
    n_a = M / 6.0 * (1.0 - r_a / (1.0 + 2.0 * d * (1.0 + n_kv / n_q) / seq_len))
    n = n_a + M / 6.0 * r_m * (n_experts - top_k) / (top_k + 1)
    return n_a, n


def normalised_coordinates(
    M: ArrayLike, N_a: ArrayLike, N: ArrayLike
) -> tuple[np.ndarray, np.ndarray]:
    """The scale-free coordinates of Eq. 5: (M/N_a, N/N_a).

    Raises
    ------
    ValueError
        If any input is not finite and positive.
    """
    M, N_a, N = positive("M", M), positive("N_a", N_a), positive("N", N)
    return M / N_a, N / N_a


def coordinates_from_shares(
    d: ArrayLike,
    r_a: ArrayLike,
    r_m_active: ArrayLike,
    *,
    n_q: int,
    n_kv: int,
    seq_len: int = SEQ_LEN,
    top_k: int = TOP_K,
    n_experts: int = N_EXPERTS,
) -> tuple[np.ndarray, np.ndarray]:
    """Eq. 5: M/N_a = 6 / (1 − r_a/(1 + 2·d·(1 + N_kv/N_q)/S)),
    N/N_a = 1 + r_m^(N_a)·((N_e + 1)/(K + 1) − 1).

    Raises
    ------
    ValueError
        For non-positive d, r_a outside [0, 1) or r_m^(N_a) outside [0, 1].
    """
    d = positive("d", d)
    r_a = non_negative("r_a", r_a)
    r_m_active = non_negative("r_m_active", r_m_active)
    if np.any(r_a >= 1):
        raise ValueError("r_a must be below 1 (a model needs parameters besides attention)")
    if np.any(r_m_active > 1):
        raise ValueError("r_m_active must lie in [0, 1]")
    HeadSettings(1, n_q, n_kv)
    _check_routing(top_k, n_experts)
    m_over_na = 6.0 / (1.0 - r_a / (1.0 + 2.0 * d * (1.0 + n_kv / n_q) / seq_len))
    n_over_na = 1.0 + r_m_active * ((n_experts + 1) / (top_k + 1) - 1.0)
    return m_over_na, n_over_na


def ratio_bounds(top_k: int = TOP_K, n_experts: int = N_EXPERTS) -> dict[str, tuple[float, float]]:
    """The open intervals of Eq. 5's coordinates (Sec. 5.1).

    M/N_a lies in (6, ∞) and N/N_a in [1, (N_e + 1)/(K + 1)): (1, 289/9) for the paper's
    K = 8, N_e = 288 (N = N_a only without MoE layers).

    Raises
    ------
    ValueError
        If K is not in (0, N_e).
    """
    _check_routing(top_k, n_experts)
    return {"M/N_a": (6.0, math.inf), "N/N_a": (1.0, (n_experts + 1) / (top_k + 1))}
