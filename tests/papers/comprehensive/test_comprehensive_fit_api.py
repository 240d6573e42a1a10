"""The comprehensive joint law as a :mod:`moelaws.fit` law: default starts and named inputs."""

from __future__ import annotations

from moelaws import fit
from moelaws.comprehensive import recovery as comprehensive_recovery
from moelaws.comprehensive.tables import table8


def test_built_in_laws_have_default_starts_and_named_inputs() -> None:
    joint = comprehensive_recovery.joint_law()
    assert set(joint.inputs) | {"N", "D"} <= set(table8().columns)
    assert fit._grid(joint.default_starts, joint.names).shape == (384, 12)
