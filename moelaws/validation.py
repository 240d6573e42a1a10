"""Domain checks of the laws' inputs, shared by every chapter module.

Each check returns its input as a float array (so the laws stay vectorised over NumPy arrays) or
raises a ``ValueError`` that names the quantity. Numbers must be numbers: a numeric string such
as ``"1e9"``, a bool, ``None`` or an object is refused, not converted. The same checks apply to
user-supplied law constants (:func:`constants`).

:func:`public` wraps the package's public functions (each chapter package applies it to its
``__all__``): every argument annotated as a number or an array of numbers is checked with
:func:`finite` (integers with :func:`integer`), a mapping of law constants with
:func:`constants`, and a numeric result that is not finite (an overflow far outside the law's
range) raises a ``ValueError`` instead of returning NaN or infinity. Array arguments have at
most :data:`MAX_ELEMENTS` entries and are not empty; an argument annotated as a flag, a string,
a mapping or a DataFrame must be one (``TypeError`` naming it), one annotated ``Literal[...]``
one of its choices; an ``AttributeError``, ``IndexError`` or ``KeyError`` inside the function
(an argument of the right type but the wrong content) becomes a ``ValueError`` naming the
function and its arguments.

Laws evaluated far outside the range their paper fitted warn with :class:`ExtrapolationWarning`
(:func:`warn_if_far_outside`), given the range from the paper's own ``law.FITTED_RANGES``.
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
import math
import numbers
import os
import sys
import typing
import warnings
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, TypeVar

import numpy as np

__all__ = [
    "FAR_OUTSIDE_DECADES",
    "MAX_ELEMENTS",
    "MAX_POINTS",
    "ExtrapolationWarning",
    "constants",
    "count",
    "documents_nan",
    "finite",
    "guard_public",
    "integer",
    "non_negative",
    "positive",
    "public",
    "warn_if_far_outside",
]

MAX_POINTS = 100_000
"""Largest grid or sample size a function builds from a user-supplied count (``n_points``,
``n_resamples`` …): larger ones would run for minutes without changing any result."""

MAX_ELEMENTS = 1_000_000
"""Largest array a public function accepts as one argument (:func:`finite` refuses more): the
laws are vectorised for grids of a few thousand points, and a larger array is a mistake that
would only use memory and time."""

FAR_OUTSIDE_DECADES = 6
"""How far beyond a paper's fitted range (in decades) a law warns: a factor of a million."""

class ExtrapolationWarning(UserWarning):
    """A law was evaluated far (:data:`FAR_OUTSIDE_DECADES`) outside its paper's fitted range;
    the result is a number, but not one the paper's data support."""


def _describe(x: Any) -> str:
    text = repr(x)
    return text if len(text) <= 40 else text[:37] + "..."


def _check_name(name: Any, what: str = "name") -> None:
    """``TypeError`` unless ``name`` (the quantity's label in messages) is a non-empty string."""
    if not isinstance(name, str):
        raise TypeError(f"{what} (the label in error messages) must be a string, "
                        f"not {_describe(name)}")
    if not name.strip():
        raise ValueError(f"{what} (the label in error messages) must not be empty")


def _whole_bound(what: str, x: Any) -> int:
    """A bound such as ``minimum``: a single whole number (``ValueError`` naming it)."""
    if isinstance(x, (bool, np.bool_)) or not isinstance(x, numbers.Real):
        raise ValueError(f"{what} must be a whole number, not {_describe(x)}")
    if isinstance(x, numbers.Integral) and abs(x) > 2**63:
        raise ValueError(f"{what} must be at most 2**63 in magnitude, not {_describe(x)}")
    if not math.isfinite(x) or x != round(x):
        raise ValueError(f"{what} must be a finite whole number, not {_describe(x)}")
    return int(x)


def finite(name: str, x: Any) -> np.ndarray:
    """``x`` as a float array; ``ValueError`` unless it is a number or an array of numbers, all
    finite, of at most :data:`MAX_ELEMENTS` entries (strings, bools, ``None`` and objects are
    refused, not converted). An array keeps its shape, any number of dimensions; an empty one is
    returned empty (the public-function guard refuses empty arguments separately). ``name``
    labels the messages: a non-empty string, else ``TypeError``/``ValueError``."""
    _check_name(name)
    if x is None or isinstance(x, (str, bytes, bool, np.bool_)):
        raise ValueError(f"{name} must be numeric, not {_describe(x)}")
    try:
        raw = np.asarray(x)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{name} must be numeric, not {_describe(x)}") from exc
    if raw.size > MAX_ELEMENTS:
        raise ValueError(f"{name} has {raw.size:,} elements; at most {MAX_ELEMENTS:,} are "
                         "accepted")
    if raw.dtype.kind not in "iuf" and not (raw.dtype.kind == "O" and _all_real(raw)):
        if not (raw.size == 0 and raw.dtype.kind in "fO"):
            raise ValueError(f"{name} must be numeric, not {_describe(x)}")
    try:
        arr = raw.astype(float)
    except (TypeError, ValueError, OverflowError) as exc:
        raise ValueError(f"{name} must be numeric, not {_describe(x)}") from exc
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} must be finite")
    return arr


