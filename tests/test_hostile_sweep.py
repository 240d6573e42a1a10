"""Every public function of the package, one parameter at a time replaced by each of a set of
hostile values while the others keep a valid base call (issue 25).

Allowed outcomes: a ``ValueError`` or ``TypeError`` whose message names the parameter (or the
problem); a result flagged with :class:`~moelaws.validation.ExtrapolationWarning`; or a result
the allow-lists below document as valid, with their reasons. Anything else fails: another
exception, a call over :data:`TIME_LIMIT` CPU seconds, or a returned number, array or mapping value
that is NaN or infinite where the function does not document NaN.

The functions are discovered (each subpackage's ``__all__``, each module's public functions), so
a new public function is swept as soon as it exists; the few that cannot be (they write files,
train, or change process-wide state) are listed in :data:`EXCLUDED` with the reason. The papers'
packages come from the registry (:func:`moelaws.papers.packages`); what the sweep needs to know
about one paper's functions (base calls, the slow ones' share of kinds, documented non-finite
values) lives in that paper's test folder, ``tests/papers/<id>/hostile_<id>.py``
(:func:`paper_sweep_data`).
"""

from __future__ import annotations

import dataclasses
import importlib
import importlib.util
import inspect
import math
import signal
import time
import warnings
from collections.abc import Mapping
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
import pandas as pd
import pytest

from moelaws import arch, conventions, paper_data, papers
from moelaws.validation import ExtrapolationWarning, documents_nan

TIME_LIMIT = 10.0
"""CPU seconds (this process's) one call may take: a loaded machine slows a call down in wall
time, not in CPU time, so it cannot make a call fail."""

WAIT_LIMIT = 120.0
"""Wall seconds after which a call that waits without using the CPU is cut short too."""

"""The holes the sweep found that are not fixed yet, one ``function parameter kind outcome`` a
line (see :func:`test_no_new_holes`)."""

PAPER_PACKAGES = tuple(p.removeprefix("moelaws.") for p in papers.packages())
"""Every paper's package, from the registry (chapter 0's is ``arch``)."""

PACKAGES = (*PAPER_PACKAGES, "claims", "torchmoe")
"""Subpackages whose ``__all__`` is their public surface."""

PAPER_SUBMODULES = ("data_tables", "counting")
"""Modules of a paper's own package swept besides its ``__all__`` (where the package has them;
chapter 0's ``arch`` is shared, its counting is in its ``__all__``)."""

MODULES = ("fit", "rounding", "sliders", "charts", "validation", "vega_expr", "papers",
           "paper_data", "data_tables",
           *(f"{package}.{sub}" for sub in PAPER_SUBMODULES
             for package, paper in zip(PAPER_PACKAGES, papers.registry(), strict=False)
             if package == paper.id
             and importlib.util.find_spec(f"moelaws.{package}.{sub}") is not None),
           "conventions", "interactive_tables", "glue",
           "threads", "notebook_export", "compare.calculator", "compare.card",
           "compare.compute_optimal", "compare.counting", "compare.granularity", "compare.mla",
           "compare.recommend", "compare.regimes", "compare.report", "compare.tokens",
           "compare.verdicts")
"""Modules whose ``__all__`` (else every function defined there without a leading underscore)
is their public surface."""


def paper_sweep_data() -> list[ModuleType]:
    """Each paper's part of the sweep, ``tests/papers/<id>/hostile_<id>.py``, where it has one.

    Such a module may define ``per_function()`` (base calls, as :func:`_per_function`),
    ``KINDS_PER_PARAMETER`` and ``NON_FINITE_ALLOWED`` (as this module's), for its paper's own
    functions only.
    """
    found = []
    for paper_id in papers.ids():
        path = Path(__file__).parent / "papers" / paper_id / f"hostile_{paper_id}.py"
        if path.is_file():
            spec = importlib.util.spec_from_file_location(f"hostile_{paper_id}", path)
            assert spec is not None and spec.loader is not None
            module = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(module)
            found.append(module)
    return found


