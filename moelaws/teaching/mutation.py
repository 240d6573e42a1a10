"""Solutions whose checks can fail: what each solution is about, and how to perturb it.

Every solution of the book asserts its answer against a route that does not call the function
that produced it (a hand derivation from the paper's equation, a number printed in the paper, a
brute-force search against a closed form, ...). :data:`SOLUTION_TARGETS` names, for each
exercise label, the package function(s) the solution is about; ``tests/test_solution_mutations.py``
runs every solution once as written (it must pass) and once per target with that target's
return value multiplied by 1.01 (:func:`perturbed`), and requires the perturbed run to raise. A
solution that survives its perturbation checks nothing about that function.

A solution about measured runs or a paper's statistics, with no package function to perturb,
maps to an empty tuple and must say in its text how its answer is checked, in a sentence that
starts with :data:`ROUTE_MARK`.

Targets are dotted paths: ``package.module.function``, ``package.module.Class.method``, a
numeric module constant (``moelaws.allocation.law.BETA_R_COEF``), or ``__main__.name`` for a
helper the chapter defines itself.
"""

from __future__ import annotations

import ast
import contextlib
import copy
import dataclasses
import functools
import importlib
import os
import re
import sys
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

__all__ = [
    "FACTOR",
    "ROUTE_MARK",
    "SOLUTION_TARGETS",
    "MutationReport",
    "cells_needed",
    "check_chapter",
    "fresh_start",
    "perturb",
    "perturbed",
    "shared_kernel",
]

FACTOR = 1.01
"""The perturbation: a 1 % change of the target's numeric output."""

ROUTE_MARK = "Independent route:"
"""How a solution without a package function states its check."""

