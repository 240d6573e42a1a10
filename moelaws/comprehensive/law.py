"""The comprehensive MoE scaling law L(N, D, N_a, G, S) and the laws it was built from.

The comprehensive paper (anonymous, under review) builds its joint law in steps, each a marginal law
fitted to controlled experiments and then coupled to the previous one:

* Eq. 4, ``L(N, D) = a/N^α + b/D^β + ε`` (Chinchilla form);
* Eq. 5, ``L(N_a) = c/N_a^γ + h·N_a + ι`` (a "hook" in the activated size);
* Eq. 7, ``L(N, D, N_a) = a/N^α + b/D^β + c/N_a^α + h·N_a/N + ε``;
* Eq. 8, ``L(G) = e·G + f/G + τ`` (a hook in the number of activated experts);
* Eq. 9, ``L(N, D, N_a, G) = (e·G + f/G)·φ(N, N_a) + a/N^α + b/D^β + c/N_a^α + ε`` with
  ``φ = 1/N^α + k/N_a^α + h·N_a/N``;
* Eq. 10, ``L(S) = m·S² + n·S + ψ``;
* Eq. 11 (= Eq. 15), the joint law, Eq. 9 with ``m·S² + n·S`` added to the G factor.

Sizes are raw parameter and token counts (not millions or billions), embeddings excluded
(App. B), counted with Eq. 2-3 (:func:`active_params_eq2`, :func:`total_params_eq3`: the one
home of these formulas in this package). Only Eq. 11 has published constants (Table 2); the
intermediate laws take their coefficients as arguments.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping

import numpy as np

from moelaws.comprehensive._domain import active_within_total, merge, unit_interval
from moelaws.paper_data import read_csv
from moelaws.validation import positive, warn_if_far_outside

Array = np.ndarray

CONSTANT_NAMES: tuple[str, ...] = (
    "e", "f", "m", "n", "k", "h", "a", "alpha", "b", "beta", "c", "eps",
)
"""The 12 constants of Eq. 11 in Table 2's order (ε is spelled ``eps``)."""


FITTED_RANGES: dict[str, tuple[float, float]] = {
    "N": (9.3e7, 3.0249e10), "D": (1e10, 1e11), "G": (1.0, 40.0),
}
"""The range of each law input the paper fitted, from Table 8.

A law evaluated more than :data:`moelaws.validation.FAR_OUTSIDE_DECADES` decades outside
it warns; a test keeps it equal to the adapter's ``fitted_ranges``."""


def read_constants(table: str) -> dict[str, float]:
    """Constants transcribed from one of the paper's tables (``"table2"``, ``"table6"``,
    ``"table7"``) as ``{name: value}``.

    Raises
    ------
    ValueError
        If ``table`` names no transcribed table of constants.
    """
    if table not in ("table2", "table6", "table7"):
        raise ValueError("table must be 'table2', 'table6' or 'table7'")
    df = read_csv("comprehensive", f"{table}.csv")
    return {str(r.constant): float(r.value) for r in df.itertuples()}


@functools.cache
def _table2() -> dict[str, float]:
    return read_constants("table2")


def table2() -> dict[str, float]:
    """The fitted constants of Eq. 11/15 (Table 2), a fresh dict each call."""
    return dict(_table2())


def constants(params: Mapping[str, float] | None = None) -> dict[str, float]:
    """Table 2's constants, with any of them overridden by ``params``.

    Raises
    ------
    ValueError
        If ``params`` names a constant that Eq. 11 does not have.
    """
    return merge(_table2(), params)


def structure_factor(
    G: Array | float, S: Array | float, params: Mapping[str, float] | None = None
) -> Array:
    """The architecture factor ``e·G + f/G + m·S² + n·S`` of Eq. 11 (``A`` in App. D–F).

    Parameters
    ----------
    G
        Number of activated experts, shared included (Eq. 2), positive.
    S
        Shared experts' share of the activated experts, ``n_s/G`` (Eq. 3), in [0, 1].
    params
        Overrides of Table 2's constants.

    Raises
    ------
    ValueError
        For non-positive G or S outside [0, 1].
    """
    p = constants(params)
    return _structure_formula(positive("G", G), unit_interval("S", S), p)


