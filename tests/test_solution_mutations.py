"""Every solution's check can fail: perturb what it is about by 1 % and it must raise.

For each chapter a kernel runs the code cells the solutions with a target need (found by the
names they read, :func:`moelaws.teaching.mutation.cells_needed`), then each such solution: once
per target of :data:`~moelaws.teaching.mutation.SOLUTION_TARGETS` with that target's output
multiplied by 1.01 (it must raise), then as written (it must pass, leaving the kernel as the
chapter would). A solution without a package function must state its independent route in its
text; it runs here only if a later solution needs what it binds (the book build runs it).
Parametrised per chapter, so a failure names the chapter and the surviving labels. The
chapters run one after another in one kernel (:func:`~moelaws.teaching.mutation.shared_kernel`),
each from an emptied namespace and the kernel's fresh state
(:func:`~moelaws.teaching.mutation.fresh_start`); a chapter that raises restarts it.
"""

from __future__ import annotations

import functools
import os
import sys
import types
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import jupytext
import pytest

from moelaws.teaching import find_exercises
from moelaws.teaching.mutation import (
    FACTOR,
    ROUTE_MARK,
    SOLUTION_TARGETS,
    check_chapter,
    shared_kernel,
)

ROOT = Path(__file__).resolve().parents[1]
CHAPTERS = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.md"))

pytestmark = pytest.mark.slow


def _labels() -> list[str]:
    return [e.label for p in CHAPTERS for e in find_exercises(jupytext.read(p))]


def test_every_solution_declares_what_it_is_about() -> None:
    labels = _labels()
    assert sorted(SOLUTION_TARGETS) == sorted(labels), (
        f"undeclared: {sorted(set(labels) - set(SOLUTION_TARGETS))}, "
        f"unknown: {sorted(set(SOLUTION_TARGETS) - set(labels))}"
    )


@pytest.fixture(scope="module")
def kernel() -> Iterator[Any]:
    with shared_kernel() as manager:
        yield manager


@pytest.mark.parametrize("path", CHAPTERS, ids=[p.stem for p in CHAPTERS])
def test_solutions_fail_when_their_function_is_perturbed(path: Path, kernel: Any) -> None:
    report = check_chapter(path, kernel=kernel)
    print(f"{report.chapter}: {report.solutions} solutions, {report.seconds:.1f} s")
    assert not report.undeclared, f"{path.name}: not in SOLUTION_TARGETS: {report.undeclared}"
    assert not report.unstated, (
        f"{path.name}: {report.unstated} declare no package function, so their solutions must "
        f"state their check in a sentence starting {ROUTE_MARK!r}"
    )
    assert not report.broken, f"{path.name}: solutions that fail as written: {report.broken}"
    assert not report.survivors, f"{path.name}: checks that cannot fail: {report.survivors}"

def test_perturbation_reaches_every_binding_and_is_undone() -> None:
    import numpy as np

    from moelaws import arch
    from moelaws.arch import counting
    from moelaws.teaching.mutation import perturb, perturbed

    cfg = arch.preset("Mixtral-8x7B")
    exact = arch.total_params(cfg)
    namespace = {"total_params": arch.total_params}
    undo = perturbed(["moelaws.arch.total_params"], namespace)
    try:
        assert arch.total_params(cfg) == exact * FACTOR
        assert counting.total_params(cfg) == exact * FACTOR
        assert namespace["total_params"](cfg) == exact * FACTOR
    finally:
        undo()
    assert arch.total_params(cfg) == exact and namespace["total_params"](cfg) == exact
    assert perturb({"a": (2, np.array([1.0])), "b": "x", "c": True}, 2.0)["a"][1][0] == 2.0
    assert perturb(True) is True

    # A module first imported while perturbed, and a cell run meanwhile, bind the replacement.
    late = types.ModuleType("moelaws._imported_while_perturbed")
    sys.modules[late.__name__] = late
    try:
        undo = perturbed(["moelaws.arch.total_params"], namespace)
        exec("from moelaws.arch import total_params", vars(late))
        namespace["bound_meanwhile"] = arch.total_params
        assert late.total_params(cfg) == exact * FACTOR
        undo()
        assert late.total_params(cfg) == exact
        assert namespace["bound_meanwhile"](cfg) == exact
    finally:
        del sys.modules[late.__name__]


def test_fresh_start_gives_a_later_chapter_a_fresh_kernels_state(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import torch

    from moelaws.teaching import mutation
    from moelaws.validation import ExtrapolationWarning

    monkeypatch.setattr(mutation, "_FRESH", {})
    monkeypatch.chdir(tmp_path)
    probe = types.ModuleType("moelaws._cache_probe")
    probe.square = functools.lru_cache(lambda x: x * x)
    sys.modules[probe.__name__] = probe
    try:
        with warnings.catch_warnings():
            mutation.fresh_start(str(tmp_path))  # the kernel's first chapter
            filters = list(warnings.filters)
            warnings.simplefilter("ignore", ExtrapolationWarning)  # what a chapter may leave
            probe.square(3)
            os.chdir(tmp_path.parent)
            torch.set_flush_denormal(True)
            mutation.fresh_start(str(tmp_path))  # the next chapter
            assert warnings.filters == filters
        assert probe.square.cache_info().currsize == 0
        assert Path.cwd() == tmp_path
        assert (torch.tensor([1e-310], dtype=torch.float64) * 2).item() > 0
    finally:
        del sys.modules[probe.__name__]
        torch.set_flush_denormal(False)


def test_a_check_against_itself_survives_and_an_independent_one_does_not() -> None:
    from moelaws import arch
    from moelaws.teaching.mutation import perturbed

    cfg = arch.preset("Mixtral-8x7B")

    def against_itself() -> None:
        assert arch.total_params(cfg) / arch.total_params(cfg) == 1

    def against_a_hand_count() -> None:
        per_layer = 2 * 4096 * 32 * 128 + 2 * 4096 * 8 * 128 + 8 * 3 * 4096 * 14336 + 4096 * 8
        assert arch.total_params(cfg) == 32 * (per_layer + 2 * 4096) + 4096

    against_itself()
    against_a_hand_count()
    undo = perturbed(["moelaws.arch.total_params"], {})
    try:
        against_itself()
        with pytest.raises(AssertionError):
            against_a_hand_count()
    finally:
        undo()