SOLUTION_TARGETS: dict[str, tuple[str, ...]] = {
    # 00 anatomy
    "ex-00-derive-ratio": ("moelaws.arch.activation_ratio", "moelaws.conventions.sparsity"),
    "ex-00-mixtral-count": ("moelaws.arch.total_params", "moelaws.arch.active_params"),
    "ex-00-crossing": ("moelaws.conventions.total_params", "moelaws.conventions.active_params"),
    "ex-00-more-experts": ("moelaws.arch.total_params", "moelaws.arch.active_params"),
    "ex-00-qwen-critique": ("moelaws.arch.active_params",),
    # 01 MoE from scratch
    "ex-01-balance-range": ("moelaws.torchmoe.balance_loss",
                            "moelaws.torchmoe.train.coefficient_of_variation"),
    "ex-01-router-flops": ("moelaws.arch.flops",
                           "moelaws.torchmoe.MoETransformer.flops_per_token"),
    "ex-01-topk": ("__main__.loss_with_top_k",),
    "ex-01-renormalise": (),
    "ex-01-balance": (),
    # 02 leverage
    "ex-02-new-design": ("moelaws.leverage.efficiency_leverage",),
    "ex-02-gstar": ("moelaws.leverage.optimal_granularity",),
    "ex-02-log-base": ("moelaws.leverage.efficiency_leverage", "moelaws.leverage.activation_hat"),
    "ex-02-mini-budget": ("moelaws.leverage.efficiency_leverage",
                          "moelaws.leverage.activation_hat"),
    "ex-02-residuals": ("moelaws.leverage.checks.residual_sd_from_rmse",),
    "ex-02-toy-direction": (),
    # 03 holistic
    "ex-03-bounds": ("moelaws.holistic.counts", "moelaws.holistic.ratio_bounds"),
    "ex-03-design": ("moelaws.holistic.design_report", "moelaws.holistic.optimal_flops_per_token",
                     "moelaws.conventions.counts"),
    "ex-03-quantised": ("moelaws.holistic.counts", "moelaws.holistic.optimal_flops_per_token"),
    "ex-03-layer-drop": ("moelaws.holistic.design_report",),
    "ex-03-m-tolerance": ("moelaws.holistic.checks.m_tolerance_by_table",),
    # 04 comprehensive
    "ex-04-gopt": ("moelaws.comprehensive.optimal_G",),
    "ex-04-s-range": ("moelaws.comprehensive.practical_S_range", "moelaws.comprehensive.optimal_S"),
    "ex-04-ratio-100b": ("moelaws.comprehensive.optimal_active_ratio",
                         "moelaws.comprehensive.efficiency_aware_active_ratio"),
    "ex-04-flat": ("moelaws.comprehensive.optimal_active_ratio",
                   "moelaws.comprehensive.efficiency_aware_active_ratio"),
    "ex-04-qwen-digit": ("moelaws.comprehensive.optimal_active_ratio",),
    "ex-04-k": (),
    # 05 constrained
    "ex-05-eq4": ("moelaws.constrained.eq4_exponents", "moelaws.constrained.relative_loss",
                  "moelaws.constrained.relative_loss_sparsity"),
    "ex-05-nstar": ("moelaws.constrained.continuous_optimal_experts",),
    "ex-05-integer": ("moelaws.constrained.optimize",
                      "moelaws.constrained.continuous_optimal_experts"),
    "ex-05-swap": ("moelaws.constrained.total_params", "moelaws.constrained.active_params"),
    "ex-05-toy-penalty": (),
    # 06 allocation
    "ex-06-new-sparsity": ("moelaws.allocation.sparsity_from_experts",
                           "moelaws.allocation.optimal_ratio",
                           "moelaws.allocation.compute_for_ratio"),
    "ex-06-crossover": ("moelaws.allocation.crossover_compute", "moelaws.allocation.beta_r"),
    "ex-06-min-sparsity": ("moelaws.allocation.law.BETA_R_COEF",
                           "moelaws.allocation.law.ALPHA_R_EXP"),
    "ex-06-local-exponent": ("moelaws.allocation.local_exponent",),
    "ex-06-eq4": ("moelaws.allocation.minimise_eq3", "moelaws.allocation.solve_optimality",
                  "moelaws.allocation.eq4_ratio"),
    "ex-06-toy-motion": ("moelaws.allocation.beta_r",),
    # 07 five laws
    "ex-07-two-granularities": ("moelaws.conventions.granularity",
                                "moelaws.comprehensive.optimal_G",
                                "moelaws.leverage.optimal_granularity"),
    "ex-07-budget": ("moelaws.compare.recommend.recommend",),
    "ex-07-extrapolation": ("moelaws.compare.regimes.fitted_ranges",),
    "ex-07-tokens": ("moelaws.compare.verdicts.question_table", "moelaws.allocation.beta_r"),
    "ex-07-shared": ("moelaws.comprehensive.optimal_S",),
}
"""Exercise label → dotted paths of the package functions its solution is about."""


def perturb(value: Any, factor: float = FACTOR) -> Any:
    """``value`` with every number in it multiplied by ``factor``.

    Numbers, NumPy arrays, torch tensors and pandas objects are scaled; mappings, lists and
    tuples (named ones too) element by element; a dataclass field by field (one level deep:
    a nested dataclass, such as a configuration, is kept, so a perturbed report still
    describes the same model).
    Booleans, strings and anything else come back unchanged.
    """
    import numpy as np

    if isinstance(value, bool | np.bool_ | str | bytes) or value is None:
        return value
    if isinstance(value, int | float | np.integer | np.floating):
        return value * factor
    if isinstance(value, np.ndarray):
        return value * factor if value.dtype.kind in "iuf" else value
    torch = sys.modules.get("torch")
    if torch is not None and isinstance(value, torch.Tensor):
        return value * factor if value.is_floating_point() else value
    pandas = sys.modules.get("pandas")
    if pandas is not None and isinstance(value, pandas.Series):
        return value * factor if value.dtype.kind in "iuf" else value
    if pandas is not None and isinstance(value, pandas.DataFrame):
        out = value.copy()
        numeric = [c for c in out.columns if out[c].dtype.kind == "f"]
        out[numeric] = out[numeric] * factor
        return out
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        out = copy.copy(value)
        for f in dataclasses.fields(value):
            item = getattr(value, f.name)
            if dataclasses.is_dataclass(item) or isinstance(item, bool | str):
                continue
            object.__setattr__(out, f.name, perturb(item, factor))
        return out
    if isinstance(value, Mapping):
        return type(value)({k: perturb(v, factor) for k, v in value.items()}) if isinstance(
            value, dict) else {k: perturb(v, factor) for k, v in value.items()}
    if isinstance(value, tuple) and hasattr(value, "_fields"):
        return type(value)(*(perturb(v, factor) for v in value))
    if isinstance(value, list | tuple):
        return type(value)(perturb(v, factor) for v in value)
    return value