def _structure_formula(G: Array, S: Array, p: Mapping[str, Array | float]) -> Array:
    """:func:`structure_factor` without its checks, for constants that are arrays (one set
    per row, e.g. :func:`moelaws.comprehensive.checks.joint_rounding_draws`' draws)."""
    return p["e"] * G + p["f"] / G + p["m"] * S**2 + p["n"] * S


def size_factor(
    N: Array | float, Na: Array | float, params: Mapping[str, float] | None = None
) -> Array:
    """The size factor ``φ(N, N_a) = 1/N^α + k/N_a^α + h·N_a/N`` of Eq. 9/11 (``B`` in App. D).

    Raises
    ------
    ValueError
        For non-positive sizes or ``N_a > N``.
    """
    p = constants(params)
    N = positive("N", N)
    Na = positive("N_a", Na)
    active_within_total(*np.broadcast_arrays(Na, N))
    return N ** -p["alpha"] + p["k"] * Na ** -p["alpha"] + p["h"] * Na / N


def size_factor_elasticities(
    N: Array | float, Na: Array | float, params: Mapping[str, float] | None = None
) -> dict[str, Array]:
    """How the size factor φ of Eq. 11 moves with ``N`` and with ``N_a``: its elasticities.

    ``∂log φ/∂log N = −(α/N^α + h·N_a/N)/φ`` is negative for every size;
    ``∂log φ/∂log N_a = (h·N_a/N − α·k/N_a^α)/φ`` is positive wherever ``h·N_a/N`` outweighs
    ``α·k/N_a^α``, which with Table 2's ``k = 0.0013`` holds over the paper's experiments and
    every model of its Table 3. The marginal coefficients of Eq. 10 are ``m·φ`` (``m > 0``) and
    ``n·φ`` (``n < 0``), so Eq. 11 makes ``m·φ`` fall and ``n·φ`` rise with ``N``, the opposite
    of what App. C.5 reports from its Figure 13 ("m increases with the growth of N and N_a,
    whereas n decreases"); in ``N_a`` the directions agree.

    Returns
    -------
    dict
        ``N`` and ``N_a``: the two elasticities, broadcast over the inputs.

    Raises
    ------
    ValueError
        As :func:`size_factor`.
    """
    p = constants(params)
    phi = size_factor(N, Na, p)
    N, Na = np.asarray(N, float), np.asarray(Na, float)
    alpha = p["alpha"]
    return {
        "N": -(alpha * N ** -alpha + p["h"] * Na / N) / phi,
        "N_a": (p["h"] * Na / N - alpha * p["k"] * Na ** -alpha) / phi,
    }


def loss(
    N: Array | float,
    D: Array | float,
    Na: Array | float,
    G: Array | float,
    S: Array | float,
    params: Mapping[str, float] | None = None,
) -> Array:
    """The joint MoE scaling law, Eq. 11 (= Eq. 1, Eq. 15) with Table 2's constants.

    ``L = (e·G + f/G + m·S² + n·S)·(1/N^α + k/N_a^α + h·N_a/N) + a/N^α + b/D^β + c/N_a^α + ε``

    Parameters
    ----------
    N, D, Na
        Total non-embedding parameters, training tokens and activated non-embedding parameters
        (raw counts). Broadcast against each other.
    G
        Activated experts, shared included (``n_k + n_s``).
    S
        Shared ratio ``n_s/G`` in [0, 1].
    params
        Overrides of Table 2's constants, e.g. ``{"h": 0.04}``.

    Returns
    -------
    numpy.ndarray
        Predicted validation loss (nats per token).

    Raises
    ------
    ValueError
        For non-positive sizes, ``N_a > N``, non-positive G, S outside [0, 1], or an unknown
        constant in ``params``.

    Warns
    -----
    ExtrapolationWarning
        For N, D or G far (a million times) outside the ranges Table 8 spans.
    """
    p = constants(params)
    D = positive("D", D)
    Na_arr = positive("N_a", Na)
    N_arr = positive("N", N)
    value = (
        structure_factor(G, S, p) * size_factor(N_arr, Na_arr, p)
        + p["a"] * N_arr ** -p["alpha"]
        + p["b"] * D ** -p["beta"]
        + p["c"] * Na_arr ** -p["alpha"]
        + p["eps"]
    )
    warn_if_far_outside("comprehensive", "N", N_arr, FITTED_RANGES["N"])
    warn_if_far_outside("comprehensive", "D", D, FITTED_RANGES["D"])
    warn_if_far_outside("comprehensive", "G", G, FITTED_RANGES["G"])
    return value


