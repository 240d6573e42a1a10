"""The bad inputs an outside audit found (issue 19), each refused or flagged; and the shared
checks of moelaws.validation they go through."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

from moelaws import cli, validation
from moelaws import comprehensive as cl
from moelaws import constrained as con
from moelaws import holistic as h
from moelaws import leverage as lev
from moelaws.validation import ExtrapolationWarning


def test_a_numeric_string_is_refused_not_converted() -> None:
    with pytest.raises(ValueError, match="total_budget must be numeric"):
        con.optimize("1e9", 1e8, 64)
    for bad in ("1e9", True, None, object(), b"1"):
        with pytest.raises(ValueError, match="numeric"):
            validation.finite("x", bad)


def test_user_supplied_constants_are_checked_like_inputs() -> None:
    m = cl.industrial_models()
    with pytest.raises(ValueError, match="not finite"):
        cl.practical_G_range(m["N"], m["Na"], 1e-3, {"e": -1})
    with pytest.raises(ValueError, match="alpha"):
        cl.loss(1e10, 1e11, 1e9, 8, 0.2, {"alpha": math.nan})
    with pytest.raises(ValueError, match="unknown"):
        cl.loss(1e10, 1e11, 1e9, 8, 0.2, {"alpah": 0.3})
    with pytest.raises(ValueError, match="mapping"):
        validation.constants({"a": 1.0}, [("a", 2.0)])  # type: ignore[arg-type]
    assert validation.constants({"a": 1.0, "b": -2.0}, {"b": -3}) == {"a": 1.0, "b": -3.0}


def test_layer_counts_are_whole_numbers() -> None:
    heads = dict(n_q=16, n_kv=4, d_qkv=128)
    with pytest.raises(ValueError, match="L_m must be a whole number"):
        h.counts(2048, 1, 2.5, 1024, **heads)
    assert float(h.counts(2048, 1, 20.0, 1024, **heads).N) > 0
    with pytest.raises(ValueError, match="at least 1"):
        validation.integer("n", 0, minimum=1)


@pytest.mark.parametrize(
    ("call", "quantity"),
    [
        (lambda: lev.efficiency_leverage(0.1, 1e300, 1e21), "G"),
        (lambda: lev.efficiency_leverage(0.1, 8, 1e300), "C"),
        (lambda: con.optimize(1e40, 1e39, 64), "N_total"),
    ],
)
def test_laws_warn_far_outside_the_fitted_range(call, quantity: str) -> None:
    with pytest.warns(ExtrapolationWarning, match=f"{quantity} = "):
        call()


def test_no_warning_inside_the_range() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error", ExtrapolationWarning)
        lev.efficiency_leverage(0.1, 8, 1e22)
        con.optimize(3e9, 3e8, 64)


def test_work_sizes_are_capped() -> None:
    with pytest.raises(ValueError, match="n_points must be at most"):
        cl.fit_compute_optimal_power_law(1e18, 1e20, n_points=10**9)
    with pytest.raises(ValueError, match="whole number"):
        cl.fit_compute_optimal_power_law(1e18, 1e20, n_points=10.5)


def test_non_finite_results_are_refused() -> None:
    with pytest.raises(ValueError, match="overflow"):
        h.counts(1e300, 1, 20, 1024, n_q=16, n_kv=4, d_qkv=128)
    with pytest.raises(ValueError, match="overflow"):
        h.resource_ratios(1e300, 1, 20, 1024, n_q=16, n_kv=4, d_qkv=128)
    from moelaws import allocation

    with pytest.raises(ValueError, match="not finite"):
        allocation.loss_terms(1e9, 1e10, 0.9, 1.0, 1e300)
    # A documented NaN ("no maximum") is kept.
    assert np.isnan(lev.optimal_granularity(np.array([0.1, 1.0]))[1])


def test_fitted_ranges_match_the_comparison_chapter() -> None:
    from moelaws.compare.regimes import fitted_ranges

    ranges = fitted_ranges()
    names = {"N_total": "N"}
    for paper, quantities in validation.FITTED_RANGES.items():
        for quantity, (low, high) in quantities.items():
            r = ranges[paper][names.get(quantity, quantity)]
            assert (low, high) == pytest.approx((r.low, r.high), rel=1e-3), (paper, quantity)


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["design", "--compute", "1e22", "--total-params", "1e3", "--active-params", "1e2"],
         "--total-params 1000 is outside the accepted range"),
        (["design", "--compute", "1e-300"], "--compute 1e-300 is outside the accepted range"),
        (["design", "--compute", "1e40"], "--compute 1e+40 is outside the accepted range"),
    ],
)
def test_cli_refuses_budgets_outside_its_range(argv, message, capsys) -> None:
    assert cli.main(argv) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.startswith("moelaws: error: ") and message in captured.err
    assert len(captured.err.strip().splitlines()) == 1


def test_cli_counts_refuses_an_absurd_config(tmp_path, capsys) -> None:
    import json

    from moelaws import arch

    data = arch.preset("DeepSeek-V3").to_dict()
    data["n_layers"] = 2 * 10**12
    path = tmp_path / "big.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    assert cli.main(["counts", str(path)]) == 2
    assert "outside the accepted range" in capsys.readouterr().err


def test_cli_text_refuses_nan() -> None:
    with pytest.raises(ValueError, match="no finite value"):
        validation.cli_text("N_a band   nan to 1000", "design")
    assert validation.cli_text("finance 1e22 info", "design")