def _with_papers(name: str, shared: dict[str, Any]) -> dict[str, Any]:
    """``shared`` and every paper's ``name`` (a dict, or a function returning one), merged;
    a key given twice is an error."""
    merged = dict(shared)
    for module in paper_sweep_data():
        part = getattr(module, name, {})
        part = part() if callable(part) else part
        clash = merged.keys() & part.keys()
        if clash:
            raise ValueError(f"{module.__name__}.{name} repeats {sorted(clash)}")
        merged.update(part)
    return merged


def _example_data_file() -> tuple[str, str]:
    """A (folder, CSV name) of the package's data: the first folder that holds a CSV."""
    for folder in paper_data.folders():
        csvs = sorted(p.name for p in paper_data.data_dir(folder).iterdir()
                      if p.name.endswith(".csv"))
        if csvs:
            return folder, csvs[0]
    raise LookupError("no CSV in the package's data")

EXCLUDED: dict[str, str] = {
    "glue.glue": "records a value into the executing notebook (MyST-NB): a side effect, no result",
    "threads.limit": "sets the process's BLAS/OpenMP/torch thread count: process-wide state",
    "charts.enable": "registers Altair's renderer: process-wide state",
    "validation.guard_public": "rewrites the namespace it is given (a decorator helper)",
    "validation.public": "a decorator: returns a wrapper for any callable, checked when called",
    "validation.warn_if_far_outside": "internal helper; its inputs are validated laws' inputs",
    "notebook_export.*": "writes notebooks and files (the downloads); tested in test_downloads",
    "compare.calculator.calculator_grid": "evaluates every law over the calculator's grid "
                                          "(seconds); tested in test_compare",
    "compare.calculator.calculator_chart": "needs calculator_grid's frame; tested in "
                                           "test_compare",
}

HOSTILE: dict[str, Any] = {
    "nan": math.nan, "inf": math.inf, "-inf": -math.inf, "0": 0, "-0.0": -0.0, "-1": -1,
    "1e308": 1e308, "5e-324": 5e-324, "10**400": 10**400, "True": True, "False": False,
    "None": None, "'1e9'": "1e9", "''": "", "b'1'": b"1", "[]": [], "[[1]]": [[1]],
    "{}": {}, "{'bogus': 1.0}": {"bogus": 1.0}, "object()": object(), "1+2j": 1 + 2j,
    "array([])": np.array([]), "array([nan])": np.array([np.nan]),
    "full(2_000_000)": np.full(2_000_000, 1.0), "array(['a'])": np.array(["a"]),
    "3-D array": np.ones((2, 2, 2)), "Series with NaN": pd.Series([1.0, np.nan]),
    "wrong dataclass": None,  # filled below
}


@dataclasses.dataclass
class _WrongRecord:  # a record of the wrong type where a config or a HeadSettings belongs
    N: float = 1.0
    G: float = 8.0


HOSTILE["wrong dataclass"] = _WrongRecord()


def curve_points(scale: float = 1.0) -> np.ndarray:
    C = np.geomspace(1e17, 1e20, 6)
    return np.column_stack([C, 80.0 * (scale * C) ** -0.12 + 1.9])


def _spec() -> dict[str, Any]:
    return {"mark": "point", "params": [{"name": "G", "value": 8, "bind": {
        "input": "range", "min": 1, "max": 16, "step": 1}}]}


def _draws() -> dict[str, np.ndarray]:
    return {k: np.array([v, v * 1.001]) for k, v in
            dict(alpha_coef=6.7e-5, alpha_exp=-1.23, beta_coef=0.24, beta_exp=0.21).items()}


def _fit_frame() -> pd.DataFrame:
    rng = np.random.default_rng(0)
    N = np.geomspace(1e7, 1e9, 12)
    D = 20 * N * rng.uniform(0.5, 2.0, N.size)
    return pd.DataFrame({"N": N, "D": D, "loss": 1.7 + 400 / N**0.34 + 410 / D**0.28})