def loss_nd(
    N: Array | float, D: Array | float, *, a: float, alpha: float, b: float, beta: float,
    eps: float,
) -> Array:
    """Eq. 4, the dense (Chinchilla) form ``L(N, D) = a/N^α + b/D^β + ε``.

    Raises
    ------
    ValueError
        For non-positive N or D.
    """
    N = positive("N", N)
    D = positive("D", D)
    return a * N**-alpha + b * D**-beta + eps


def loss_na_marginal(
    Na: Array | float, *, c: float, gamma: float, h: float, iota: float
) -> Array:
    """Eq. 5, the hook in the activated size at fixed N and D: ``c/N_a^γ + h·N_a + ι``.

    Raises
    ------
    ValueError
        For non-positive N_a.
    """
    Na = positive("N_a", Na)
    return c * Na**-gamma + h * Na + iota


def loss_nd_na(
    N: Array | float, D: Array | float, Na: Array | float, *, a: float, alpha: float,
    b: float, beta: float, c: float, h: float, eps: float,
) -> Array:
    """Eq. 7, ``L(N, D, N_a) = a/N^α + b/D^β + c/N_a^α + h·N_a/N + ε``.

    Raises
    ------
    ValueError
        For non-positive sizes or ``N_a > N``.
    """
    N = positive("N", N)
    Na = positive("N_a", Na)
    active_within_total(*np.broadcast_arrays(Na, N))
    return loss_nd(N, D, a=a, alpha=alpha, b=b, beta=beta, eps=eps) + c * Na**-alpha + h * Na / N


def loss_g_marginal(G: Array | float, *, e: float, f: float, tau: float) -> Array:
    """Eq. 8, the hook in the number of activated experts: ``e·G + f/G + τ``.

    Raises
    ------
    ValueError
        For non-positive G.
    """
    G = positive("G", G)
    return e * G + f / G + tau


def loss_nd_na_g(
    N: Array | float, D: Array | float, Na: Array | float, G: Array | float, *, e: float,
    f: float, k: float, h: float, a: float, alpha: float, b: float, beta: float, c: float,
    eps: float,
) -> Array:
    """Eq. 9, ``(e·G + f/G)·(1/N^α + k/N_a^α + h·N_a/N) + a/N^α + b/D^β + c/N_a^α + ε``.

    Raises
    ------
    ValueError
        For non-positive sizes or G, or ``N_a > N``.
    """
    p = dict(e=e, f=f, m=0.0, n=0.0, k=k, h=h, a=a, alpha=alpha, b=b, beta=beta, c=c, eps=eps)
    return loss(N, D, Na, G, 0.0, p)


def loss_s_marginal(S: Array | float, *, m: float, n: float, psi: float) -> Array:
    """Eq. 10, the quadratic in the shared ratio: ``m·S² + n·S + ψ``.

    Raises
    ------
    ValueError
        For S outside [0, 1].
    """
    S = unit_interval("S", S)
    return m * S**2 + n * S + psi


def marginal_coefficients(
    N: Array | float, D: Array | float, Na: Array | float, S: Array | float = 0.0,
    params: Mapping[str, float] | None = None,
) -> dict[str, Array]:
    """Eq. 11 read as the marginal laws Eq. 8 (in G) and Eq. 10 (in S) at fixed sizes.

    At fixed ``N, D, N_a`` Eq. 11 is ``e'·G + f'/G + τ`` with ``e' = e·φ``, ``f' = f·φ``, and at
    fixed ``G`` it is ``m'·S² + n'·S + ψ`` with ``m' = m·φ``, ``n' = n·φ``: the marginal
    coefficients scale with the size factor φ, so they vary with N and N_a while the optima
    ``√(f/e)`` and ``−n/2m`` do not (as App. C.5 reports). The directions in N are the
    opposite of App. C.5's: see :func:`size_factor_elasticities`.

    Returns
    -------
    dict
        ``phi``, ``e``, ``f``, ``tau`` (the G-hook's offset at shared ratio ``S``) and ``m``,
        ``n`` (the S-quadratic's coefficients).
    """
    p = constants(params)
    phi = size_factor(N, Na, p)
    rest = loss(N, D, Na, 1.0, S, p) - (p["e"] + p["f"]) * phi
    return {
        "phi": phi, "e": p["e"] * phi, "f": p["f"] * phi, "tau": rest,
        "m": p["m"] * phi, "n": p["n"] * phi,
    }


