"""The torch benchmark's reporting: interleaved dense/MoE pairs, median and minimum of the
ratios, thread count and load. Speed itself is never tested (it depends on the machine's load)."""

from __future__ import annotations

import json
import re
import time

import pytest

pytest.importorskip("torch")

from moelaws.torchmoe import bench

TINY = dict(d_model=32, steps=1, warmup=0)


def test_headline_reports_median_and_min_of_interleaved_rounds() -> None:
    head = bench.headline(rounds=3, tokens_per_step=128, **TINY)
    assert len(head["ratios"]) == 3 and head["rounds"] == 3
    assert head["min"] == min(head["ratios"]) <= head["median"]
    assert head["dispatch"] == bench.HEADLINE_DISPATCH
    assert head["dense_tokens_per_s"] > 0 and head["moe_tokens_per_s"] > 0
    assert len(head["wall_ratios"]) == 3 and head["clock"] == "process CPU time"
    assert head["wall_min"] == min(head["wall_ratios"]) <= head["wall_median"]
    with pytest.raises(ValueError, match="multiple"):
        bench.headline(tokens_per_step=100, **TINY)
    with pytest.raises(ValueError, match="at least 1"):
        bench.headline(rounds=0, tokens_per_step=128, **TINY)


def test_measure_pairs_every_moe_job_with_a_dense_measurement() -> None:
    report = bench.measure(experts=[4], dispatches=["sorted"], rounds=2, batch=2,
                           progress=False, **TINY)
    moe = [r for r in report["results"] if r["dispatch"] != "-"]
    assert len(moe) == 2  # top-1 and top-2
    for r in moe:
        assert r["over_dense_min"] <= r["over_dense"]


def test_main_reports_threads_load_and_the_headline(capsys) -> None:
    args = ["--json", "--sweep", "--experts", "4", "--dispatch", "sorted", "--steps", "1",
            "--warmup", "0", "--rounds", "1", "--batch", "2", "--d-model", "32", "--no-gpu",
            "--headline-rounds", "3", "--headline-tokens-per-step", "128", "--threads", "1"]
    assert bench.main(args) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["threads"] == 1
    assert report["load_average_before"] is not None and report["load_average_after"] is not None
    head = report["cpu"]["headline"]
    assert report["moe_over_dense_e32"] == head["median"]
    assert report["moe_over_dense_e32_min"] == head["min"] == min(head["ratios"])


def test_default_run_is_the_headline_alone(capsys) -> None:
    args = ["--json", "--d-model", "32", "--no-gpu", "--headline-rounds", "3",
            "--headline-tokens-per-step", "128", "--threads", "1"]
    start = time.perf_counter()
    assert bench.main(args) == 0
    took = time.perf_counter() - start
    out, err = capsys.readouterr()
    report = json.loads(out)
    assert "results" not in report["cpu"]
    assert len(report["cpu"]["headline"]["ratios"]) == 3
    assert "headline cpu" in err  # the progress bar is on stderr, the JSON alone on stdout
    assert report["cpu"]["headline"]["dispatch"] == bench.HEADLINE_DISPATCH
    # In seconds (rounded to 0.1 s), and within the run: bounded by this test's own clock,
    # not by a constant that a loaded machine could exceed.
    assert 0 < report["duration_s"] <= took + 0.05 and 0 < report["cpu_time_s"]


def test_text_run_states_its_duration(capsys) -> None:
    args = ["--d-model", "32", "--no-gpu", "--headline-rounds", "1",
            "--headline-tokens-per-step", "128", "--threads", "1"]
    assert bench.main(args) == 0
    first = capsys.readouterr().out.splitlines()[0]
    assert re.search(r"took \d+ s \(process CPU time \d+ s\)", first), first


def test_headline_dispatch_can_be_chosen(capsys) -> None:
    args = ["--json", "--d-model", "32", "--no-gpu", "--headline-rounds", "1",
            "--headline-tokens-per-step", "128", "--threads", "1", "--headline-dispatch", "loop"]
    assert bench.main(args) == 0
    assert json.loads(capsys.readouterr().out)["cpu"]["headline"]["dispatch"] == "loop"
    with pytest.raises(SystemExit):
        bench.main(["--headline-dispatch", "magic"])


def test_sweep_prints_its_expected_duration_first(capsys) -> None:
    args = ["--sweep", "--experts", "4", "--dispatch", "sorted", "--steps", "1", "--warmup",
            "0", "--rounds", "1", "--batch", "2", "--d-model", "32", "--no-gpu",
            "--headline-rounds", "1", "--headline-tokens-per-step", "128", "--threads", "1"]
    assert bench.main(args) == 0
    out, err = capsys.readouterr()
    assert err.startswith("sweep: 2 dense/MoE pairs of 1 steps") and "minutes" in err
    assert "E4-top2" in out and "moe_over_dense_e32 (headline" in out
    with pytest.raises(SystemExit):
        bench.main(["--headline-rounds", "0"])