def _base_args() -> dict[str, Any]:
    """Example arguments by name (shared by the laws, as in ``test_properties.VALID``)."""
    from test_properties import VALID

    law_paper = papers.ids("verdict")[0]
    return {**VALID, "caption": "c", "source": "s", "text": "Table 1", "name": "DeepSeek-V3",
            "paper": law_paper, "paper_id": law_paper, "role": "claims", "folder":
            _example_data_file()[0], "compute": 1e22, "total_params": 1e11, "x": 2.0, "y": 3.0,
            "low": 1.0, "high": 2.0, "tol": 0.05, "spec": _spec(), "scale": "0.5B",
            "convention": conventions.names()[1], "reason": "no budget", "printed": "0.12",
            "delta": 1e-3, "draws": _draws(), "points": curve_points(),
            "dense_points": curve_points(), "moe_points": curve_points(3.0),
            "value": 8.0, "lo": 1.0, "hi": 16.0, "step": 1.0, "min": 1.0, "max": 16.0,
            "label": "G", "residuals": np.array([0.1, -0.2]), "expr": "2 * G",
            "defaults": {"a": 1.0}, "params": {"a": 2.0}, "quantity": "C"}


def _per_function() -> dict[str, dict[str, Any]]:
    """Base calls a name alone does not give (the function's own example arguments); each
    paper's own functions' come from its folder (:func:`paper_sweep_data`)."""
    import torch

    from moelaws import claims, data_tables, fit, interactive_tables, sliders, torchmoe
    from moelaws.claims.tables import reproduced_table
    from moelaws.compare import counting, recommend

    hf_dir = Path(data_tables.__file__).parent / "data" / "hf_configs"
    budget = {"compute": 1e22, "total_params": None, "active_params": None}
    law_papers = papers.ids("verdict")
    reproduced = reproduced_table(law_papers[0], None)
    folder, csv = _example_data_file()
    table = next(iter(data_tables.all_data_tables()))
    logits = torch.randn(6, 4, generator=torch.Generator().manual_seed(0))
    probs, indices, _ = torchmoe.route(logits, 2)

    law = fit.chinchilla_law()
    true = {"a": math.log(400.0), "b": math.log(410.0), "e": math.log(1.7), "alpha": 0.34,
            "beta": 0.28}
    starts = {k: [v] for k, v in true.items()}  # one start: the sweep tests inputs, not fits
    frame = _fit_frame()
    return _with_papers("per_function", {
        "arch.from_hf_config": {"config": str(hf_dir / "Mixtral-8x7B-v0.1")},
        "claims.evaluate": {"claim": claims.all_claims()[0]},
        "claims.printed_tolerance": {"printed": "0.12"},
        "compare.compute_optimal.split": {
            "quantity": "N", "paper_a": law_papers[0], "value_a_own": 2.0,
            "value_a_common": 1.5, "paper_b": law_papers[1], "value_b_own": 1.0,
            "value_b_common": 1.2},
        "conventions.sparsity": {"convention": papers.ids("sparsity")[0]},
        "compare.granularity.translate": {"value": 8.0, "source": papers.ids("granularity")[0],
                                          "target": papers.ids("granularity")[1], "w": 3.0},
        "compare.recommend.not_applicable": {"paper": law_papers[0], "reason": "no budget",
                                            "convention": law_papers[0]},
        "compare.report.counts_text": {"report": counting.counts_report(
            arch.preset("DeepSeek-V3"))},
        "compare.report.design_text": {"budget": budget, "recs": recommend.recommend(**budget)},
        "compare.counting.load_config": {"spec": "DeepSeek-V3"},
        "compare.recommend.recommend": {"compute": 1e22},
        "compare.tokens.training_tokens": {"name": "deepseek-v3"},
        "rounding.status_of_interval": {"low": 0.11, "high": 0.13, "paper": 0.12,
                                        "tol": 0.005},
        "compare.verdicts.position": {"x": 1.5, "low": 1.0, "high": 2.0},
        "data_tables.data_table": {"name": table},
        "data_tables.data_csv_name": {"name": table},
        "data_tables.data_csv": {"name": table},
        "interactive_tables.interactive_table": {"df": pd.DataFrame({"a": [1.0]}),
                                                 "caption": "c", "source": "s"},
        "interactive_tables.claims_view": {"df": reproduced},
        "interactive_tables.outside_tolerance": {"df": reproduced},
        "interactive_tables.claims_summary": {
            "target": interactive_tables.chapter_claims_table(law_papers[0])},
        "interactive_tables.data_interactive_table": {"name": table},
        "fit.fit_power_law": {"x": np.array([1.0, 2.0, 4.0]), "y": np.array([1.0, 0.5, 0.25])},
        "fit.huber_log_normaliser": {"delta": 1e-3},
        "fit.fit_law": {"law": law, "X": frame, "starts": starts, "progress": False},
        "fit.bootstrap": {"statistic": lambda idx: {"mean": float(np.mean(idx))},
                          "n_obs": 10, "n_resamples": 50, "progress": False},
        "fit.parameter_recovery": {"law": law, "true_params": true, "starts": starts,
                                   "X": frame[["N", "D"]].to_numpy(), "noise_sd": 0.005,
                                   "n_repeats": 2},
        "papers.get": {"paper_id": law_papers[0]},
        "papers.registered": {"paper": papers.get(law_papers[0])},
        "paper_data.data_file": {"folder": folder, "name": csv},
        "paper_data.read_csv": {"folder": folder, "name": csv},
        "validation.finite": {"name": "x", "x": 2.0},
        "validation.positive": {"name": "x", "x": 2.0},
        "validation.non_negative": {"name": "x", "x": 2.0},
        "validation.integer": {"name": "x", "x": 2},
        "validation.count": {"name": "x", "x": 2},
        "validation.constants": {"defaults": {"a": 1.0}, "params": {"a": 2.0}},
        "validation.documents_nan": {"fn": fit.fit_power_law},
        "vega_expr.evaluate": {"expr": "2 * G", "variables": {"G": 8.0}},
        "vega_expr.literal": {"x": 2.0},
        "sliders.int_slider": {"value": 8, "min": 1, "max": 16},
        "sliders.log_slider": {"value": 1e21, "base": 10.0, "min": 18.0, "max": 24.0},
        "sliders.range_param": {"name": "G", "value": 8.0, "min": 1.0, "max": 16.0, "step": 1.0},
        "sliders.check_widget": {"widget": sliders.float_slider(8.0, 1.0, 16.0, 1.0)},
        "torchmoe.route": {"logits": logits, "top_k": 2},
        "torchmoe.z_loss": {"logits": logits},
        "torchmoe.balance_loss": {"probs": probs, "indices": indices, "n_experts": 4},
    })


