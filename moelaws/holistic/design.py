"""Sec. 7's pipeline, compute budget -> full MoE architecture, as an :class:`arch.MoEConfig`.

1. M and D from Eq. 2 (:func:`~moelaws.holistic.law.optimal_flops_per_token`).
2. N_a = M / (M/N_a)_opt(C). Fig. 5b's law is printed only as a figure, so the default is our
   fit through the optimal configurations of the paper's d sweeps
   (:func:`~moelaws.holistic.fits.optimal_ratio_fit`).
3. N = (N/N_a)·N_a with App. F.4's chosen N/N_a (interpolated in log C between the scales,
   held constant outside them).
4. d: Fig. 6b's d_opt law is not published either; the default is Sec. 4.3's median-d proxy,
   the middle of the feasible interval.
5. L, L_d, L_m, d_m from Eq. 3, rounded: integer layers, d and d_m multiples of ``align``,
   keeping M, N_a and N within ``tolerance`` (5 %, the tolerance of Table 4's note on M) of
   their targets. Among those candidates the design takes the d closest to the requested one.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from moelaws.arch import MoEConfig
from moelaws.holistic.checks import F4_CHOSEN_N_OVER_NA
from moelaws.holistic.feasible import FeasibleRange, feasible_d_range, hidden_size
from moelaws.holistic.fits import optimal_ratio_fit
from moelaws.holistic.law import (
    DENSE_RATIO,
    N_EXPERTS,
    SEQ_LEN,
    TOP_K,
    VOCAB_SIZE,
    ArrayLike,
    HeadSettings,
    counts,
    head_settings,
    optimal_flops_per_token,
    optimal_tokens,
)
from moelaws.holistic.tables import SCALES
from moelaws.validation import positive

DESIGN_DOMAIN: tuple[float, float] = (1e17, 1e24)
"""Budgets :func:`design` accepts: from a decade below the paper's smallest scale (1e18) to the
scale its laws are meant for (1e24, App. B). Above 3e20 everything is extrapolation."""


def optimal_m_over_na(C: ArrayLike) -> np.ndarray:
    """Ours: the compute-optimal M/N_a = 6 + a·C^b (the stand-in for Fig. 5b's law).

    Fitted to the optimal M/N_a of the six d sweeps (Tables 16-21); stays above Eq. 5's bound
    of 6 at every C.

    Raises
    ------
    ValueError
        If any C is not finite and positive.
    """
    return optimal_ratio_fit(6.0)(positive("C", C))


def chosen_n_over_na(C: ArrayLike) -> np.ndarray:
    """App. F.4's chosen N/N_a, (1e18, 19) ... (3e20, 22), linear in log10 C between the scales
    and constant outside them (the paper finds the loss flat for N/N_a in [18, 25]).

    Raises
    ------
    ValueError
        If any C is not finite and positive.
    """
    c = positive("C", C)
    x = np.log10([float(s) for s in SCALES])
    y = [float(F4_CHOSEN_N_OVER_NA[s]) for s in SCALES]
    return np.interp(np.log10(c), x, y)


@dataclass(frozen=True)
class Design:
    """One designed architecture with its targets.

    ``M``, ``N_a``, ``N`` are the realised counts (Eq. 3) of ``config``; ``*_target`` what
    the pipeline asked for; ``d_target`` the requested hidden size (the median-d proxy unless
    given) and ``feasible`` the feasible-d interval of the targets.
    """

    C: float
    M_target: float
    D_target: float
    m_over_na_target: float
    n_over_na_target: float
    N_a_target: float
    N_target: float
    heads: HeadSettings
    d_target: float
    feasible: FeasibleRange
    config: MoEConfig
    M: float
    N_a: float
    N: float

    @property
    def tokens(self) -> float:
        """Training tokens at the realised M: D = C/M."""
        return self.C / self.M

    def deviations(self) -> dict[str, float]:
        """Relative deviations of the realised M, N_a, N from their targets."""
        return {
            "M": self.M / self.M_target - 1,
            "N_a": self.N_a / self.N_a_target - 1,
            "N": self.N / self.N_target - 1,
        }

    def table(self) -> pd.DataFrame:
        """The design as a two-column table (quantity, value) for display."""
        cfg = self.config
        dev = self.deviations()
        rows = [
            ("compute C (FLOPs)", f"{self.C:.3g}"),
            ("M target / realised (GFLOPs)", f"{self.M_target / 1e9:.4f} / {self.M / 1e9:.4f}"
                                             f" ({dev['M']:+.1%})"),
            ("D = C/M (B tokens)", f"{self.tokens / 1e9:.2f}"),
            ("M/N_a target / realised", f"{self.m_over_na_target:.3f} / {self.M / self.N_a:.3f}"),
            ("N/N_a target / realised", f"{self.n_over_na_target:.2f} / {self.N / self.N_a:.2f}"),
            ("N_a (M params)", f"{self.N_a / 1e6:.1f} ({dev['N_a']:+.1%})"),
            ("N (B params)", f"{self.N / 1e9:.3f} ({dev['N']:+.1%})"),
            ("feasible d / proxy", f"{float(self.feasible.d_min):.0f}-"
                                   f"{float(self.feasible.d_max):.0f} / {self.d_target:.0f}"),
            ("hidden size d", str(cfg.d_model)),
            ("layers L = L_d + L_m", f"{cfg.n_layers} = {cfg.n_dense_layers} + "
                                     f"{cfg.n_moe_layers}"),
            ("dense FFN width d_d", str(cfg.d_ff)),
            ("expert width d_m", str(cfg.d_expert)),
            ("heads N_q / N_kv x d_qkv", f"{cfg.n_heads} / {cfg.kv_heads} x {cfg.head_dim}"),
            ("experts", f"{cfg.n_experts} routed, top-{cfg.top_k}, {cfg.n_shared} shared"),
        ]
        return pd.DataFrame(rows, columns=["quantity", "value"])


def _candidates(
    M: float, N_a: float, N: float, heads: HeadSettings, rng: FeasibleRange, align: int
) -> pd.DataFrame:
    """Integer (L, L_d, d, d_m) near every exact solution of Eq. 3, with their counts."""
    attn_params = 2.0 * (heads.n_q + heads.n_kv) * heads.d_qkv
    rest = N_a - (TOP_K + 1) * (N - N_a) / (N_EXPERTS - TOP_K)
    volume = (N - N_a) / (3.0 * (N_EXPERTS - TOP_K))
    # Columns gathered as arrays and framed once: a frame per (L, step) made this function
    # most of a design's time (chapters 3 and 7 make dozens of designs).
    columns: dict[str, list[np.ndarray]] = {"L": [], "L_d": [], "d": [], "d_m": []}
    for L in range(int(rng.L_min), int(rng.L_max) + 1):
        L_d = np.arange(1, L)
        d_exact = hidden_size(rest, attn_params, np.full(L_d.shape, float(L)), L_d)
        for step in (-1, 0, 1, 2):
            d = align * (np.floor(d_exact / align) + step)
            for dm_step in (0, 1):
                ok = d > 0
                d_m = align * (np.floor(volume / (np.where(ok, d, 1) * (L - L_d)) / align)
                               + dm_step)
                ok &= d_m > 0
                for name, values in (("L", np.full(int(ok.sum()), L)), ("L_d", L_d[ok]),
                                     ("d", d[ok]), ("d_m", d_m[ok])):
                    columns[name].append(values)
    cand = pd.DataFrame({k: np.concatenate(v) for k, v in columns.items()}).drop_duplicates()
    c = counts(cand["d"], cand["L_d"], cand["L"] - cand["L_d"], cand["d_m"], **heads.as_kwargs())
    cand["M"], cand["N_a"], cand["N"] = c.M, c.N_a, c.N
    cand["dev"] = np.max(
        np.abs([c.M / M - 1, c.N_a / N_a - 1, c.N / N - 1]), axis=0
    )
    return cand


def design_report(
    C: float,
    *,
    m_over_na: float | None = None,
    n_over_na: float | None = None,
    heads: HeadSettings | None = None,
    d: float | None = None,
    align: int = 8,
    tolerance: float = 0.05,
) -> Design:
    """Run Sec. 7's pipeline for one budget and return the design with its targets.

    Parameters
    ----------
    C
        Training compute in FLOPs, within :data:`DESIGN_DOMAIN`.
    m_over_na, n_over_na
        Override the optimal M/N_a (default :func:`optimal_m_over_na`, ours) and N/N_a
        (default :func:`chosen_n_over_na`, App. F.4).
    heads
        Attention settings (default :func:`~moelaws.holistic.law.head_settings`).
    d
        Requested hidden size (default: the median-d proxy of the targets).
    align
        Hardware alignment of d and d_m (the paper uses multiples of 8, 16 or 32).
    tolerance
        Largest relative deviation of M, N_a and N from their targets.

    Returns
    -------
    Design

    Raises
    ------
    ValueError
        If C is outside :data:`DESIGN_DOMAIN`, M/N_a <= 6, N/N_a outside
        [1, (N_e + 1)/(K + 1)), ``align`` or ``tolerance`` invalid, or no aligned integer
        architecture lies within the tolerance.
    """
    c = float(positive("C", C))
    lo, hi = DESIGN_DOMAIN
    if not lo <= c <= hi:
        raise ValueError(
            f"C = {c:.3g} FLOPs is outside the design domain [{lo:.0e}, {hi:.0e}]: the laws "
            "are fitted on 1e18-3e20 and the paper targets at most 1e24"
        )
    if isinstance(align, bool) or not isinstance(align, int) or align <= 0:
        raise ValueError("align must be a positive integer")
    if not 0 < tolerance < 1:
        raise ValueError("tolerance must lie in (0, 1)")
    r = float(optimal_m_over_na(c)) if m_over_na is None else float(m_over_na)
    n = float(chosen_n_over_na(c)) if n_over_na is None else float(n_over_na)
    upper = (N_EXPERTS + 1) / (TOP_K + 1)
    if not r > 6:
        raise ValueError(f"M/N_a must exceed 6 (Eq. 5), got {r}")
    if not 1 < n < upper:
        raise ValueError(f"N/N_a must lie in (1, {upper:.3f}) (Eq. 5), got {n}")
    heads = heads or head_settings(c)
    m_t = float(optimal_flops_per_token(c))
    n_a_t = m_t / r
    n_t = n * n_a_t
    rng = feasible_d_range(m_t, n_a_t, n_t, **heads.as_kwargs(), m_tolerance=tolerance)
    if math.isnan(float(rng.d_min)):
        raise ValueError(
            f"no integer layer count realises M/N_a = {r:.3f}, N/N_a = {n:.2f} at C = {c:.3g} "
            f"with {heads}"
        )
    d_t = float(rng.median) if d is None else float(positive("d", d))
    cand = _candidates(m_t, n_a_t, n_t, heads, rng, align)
    cand = cand[cand["dev"] <= tolerance]
    if cand.empty:
        raise ValueError(
            f"no architecture with d, d_m multiples of {align} keeps M, N_a and N within "
            f"{tolerance:.0%} at C = {c:.3g}; try a smaller align or a larger tolerance"
        )
    score = np.abs(np.log(cand["d"] / d_t)) + cand["dev"]
    best = cand.loc[score.idxmin()]
    L, L_d, d_best, d_m = (int(best[k]) for k in ("L", "L_d", "d", "d_m"))
    config = MoEConfig(
        n_layers=L,
        d_model=d_best,
        n_heads=heads.n_q,
        n_kv_heads=heads.n_kv,
        head_dim=heads.d_qkv,
        d_ff=round(DENSE_RATIO * d_best),
        n_experts=N_EXPERTS,
        top_k=TOP_K,
        n_shared=1,
        d_expert=d_m,
        n_dense_layers=L_d,
        vocab_size=VOCAB_SIZE,
        context_length=SEQ_LEN,
        name=f"holistic design, C = {c:.3g} FLOPs",
        source="moelaws.holistic.design: Holistic MoE scaling laws, Sec. 7 pipeline (ours)",
    )
    return Design(
        C=c, M_target=m_t, D_target=float(optimal_tokens(c)), m_over_na_target=r,
        n_over_na_target=n, N_a_target=n_a_t, N_target=n_t, heads=heads, d_target=d_t,
        feasible=rng, config=config, M=float(best["M"]), N_a=float(best["N_a"]),
        N=float(best["N"]),
    )


def design(C: float, **kwargs: object) -> MoEConfig:
    """Compute budget -> full MoE architecture (Sec. 7), as an :class:`arch.MoEConfig`.

    Keyword arguments and errors are those of :func:`design_report`; the config has one
    shared expert of width d_m, ``n_dense_layers`` = L_d leading dense layers with
    d_ff = 3·d, and Table 4-style heads. :func:`~moelaws.holistic.counting.holistic_counts` returns
    its M, N_a and N.
    """
    return design_report(C, **kwargs).config  # type: ignore[arg-type]
