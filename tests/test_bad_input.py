"""The bad inputs an outside audit found (issue 19), each refused or flagged; and the shared
checks of moelaws.validation they go through."""

from __future__ import annotations

import importlib

import numpy as np
import pytest

from moelaws import cli, papers, validation


def test_a_numeric_string_is_refused_not_converted() -> None:
    for bad in ("1e9", True, None, object(), b"1"):
        with pytest.raises(ValueError, match="numeric"):
            validation.finite("x", bad)


def test_user_supplied_constants_are_checked_like_inputs() -> None:
    with pytest.raises(ValueError, match="mapping"):
        validation.constants({"a": 1.0}, [("a", 2.0)])  # type: ignore[arg-type]
    assert validation.constants({"a": 1.0, "b": -2.0}, {"b": -3}) == {"a": 1.0, "b": -3.0}


def test_layer_counts_are_whole_numbers() -> None:
    with pytest.raises(ValueError, match="at least 1"):
        validation.integer("n", 0, minimum=1)


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


# --- issue 25: what the hostile sweep (test_hostile_sweep.py) found ----------------------------


def test_arrays_longer_than_the_cap_are_refused() -> None:
    with pytest.raises(ValueError, match="at most 1,000,000"):
        validation.finite("x", np.ones(validation.MAX_ELEMENTS + 1))
    assert validation.finite("x", np.ones(10)).size == 10


def test_a_non_string_where_a_string_belongs_is_refused() -> None:
    from moelaws import arch

    with pytest.raises(TypeError, match="name must be a string, not 0"):
        arch.preset(0)


@pytest.mark.parametrize("flag", ["False", 1, [], np.array([True])])
def test_flags_must_be_true_or_false(flag) -> None:
    from moelaws import arch

    cfg = arch.preset("DeepSeek-V3")
    with pytest.raises(TypeError, match="embeddings must be True or False"):
        arch.total_params(cfg, embeddings=flag)
    assert arch.total_params(cfg, embeddings=np.bool_(True)) > arch.total_params(cfg)


@pytest.mark.parametrize("claim", [None, "Table 4", 0.5, {"paper": papers.ids()[-1]}])
def test_evaluating_something_that_is_not_a_claim_is_a_type_error(claim) -> None:
    from moelaws import claims

    with pytest.raises(TypeError, match="claim must be a Claim"):
        claims.evaluate(claim)
    assert claims.evaluate(claims.all_claims()[0]).ok