# --- discovery -------------------------------------------------------------------------------


def _is_excluded(qualname: str) -> bool:
    module = qualname.rsplit(".", 1)[0]
    return qualname in EXCLUDED or f"{module}.*" in EXCLUDED


def public_functions() -> list[tuple[str, Any]]:
    """Every public function: (``module.name``, function), exclusions left out."""
    found = []
    for modname in (*PACKAGES, *MODULES):
        module = importlib.import_module(f"moelaws.{modname}")
        names = getattr(module, "__all__", None) or [
            n for n, v in vars(module).items()
            if not n.startswith("_") and inspect.isfunction(v) and v.__module__ == module.__name__]
        for name in names:
            obj = getattr(module, name)
            qualname = f"{modname}.{name}"
            if inspect.isfunction(obj) and not _is_excluded(qualname):
                found.append((qualname, obj))
    return found


def base_call(qualname: str, fn: Any, per_function: Mapping[str, Mapping[str, Any]],
              by_name: Mapping[str, Any]) -> dict[str, Any]:
    """Keyword arguments of a valid call: the function's own example arguments, else an example
    by parameter name for each required parameter (the others keep their defaults)."""
    own = dict(per_function.get(qualname, {}))
    kwargs = {}
    parameters = inspect.signature(fn).parameters.values()
    if any(p.kind is p.VAR_KEYWORD for p in parameters):
        named = {p.name for p in parameters}
        kwargs.update({k: v for k, v in own.items() if k not in named})
    for p in parameters:
        if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            continue
        if p.name in own:
            kwargs[p.name] = own[p.name]
        elif p.default is p.empty:
            if p.name not in by_name:
                raise LookupError(f"{qualname}: no example for required parameter {p.name}")
            kwargs[p.name] = by_name[p.name]
    return kwargs


# --- one call --------------------------------------------------------------------------------


class CallTimeout(BaseException):  # not an Exception: no `except Exception` in a law eats it
    """Raised into a call that runs past :data:`TIME_LIMIT` (or :data:`WAIT_LIMIT`)."""


def _on_alarm(signum: int, frame: Any) -> None:
    raise CallTimeout(signum)


