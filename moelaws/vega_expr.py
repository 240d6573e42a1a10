"""Vega expressions generated from the package's laws, and a small evaluator to test them.

The book's kernel-free charts evaluate laws in the browser, in Vega's expression language.
Each paper's ``views`` module writes those expressions from the law's own constants (never
typed in a chapter); :func:`evaluate` runs the subset of the language they use in Python, so
a test can compare every generated expression with the NumPy law it stands for.

The subset: number literals, names bound by the caller (slider parameters), ``datum.<field>``,
the constants ``LN2``, ``LN10``, ``E`` and ``PI``, ``+ - * /``, unary minus, and the functions
``pow``, ``log`` (natural), ``exp``, ``sqrt``, ``abs``, ``min`` and ``max``.
"""

from __future__ import annotations

import ast
import math
from collections.abc import Callable, Mapping

from moelaws.validation import public

__all__ = ["CONSTANTS", "FUNCTIONS", "evaluate", "literal"]

FUNCTIONS: dict[str, Callable[..., float]] = {
    "pow": math.pow, "log": math.log, "exp": math.exp, "sqrt": math.sqrt, "abs": abs,
    "min": min, "max": max,
}
"""Vega expression functions :func:`evaluate` knows, with their Python equivalents."""

CONSTANTS: dict[str, float] = {"LN2": math.log(2.0), "LN10": math.log(10.0), "E": math.e,
                               "PI": math.pi}
"""Vega expression constants :func:`evaluate` knows."""

_BINARY: dict[type, Callable[[float, float], float]] = {
    ast.Add: lambda a, b: a + b, ast.Sub: lambda a, b: a - b,
    ast.Mult: lambda a, b: a * b, ast.Div: lambda a, b: a / b,
}


@public
def literal(x: float) -> str:
    """A float as an exact Vega number literal (``repr``: shortest round-tripping form).

    Raises
    ------
    ValueError
        If ``x`` is not one finite number (Vega has no literal for infinity or NaN; a string
        or a bool is refused, not converted).
    """
    value = float(x)
    if not math.isfinite(value):
        raise ValueError(f"cannot write {x!r} as a Vega number literal")
    return repr(value)


@public
def evaluate(expr: str, variables: Mapping[str, float] | None = None,
             datum: Mapping[str, float] | None = None) -> float:
    """Evaluate a Vega expression of the subset above, as the browser would.

    Parameters
    ----------
    expr
        The expression.
    variables
        Values of the bare names it uses (Vega-Lite parameters such as a slider's ``logC``).
    datum
        Values of the ``datum.<field>`` references.

    Returns
    -------
    float
        The expression's value (IEEE double arithmetic, like JavaScript).

    Raises
    ------
    ValueError
        For syntax outside the subset, an unknown function or name, a missing field, a
        variable or field that is not a finite number, or a result that is not finite (an
        overflow, a division by zero).
    TypeError
        If ``expr`` is not a string, or ``variables`` or ``datum`` not a mapping.
    """
    variables = dict(variables or {})
    datum = dict(datum or {})
    try:
        tree = ast.parse(expr, mode="eval")
    except SyntaxError as err:
        raise ValueError(f"not a Vega expression of the supported subset: {expr!r}") from err

    def ev(node: ast.AST) -> float:
        if isinstance(node, ast.Expression):
            return ev(node.body)
        if isinstance(node, ast.Constant) and isinstance(node.value, int | float) \
                and not isinstance(node.value, bool):
            return float(node.value)
        if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
            return _BINARY[type(node.op)](ev(node.left), ev(node.right))
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.UAdd):
            value = ev(node.operand)
            return -value if isinstance(node.op, ast.USub) else value
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and not node.keywords:
            if node.func.id not in FUNCTIONS:
                raise ValueError(f"unknown Vega function {node.func.id!r}")
            return float(FUNCTIONS[node.func.id](*(ev(a) for a in node.args)))
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) \
                and node.value.id == "datum":
            if node.attr not in datum:
                raise ValueError(f"no value given for datum.{node.attr}")
            return float(datum[node.attr])
        if isinstance(node, ast.Name):
            if node.id in variables:
                return float(variables[node.id])
            if node.id in CONSTANTS:
                return CONSTANTS[node.id]
            raise ValueError(f"no value given for {node.id!r}")
        raise ValueError(f"unsupported syntax in a Vega expression: {ast.dump(node)[:80]}")

    return ev(tree)
