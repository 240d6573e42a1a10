"""Property-based tests (Hypothesis): every public law and the command line, driven with random
finite, non-finite, negative, huge, wrong-type and empty inputs, either return a finite result
or refuse with a ``ValueError`` (the CLI: exit status 2 and one ``moelaws: error:`` line) —
never NaN, a hang or another exception.

The laws are found by introspection (every function of each chapter package's ``__all__``), so a
new public function is covered as soon as it is exported. One argument at a time is replaced by
a random value while the others keep a valid baseline. A function whose docstring documents NaN
(``moelaws.validation.documents_nan``: "no solution", "infeasible") may return NaN, never
infinity.
"""

from __future__ import annotations

import importlib
import inspect
import io
import math
import warnings
from contextlib import redirect_stderr, redirect_stdout
from typing import Any

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from moelaws import arch, cli, papers
from moelaws.validation import CLI_RANGES, ExtrapolationWarning, documents_nan

PACKAGES = papers.packages()
"""Every paper's package, from the registry (chapter 0's is ``moelaws.arch``)."""

# A valid value for every argument name the public laws use (one baseline call must succeed).
VALID: dict[str, Any] = dict(
    A=0.1, G=8.0, C=1e21, B=1e6, eta=1e-3, M=1e9, family="moe", l=24, d=2048, n_topk=8,
    n_exp=64, s=8.0, g=4.0, total_budget=3e10, active_budget=3e9, k_align=64, N_total=1e10,
    D=1e11, config="128/8", N_active=1e9, max_topk=8, L_d=1, L_m=20, d_m=1024, n_q=16, n_kv=4,
    d_qkv=128, r_a=0.3, r_m_active=0.5, r_m=0.5, N_a=2e9, N=2e10, rest=1e9, attn_params=1e7,
    L=24, Na=2e9, S=0.2, threshold=1e-3, C_min=1e18, C_max=1e20, d_head=64, n_heads=16,
    d_expert=512, d_hidden=1024, n_layers=24, n_routed=64, u=1.0, e=1.0, f=1.0, tau=1.0, c=1.0,
    gamma=0.3, h=0.05, iota=1.0, a=1.0, alpha=0.3, b=1.0, beta=0.3, eps=1.0, k=1.0, m=1.0,
    n=1.0, psi=1.0, sparsity=0.5, alpha_r=0.1, beta_r=0.1, tokens=1e6, r=1.0, S1=0.8, S2=0.95,
    r_star=1.0, gamma_A=0.3, gamma_E=0.3, mu_A=0.5, mu_E=0.5, alpha_A=1.0, alpha_E=1.0,
    C_A=1e20, C_E=1e20, R=1.0, N_max=1e9, D_max=1e10, S_max=0.9, r_min=0.1, n_experts=64,
    vocab_size=50000, cfg=arch.preset("DeepSeek-V3"), base=arch.preset("DeepSeek-V3"),
    width=512, total_budgets=[3e10], active_budgets=[3e9],
)

# Functions that take no numeric input (tables, presets) or need structured input (loss
# curves, table rows) are covered by their own unit tests.
SKIP = {"read_table", "read_constants", "preset", "presets_table", "table4_heads",
        "fit_loss_curve", "leverage_from_loss_curves", "table12_config", "median_d",
        "eq4_ratio", "landscape", "implied_granularity", "ratio_from_fraction",
        "config_for_ratio", "fit_compute_optimal_power_law"}


def public_laws(packages: tuple[str, ...] = PACKAGES,
                ) -> list[tuple[str, Any, dict[str, Any], list[str]]]:
    """``(name, function, valid arguments, numeric argument names)`` of every law swept."""
    out = []
    for pkg in packages:
        module = importlib.import_module(pkg)
        for name in module.__all__:
            fn = getattr(module, name)
            if not inspect.isfunction(fn) or name in SKIP:
                continue
            params = inspect.signature(fn).parameters.values()
            required = [p.name for p in params if p.default is inspect.Parameter.empty
                        and p.kind not in (p.VAR_KEYWORD, p.VAR_POSITIONAL)]
            if not required or any(r not in VALID for r in required):
                continue
            numeric = [r for r in required if isinstance(VALID[r], (int, float, list))]
            if numeric:
                out.append((f"{pkg.removeprefix('moelaws.')}.{name}", fn,
                            {r: VALID[r] for r in required}, numeric))
    return out


LAWS = public_laws()

BAD_INPUTS = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True),
    st.floats(min_value=1e200, max_value=1e308),
    st.floats(min_value=-1e6, max_value=0.0),
    st.integers(min_value=-10, max_value=10**6),
    st.sampled_from(["1e9", "", "abc", None, True, object(), [], (), {}, [1.0, math.nan],
                     np.array([]), np.array([1.0, -1.0]), 2.5, 0.5]),
    st.lists(st.floats(min_value=1e-3, max_value=1e6), min_size=1, max_size=3),
)