def timed_call(fn: Any, kwargs: Mapping[str, Any]) -> tuple[str, Any, list[Any], float]:
    """(``"ok"`` | ``"raised"`` | ``"timeout"``, result, exception or the timer's signal,
    warnings, CPU seconds)."""
    previous = {number: signal.signal(number, _on_alarm)
                for number in (signal.SIGPROF, signal.SIGALRM)}
    signal.setitimer(signal.ITIMER_PROF, TIME_LIMIT)
    signal.setitimer(signal.ITIMER_REAL, WAIT_LIMIT)
    start = time.process_time()
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                return "ok", fn(**kwargs), caught, time.process_time() - start
            except CallTimeout as timeout:
                return "timeout", timeout.args[0], caught, time.process_time() - start
            except BaseException as exc:  # classified by the caller (SystemExit included)
                return "raised", exc, caught, time.process_time() - start
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.setitimer(signal.ITIMER_REAL, 0)
        for number, handler in previous.items():
            signal.signal(number, handler)


def non_finite(value: Any, nan_ok: bool, depth: int = 0) -> str | None:
    """Where ``value`` holds an infinity, or a NaN unless ``nan_ok``; None if nowhere."""
    if depth > 3 or value is None or isinstance(value, (str, bytes, bool, np.bool_)):
        return None
    if isinstance(value, (pd.DataFrame, pd.Series)):
        return None  # tables show NaN for "not applicable" cells; checked by their own tests
    if isinstance(value, Mapping):
        for key, v in value.items():
            where = non_finite(v, nan_ok, depth + 1)
            if where is not None:
                return f"[{key!r}]{where}"
        return None
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        for f in dataclasses.fields(value):
            where = non_finite(getattr(value, f.name), nan_ok, depth + 1)
            if where is not None:
                return f".{f.name}{where}"
        return None
    if isinstance(value, (tuple, list)):
        for i, v in enumerate(value[:50]):
            where = non_finite(v, nan_ok, depth + 1)
            if where is not None:
                return f"[{i}]{where}"
        return None
    if isinstance(value, (float, int, np.number, np.ndarray)):
        arr = np.asarray(value)
        if arr.dtype.kind not in "fc":
            return None
        bad = np.isinf(arr) if nan_ok else ~np.isfinite(arr)
        return "" if np.any(bad) else None
    return None


# --- what counts as a pass -------------------------------------------------------------------

NUMBER_KINDS = frozenset({"0", "-0.0", "-1", "1e308", "5e-324"})
"""Hostile kinds that are ordinary finite numbers: in some parameters' domains (a law constant
of either sign, an offset), outside others'."""


def type_allows(parameter: inspect.Parameter, kind: str) -> bool:
    """Whether the signature itself documents ``kind`` as a valid value of ``parameter``."""
    hint = str(parameter.annotation).replace(" ", "")
    default = parameter.default
    if kind in ("True", "False"):
        return hint in ("bool", "bool|None") or isinstance(default, bool)
    if kind == "None":
        return default is None or "None" in hint
    return False


def message_names(exc: BaseException, parameter: str, extra: tuple[str, ...] = ()) -> bool:
    """Whether an error message names ``parameter`` (as a word) or one of ``extra``."""
    import re

    text = str(exc)
    words = (parameter, parameter.replace("_", " "), *extra)
    return any(re.search(rf"(?<![\\w]){re.escape(w)}(?![\\w])", text) for w in words if w)


KINDS_PER_PARAMETER: dict[str, int] = _with_papers("KINDS_PER_PARAMETER", {
    # the slow functions: each parameter gets this many kinds, rotated so that every kind is
    # still used on some parameter (measured seconds); each paper's in its folder
    "claims.all_claims": 10,  # 0.030 s a call, 1 parameters
    "claims.check": 4,  # 0.062 s a call, 1 parameters
    "claims.results": 3,  # 0.077 s a call, 1 parameters
    "claims.summary": 4,  # 0.067 s a call, 1 parameters
    "claims.table": 3,  # 0.090 s a call, 1 parameters
    "compare.verdicts.verdicts": 1,  # 0.079 s a call, 2 parameters
    "fit.bootstrap": 10,  # 0.004 s a call, 7 parameters
    "fit.fit_law": 1,  # 0.024 s a call, 13 parameters
    "fit.parameter_recovery": 1,  # 0.069 s a call, 9 parameters
    "interactive_tables.chapter_claims_table": 8,  # 0.036 s a call, 1 parameters
    "interactive_tables.claims_summary": 1,  # 0.713 s a call, 1 parameters
    "interactive_tables.claims_table": 1,  # 0.558 s a call, 6 parameters
    "interactive_tables.data_interactive_table": 2,  # 0.053 s a call, 2 parameters
    "interactive_tables.interactive_table": 1,  # 0.028 s a call, 13 parameters
    "sliders.range_param": 1,  # 0.029 s a call, 7 parameters
})