def _resolve(path: str, namespace: dict[str, Any]) -> tuple[Any, str, Any]:
    """``(owner, attribute, object)`` of a dotted path (``__main__.x`` is in ``namespace``)."""
    parts = path.split(".")
    if parts[0] == "__main__":
        return namespace, parts[1], namespace[parts[1]]
    for cut in range(len(parts) - 1, 0, -1):
        try:
            owner = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for name in parts[cut:-1]:
            owner = getattr(owner, name)
        return owner, parts[-1], getattr(owner, parts[-1])
    raise ValueError(f"cannot import any module of {path!r}")


def _wrap(function: Callable[..., Any], factor: float) -> Callable[..., Any]:
    @functools.wraps(function)
    def perturbed_function(*args: Any, **kwargs: Any) -> Any:
        return perturb(function(*args, **kwargs), factor)

    return perturbed_function


def _caches() -> dict[tuple[str, str], Any]:
    """Every ``functools`` cache in the ``moelaws`` modules, by (module, attribute)."""
    found = {}
    for module_name, module in list(sys.modules.items()):
        if module is None or not module_name.startswith("moelaws"):
            continue
        for attribute, bound in list(vars(module).items()):
            layer = bound
            while layer is not None:
                if hasattr(layer, "cache_info") and hasattr(layer, "cache_clear"):
                    found[(module_name, attribute)] = layer
                    break
                layer = getattr(layer, "__wrapped__", None)
    return found


def _replacement(original: Any, factor: float) -> Any:
    if isinstance(original, int | float) and not isinstance(original, bool):
        return original * factor
    if callable(original):
        return _wrap(original, factor)
    return perturb(original, factor)


def perturbed(paths: Iterable[str], namespace: dict[str, Any],
              factor: float = FACTOR) -> Callable[[], None]:
    """Perturb every target in ``paths`` wherever it is bound; returns the function that undoes it.

    A function's return value is multiplied by ``factor`` (:func:`perturb`), a numeric constant
    itself. The replacement goes into every ``moelaws`` module and into ``namespace`` (the
    chapter's globals) wherever the original object is bound, so re-exports, ``from ... import``
    and the package's own internal calls all see it; a method is replaced on its class. Undoing
    also puts the original back wherever a module imported in between bound a replacement
    (``from ... import`` of the target), and empties every ``functools`` cache of the package
    that was filled in between.
    """
    undo: list[tuple[Any, str, Any]] = []
    originals: dict[int, tuple[Any, Any]] = {}
    caches = _caches()
    misses = {key: cached.cache_info().misses for key, cached in caches.items()}

    def bind(owner: Any, name: str, new: Any) -> None:
        if isinstance(owner, dict):
            undo.append((owner, name, owner[name]))
            owner[name] = new
        else:
            undo.append((owner, name, owner.__dict__[name] if isinstance(owner, type)
                         else getattr(owner, name)))
            setattr(owner, name, new)

    for path in paths:
        owner, name, original = _resolve(path, namespace)
        if isinstance(owner, type):
            new = _replacement(original, factor)
            originals[id(new)] = (new, original)
            bind(owner, name, new)
            continue
        # A public function may be a validating wrapper (``__wrapped__``) of the function the
        # package calls internally: each layer is replaced where it is bound, so every caller
        # sees exactly one perturbation.
        layers = [original]
        while callable(layers[-1]) and hasattr(layers[-1], "__wrapped__"):
            layers.append(layers[-1].__wrapped__)
        seen: set[tuple[int, str]] = set()
        for layer in layers:
            new = _replacement(layer, factor)
            originals[id(new)] = (new, layer)
            places: list[tuple[Any, str]] = [(owner, name)] if layer is original else []
            for module_name, module in list(sys.modules.items()):
                if module is None or not module_name.startswith("moelaws"):
                    continue
                places += [(module, a) for a, bound in list(vars(module).items()) if bound is layer]
            places += [(namespace, k) for k, v in list(namespace.items()) if v is layer]
            for place, attribute in places:
                if (id(place), attribute) not in seen:
                    seen.add((id(place), attribute))
                    bind(place, attribute, new)

    def restore() -> None:
        for owner, name, original in reversed(undo):
            if isinstance(owner, dict):
                owner[name] = original
            else:
                setattr(owner, name, original)
        # A module first imported while the target was perturbed bound the replacement (a
        # chapter's cell that loads the registry imports every paper's package): left there,
        # the perturbation would outlive the undo.
        for module_name, module in list(sys.modules.items()):
            if module is None or not module_name.startswith("moelaws"):
                continue
            for attribute, bound in list(vars(module).items()):
                found = originals.get(id(bound))
                if found is not None and found[0] is bound:
                    setattr(module, attribute, found[1])
        for key, bound in list(namespace.items()):
            found = originals.get(id(bound))
            if found is not None and found[0] is bound:
                namespace[key] = found[1]
        # A cache filled while the target was perturbed would poison later, honest calls.
        # (A module first imported in between has caches the snapshot never saw.)
        for key, cached in _caches().items():
            if cached.cache_info().misses != misses.get(key, 0):
                cached.cache_clear()

    return restore


