"""The input checks added for the hostile sweep's holes in compare, torchmoe, fit, arch and
allocation (issue 25): each refuses a bad value with an error that names the parameter, and
still accepts the valid one."""

from __future__ import annotations

import math

import pytest
import torch

from moelaws import arch, conventions, fit, papers
from moelaws.compare import compute_optimal, recommend, report, tokens, verdicts
from moelaws.torchmoe import balance_loss, route, z_loss


@pytest.mark.parametrize("delta", [math.nan, math.inf, 0.0, True, "1e-3", 10**400])
def test_huber_delta_refused(delta) -> None:
    with pytest.raises(ValueError, match="delta"):
        fit.huber_loss([0.1, -0.2], delta)
    with pytest.raises(ValueError, match="delta"):
        fit.huber_log_normaliser(delta)


def test_huber_valid_and_tiny_delta() -> None:
    assert fit.huber_loss([0.0, 2.0], 1.0) == pytest.approx(1.5)
    assert math.isfinite(fit.huber_log_normaliser(1e-3))
    with pytest.raises(ValueError, match="too small"):
        fit.huber_log_normaliser(5e-324)
    with pytest.raises(ValueError, match="residuals"):
        fit.huber_loss([], 1.0)


@pytest.mark.parametrize("progress", ["yes", 1, []])
def test_bootstrap_progress_must_be_a_flag(progress) -> None:
    with pytest.raises(ValueError, match="progress"):
        fit.bootstrap(lambda idx: {"m": float(len(idx))}, 5, n_resamples=3, progress=progress)


def test_torchmoe_router_inputs() -> None:
    logits = torch.zeros(4, 8)
    probs, indices, _ = route(logits, 2, renormalize=True)
    assert balance_loss(probs, indices, 8).item() == pytest.approx(1.0)
    with pytest.raises(TypeError, match="renormalize"):
        route(logits, 2, renormalize="no")
    with pytest.raises(TypeError, match="logits"):
        z_loss([[0.0, 1.0]])
    with pytest.raises(ValueError, match="n_experts"):
        balance_loss(probs, indices, -1)
    with pytest.raises(TypeError, match="indices"):
        balance_loss(probs, indices.float(), 8)


def test_compare_checks() -> None:
    with pytest.raises(ValueError, match="quantity"):
        compute_optimal.split("", "a", 1.0, 1.0, "b", 1.0, 1.0)
    with pytest.raises(TypeError, match="models"):
        verdicts.question_table(papers.ids("verdict")[0], "Mixtral-8x7B")
    with pytest.raises(ValueError, match="assumed"):
        tokens.training_tokens("Mixtral-8x7B", {"Mixtrl-8x7B": 1e12})
    with pytest.raises(ValueError, match="total_params"):
        recommend.recommend(total_params=10**400)
    with pytest.raises(ValueError, match="budget"):
        report.design_text({"bogus": 1.0}, recommend.recommend(compute=1e22))
    with pytest.raises(TypeError, match="report"):
        report.counts_text(None)
    assert report.size(math.nan) == "-"
    with pytest.raises(ValueError, match="value"):
        report.size(math.inf)


def test_arch_checks() -> None:
    with pytest.raises(TypeError, match="configs"):
        conventions.presets_table("Mixtral-8x7B")
    with pytest.raises(ValueError, match="root"):
        arch.vendor_check_table("")
    with pytest.raises(ValueError, match="name"):
        arch.from_hf_config({}, name="")