NON_FINITE_ALLOWED: dict[str, tuple[str, str]] = _with_papers("NON_FINITE_ALLOWED", {
    "claims.check": ("ours_low", "ClaimResult.ours_low/ours_high are documented NaN for a "
                                 "claim without a range"),
    "claims.evaluate": ("ours_low", "as claims.check"),
    "claims.results": ("ours_low", "as claims.check"),
})
"""Non-finite values a function documents, by the path :func:`non_finite` reports (its first
part suffices), with the documentation that makes them valid (each paper's in its folder)."""


_LABEL = "a label used only in error messages: any non-empty text, digits included, is valid"
_ANY_ARRAY = ("documented: a number or an array of numbers of any shape; an empty array comes "
              "back empty (the public-function guard refuses empty arguments itself)")
VALID_RESULTS: dict[str, str] = {
    **{f"validation.{f} name '1e9'": _LABEL
       for f in ("finite", "positive", "non_negative", "integer", "count")},
    "validation.constants what '1e9'": _LABEL,
    "sliders.check_on_grid name '1e9'": _LABEL,
    **{f"validation.{f} x {kind}": _ANY_ARRAY
       for f in ("finite", "positive", "non_negative", "integer")
       for kind in ("3-D array", "[[1]]", "[]", "array([])")},
    "validation.constants params {}": "documented: an empty override keeps the paper's defaults",
    "interactive_tables.table_id text '1e9'": "documented: an id from any text with a letter "
                                              "or a digit ('moelaws-table-1e9')",
    "vega_expr.evaluate expr '1e9'": "a number literal is a valid Vega expression",
    "vega_expr.evaluate datum {}": "a datum may carry fields the expression does not use "
                                   "(every row has all the chart's fields)",
    "vega_expr.evaluate datum {'bogus': 1.0}": "as vega_expr.evaluate datum {}",
    "claims.printed_tolerance printed '1e9'": "documented: a printed number such as '1.5e22'",
    **{f"interactive_tables.interactive_table {p} {kind}": "an empty list of columns or "
       "downloads, or an empty map of formatters, is the parameter's default meaning: none"
       for p, kind in (("filters", "[]"), ("collapse", "[]"), ("more_csv", "[]"),
                       ("display", "{}"), ("sort_by", "{}"))},
    "interactive_tables.claims_table filters []": "as interactive_table filters []",
    **{f"interactive_tables.interactive_table {p} '1e9'": "free text (a caption, a source, a "
       "legend, an id seed, a file name): digits are valid text"
       for p in ("caption", "source", "legend", "name", "csv")},
    "interactive_tables.claims_table caption '1e9'": "free text: digits are valid text",
    "interactive_tables.interactive_table legend ''": "documented: the default, no legend",
    "sliders.range_param label '1e9'": "free text beside the slider: digits are valid text",
    "compare.report.size value nan": "documented: a missing count (None or NaN) prints '-'",
    "paper_data.data_file name '1e9'": "documented: the resource need not exist (callers test "
                                      "is_file(); read_csv refuses a missing file)",
}
"""Calls (``function parameter kind``) whose result is valid although the sweep's value is
hostile in general, with the documentation that makes it valid. Only for values that are
genuinely in the parameter's domain: never to hide a hole."""