def _all_real(raw: np.ndarray) -> bool:
    return all(isinstance(v, numbers.Real) and not isinstance(v, (bool, np.bool_))
               for v in raw.ravel())


def positive(name: str, x: Any) -> np.ndarray:
    """:func:`finite`, and ``ValueError`` unless every entry is > 0."""
    arr = finite(name, x)
    if np.any(arr <= 0):
        raise ValueError(f"{name} must be positive")
    return arr


def non_negative(name: str, x: Any) -> np.ndarray:
    """:func:`finite`, and ``ValueError`` unless every entry is >= 0."""
    arr = finite(name, x)
    if np.any(arr < 0):
        raise ValueError(f"{name} must be non-negative")
    return arr


def integer(name: str, x: Any, *, minimum: int = 0) -> np.ndarray:
    """:func:`finite`, and ``ValueError`` unless every entry is a whole number ``>= minimum``
    (``2.0`` is accepted, ``2.5`` is not: a layer or head count has no fractions); ``minimum``
    is a whole number."""
    minimum = _whole_bound("minimum", minimum)
    arr = finite(name, x)
    if np.any(arr != np.round(arr)):
        raise ValueError(f"{name} must be a whole number, not {_describe(x)}")
    if np.any(arr < minimum):
        raise ValueError(f"{name} must be at least {minimum}")
    return arr


def count(name: str, x: Any, *, minimum: int = 1, maximum: int = MAX_POINTS) -> int:
    """A size such as ``n_points``: a whole number in ``[minimum, maximum]``, as an ``int``
    (``minimum`` and ``maximum`` are whole numbers, ``minimum <= maximum``)."""
    minimum = _whole_bound("minimum", minimum)
    maximum = _whole_bound("maximum", maximum)
    if maximum < minimum:
        raise ValueError(f"maximum ({maximum}) must be at least minimum ({minimum})")
    arr = integer(name, x, minimum=minimum)
    if arr.ndim != 0:
        raise ValueError(f"{name} must be a single whole number")
    if arr > maximum:
        raise ValueError(f"{name} must be at most {maximum:,} (got {int(arr):,})")
    return int(arr)


def constants(
    defaults: Mapping[str, float], params: Mapping[str, Any] | None, *, what: str = "constant"
) -> dict[str, float]:
    """User-supplied law constants merged over the paper's ``defaults``, checked like inputs.

    Every constant must be a finite number; unknown names raise (a typo would otherwise be
    silently ignored). Signs are not imposed (refits explore constants of either sign); a
    constant that makes the law non-finite is refused by :func:`public` through the result.

    Raises
    ------
    ValueError
        For an unknown name or a non-numeric or non-finite value.
    """
    _check_name(what, "what")
    if not isinstance(defaults, Mapping) or not defaults:
        raise TypeError(f"defaults must be a non-empty mapping of names to numbers, "
                        f"not {_describe(defaults)}")
    merged = {}
    for key, value in defaults.items():
        number = finite(f"default {what} {key}", value)
        if number.ndim != 0:
            raise ValueError(f"default {what} {key} must be a single number")
        merged[str(key)] = float(number)
    if params is None:
        return merged
    if not isinstance(params, Mapping):
        raise ValueError(f"law {what}s must be a mapping of names to numbers, "
                         f"not {_describe(params)}")
    unknown = sorted(set(params) - set(defaults))
    if unknown:
        raise ValueError(f"unknown {what}s {unknown}; expected a subset of {list(defaults)}")
    for key, value in params.items():
        number = finite(f"{what} {key}", value)
        if number.ndim != 0:
            raise ValueError(f"{what} {key} must be a single number")
        merged[key] = float(number)
    return merged


_PACKAGE_DIR = str(Path(__file__).resolve().parent)


