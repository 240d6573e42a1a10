"""Interactive views of the joint law: a kernel-free Altair explorer (Vega-Lite parameters bound
to sliders, the law evaluated in Vega expressions), the industrial-model chart, and the summary
a live ipywidgets explorer shows."""

from __future__ import annotations

from collections.abc import Mapping

import altair as alt
import numpy as np
import pandas as pd

from moelaws import sliders
from moelaws.comprehensive.law import constants, loss
from moelaws.comprehensive.optima import (
    efficiency_aware_active_ratio,
    optimal_active_ratio,
    optimal_G,
    optimal_S,
    practical_G_range,
    practical_S_range,
)
from moelaws.comprehensive.tables import industrial_models

Array = np.ndarray


def _num(x: float) -> str:
    return repr(float(x))


def loss_expression(
    N: str = "N", Na: str = "Na", D: str = "D", G: str = "G", S: str = "S",
    params: Mapping[str, float] | None = None,
) -> str:
    """Eq. 11 as a Vega expression over the given sub-expressions (also valid Python when
    ``pow`` is the built-in).

    Raises
    ------
    ValueError
        For an unknown constant in ``params``.
    """
    p = {k: _num(v) for k, v in constants(params).items()}
    return (
        f"({p['e']} * ({G}) + {p['f']} / ({G}) + {p['m']} * ({S}) * ({S}) + {p['n']} * ({S}))"
        f" * ({phi_expression(N, Na, params)})"
        f" + {p['a']} * pow({N}, -{p['alpha']}) + {p['b']} * pow({D}, -{p['beta']})"
        f" + {p['c']} * pow({Na}, -{p['alpha']}) + {p['eps']}"
    )


def phi_expression(N: str = "N", Na: str = "Na", params: Mapping[str, float] | None = None
                   ) -> str:
    """The size factor ``1/N^α + k/N_a^α + h·N_a/N`` as a Vega expression."""
    p = {k: _num(v) for k, v in constants(params).items()}
    return (f"pow({N}, -{p['alpha']}) + {p['k']} * pow({Na}, -{p['alpha']})"
            f" + {p['h']} * ({Na}) / ({N})")


_SLIDERS = {
    "logN": (11.0, 8.0, 12.5, 0.05, "log10 N (total params) "),
    "ratio": (0.10, 0.01, 1.0, 0.01, "N_a/N "),
    "logD": (12.0, 10.0, 13.5, 0.05, "log10 D (tokens) "),
    "Gs": (8.0, 1.0, 32.0, 0.5, "G (activated experts) "),
    "Ss": (0.11, 0.0, 0.9, 0.01, "S (shared ratio) "),
}
_SIZE = "N = pow(10, logN), Na = ratio * pow(10, logN), D = pow(10, logD)"