class _Names(ast.NodeVisitor):
    """Names a cell binds at top level (or mutates) and names it reads anywhere."""

    def __init__(self) -> None:
        self.defined: set[str] = set()
        self.used: set[str] = set()
        self._depth = 0

    def visit_Name(self, node: ast.Name) -> None:
        if isinstance(node.ctx, ast.Load):
            self.used.add(node.id)
        elif self._depth == 0:
            self.defined.add(node.id)

    def _mutated(self, node: ast.Attribute | ast.Subscript) -> None:
        base = node.value
        while isinstance(base, ast.Attribute | ast.Subscript):
            base = base.value
        if not isinstance(node.ctx, ast.Load) and isinstance(base, ast.Name) and not self._depth:
            self.defined.add(base.id)
        self.generic_visit(node)

    visit_Attribute = _mutated
    visit_Subscript = _mutated

    def _scoped(self, node: ast.AST) -> None:
        self._depth += 1
        self.generic_visit(node)
        self._depth -= 1

    visit_Lambda = _scoped
    visit_ListComp = _scoped
    visit_SetComp = _scoped
    visit_DictComp = _scoped
    visit_GeneratorExp = _scoped

    def _definition(self, node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) -> None:
        if not self._depth:
            self.defined.add(node.name)
        self._scoped(node)

    visit_FunctionDef = _definition
    visit_AsyncFunctionDef = _definition
    visit_ClassDef = _definition

    def visit_Import(self, node: ast.Import | ast.ImportFrom) -> None:
        if not self._depth:
            for alias in node.names:
                self.defined.add((alias.asname or alias.name).split(".")[0])

    visit_ImportFrom = visit_Import


def _names(source: str) -> _Names:
    from IPython.core.inputtransformer2 import TransformerManager

    names = _Names()
    names.visit(ast.parse(TransformerManager().transform_cell(source)))
    return names


def cells_needed(sources: Mapping[int, str], targets: Iterable[int]) -> set[int]:
    """The code cells that ``targets`` need, by the names they read and earlier cells bind.

    Parameters
    ----------
    sources
        Code cell index → source (IPython syntax).
    targets
        Indices of the cells to run.

    Returns
    -------
    set[int]
        ``targets`` and, transitively, every earlier cell that binds or mutates a name they
        read (all such cells, not only the last, so a name built up over cells is complete).
    """
    info = {i: _names(s) for i, s in sources.items()}
    needed: set[int] = set()
    stack = list(targets)
    while stack:
        i = stack.pop()
        if i in needed:
            continue
        needed.add(i)
        stack += [j for j in info if j < i and info[j].defined & info[i].used]
    return needed


