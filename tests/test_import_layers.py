"""The package's layers: no module of ``moelaws`` imports a module of a higher layer.

Every import of every module is read with :mod:`ast`: top-level and function-local imports,
imports under ``if TYPE_CHECKING``, relative imports, ``importlib.import_module("...")`` with a
string literal, and any string that is exactly the dotted name of a module of the package (such
as the registry's list of adapters, which it imports by name). Importing ``moelaws.a.b`` runs
``moelaws/a/__init__.py`` first, so it counts as importing ``moelaws.a`` as well. STYLE.md
(section "Layers") states the same table.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from moelaws import papers

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "moelaws"
PAPER_FOLDERS = tuple(sorted({adapter.rpartition(".")[0] for adapter in papers.ADAPTERS}
                             - {"moelaws.arch"}))
"""Each paper's folder, from the registry (chapter 0's adapter and claims live in ``arch``)."""
CHAPTER_0 = tuple(module for adapter in papers.ADAPTERS if adapter.startswith("moelaws.arch.")
                  for module in (adapter, adapter.replace(".paper", ".claims")))
"""Chapter 0's own modules (its adapter and claims) inside the shared ``arch`` package."""

LAYERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("foundation", ("moelaws", "moelaws.validation", "moelaws.rounding", "moelaws.paper_data",
                    "moelaws.vega_expr", "moelaws.glue", "moelaws.threads", "moelaws.charts",
                    "moelaws.sliders", "moelaws.fit_checks", "moelaws.fit", "moelaws.claim",
                    "moelaws.roles",
                    "moelaws.arch", "moelaws.torchmoe")),
    ("paper", (*PAPER_FOLDERS, *CHAPTER_0)),
    ("registry", ("moelaws.papers",)),
    ("cross-paper", ("moelaws.claims", "moelaws.compare", "moelaws.conventions",
                     "moelaws.torchmoe.sweep", "moelaws.data_tables",
                     "moelaws.interactive_tables", "moelaws.notebook_export", "moelaws.teaching",
                     "moelaws.cli", "moelaws.__main__")),
)
"""The layers, bottom to top, each as the module prefixes it holds (the longest prefix wins)."""


def layer_of(module: str) -> int:
    """The index in :data:`LAYERS` of ``module``, by its longest listed prefix."""
    best, found = -1, None
    for index, (_, prefixes) in enumerate(LAYERS):
        for prefix in prefixes:
            if (module == prefix or module.startswith(prefix + ".")) and len(prefix) > best:
                best, found = len(prefix), index
    if found is None:
        raise LookupError(f"{module} is in no layer of LAYERS")
    return found


def package_modules(package: Path = PACKAGE) -> dict[str, Path]:
    """Every module of the package by dotted name (a package by its own name)."""
    modules = {}
    for path in sorted(package.rglob("*.py")):
        parts = list(path.relative_to(package.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        modules[".".join(parts)] = path
    return modules


def _with_parents(name: str, known: dict[str, Path]) -> set[str]:
    """``name`` resolved to a module of the package, and every package above it."""
    while name and name not in known:
        name = name.rpartition(".")[0]
    found = set()
    while name:
        found.add(name)
        name = name.rpartition(".")[0]
    return found


def imported_modules(module: str, path: Path, known: dict[str, Path]) -> dict[str, int]:
    """The modules of the package that ``module`` imports, each with the first line that does."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found: dict[str, int] = {}
    for node in ast.walk(tree):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                source = ".".join([*base, *([node.module] if node.module else [])])
            else:
                source = node.module or ""
            names = [source, *(f"{source}.{alias.name}" for alias in node.names)]
        elif (isinstance(node, ast.Call) and node.args
              and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str)
              and getattr(node.func, "attr", getattr(node.func, "id", None)) == "import_module"):
            names = [node.args[0].value]
        elif isinstance(node, ast.Constant) and node.value in known and "." in node.value:
            names = [node.value]  # a module named to be imported later (the registry's list)
        for name in names:
            if name == "moelaws" or name.startswith("moelaws."):
                for target in _with_parents(name, known) - {module}:
                    found.setdefault(target, node.lineno)
    return found


def upward_imports(package: Path = PACKAGE) -> list[str]:
    """Every import of a module of a higher layer, as ``"importer:line -> imported"``."""
    known = package_modules(package)
    found = []
    for module, path in known.items():
        own = layer_of(module)
        for target, line in sorted(imported_modules(module, path, known).items()):
            if layer_of(target) > own:
                found.append(f"{module}:{line} -> {target} "
                             f"({LAYERS[own][0]} imports {LAYERS[layer_of(target)][0]})")
    return found


def test_every_module_is_in_a_layer() -> None:
    for module in package_modules():
        layer_of(module)


def test_no_module_imports_a_higher_layer() -> None:
    found = upward_imports()
    assert found == [], "\n".join(found)


def test_the_check_sees_every_kind_of_import(tmp_path: Path) -> None:
    package = tmp_path / "moelaws"
    folder = PAPER_FOLDERS[0].rpartition(".")[2]  # any paper's folder
    (package / folder).mkdir(parents=True)
    (package / "claims").mkdir()
    (package / "__init__.py").write_text("")
    (package / "papers.py").write_text("")
    (package / "cli.py").write_text("")
    (package / "claims" / "__init__.py").write_text("")
    (package / "claims" / "core.py").write_text("")
    (package / folder / "__init__.py").write_text("")
    forms = {
        "top": "from moelaws import papers\n",
        "local": "def f():\n    from moelaws.cli import main\n",
        "typing": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import moelaws.cli\n",
        "relative": "from ..claims import core\n",
        "string": "import importlib\nimportlib.import_module('moelaws.papers')\n",
        "parent": "from moelaws.claims.core import x\n",
        "named": "LATER = ('moelaws.cli',)\n",
    }
    for name, source in forms.items():
        (package / folder / f"{name}.py").write_text(source)
    found = upward_imports(package)
    for name in forms:
        assert any(line.startswith(f"moelaws.{folder}.{name}:") for line in found), name
    assert any(f"moelaws.{folder}.parent:1 -> moelaws.claims " in line for line in found)


@pytest.mark.parametrize("module", ["moelaws.fit", "moelaws.papers", "moelaws.cli"])
def test_layers_are_ordered(module: str) -> None:
    assert layer_of("moelaws.arch.config") < layer_of(f"{PAPER_FOLDERS[0]}.law") \
        < layer_of("moelaws.papers") < layer_of("moelaws.compare.report")
    assert layer_of(module) in range(len(LAYERS))


def test_style_states_the_same_layers() -> None:
    rows = [line for line in (ROOT / "STYLE.md").read_text(encoding="utf-8").splitlines()
            if line.startswith("| ") and line[2:3].isdigit()]
    assert [row.split("|")[1].strip() for row in rows] == [
        f"{i}. {name}" for i, (name, _) in enumerate(LAYERS, start=1)]
    for row, (_, prefixes) in zip(rows, LAYERS, strict=True):
        for prefix in prefixes:
            short = prefix.removeprefix("moelaws.")
            assert f"`{short}`" in row, (short, row)