FREE_TEXT: dict[str, str] = {
    "arch.from_hf_config name": "the result's label: any non-empty text, '1e9' included",
    "compare.compute_optimal.split quantity": "a label of the quantity split, copied into the "
                                              "row",
    "compare.compute_optimal.split paper_a": "a label of the first answer, copied into the row",
    "compare.compute_optimal.split paper_b": "a label of the second answer, copied into the row",
    "compare.recommend.not_applicable reason": "a sentence for the reader",
    "compare.recommend.not_applicable convention": "a sentence describing the paper's count",
}
"""Parameters that are free text (``function parameter``), with the reason: a numeric-looking
string such as ``'1e9'`` is a valid value of them (the empty string is still refused)."""


ANY_VALUE: dict[str, str] = {
    "compare.report.fmt value": "documented: a number in 4 significant digits, '-' for None "
                                "or a non-finite float, anything else as its text",
}
"""Parameters (``function parameter``) whose function documents every value as valid, with
the documentation: any hostile value that returns a finite result is allowed."""


INTERNAL_MESSAGES = (
    "object is not subscriptable", "zero-size array", "has no attribute", "SeedSequence",
    "The function value at", "could not convert", "unsupported operand", "not supported between",
    "object is not iterable", "invalid literal", "ufunc", "only integers, slices",
    "object of type", "unhashable type", "missing", "positional argument", "truth value of",
    "cannot be interpreted", "too many indices", "must be real number", "Cannot convert",
    "object cannot be", "operands could not be broadcast", "index", "is not callable",
)
"""Fragments of Python's, NumPy's and pandas' own messages: an error that leaks one of these
says nothing the caller can act on (which parameter, what is wrong with it)."""


def kinds_for(qualname: str, index: int) -> list[str]:
    """The hostile kinds the ``index``-th parameter of ``qualname`` gets."""
    import zlib

    names = list(HOSTILE)
    n = KINDS_PER_PARAMETER.get(qualname, len(names))
    offset = zlib.crc32(qualname.encode()) + index * n
    return [names[(offset + j) % len(names)] for j in range(n)] if n < len(names) else names


def _same_as_default(fn: Any, parameter: inspect.Parameter, kwargs: Mapping[str, Any],
                     value: Any) -> bool:
    """Whether ``{}`` for a mapping parameter gives exactly what leaving it out gives: an empty
    override (every name keeps its default), which is a valid value, not a hole."""
    if "Mapping" not in str(parameter.annotation) and "dict" not in str(parameter.annotation):
        return False
    rest = {k: v for k, v in kwargs.items() if k != parameter.name}
    if parameter.default is inspect.Parameter.empty:
        return False
    status, default_value, _, _ = timed_call(fn, rest)
    if status != "ok":
        return False
    try:
        return _equal(value, default_value)
    except Exception:  # an uncomparable result is simply not "the same"
        return False