@dataclasses.dataclass
class MutationReport:
    """What :func:`check_chapter` found in one chapter."""

    chapter: str
    solutions: int
    seconds: float
    broken: list[str]
    """Solutions that fail as written, with the end of their error."""
    survivors: list[str]
    """``"<label> survives <target> x <factor>"``: checks that cannot fail."""
    unstated: list[str]
    """Solutions without a target whose text has no :data:`ROUTE_MARK` sentence."""
    undeclared: list[str]
    """Labels missing from :data:`SOLUTION_TARGETS`."""


_FRESH: dict[str, Any] = {}
"""What :func:`fresh_start` found in the kernel the first time (its fresh state)."""


def fresh_start(folder: str) -> None:
    """In a notebook kernel: what a fresh kernel has, as far as a chapter's results can tell.

    Called by :func:`check_chapter` at the start of every chapter, after ``%reset -f`` (which
    empties the user namespace). The first call in a kernel records its warning filters; a
    later one, in a kernel an earlier chapter ran in, restores them, makes ``folder`` the
    working directory, empties every ``functools`` cache of the package (a cache an earlier
    chapter filled would hide a perturbation of a function it calls) and turns off the
    flush-to-zero of denormals that training turns on (:func:`moelaws.torchmoe.train`). The
    modules stay imported, with their display settings; no random generator is reseeded
    (every draw of the book is seeded: STYLE.md).
    """
    import warnings

    if not _FRESH:
        _FRESH["filters"] = list(warnings.filters)
        return
    warnings.resetwarnings()
    warnings.filters.extend(_FRESH["filters"])
    os.chdir(folder)
    for cached in _caches().values():
        cached.cache_clear()
    torch = sys.modules.get("torch")
    if torch is not None:
        torch.set_flush_denormal(False)


@contextlib.contextmanager
def shared_kernel() -> Iterator[Any]:
    """A kernel manager for :func:`check_chapter` (``kernel=``) to run several chapters in one
    kernel, in this interpreter's environment; the first chapter starts the kernel, and it is
    shut down on exit.

    A chapter's kernel costs a process start and the imports every chapter makes (SciPy,
    pandas, Altair, ipywidgets, torch for two chapters): seconds of CPU each.
    """
    import nbformat
    from jupyter_core.utils import run_sync
    from nbclient import NotebookClient

    manager = NotebookClient(nbformat.v4.new_notebook(),
                             kernel_name="python3").create_kernel_manager()
    manager.kernel_spec.argv[0] = sys.executable
    try:
        yield manager
    finally:
        if manager.has_kernel:
            run_sync(manager.shutdown_kernel)(now=True)