def caller_stacklevel() -> int:
    """The ``stacklevel`` that makes a warning point at the first frame outside ``moelaws``.

    A law may be reached through the public-function guard and other package functions, so a
    fixed level would point at package internals; the user wants the line that called the
    package. (Python 3.12's ``skip_file_prefixes`` does this; the book supports 3.10.)
    """
    frame, level = sys._getframe(1), 1
    while frame is not None and str(Path(frame.f_code.co_filename).resolve()).startswith(
            _PACKAGE_DIR):
        frame, level = frame.f_back, level + 1
    return level


def warn_if_far_outside(paper: str, quantity: str, x: Any,
                        fitted: tuple[float, float]) -> None:
    """Warn with :class:`ExtrapolationWarning` if any ``x`` lies more than
    :data:`FAR_OUTSIDE_DECADES` decades outside ``fitted``, the range of ``quantity`` that
    ``paper`` fitted (each paper's ``law.FITTED_RANGES``; ``paper`` names it in the message).

    The warning names the caller's line (the first frame outside the package), not this one."""
    low, high = fitted
    arr = np.asarray(x, dtype=float)
    shown = f"{float(arr):.3g}" if arr.ndim == 0 else f"values up to {np.max(arr):.3g}"
    factor = 10.0**FAR_OUTSIDE_DECADES
    if np.any(arr > high * factor) or np.any(arr < low / factor):
        warnings.warn(
            f"{quantity} = {shown} is more than {factor:.0e} times outside the range "
            f"[{low:.3g}, {high:.3g}] the {paper} paper fitted: the result is extrapolation",
            ExtrapolationWarning, stacklevel=caller_stacklevel(),
        )


# --- the public-function guard -------------------------------------------------------------
_NUMERIC_HINTS = ("float", "int", "Array", "ndarray", "Sequence[float]", "Sequence[int]")
F = TypeVar("F", bound=Callable[..., Any])


def _kind(annotation: Any) -> str | None:
    """'int', 'number' (a number or array), 'mapping' (law constants) or None (not checked)."""
    text = annotation if isinstance(annotation, str) else getattr(annotation, "__name__", "")
    text = str(text).replace(" ", "")
    if text.startswith("Mapping[str,float]"):
        return "mapping"
    if not text or "str" in text or "Config" in text or "Callable" in text or "Law" in text:
        return None
    if text in ("int", "int|None"):
        return "int"
    if any(h in text for h in _NUMERIC_HINTS) and "bool" not in text and "dict" not in text:
        return "number"
    return None


SIZE_PARAMETERS = frozenset({"n_points", "n_resamples", "n_repeats", "n_samples", "n_grid"})
"""Integer arguments that set how much work a function does; capped at :data:`MAX_POINTS`."""


def _check_result(name: str, value: Any, *, in_record: bool = False,
                  allow_nan: bool = False) -> None:
    if isinstance(value, (bool, np.bool_)):
        return
    if not in_record and (isinstance(value, Mapping) or dataclasses.is_dataclass(value)):
        # Inside a mapping or a record (a design, a feasible range) NaN may mean "not
        # applicable" or "infeasible", so only an overflow to infinity of a computed (NumPy)
        # value is refused there.
        items = (value.values() if isinstance(value, Mapping)
                 else (getattr(value, f.name) for f in dataclasses.fields(value)))
        for v in items:
            if isinstance(v, (np.ndarray, np.floating, float)) and not isinstance(v, bool):
                _check_result(name, v, in_record=True)
        return
    if isinstance(value, (numbers.Real, np.ndarray)):
        arr = np.asarray(value)
        if arr.dtype.kind not in "fc":
            return
        bad = np.isinf(arr) if in_record or allow_nan else ~np.isfinite(arr)
        if np.any(bad):
            raise ValueError(
                f"{name}: the result is not finite for these inputs (an overflow or a value "
                "outside the law's domain); use inputs nearer the range the paper fitted"
            )
    elif isinstance(value, tuple) and not in_record:
        for v in value:
            if isinstance(v, (numbers.Real, np.ndarray)):
                _check_result(name, v, allow_nan=allow_nan)


def _check_shape(label: str, arr: np.ndarray) -> None:
    # Any number of dimensions broadcasts (the package itself evaluates laws on 4-D grids), but
    # an empty argument gives an empty result that hides the mistake.
    if arr.size == 0:
        raise ValueError(f"{label} is empty; give at least one value")


_CONTAINERS: tuple[tuple[str, Any, str], ...] = (
    ("bool", (bool, np.bool_), "True or False"),
    ("str", str, "a string"),
    ("Mapping", Mapping, "a mapping"),
    ("dict", dict, "a dict"),
    ("pd.DataFrame", object, "a pandas DataFrame"),
)


