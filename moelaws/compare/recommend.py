"""Each paper's recommendation for a budget: compute C, and/or memory N and inference N_a.

:func:`recommend` returns one :class:`Recommendation` per paper of the registry that has a
``recommend`` role (:mod:`moelaws.papers`). A paper is applicable when the budgets it needs are
given (and within the range its procedure accepts); otherwise the record says why not. Where a
paper determines a whole architecture (holistic Sec. 7, constrained Algorithm 1) the record
carries an :class:`~moelaws.arch.MoEConfig` and its ``arch`` counts; otherwise it carries the
ratios the paper prescribes and names the fields the paper leaves open.

Budgets: ``compute`` is training FLOPs; ``total_params`` and ``active_params`` are
non-embedding parameter counts (each paper reads them in its own convention, see the record's
``convention``).
"""

from __future__ import annotations

import math
from dataclasses import replace

from moelaws import arch, conventions, papers
from moelaws.arch.hf_config import ConfigLike, accepts_hf_config
from moelaws.roles import Budget, Recommendation


def _check_budget(name: str, value: float | None) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValueError(f"{name} must be a number, got {value!r}")
    if isinstance(value, int) and value > 1e300:  # float() of it would overflow
        raise ValueError(f"{name} must be a positive finite number, got an integer "
                         "beyond float range")
    if not (math.isfinite(value) and value > 0):
        raise ValueError(f"{name} must be a positive finite number, got {value!r}")
    return float(value)


@accepts_hf_config
def arch_checks(cfg: ConfigLike, convention: str) -> dict[str, float]:
    """``arch`` counts of a recommended configuration, exact and in the paper's convention.

    Parameters
    ----------
    cfg : MoEConfig or Hugging Face config (dict, path or directory)

    Returns
    -------
    dict
        ``total``, ``active`` (non-embedding, exact), ``embedding``, ``forward FLOPs/token`` and
        ``training FLOPs/token`` (exact, 3 x forward), and ``total (<convention>)``,
        ``active (<convention>)``, ``compute per token (<convention>)``.
    """
    exact = arch.counts(cfg, "exact")
    own = conventions.counts(cfg, convention)
    return {
        "total": exact.total, "active": exact.active, "embedding": exact.embedding,
        "forward FLOPs/token": exact.forward_flops,
        "training FLOPs/token": exact.compute_per_token,
        f"total ({convention})": own.total, f"active ({convention})": own.active,
        f"compute per token ({convention})": own.compute_per_token,
    }


def not_applicable(paper: str, reason: str, convention: str) -> Recommendation:
    """The record of a paper whose procedure cannot run on the given budgets.

    A paper's own adapter, below the registry, builds the same record with
    :meth:`Recommendation.not_applicable`, giving its label itself.

    Raises
    ------
    ValueError
        For an unknown ``paper``, or an empty ``reason`` or ``convention``.
    """
    for label, text in (("reason", reason), ("convention", convention)):
        if not isinstance(text, str) or not text.strip():
            raise ValueError(f"{label} must be a non-empty string, got {text!r}")
    return Recommendation.not_applicable(paper, papers.get(paper).label, reason, convention)


def recommend(
    compute: float | None = None,
    total_params: float | None = None,
    active_params: float | None = None,
    *,
    sparsity: float | None = None,
) -> list[Recommendation]:
    """Each paper's recommendation for a training-compute and/or memory and inference budget.

    Parameters
    ----------
    compute
        Training compute in FLOPs (leverage, holistic, allocation; comprehensive converts it
        to D·N_a as compute/6).
    total_params
        Memory budget: total non-embedding parameters (constrained, comprehensive).
    active_params
        Inference budget: active non-embedding parameters per token (constrained; checked
        against the comprehensive band).
    sparsity
        The allocation paper's S = (E − E_act)/E for Eq. 1, in [0, 1); ``None`` for its
        default.

    Returns
    -------
    list of Recommendation
        One per paper with a ``recommend`` role, in the registry's (reading) order.

    Raises
    ------
    ValueError
        If no budget is given, a budget is not a positive finite number,
        ``active_params > total_params``, or ``sparsity`` is outside [0, 1).
    """
    compute = _check_budget("compute", compute)
    total_params = _check_budget("total_params", total_params)
    active_params = _check_budget("active_params", active_params)
    if compute is None and total_params is None and active_params is None:
        raise ValueError("give at least one budget: compute, total_params or active_params")
    if total_params is not None and active_params is not None and active_params > total_params:
        raise ValueError(f"active_params ({active_params:.4g}) exceeds total_params "
                         f"({total_params:.4g})")
    if sparsity is not None and not (isinstance(sparsity, (int, float)) and 0 <= sparsity < 1):
        raise ValueError(f"sparsity must lie in [0, 1), got {sparsity!r}")
    budget = Budget(compute, total_params, active_params, sparsity)
    return [_over_budget(_with_checks(p.recommend(budget)), total_params, active_params)
            for p in papers.having("recommend")]


def _with_checks(rec: Recommendation) -> Recommendation:
    """``rec`` with the ``arch`` counts and every paper's ratios of its configuration (a paper's
    adapter gives the configuration; the other papers' conventions are seen only from here)."""
    if rec.config is None:
        return rec
    own = papers.get(rec.paper)
    checks = rec.checks or (arch_checks(rec.config, own.convention.name)
                            if own.convention is not None else {})
    return replace(rec, checks=checks, ratios=rec.ratios or conventions.all_ratios(rec.config))


def _over_budget(rec: Recommendation, total_params: float | None,
                 active_params: float | None) -> Recommendation:
    """``rec`` with a flag for every budget its configuration exceeds (a paper whose law
    ignores a budget, e.g. a compute-only law, may recommend more parameters than it)."""
    if not rec.applicable or not rec.checks:
        return rec
    extra = []
    for key, budget, option in (("total", total_params, "--total-params"),
                                ("active", active_params, "--active-params")):
        value = rec.checks.get(key)
        if budget is not None and value is not None and value > budget:
            extra.append(f"OVER BUDGET: {key} parameters {value / 1e9:.4g}B (exact, "
                         f"non-embedding) exceed {option} {budget / 1e9:.4g}B; this paper's "
                         "law does not take that budget into account")
    return replace(rec, flags=(*rec.flags, *extra)) if extra else rec


__all__ = [
    "Budget",
    "Recommendation",
    "arch_checks",
    "not_applicable",
    "recommend",
]


from moelaws.validation import guard_public  # noqa: E402

# recommend checks its budgets itself (messages the command line shows)
guard_public(globals(), [name for name in __all__ if name != "recommend"])