def check_chapter(path: str | Path, factor: float = FACTOR, timeout: int = 600,
                  kernel: Any = None) -> MutationReport:
    """Run a chapter's solutions as written and under every declared perturbation.

    One kernel runs the chapter's code cells that the solutions with a target need
    (:func:`cells_needed`); at each such solution it runs the solution's cells once per target
    with the target perturbed (:func:`perturbed`; they must raise), then once as written (they
    must pass), which leaves the kernel as the chapter would. A solution without a target is
    run (as written) only where a later one needs what it binds: nothing in it is perturbed,
    and every chapter runs whole, solutions included, in the book build (which fails on an
    error) and in the reader's stage of ``make test``.

    Parameters
    ----------
    path
        The chapter's MyST source (``notebooks/NN_*.md``).
    factor
        The perturbation of each target's output.
    timeout
        Seconds allowed per cell.
    kernel
        The kernel manager of :func:`shared_kernel` to run in, started by the first chapter
        that uses it; the chapter starts from an empty namespace and :func:`fresh_start`.
        ``None``: a kernel of the chapter's own, shut down at the end. A chapter that raises
        restarts the shared kernel, so the next one starts in a new process.
    """
    import jupytext
    import nbformat
    from jupyter_core.utils import run_sync
    from nbclient import NotebookClient
    from nbclient.exceptions import CellExecutionError

    from moelaws.kernel_polling import patch_shell_polling
    from moelaws.teaching.exercises import find_exercises

    patch_shell_polling()

    path = Path(path)
    notebook = jupytext.read(path)
    exercises = find_exercises(notebook)
    code = {i: c.source for i, c in enumerate(notebook.cells) if c.cell_type == "code"}
    solution_code = {e.label: [i for i in e.solution_cells if i in code] for e in exercises}
    first_cell = {cells[0]: label for label, cells in solution_code.items() if cells}
    in_solutions = {i for cells in solution_code.values() for i in cells}
    perturbed_cells = {i for label, cells in solution_code.items()
                       if SOLUTION_TARGETS.get(label) for i in cells}
    undeclared = [e.label for e in exercises if e.label not in SOLUTION_TARGETS]
    unstated = [
        e.label for e in exercises
        if not SOLUTION_TARGETS.get(e.label) and ROUTE_MARK not in "\n".join(
            notebook.cells[i].source for i in e.solution_cells
            if notebook.cells[i].cell_type == "markdown")
    ]

    client = NotebookClient(notebook, timeout=timeout, kernel_name="python3", km=kernel,
                            resources={"metadata": {"path": str(path.parent)}})
    if kernel is None:
        # The kernel runs in this interpreter's environment (like nbval's
        # --nbval-current-env), whatever "python3" kernel spec the machine has installed.
        client.km = client.create_kernel_manager()
        client.km.kernel_spec.argv[0] = sys.executable
    counter = iter(range(10**9))
    errors: list[str] = []

    def run(source: str) -> bool:
        try:
            client.execute_cell(nbformat.v4.new_code_cell(source), next(counter))
        except CellExecutionError as error:
            errors.append(re.sub(r"\x1b\[[0-9;]*m", "", str(error)).strip()[-600:])
            return False
        return True

    broken: list[str] = []
    survivors: list[str] = []
    started = time.perf_counter()
    try:
        with client.setup_kernel():
            try:
                if not run("%reset -f\n"
                           "from moelaws.teaching.mutation import fresh_start as _fresh\n"
                           "from moelaws.teaching.mutation import perturbed as _perturbed\n"
                           f"_fresh({str(path.resolve().parent)!r})"):
                    raise RuntimeError(f"the kernel cannot import moelaws: {errors[-1]}")
                for index in sorted(cells_needed(code, perturbed_cells)):
                    if index in in_solutions and index not in first_cell:
                        continue
                    if index not in first_cell:
                        if not run(code[index]):
                            raise RuntimeError(f"{path.name}: cell {index} fails: {errors[-1]}")
                        continue
                    label = first_cell[index]
                    cells = [code[i] for i in solution_code[label]]
                    for target in SOLUTION_TARGETS.get(label, ()):
                        if not run(f"_undo = _perturbed([{target!r}], globals(), {factor!r})"):
                            raise RuntimeError(f"{label}: cannot perturb {target}: {errors[-1]}")
                        raised = not all(run(source) for source in cells)
                        run("_undo()")
                        if not raised:
                            survivors.append(f"{label} survives {target} x {factor}")
                    if not all(run(source) for source in cells):
                        broken.append(f"{label}: {errors[-1]}")
            finally:
                if kernel is not None and client.kc is not None:
                    client.kc.stop_channels()  # the next chapter gets a client of its own
    except BaseException:
        if kernel is not None and kernel.has_kernel:
            # A chapter that failed may leave the kernel busy or half-perturbed: the next
            # chapter gets a new kernel process. The chapter's own error is what propagates.
            with contextlib.suppress(Exception):
                run_sync(kernel.restart_kernel)(now=True)
        raise
    return MutationReport(path.name, len(exercises), time.perf_counter() - started, broken,
                          survivors, unstated, undeclared)