def _equal(a: Any, b: Any) -> bool:
    if isinstance(a, pd.DataFrame | pd.Series):
        return isinstance(b, type(a)) and a.equals(b)
    if dataclasses.is_dataclass(a) and not isinstance(a, type):
        return type(a) is type(b) and _equal(dataclasses.asdict(a), dataclasses.asdict(b))
    if isinstance(a, Mapping):
        return isinstance(b, Mapping) and a.keys() == b.keys() and all(
            _equal(a[k], b[k]) for k in a)
    if isinstance(a, list | tuple):
        return isinstance(b, list | tuple) and len(a) == len(b) and all(
            _equal(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, str | None):
        return a == b
    return bool(np.array_equal(np.asarray(a), np.asarray(b), equal_nan=True))


def outcome(qualname: str, fn: Any, parameter: inspect.Parameter | None, kind: str,
            kwargs: Mapping[str, Any]) -> tuple[str | None, float]:
    """A call's hole (a short description), or None when the outcome is allowed; seconds.
    ``parameter`` None: the base call, which must return a finite result."""
    status, value, caught, seconds = timed_call(fn, kwargs)
    name = parameter.name if parameter is not None else ""
    if status == "timeout":
        if value == signal.SIGALRM:
            return f"waited over {WAIT_LIMIT:g} s", seconds
        return f"took over {TIME_LIMIT:g} CPU-s", seconds
    if status == "raised":
        if not isinstance(value, (ValueError, TypeError)):
            return f"raised {type(value).__name__}", seconds
        text = str(value)
        if not text.strip() or (any(m in text for m in INTERNAL_MESSAGES)
                                and not message_names(value, name)):
            return f"unclear {type(value).__name__}", seconds
        return None, seconds
    where = non_finite(value, documents_nan(fn))
    allowed = NON_FINITE_ALLOWED.get(qualname, ("\0", ""))[0]
    if where is not None and allowed not in where:
        return f"non-finite result{where}", seconds
    if any(issubclass(w.category, ExtrapolationWarning) for w in caught):
        return None, seconds
    if f"{qualname} {name}" in ANY_VALUE:
        return None, seconds
    if kind == "'1e9'" and f"{qualname} {name}" in FREE_TEXT:
        return None, seconds
    if parameter is None or kind in NUMBER_KINDS or type_allows(parameter, kind):
        return None, seconds
    if f"{qualname} {name} {kind}" in VALID_RESULTS:
        return None, seconds
    if kind == "{}" and _same_as_default(fn, parameter, kwargs, value):
        # an empty override of a mapping of constants: every name keeps its default
        return None, seconds
    if kind in ("[[1]]", "3-D array") and getattr(fn, "__wrapped_public__", False):
        # a grid: the guarded laws broadcast over arrays of any shape (np.meshgrid grids)
        return None, seconds
    return "returned a result", seconds


def sweep() -> tuple[dict[str, str], int, list[str]]:
    """Run the sweep: ({"function parameter kind": hole}, number of calls, base-call failures)."""
    per_function, by_name = _per_function(), _base_args()
    holes: dict[str, str] = {}
    calls, broken = 0, []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for qualname, fn in public_functions():
            base = base_call(qualname, fn, per_function, by_name)
            hole, _ = outcome(qualname, fn, None, "", base)
            calls += 1
            if hole is not None:
                broken.append(f"{qualname}: the base call {hole}")
                continue
            signature = inspect.signature(fn).parameters
            names = [p for p in signature.values()
                     if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]
            names += [inspect.Parameter(k, inspect.Parameter.KEYWORD_ONLY) for k in base
                      if k not in signature]
            for index, parameter in enumerate(names):
                for kind in kinds_for(qualname, index):
                    hole, _ = outcome(qualname, fn, parameter, kind,
                                      {**base, parameter.name: HOSTILE[kind]})
                    calls += 1
                    if hole is not None:
                        holes[f"{qualname} {parameter.name} {kind}"] = hole
    return holes, calls, broken


@pytest.fixture(scope="module")
def swept() -> tuple[dict[str, str], int, list[str]]:
    return sweep()


def test_every_public_function_is_swept(swept) -> None:
    _, calls, broken = swept
    functions = public_functions()
    assert len(functions) >= 240, len(functions)
    assert not broken, broken
    assert len(HOSTILE) >= 26
    assert calls >= 5000, calls


def test_every_allowance_names_a_swept_function() -> None:
    """The base calls and allowances name functions the sweep calls (none left behind by a
    rename), and each paper's folder speaks only of its own package's functions."""
    swept_names = {q for q, _ in public_functions()}
    for table in (_per_function(), KINDS_PER_PARAMETER, NON_FINITE_ALLOWED):
        assert set(table) <= swept_names, sorted(set(table) - swept_names)
    own = dict(zip(papers.ids(), PAPER_PACKAGES, strict=False))
    for module in paper_sweep_data():
        package = own[module.__name__.removeprefix("hostile_")]
        keys = [*module.per_function(), *getattr(module, "KINDS_PER_PARAMETER", {}),
                *getattr(module, "NON_FINITE_ALLOWED", {})]
        assert keys and all(k.startswith(f"{package}.") for k in keys), (module.__name__, keys)


def test_no_holes(swept) -> None:
    """Every hostile call is refused clearly or gives a valid, documented result."""
    holes, calls, _ = swept
    assert not holes, f"{len(holes)} holes in {calls} calls:\n" + "\n".join(
        f"{k} -> {v}" for k, v in sorted(holes.items())[:60])


if __name__ == "__main__":  # python tests/test_hostile_sweep.py: list every hole
    found, n_calls, failed = sweep()
    print("".join(f"{k} -> {v}\n" for k, v in sorted(found.items())), end="")
    print(f"{n_calls} calls, {len(found)} holes, base failures: {failed}")