def explorer_chart(threshold: float = 1e-3) -> alt.HConcatChart | alt.VConcatChart:
    """Sliders for N, N_a/N, D, G and S over three panels: loss against G, S and N_a/N, each
    with its optimum (G_opt, S_opt, theoretical N_a/N) and efficiency-aware range or point
    (threshold ``threshold``), and a readout of the loss. Everything is computed in the browser.

    Raises
    ------
    ValueError
        For a non-positive threshold.
    """
    if not threshold > 0:
        raise ValueError("threshold must be positive")
    p = constants()
    params = [
        sliders.range_param(name, v, min=lo, max=hi, step=st, label=lab)
        for name, (v, lo, hi, st, lab) in _SLIDERS.items()
    ]
    N, Na, D = "pow(10, logN)", "ratio * pow(10, logN)", "pow(10, logD)"
    phi = phi_expression(N, Na)
    ef = np.sqrt(p["e"] * p["f"])
    width = f"(2 * {_num(ef)} + {_num(threshold)} / ({phi}))"
    root = f"sqrt({width} * {width} - 4 * {_num(p['e'] * p['f'])})"
    half_s = f"sqrt({_num(threshold)} / ({_num(p['m'])} * ({phi})))"
    g_opt, s_opt = optimal_G(), optimal_S()
    axis_loss = alt.Y("loss:Q", scale=alt.Scale(zero=False), title="loss (Eq. 11)")

    g_data = pd.DataFrame({"x": np.round(np.arange(1.0, 32.01, 0.25), 2)})
    g_line = alt.Chart(g_data).transform_calculate(
        loss=loss_expression(N, Na, D, "datum.x", "Ss")
    ).mark_line().encode(x=alt.X("x:Q", title="G"), y=axis_loss)
    g_band = alt.Chart(pd.DataFrame({"one": [1]})).transform_calculate(
        lo=f"({width} - {root}) / {_num(2 * p['e'])}",
        hi=f"({width} + {root}) / {_num(2 * p['e'])}",
    ).mark_rect(opacity=0.15, color="green").encode(x="lo:Q", x2="hi:Q")
    g_rule = alt.Chart(pd.DataFrame({"x": [g_opt]})).mark_rule(
        color="green", strokeDash=[4, 2]).encode(x="x:Q")
    g_now = alt.Chart(pd.DataFrame({"one": [1]})).transform_calculate(
        x="Gs", loss=loss_expression(N, Na, D, "Gs", "Ss")
    ).mark_point(color="red", size=80, filled=True).encode(x="x:Q", y="loss:Q")
    panel_g = (g_band + g_line + g_rule + g_now).properties(
        width=230, height=200, title=f"loss vs G (G_opt = {g_opt:.2f})")

    s_data = pd.DataFrame({"x": np.round(np.arange(0.0, 0.901, 0.01), 2)})
    s_line = alt.Chart(s_data).transform_calculate(
        loss=loss_expression(N, Na, D, "Gs", "datum.x")
    ).mark_line().encode(x=alt.X("x:Q", title="S"), y=axis_loss)
    s_band = alt.Chart(pd.DataFrame({"one": [1]})).transform_calculate(
        lo=f"max(0, {_num(s_opt)} - {half_s})", hi=f"min(0.9, {_num(s_opt)} + {half_s})",
    ).mark_rect(opacity=0.15, color="green").encode(x="lo:Q", x2="hi:Q")
    s_rule = alt.Chart(pd.DataFrame({"x": [s_opt]})).mark_rule(
        color="green", strokeDash=[4, 2]).encode(x="x:Q")
    s_now = alt.Chart(pd.DataFrame({"one": [1]})).transform_calculate(
        x="Ss", loss=loss_expression(N, Na, D, "Gs", "Ss")
    ).mark_point(color="red", size=80, filled=True).encode(x="x:Q", y="loss:Q")
    panel_s = (s_band + s_line + s_rule + s_now).properties(
        width=230, height=200, title=f"loss vs S (S_opt = {s_opt:.3f})")

    r_data = pd.DataFrame({"x": np.round(np.arange(0.01, 1.001, 0.01), 2)})
    r_loss = loss_expression(N, f"datum.x * {N}", D, "Gs", "Ss")
    r_next = loss_expression(N, f"(datum.x + 0.01) * {N}", D, "Gs", "Ss")
    r_line = alt.Chart(r_data).transform_calculate(loss=r_loss).mark_line().encode(
        x=alt.X("x:Q", title="N_a/N"), y=axis_loss)
    A = (f"({_num(p['e'])} * Gs + {_num(p['f'])} / Gs + {_num(p['m'])} * Ss * Ss"
         f" + {_num(p['n'])} * Ss)")
    r_theory = alt.Chart(pd.DataFrame({"one": [1]})).transform_calculate(
        x=f"pow({_num(p['alpha'])} * ({_num(p['k'])} * {A} + {_num(p['c'])})"
          f" / ({_num(p['h'])} * pow({N}, {_num(p['alpha'])}) * {A}),"
          f" {_num(1 / (p['alpha'] + 1))})"
    ).mark_rule(color="green", strokeDash=[4, 2]).encode(x="x:Q")
    # Algorithm 1 in Vega: the first step whose loss reduction falls below the threshold.
    r_eff = alt.Chart(r_data).transform_filter("datum.x <= 0.985").transform_calculate(
        gain=f"({r_loss}) - ({r_next})"
    ).transform_filter(f"datum.gain < {_num(threshold)}").transform_aggregate(
        first="min(x)"
    ).transform_calculate(x="datum.first + 0.01").mark_rule(color="orange").encode(x="x:Q")
    r_now = alt.Chart(pd.DataFrame({"one": [1]})).transform_calculate(
        x="ratio", loss=loss_expression(N, Na, D, "Gs", "Ss")
    ).mark_point(color="red", size=80, filled=True).encode(x="x:Q", y="loss:Q")
    panel_r = (r_line + r_theory + r_eff + r_now).properties(
        width=230, height=200,
        title="loss vs N_a/N (green: theoretical, orange: efficiency-aware)")

    readout = alt.Chart(pd.DataFrame({"one": [1]})).transform_calculate(
        text=f"'loss at the sliders: ' + format({loss_expression(N, Na, D, 'Gs', 'Ss')}, '.4f')"
             f" + '   (N = ' + format({N} / 1e9, '.3~r') + 'B, N_a = '"
             f" + format({Na} / 1e9, '.3~r') + 'B, D = ' + format({D} / 1e9, '.3~r')"
             f" + 'B tokens, G = ' + Gs + ', S = ' + Ss + ')'"
    ).mark_text(align="left", fontSize=13).encode(text="text:N").properties(width=700,
                                                                             height=20)
    return alt.vconcat(alt.hconcat(panel_g, panel_s, panel_r), readout).add_params(*params)


