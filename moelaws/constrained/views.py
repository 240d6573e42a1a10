"""The constrained paper's laws in the browser: Vega expressions for Eq. 1-2 (parameter counts
per ``l·d²``) and Eq. 3 (the loss landscape under two budgets), written from the constants of
:mod:`moelaws.constrained.law` (tested against it in
``tests/papers/constrained/test_constrained_chart_expressions.py``)."""

from __future__ import annotations

from collections.abc import Mapping

from moelaws.constrained import law as laws
from moelaws.vega_expr import literal


def per_layer_expression(experts: str, g: str = "4") -> str:
    """``4 + 3·experts/g``: Eq. 1-2's weights per layer in units of ``d²`` (``experts`` is
    ``n_exp`` for the total count, ``n_topk`` for the active one)."""
    attention, expert = literal(laws.ATTENTION_WEIGHTS), literal(laws.EXPERT_MATRICES)
    return f"({attention} + {expert} * ({experts}) / ({g}))"


def total_active_ratio_expression(n_exp: str = "datum.n_exp", n_topk: str = "topk",
                                  g: str = "gran") -> str:
    """``N_total / N_active = (4 + 3·n_exp/g) / (4 + 3·n_topk/g)`` (Eq. 1 over Eq. 2)."""
    return f"{per_layer_expression(n_exp, g)} / {per_layer_expression(n_topk, g)}"


def core_expression(total_budget: str, active_budget: str, n_exp: str = "datum.n_exp",
                    n_topk: str = "datum.n_topk", g: str = "4") -> str:
    """The largest core ``l·d²`` both budgets allow,
    ``min(C_total/(4 + 3·n_exp/g), C_active/(4 + 3·n_topk/g))``
    (as :func:`moelaws.constrained.design.landscape`)."""
    return (f"min(({total_budget}) / {per_layer_expression(n_exp, g)},"
            f" ({active_budget}) / {per_layer_expression(n_topk, g)})")


def relative_loss_expression(
    N_total: str, n_exp: str = "datum.n_exp", n_topk: str = "datum.n_topk",
    exponents: Mapping[str, float] | None = None,
) -> str:
    """Eq. 3 up to its unpublished factor, ``N_total^a · n_exp^b · n_topk^c`` (the exponents
    of :data:`moelaws.constrained.law.EXPONENTS` unless given).

    Raises
    ------
    ValueError
        If ``exponents`` lacks one of the keys ``N_total``, ``n_exp``, ``n_topk``.
    """
    exponents = laws.EXPONENTS if exponents is None else exponents
    missing = sorted({"N_total", "n_exp", "n_topk"} - set(exponents))
    if missing:
        raise ValueError(f"Eq. 3 exponents missing: {missing}")
    return (f"pow({N_total}, {literal(exponents['N_total'])})"
            f" * pow({n_exp}, {literal(exponents['n_exp'])})"
            f" * pow({n_topk}, {literal(exponents['n_topk'])})")


def budget_loss_expression(
    total_budget: str, active_budget: str, n_exp: str = "datum.n_exp",
    n_topk: str = "datum.n_topk", g: str = "4", exponents: Mapping[str, float] | None = None,
) -> str:
    """Eq. 3 at the largest core both budgets allow (:func:`core_expression`), the quantity
    :func:`moelaws.constrained.design.landscape` tabulates as ``loss``."""
    n_total = (f"{core_expression(total_budget, active_budget, n_exp, n_topk, g)}"
               f" * {per_layer_expression(n_exp, g)}")
    return relative_loss_expression(n_total, n_exp, n_topk, exponents)