def _check_container(label: str, value: Any, annotation: Any) -> None:
    """``TypeError`` naming the parameter when ``value`` is not of its annotated kind, for the
    annotations that name one kind only (``bool``, ``str``, ``Mapping[...]``, ``dict[...]``,
    ``pd.DataFrame``, each optionally ``| None``): a truthy string where a flag belongs would
    otherwise silently switch the flag on."""
    import pandas as pd

    text = str(annotation).replace(" ", "").removesuffix("|None")
    for prefix, cls, words in _CONTAINERS:
        exact = text == prefix or text.startswith(prefix + "[")
        if not exact or "|" in text:
            continue
        if prefix == "pd.DataFrame":
            cls = pd.DataFrame
        if not isinstance(value, cls):
            raise TypeError(f"{label} must be {words}, not {_describe(value)}")
        return


def _type_hints(fn: Callable[..., Any]) -> dict[str, Any]:
    """``fn``'s resolved annotations, or none when one cannot be resolved here (then those
    parameters are left unchecked)."""
    try:
        return typing.get_type_hints(fn)
    except Exception:
        return {}


def _literal_parameters(fn: Callable[..., Any]) -> dict[str, tuple[str, ...]]:
    """Parameters annotated ``Literal["a", "b", ...]`` (strings only): name → the choices."""
    hints = _type_hints(fn)
    found = {}
    for name, hint in hints.items():
        if typing.get_origin(hint) is typing.Literal and all(
                isinstance(a, str) for a in typing.get_args(hint)):
            found[name] = typing.get_args(hint)
    return found


def _record_parameters(fn: Callable[..., Any]) -> dict[str, type]:
    """Parameters annotated with one dataclass (optionally ``| None``): name → that class.

    A plain number passed where a record (e.g. ``HeadSettings``) belongs would otherwise fail
    deep inside the law with an ``AttributeError``.
    """
    hints = _type_hints(fn)
    found = {}
    for name, hint in hints.items():
        options = [a for a in typing.get_args(hint) if a is not type(None)] or [hint]
        if (name != "return" and len(options) == 1 and isinstance(options[0], type)
                and dataclasses.is_dataclass(options[0])):
            found[name] = options[0]
    return found


def public(fn: F, *, allow_nan: bool = False) -> F:
    """Wrap a public function so that its numeric arguments are checked and its numeric result
    is finite (see the module docstring). Arguments left at their defaults are not re-checked.
    ``allow_nan`` is for the few functions whose docstring documents NaN as "no solution"
    (infinity is still refused).

    An overflow inside the law (``OverflowError``, ``ZeroDivisionError``) becomes a
    ``ValueError`` naming the function.
    """
    sig = inspect.signature(fn)
    kinds = {p.name: _kind(p.annotation) for p in sig.parameters.values()}
    var_kw = [p.name for p in sig.parameters.values() if p.kind is p.VAR_KEYWORD]
    records = _record_parameters(fn)
    choices = _literal_parameters(fn)

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            bound = sig.bind(*args, **kwargs)
        except TypeError as exc:
            raise ValueError(f"{fn.__name__}: {exc}") from None
        for pname, value in bound.arguments.items():
            kind = kinds.get(pname)
            if pname in var_kw and kind == "number":
                for key, v in value.items():
                    finite(f"{fn.__name__}: {key}", v)
                continue
            label = f"{fn.__name__}: {pname}"
            if value is None:
                hint = str(sig.parameters[pname].annotation)
                if "None" not in hint and kind is not None:
                    raise ValueError(f"{label} is required, not None")
                if kind is None and "None" not in hint and "Any" not in hint:
                    # a flag or a string left None would otherwise fall back silently
                    _check_container(label, value, sig.parameters[pname].annotation)
                continue
            if pname in records and not isinstance(value, records[pname]):
                raise TypeError(f"{label} must be a {records[pname].__name__}, "
                                f"not {_describe(value)}")
            if pname in choices:
                if not isinstance(value, str) or value not in choices[pname]:
                    raise ValueError(f"{label} must be one of {list(choices[pname])}, not "
                                     f"{_describe(value)}")
                continue
            if kind is None:
                _check_container(label, value, sig.parameters[pname].annotation)
                continue
            if pname in SIZE_PARAMETERS:
                count(label, value)
            elif kind == "int":
                if np.ndim(finite(label, value)) != 0:
                    raise ValueError(f"{label} must be a single whole number")
                integer(label, value)
            elif kind == "number":
                arr = finite(label, value)
                _check_shape(label, arr)
                hint = str(sig.parameters[pname].annotation).replace(" ", "")
                if hint in ("float", "float|None") and arr.ndim != 0:
                    raise ValueError(f"{label} must be a single number")
            elif kind == "mapping":
                if not isinstance(value, Mapping):
                    raise ValueError(f"{label} must be a mapping of names to numbers")
                for key, v in value.items():
                    finite(f"{label}[{key!r}]", v)
                default = sig.parameters[pname].default
                if isinstance(default, Mapping):
                    unknown = sorted(map(str, set(value) - set(default)))
                    if unknown:
                        raise ValueError(f"{label}: unknown names {unknown}; expected a subset "
                                         f"of {sorted(default)}")
                    # names left out keep their defaults (a partial override)
                    bound.arguments[pname] = {**default, **value}
        try:
            result = fn(*bound.args, **bound.kwargs)
        except (OverflowError, ZeroDivisionError) as exc:
            raise ValueError(f"{fn.__name__}: inputs outside the law's numerical range "
                             f"({type(exc).__name__}: {exc})") from exc
        except ValueError as exc:
            if not _raised_in_scipy(exc):
                raise
            # SciPy's own wording ("The function value at x=inf is NaN") names neither the
            # function nor the inputs that led there.
            given = ", ".join(f"{k}={_describe(v)}" for k, v in bound.arguments.items())
            raise ValueError(f"{fn.__name__}: no finite solution for these inputs ({given}); "
                             f"use inputs nearer the range the paper fitted (SciPy: {exc})"
                             ) from exc
        except (AttributeError, IndexError, KeyError) as exc:
            # An argument of the right type but the wrong shape or content (a record without a
            # field, a table without a column) reached code that assumed it.
            given = ", ".join(f"{k}={_describe(v)}" for k, v in bound.arguments.items())
            raise ValueError(f"{fn.__name__}: invalid arguments ({given}): "
                             f"{type(exc).__name__}: {exc}") from exc
        _check_result(fn.__name__, result, allow_nan=allow_nan)
        return result

    wrapper.__wrapped_public__ = True  # type: ignore[attr-defined]
    return wrapper  # type: ignore[return-value]


