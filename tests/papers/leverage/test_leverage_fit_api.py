"""The efficiency-leverage law (Eq. 4) as a :mod:`moelaws.fit` law: default starts and named
inputs."""

from __future__ import annotations

import pytest

from moelaws import fit
from moelaws.leverage import recovery


def test_built_in_laws_have_default_starts_and_named_inputs() -> None:
    eq4 = recovery.eq4_law()
    sim = recovery.simulate(recovery.experiment_points(), seed=0)
    assert {*eq4.inputs, eq4.output} <= set(sim.columns)
    assert fit._grid(eq4.default_starts, eq4.names).shape == (32, 6)
    # A DataFrame by name gives the same predictions as the array in the law's order.
    p = dict(zip(eq4.names, eq4.default_starts[0], strict=True))
    shuffled = sim[["C", "EL", "A", "G"]]
    assert eq4.predict(p, shuffled) == pytest.approx(
        eq4.predict(p, sim[["A", "G", "C"]].to_numpy()))
