"""The oldest environment ``pyproject.toml`` admits for a downloaded chapter: pip constraints.

A reader's Jupyter (Colab's, a course's) already has numpy, pandas, scipy ...; the set-up cell's
``pip install moelaws[notebook]`` keeps any version the package's lower bounds admit. So the
bounds are a promise: every chapter runs with them. The book itself is built and unit-tested
with ``requirements.txt``'s newest pins; the reader's stage (``tests/fresh_env.py``) installs
the package at these oldest versions, which makes a bound that is too low fail there (scipy's
``bootstrap(rng=...)`` needs 1.15, pandas' ``include_groups`` 2.2: both bounds were lower until
2026-11-29).

Each direct dependency of the package and of its ``notebook`` extra is pinned at its lower bound,
except the packages in :data:`FIXED` (torch: any release but ``requirements.txt``'s is a CUDA
build of several GB here), which keep ``requirements.txt``'s version; a bound below what a fixed
package itself requires is raised to that (sympy, for torch). Every other package keeps its
``requirements.txt`` pin, so that the environment is the same from run to run.
"""

from __future__ import annotations

from importlib.metadata import requires, version
from pathlib import Path

import tomllib
from packaging.markers import default_environment
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

EXTRA = "notebook"
FIXED = ("torch",)
"""Installed at ``requirements.txt``'s version, not at the package's lower bound."""


def pinned_versions(requirements: Path) -> dict[str, str]:
    """``requirements.txt``'s ``name==version`` lines, by canonical name."""
    pins = {}
    for line in requirements.read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            name, _, pinned = line.partition("==")
            if not pinned:
                raise ValueError(f"{requirements}: {line!r} is not pinned with ==")
            pins[canonicalize_name(name)] = pinned.strip()
    return pins


def lower_bound(requirement: Requirement) -> str:
    """The version of the requirement's single ``>=`` specifier; a ValueError otherwise."""
    bounds = [spec.version for spec in requirement.specifier if spec.operator == ">="]
    if len(bounds) != 1:
        raise ValueError(f"{requirement} has no single '>=' lower bound")
    return bounds[0]


def direct_requirements(pyproject: Path, extra: str = EXTRA) -> list[Requirement]:
    """The package's dependencies and those of ``extra``."""
    project = tomllib.loads(pyproject.read_text())["project"]
    return [Requirement(text) for text in
            (*project["dependencies"], *project["optional-dependencies"][extra])]


def lowest_versions(pyproject: Path, requirements: Path, extra: str = EXTRA) -> dict[str, str]:
    """The version each direct dependency is installed at in the oldest environment.

    ``FIXED`` packages take ``requirements.txt``'s version, which must be the one installed
    here (its own requirements are read from this environment's metadata)."""
    pinned = pinned_versions(requirements)
    lowest = {}
    for requirement in direct_requirements(pyproject, extra):
        name = canonicalize_name(requirement.name)
        lowest[name] = max(lowest.get(name, "0"), lower_bound(requirement), key=Version)
    marker_env = default_environment() | {"extra": ""}
    for name in FIXED:
        lowest[name] = pinned[name]
        if Version(version(name)).public != Version(pinned[name]).public:
            raise ValueError(f"{name} {version(name)} is installed, requirements.txt pins "
                             f"{pinned[name]}: its requirements cannot be read here")
        for text in requires(name) or []:
            needed = Requirement(text)
            own = canonicalize_name(needed.name)
            if own in lowest and (needed.marker is None or needed.marker.evaluate(marker_env)):
                if not needed.specifier.contains(lowest[own], prereleases=True):
                    lowest[own] = lower_bound(needed)
    return lowest


def constraints(pyproject: Path, requirements: Path, extra: str = EXTRA) -> str:
    """pip's constraints file: :func:`lowest_versions`, then every other pin of
    ``requirements.txt``."""
    lowest = lowest_versions(pyproject, requirements, extra)
    rest = {name: pin for name, pin in pinned_versions(requirements).items() if name not in lowest}
    lines = [f"{name}=={pin}" for name, pin in sorted({**rest, **lowest}.items())]
    return "\n".join(["# The oldest environment pyproject.toml admits (tests/lowest_versions.py)",
                      *lines, ""])

