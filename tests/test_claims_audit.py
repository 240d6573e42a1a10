"""An audit of the claims registry: claims that cannot fail, or pass too easily, are defects.

Every registered claim must

* compute its value: a ``compute`` that returns a literal (or a default/closure value) equal
  to the paper's value echoes the paper;
* use the printed precision as its tolerance, or name the printed inputs whose rounding a wider
  tolerance propagates and state the derivation;
* not read the number it checks (``inputs`` never lists the claim's own ``ref: quantity``);
* if it is an expected discrepancy, keep the value recorded for it (a change that moves a
  discrepancy fails).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable

import pytest

from moelaws import claims, papers
from moelaws.claims.core import Claim, evaluate, expected_ours_table, printed_tolerance

ALL = claims.all_claims()
IDS = [c.key for c in ALL]

# Names a compute function may use and still only convert a literal (it computes nothing).
_CONVERTERS = {"float", "int", "abs", "Decimal", "round"}


def _literals(fn: Callable[[], float]) -> list[object]:
    """Constants, default arguments and closure values of ``fn`` itself."""
    code = getattr(fn, "__code__", None)
    values: list[object] = list(code.co_consts) if code is not None else []
    values += list(getattr(fn, "__defaults__", None) or ())
    for cell in getattr(fn, "__closure__", None) or ():
        try:
            values.append(cell.cell_contents)
        except ValueError:  # an empty cell
            continue
    return values


def _equals_paper(value: object, claim: Claim) -> bool:
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        return False
    try:
        number = float(str(value).replace("\u2212", "-"))
    except ValueError:
        return False
    return math.isclose(number, claim.paper_value, rel_tol=1e-12, abs_tol=0.0)


def echoes_paper(claim: Claim) -> bool:
    """Whether ``claim.compute`` only converts a literal equal to the paper's value."""
    fn = claim.compute
    code = getattr(fn, "__code__", None)
    if code is None:  # a builtin or partial: nothing of ours is computed
        return True
    computes_nothing = set(code.co_names) <= _CONVERTERS
    return computes_nothing and any(_equals_paper(v, claim) for v in _literals(fn))


def _claim(**kw: object) -> Claim:
    base: dict[str, object] = dict(paper=papers.ids()[0], ref="audit", quantity="x", printed="6.78",
                                   compute=lambda: 6.7, kind="reproduction")
    base.update(kw)
    return Claim(**base)  # type: ignore[arg-type]


# --- the audit's own checks can fail -----------------------------------------------------------
def test_echo_detector_catches_literals() -> None:
    assert echoes_paper(_claim(compute=lambda: 6.78))
    assert echoes_paper(_claim(compute=lambda v="6.78": float(v)))
    printed = 6.78
    assert echoes_paper(_claim(compute=lambda: float(printed)))
    assert not echoes_paper(_claim(compute=lambda: float(sum([3.39, 3.39]))))
    assert not echoes_paper(_claim(compute=lambda: 6.7))


def test_drifted_discrepancy_fails() -> None:
    base = _claim(expected="discrepancy", explanation="because", compute=lambda: 7.5)
    assert evaluate(dataclasses.replace(base, expected_ours=7.5)).ok
    drifted = evaluate(dataclasses.replace(base, expected_ours=7.4))
    assert drifted.status == "error" and not drifted.ok and "drifted" in drifted.error


def test_inputs_must_be_a_tuple() -> None:
    with pytest.raises(ValueError, match="tuple"):
        _claim(inputs="audit: x")


# --- the registry -------------------------------------------------------------------------------
@pytest.mark.parametrize("claim", ALL, ids=IDS)
def test_claim_computes_its_value(claim: Claim) -> None:
    assert not echoes_paper(claim), f"{claim.key}: compute returns the paper's value as a literal"


@pytest.mark.parametrize("claim", ALL, ids=IDS)
def test_claim_does_not_read_what_it_checks(claim: Claim) -> None:
    assert claim.own_name not in claim.inputs, f"{claim.key} lists itself among its inputs"


@pytest.mark.parametrize("claim", ALL, ids=IDS)
def test_wide_tolerance_is_derived(claim: Claim) -> None:
    if claim.relation != "=" or claim.tol <= printed_tolerance(claim.printed) * (1 + 1e-9):
        return
    assert claim.inputs, f"{claim.key}: tolerance {claim.tol:g} > printed precision, no inputs"
    assert claim.tolerance_reason.strip(), f"{claim.key}: wide tolerance without a derivation"


def test_every_discrepancy_records_ours() -> None:
    recorded = expected_ours_table()
    missing = [c.key for c in ALL if c.expected == "discrepancy" and c.expected_ours is None]
    assert not missing, f"no recorded value (run record_expected_ours): {missing}"
    stale = sorted(set(recorded) - {c.key for c in ALL if c.expected == "discrepancy"})
    assert not stale, f"recorded values of claims that are not discrepancies: {stale}"

