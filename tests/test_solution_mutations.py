"""Every solution's check can fail: perturb what it is about by 1 % and it must raise.

For each chapter one kernel runs the code cells the solutions need (found by the names they
read, :func:`moelaws.teaching.mutation.cells_needed`), then each solution: once per target of
:data:`~moelaws.teaching.mutation.SOLUTION_TARGETS` with that target's output multiplied by
1.01 (it must raise), then as written (it must pass, leaving the kernel as the chapter would).
A solution without a package function must state its independent route in its text.
Parametrised per chapter, so a failure names the chapter and the surviving labels.
"""

from __future__ import annotations

import sys
import types
from pathlib import Path

import jupytext
import pytest

from moelaws.teaching import find_exercises
from moelaws.teaching.mutation import FACTOR, ROUTE_MARK, SOLUTION_TARGETS, check_chapter

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


@pytest.mark.parametrize("path", CHAPTERS, ids=[p.stem for p in CHAPTERS])
def test_solutions_fail_when_their_function_is_perturbed(path: Path) -> None:
    report = check_chapter(path)
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