def _non_finite(value: Any, nan_ok: bool) -> bool:
    """Whether a law's result holds NaN (unless documented) or infinity."""
    if isinstance(value, (pd.DataFrame, pd.Series, str, bool)) or value is None:
        return False
    if isinstance(value, tuple):
        return any(_non_finite(v, nan_ok) for v in value)
    if isinstance(value, (float, int, np.floating, np.integer, np.ndarray)):
        arr = np.asarray(value)
        if arr.dtype.kind not in "fc":
            return False
        return bool(np.any(np.isinf(arr) if nan_ok else ~np.isfinite(arr)))
    return False


def test_the_laws_are_found() -> None:
    assert len(LAWS) >= 60
    # every paper's package contributes laws; each paper's folder names one of its own
    # (tests/papers/<id>/test_<id>.py, test_<law>_is_swept_by_the_property_tests)
    packages = {n.rpartition(".")[0] for n, *_ in LAWS}
    assert {p.removeprefix("moelaws.") for p in PACKAGES} <= packages


# deadline=None here and below: Hypothesis's deadline (200 ms unless set) is a wall-clock limit,
# which a loaded machine, or `make test`'s lower priority for this stage, can exceed.
@pytest.mark.parametrize(("name", "fn", "base", "numeric"), LAWS, ids=[n for n, *_ in LAWS])
@settings(max_examples=12, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_law_returns_finite_or_raises_value_error(name, fn, base, numeric, data) -> None:
    target = data.draw(st.sampled_from(numeric), label="argument")
    value = data.draw(BAD_INPUTS, label="value")
    check_law(name, fn, base, target, value)


def check_law(name: str, fn: Any, base: dict[str, Any], target: str, value: Any) -> None:
    """The property: ``fn`` with ``target`` replaced by ``value`` is finite or a ValueError."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ExtrapolationWarning)
        warnings.simplefilter("ignore", RuntimeWarning)
        try:
            out = fn(**{**base, target: value})
        except ValueError:
            return
    assert not _non_finite(out, documents_nan(fn)), f"{name}({target}={value!r}) -> {out!r}"


def _run_cli(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        try:
            rc = cli.main(argv)
        except SystemExit as exc:  # argparse exits on bad options
            rc = int(exc.code or 0)
    return rc, out.getvalue(), err.getvalue()


NUMBER_TEXT = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True).map(repr),
    st.floats(min_value=1e-300, max_value=1e300).map(lambda x: f"{x:g}"),
    st.sampled_from(["", "abc", "1e", "-1e22", "0", "1e-300", "1e300", "nan", "inf", "1,5",
                     "0x10", "1e22"]),
)


@settings(max_examples=40, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])
@given(compute=NUMBER_TEXT, total=st.one_of(st.none(), NUMBER_TEXT),
       active=st.one_of(st.none(), NUMBER_TEXT))
def test_cli_design_is_finite_or_a_clean_error(compute, total, active) -> None:
    argv = ["design", "--compute", compute]
    if total is not None:
        argv += ["--total-params", total]
    if active is not None:
        argv += ["--active-params", active]
    rc, out, err = _run_cli(argv)
    if rc == 0:
        assert not err and out
        for word in out.lower().replace(",", " ").split():
            assert word.strip("()[]:;") not in ("nan", "inf", "-inf"), out
    else:
        assert rc == 2, (argv, rc, err)
        lines = err.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("moelaws: error: "), err
        assert not out


@settings(max_examples=25, deadline=None, derandomize=True)
@given(field=st.sampled_from(["n_layers", "d_model", "n_heads", "n_experts", "top_k",
                              "d_expert", "vocab_size"]),
       value=st.one_of(st.integers(min_value=-5, max_value=10**13), st.floats(allow_nan=True),
                       st.sampled_from(["12", None, True, [], {}])))
def test_cli_counts_is_finite_or_a_clean_error(tmp_path_factory, field, value) -> None:
    import json

    data = arch.preset("DeepSeek-V3").to_dict()
    data[field] = value
    path = tmp_path_factory.mktemp("cfg") / "config.json"
    path.write_text(json.dumps(data, default=str), encoding="utf-8")
    rc, out, err = _run_cli(["counts", str(path)])
    if rc == 0:
        assert " nan" not in out.lower() and " inf" not in out.lower(), out
        low, high, _ = CLI_RANGES["total_params"]
        assert low <= arch.total_params(arch.MoEConfig.from_dict(data)) <= high
    else:
        assert rc == 2 and err.startswith("moelaws: error: ") and len(err.splitlines()) == 1