# --- parameter counts (Eq. 2-3) and App. H's width trade (Eq. 35) ---------------------------


def active_params_eq2(
    d_head: Array | float, n_heads: Array | float, G: Array | float, d_expert: Array | float,
    d_hidden: Array | float, n_layers: Array | float,
) -> Array:
    """Eq. 2: ``N_a ≈ (4·d_head·n_h + 3·G·d_expert)·d_hidden·l`` (embeddings excluded).

    Raises
    ------
    ValueError
        For non-positive sizes.
    """
    args = [positive(n, v) for n, v in (("d_head", d_head), ("n_heads", n_heads), ("G", G),
            ("d_expert", d_expert), ("d_hidden", d_hidden), ("n_layers", n_layers))]
    d_head, n_heads, G, d_expert, d_hidden, n_layers = args
    return layer_weights(4 * d_head * n_heads * d_hidden, G, d_expert, d_hidden) * n_layers


def total_params_eq3(
    d_head: Array | float, n_heads: Array | float, G: Array | float, S: Array | float,
    n_routed: Array | float, d_expert: Array | float, d_hidden: Array | float,
    n_layers: Array | float,
) -> Array:
    """Eq. 3: ``N ≈ (4·d_head·n_h + 3·d_expert·(S·G + n_e))·d_hidden·l``, where ``S·G = n_s``.

    Raises
    ------
    ValueError
        For non-positive sizes or S outside [0, 1].
    """
    S = unit_interval("S", S)
    args = [positive(n, v) for n, v in (("d_head", d_head), ("n_heads", n_heads), ("G", G),
            ("n_routed", n_routed), ("d_expert", d_expert), ("d_hidden", d_hidden),
            ("n_layers", n_layers))]
    d_head, n_heads, G, n_routed, d_expert, d_hidden, n_layers = args
    return layer_weights(4 * d_head * n_heads * d_hidden, S * G + n_routed, d_expert,
                         d_hidden) * n_layers


def layer_weights(attention: Array | float, experts: Array | float, d_expert: Array | float,
                  d_hidden: Array | float) -> Array:
    """One layer's weights in Eq. 2-3, the one home of their bracket: ``attention +
    3·experts·d_expert·d_hidden``.

    Eq. 2 (N_a) counts ``experts = G`` activated experts, Eq. 3 (N) ``S·G + n_e``, and both
    an attention of ``4·d_head·n_h·d_hidden``; :func:`active_params_eq2` and
    :func:`total_params_eq3` multiply by the layers, and
    :func:`moelaws.comprehensive.counting.comprehensive_counts` fills the terms from a real
    configuration (unchecked: the callers check their inputs).

    Parameters
    ----------
    attention
        Weights of one attention block.
    experts
        Number of experts of width ``d_expert`` counted in the layer.
    d_expert, d_hidden
        Expert and model width.
    """
    return attention + 3 * experts * d_expert * d_hidden


def uv_routed_factor(
    u: Array | float, S: Array | float, G: Array | float, n_routed: Array | float
) -> Array:
    """Eq. 35: the factor ``v`` on the number of routed experts that keeps N fixed when the
    expert width is scaled by ``u`` (App. H): ``v = ((1 − u)·S·G + n_e)/(u·n_e)``.

    Raises
    ------
    ValueError
        For non-positive u, G or n_routed, S outside [0, 1], or a non-positive v (the shared
        experts alone would exceed N).
    """
    u = positive("u", u)
    S = unit_interval("S", S)
    G = positive("G", G)
    n_routed = positive("n_routed", n_routed)
    v = ((1 - u) * S * G + n_routed) / (u * n_routed)
    if np.any(v <= 0):
        raise ValueError("u too large: no routed experts would be left at fixed N")
    return v
