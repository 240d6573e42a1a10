"""The oldest environment's pip constraints (tests/lowest_versions.py), without installing it.

The reader's stage (``make live``) installs the package at these versions and runs every
download there (tests/test_downloads.py checks what was installed)."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import ROOT
from lowest_versions import constraints, direct_requirements, lowest_versions, pinned_versions
from packaging.utils import canonicalize_name
from packaging.version import Version

PYPROJECT = ROOT / "pyproject.toml"
REQUIREMENTS = ROOT / "requirements.txt"


def test_each_direct_dependency_is_at_its_lower_bound_but_torch() -> None:
    lowest = lowest_versions(PYPROJECT, REQUIREMENTS)
    pinned = pinned_versions(REQUIREMENTS)
    names = {canonicalize_name(r.name) for r in direct_requirements(PYPROJECT)}
    assert set(lowest) == names
    assert lowest["torch"] == pinned["torch"] == "2.13.0"
    assert lowest["scipy"] == "1.15" and lowest["pandas"] == "2.2" and lowest["numpy"] == "1.26"
    # The core's sympy bound (1.12) is below what torch 2.13.0 itself requires.
    assert Version(lowest["sympy"]) >= Version("1.13.3")


def test_the_constraints_pin_every_package_once() -> None:
    text = constraints(PYPROJECT, REQUIREMENTS)
    lines = [line for line in text.splitlines() if line and not line.startswith("#")]
    names = [canonicalize_name(line.split("==")[0]) for line in lines]
    assert len(names) == len(set(names))
    assert set(names) == set(pinned_versions(REQUIREMENTS)) | set(lowest_versions(
        PYPROJECT, REQUIREMENTS))
    assert "numpy==1.26" in lines and "altair==5.2" in lines
    assert f"jsonschema=={pinned_versions(REQUIREMENTS)['jsonschema']}" in lines


def test_a_dependency_without_a_lower_bound_is_refused(tmp_path: Path) -> None:
    text = PYPROJECT.read_text().replace('"tqdm>=4.66"', '"tqdm"')
    assert text != PYPROJECT.read_text()
    (tmp_path / "pyproject.toml").write_text(text)
    with pytest.raises(ValueError, match="tqdm"):
        lowest_versions(tmp_path / "pyproject.toml", REQUIREMENTS)


def test_a_requirement_not_pinned_exactly_is_refused(tmp_path: Path) -> None:
    (tmp_path / "requirements.txt").write_text("numpy>=2\n")
    with pytest.raises(ValueError, match="numpy"):
        pinned_versions(tmp_path / "requirements.txt")