def industrial_chart(G: float = 7.0, S: float = 0.31) -> alt.LayerChart:
    """N_a/N against N: the theoretical optimum (Eq. 14) and the efficiency-aware optima
    (Algorithm 1, ΔLoss = 0.001 and 0.005) at ``G``, ``S``, the recommended band between the
    0.005 point and the theoretical optimum, and the nine industrial models of Table 4.

    Raises
    ------
    ValueError
        For invalid G or S.
    """
    N = np.logspace(9.5, 12.3, 141)
    eff1, eff5 = "efficiency-aware, ΔLoss 1e-3", "efficiency-aware, ΔLoss 5e-3"
    curves = pd.DataFrame({
        "N (B)": N / 1e9,
        "theoretical": optimal_active_ratio(N, G, S),
        eff1: efficiency_aware_active_ratio(N, 1e-3, G, S),
        eff5: efficiency_aware_active_ratio(N, 5e-3, G, S),
    })
    x = alt.X("N (B):Q", scale=alt.Scale(type="log", domain=[3, 2000]),
              title="total parameters N (B)")
    y = alt.Y("value:Q", title="N_a/N", axis=alt.Axis(format="%"))
    color = alt.Color("curve:N", scale=alt.Scale(domain=["theoretical", eff1, eff5],
                                                 range=["green", "steelblue", "orange"]))
    band = alt.Chart(curves).mark_area(opacity=0.12, color="green").encode(
        x=x, y=alt.Y(f"{eff5}:Q"), y2="theoretical:Q")
    theory = alt.Chart(curves).transform_fold(["theoretical"], as_=["curve", "value"]).mark_line(
    ).encode(x=x, y=y, color=color)
    steps = alt.Chart(curves).transform_fold([eff1, eff5], as_=["curve", "value"]).mark_line(
        interpolate="step-after").encode(x=x, y=y, color=color)
    lines = theory + steps
    models = industrial_models().rename(columns={"Na/N": "value"})
    models["N (B)"] = models["N"] / 1e9
    points = alt.Chart(models).mark_point(filled=True, size=70, color="black").encode(
        x=x, y=y, tooltip=["model", alt.Tooltip("value:Q", format=".1%")])
    labels = points.mark_text(align="left", dx=6, dy=-6, fontSize=10).encode(text="model:N")
    return (band + lines + points + labels).properties(
        width=560, height=320,
        title=f"Recommended N_a/N band (G = {G:g}, S = {S:g}) and nine industrial models")


def explore(
    log10_N: float, active_ratio: float, log10_D: float, G: float, S: float,
    threshold: float = 1e-3,
) -> pd.Series:
    """What the live explorer shows for one setting of the sliders: the loss, the optima and
    the practical ranges at that N and N_a.

    Raises
    ------
    ValueError
        For settings outside the law's domain (e.g. ``active_ratio`` above 1).
    """
    N, D = 10.0**log10_N, 10.0**log10_D
    Na = active_ratio * N
    g_lo, g_hi = practical_G_range(N, Na, threshold)
    s_lo, s_hi = practical_S_range(N, Na, threshold)
    return pd.Series({
        "loss": float(loss(N, D, Na, G, S)),
        "loss at G_opt, S_opt": float(loss(N, D, Na, optimal_G(), optimal_S())),
        "G_opt": optimal_G(),
        "practical G range": f"[{float(g_lo):.2f}, {float(g_hi):.2f}]",
        "S_opt": optimal_S(),
        "practical S range": f"[{float(s_lo):.3f}, {float(s_hi):.3f}]",
        "theoretical N_a/N (at G, S)": float(optimal_active_ratio(N, G, S)),
        "efficiency-aware N_a/N (at G, S)": float(
            efficiency_aware_active_ratio(N, threshold, G, S)),
    }, name="value")
