"""The bad inputs an outside audit found (issue 19), each refused or flagged; and the shared
checks of moelaws.validation they go through."""

from __future__ import annotations

import importlib
import math
import warnings
from pathlib import Path

import numpy as np
import pytest

from moelaws import cli, papers, validation
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
    for paper in papers.ids("fitted_ranges"):
        quantities = importlib.import_module(f"moelaws.{paper}.law").FITTED_RANGES
        assert quantities, paper
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


# --- guards without holes: mappings key by key, records by type, dict results finite ----------


def test_mapping_arguments_are_checked_key_by_key() -> None:
    from moelaws import constrained

    with pytest.raises(ValueError, match="unknown names \\['N_totl'\\]"):
        constrained.relative_loss(1e9, 8, 2, exponents={"N_totl": 9.0})
    with pytest.raises(ValueError, match="finite"):
        constrained.relative_loss(1e9, 8, 2, exponents={"N_total": float("nan")})
    partial = constrained.relative_loss(1e9, 8, 2, exponents={"N_total": -0.05})
    full = constrained.relative_loss(1e9, 8, 2, exponents={**constrained.EXPONENTS,
                                                            "N_total": -0.05})
    assert partial == full != constrained.relative_loss(1e9, 8, 2)


def test_a_number_where_a_record_belongs_is_a_type_error() -> None:
    from moelaws import holistic

    with pytest.raises(TypeError, match="heads must be a HeadSettings"):
        holistic.design_report(1e20, heads=4)


def test_dict_results_are_checked_finite() -> None:
    from moelaws import comprehensive

    with pytest.raises(ValueError, match="not finite"):
        comprehensive.compute_optimal_asymptote(1e10, G=1e-308)
    assert np.isfinite(comprehensive.compute_optimal_asymptote(1e10)["offset"])


@pytest.mark.parametrize("call", [
    lambda: __import__("moelaws.allocation").allocation.optimal_ratio(1e40, 0.9),
    lambda: __import__("moelaws.holistic").holistic.optimal_tokens(1e30),
    lambda: __import__("moelaws.comprehensive").comprehensive.loss(1e20, 1e11, 1e9, 8, 0.1),
    lambda: __import__("moelaws.leverage").leverage.efficiency_leverage(0.03, 12, 1e30),
    lambda: __import__("moelaws.constrained").constrained.optimize(1e20, 1e9, 1),
], ids=["allocation", "holistic", "comprehensive", "leverage", "constrained"])
def test_every_paper_warns_far_outside_its_fitted_range_at_the_callers_line(call) -> None:
    from moelaws.validation import ExtrapolationWarning

    with pytest.warns(ExtrapolationWarning) as caught:
        try:
            call()
        except ValueError:
            pass  # a design may also be infeasible there; the warning came first
    assert {Path(w.filename).name for w in caught if w.category is ExtrapolationWarning} == {
        Path(__file__).name}


# --- issue 25: what the hostile sweep (test_hostile_sweep.py) found ----------------------------


def test_arrays_longer_than_the_cap_are_refused() -> None:
    from moelaws import leverage

    with pytest.raises(ValueError, match="G has 2,000,000 elements; at most 1,000,000"):
        leverage.efficiency_leverage(0.1, np.full(2_000_000, 8.0), 1e21)
    with pytest.raises(ValueError, match="at most 1,000,000"):
        validation.finite("x", np.ones(validation.MAX_ELEMENTS + 1))
    assert validation.finite("x", np.ones(10)).size == 10


@pytest.mark.parametrize("value", [[], np.array([]), np.ones((0, 3))])
def test_empty_arrays_are_refused(value) -> None:
    from moelaws import leverage

    with pytest.raises(ValueError, match="G is empty"):
        leverage.efficiency_leverage(0.1, value, 1e21)
    grid = leverage.efficiency_leverage(0.1, np.full((2, 3, 2), 8.0), 1e21)  # grids broadcast
    assert grid.shape == (2, 3, 2)


def test_a_non_string_where_a_string_belongs_is_refused() -> None:
    from moelaws import leverage

    with pytest.raises(ValueError, match=r"family must be one of \['moe', 'dense'\], not 3"):
        leverage.compute_optimal_budget(1e21, family=3)
    from moelaws import arch

    with pytest.raises(TypeError, match="name must be a string, not 0"):
        arch.preset(0)


def test_attribute_and_key_errors_inside_a_law_become_value_errors() -> None:
    from moelaws import allocation

    with pytest.raises(ValueError, match=r"table12_config: invalid arguments .*KeyError"):
        allocation.table12_config({})


@pytest.mark.parametrize("flag", ["False", 1, [], np.array([True])])
def test_flags_must_be_true_or_false(flag) -> None:
    from moelaws import arch

    cfg = arch.preset("DeepSeek-V3")
    with pytest.raises(TypeError, match="embeddings must be True or False"):
        arch.total_params(cfg, embeddings=flag)
    assert arch.total_params(cfg, embeddings=np.bool_(True)) > arch.total_params(cfg)


@pytest.mark.parametrize("claim", [None, "Table 4", 0.5, {"paper": "leverage"}])
def test_evaluating_something_that_is_not_a_claim_is_a_type_error(claim) -> None:
    from moelaws import claims

    with pytest.raises(TypeError, match="claim must be a Claim"):
        claims.evaluate(claim)
    assert claims.evaluate(claims.all_claims()[0]).ok