def _raised_in_scipy(exc: BaseException) -> bool:
    tb = exc.__traceback__
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    return tb is not None and f"{os.sep}scipy{os.sep}" in tb.tb_frame.f_code.co_filename


def documents_nan(fn: Callable[..., Any]) -> bool:
    """Whether ``fn``'s docstring documents a NaN result ("no solution", "not applicable"):
    only such functions may return NaN."""
    if not callable(fn):
        raise TypeError(f"fn must be a function, not {_describe(fn)}")
    return "NaN" in (fn.__doc__ or "")


def guard_public(namespace: dict[str, Any], names: list[str]) -> None:
    """Apply :func:`public` to every function of ``names`` in ``namespace`` (a package's
    ``globals()`` and its ``__all__``), once. A function whose docstring documents NaN
    (:func:`documents_nan`) keeps its NaN results; infinity is refused everywhere."""
    for name in names:
        obj = namespace.get(name)
        if inspect.isfunction(obj) and not getattr(obj, "__wrapped_public__", False):
            namespace[name] = public(obj, allow_nan=documents_nan(obj))


# --- the command line ------------------------------------------------------------------------
CLI_RANGES: dict[str, tuple[float, float, str]] = {
    "compute": (1e15, 1e30, "FLOPs"),
    "total_params": (1e6, 1e15, "parameters"),
    "active_params": (1e6, 1e15, "parameters"),
}
"""What ``python -m moelaws design`` accepts for each budget, and ``counts`` for a
configuration's total parameters: from a toy model to far beyond any trained one. Outside these
ranges some laws give no finite number (a learning rate of 1e45, a band of NaN), so the command
refuses instead."""


def cli_value(name: str, value: float) -> float:
    """A command-line budget, or a ``ValueError`` naming the option and its valid range."""
    low, high, unit = CLI_RANGES[name]
    option = "--" + name.replace("_", "-")
    if not (math.isfinite(value) and low <= value <= high):
        raise ValueError(f"{option} {value:g} is outside the accepted range "
                         f"[{low:g}, {high:g}] {unit}")
    return value


def cli_text(text: str, what: str) -> str:
    """Command-line output, or a ``ValueError`` if it would print a NaN or an infinity."""
    import re

    if re.search(r"(?<![\w.])[-+]?(nan|inf)(?![\w])", text, flags=re.IGNORECASE):
        ranges = "; ".join(f"--{k.replace('_', '-')} in [{lo:g}, {hi:g}] {u}"
                           for k, (lo, hi, u) in CLI_RANGES.items())
        raise ValueError(f"{what} gives no finite value for these inputs (valid: {ranges})")
    return text
