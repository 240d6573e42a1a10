"""Table 3 / Table 8's analysis: OLS of log-loss on log-variables, with t-tests and collinearity.

The paper regresses ``log L`` on logarithms of ``N_total``, ``N_active``, ``s``, ``n_exp``,
``n_topk`` (and two interaction terms) with statsmodels OLS, and compares the specifications
by R², the significance of each variable (t-tests at 0.05) and the condition number. The
paper's losses are not published; the chapter applies this module to our own toy runs.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
from statsmodels.regression.linear_model import OLS, RegressionResultsWrapper
from statsmodels.tools.tools import add_constant

SPECS: dict[str, tuple[str, ...]] = {
    "log(N_total) only": ("N_total",),
    "log(N_active) only": ("N_active",),
    "log(N_active) + log(s)": ("N_active", "s"),
    "log(N_total) + log(s)": ("N_total", "s"),
    "log(N_total) + log(n_exp) + log(n_topk)": ("N_total", "n_exp", "n_topk"),
    "log(N_active) + log(n_exp) + log(n_topk)": ("N_active", "n_exp", "n_topk"),
    "log(N_total) + log(s) + interaction": ("N_total", "s", "N_total*s"),
    "log(N_total) + log(N_active) + interaction": ("N_total", "N_active", "N_total*N_active"),
    "log(N_total) + log(N_active) + log(s)": ("N_total", "N_active", "s"),
    "log(N_total) + log(N_active)": ("N_total", "N_active"),
    "log(N_total) + log(N_active) + log(n_exp)": ("N_total", "N_active", "n_exp"),
    "log(N_total) + log(N_active) + log(n_topk)": ("N_total", "N_active", "n_topk"),
}
"""Table 8's specifications (Table 3's are the first nine), as terms in log-variables."""

PAPER_R2: dict[str, float] = {
    "log(N_total) only": 0.926,
    "log(N_active) only": 0.641,
    "log(N_active) + log(s)": 0.944,
    "log(N_total) + log(s)": 0.983,
    "log(N_total) + log(n_exp) + log(n_topk)": 0.985,
    "log(N_active) + log(n_exp) + log(n_topk)": 0.981,
    "log(N_total) + log(s) + interaction": 0.983,
    "log(N_total) + log(N_active) + interaction": 0.988,
    "log(N_total) + log(N_active) + log(s)": 0.985,
    "log(N_total) + log(N_active)": 0.979,
    "log(N_total) + log(N_active) + log(n_exp)": 0.983,
    "log(N_total) + log(N_active) + log(n_topk)": 0.984,
}
"""R² printed in Table 8 (on the paper's unpublished losses), for side-by-side display."""

VARIABLES = ("N_total", "N_active", "n_exp", "n_topk")


def log_features(data: pd.DataFrame) -> pd.DataFrame:
    """Logarithms of the regressors, ``s = n_exp / n_topk`` and the interaction terms.

    Parameters
    ----------
    data
        Columns ``N_total``, ``N_active``, ``n_exp``, ``n_topk`` (positive) and ``loss``.

    Returns
    -------
    pandas.DataFrame
        Columns ``log_loss`` and one per term used in :data:`SPECS`.

    Raises
    ------
    ValueError
        If a column is missing or a value is not positive and finite.
    """
    needed = (*VARIABLES, "loss")
    missing = [c for c in needed if c not in data]
    if missing:
        raise ValueError(f"missing columns: {missing}")
    values = data[list(needed)].to_numpy(dtype=float)
    if not np.all(np.isfinite(values)) or np.any(values <= 0):
        raise ValueError("loss, N_total, N_active, n_exp and n_topk must be positive and finite")
    out = pd.DataFrame(index=data.index)
    out["log_loss"] = np.log(data["loss"].astype(float))
    for name in VARIABLES:
        out[name] = np.log(data[name].astype(float))
    out["s"] = out["n_exp"] - out["n_topk"]
    out["N_total*s"] = out["N_total"] * out["s"]
    out["N_total*N_active"] = out["N_total"] * out["N_active"]
    return out


@dataclass(frozen=True)
class SpecFit:
    """One OLS fit: the statsmodels result and the summaries Table 3 uses."""

    name: str
    terms: tuple[str, ...]
    result: RegressionResultsWrapper

    @property
    def r2(self) -> float:
        return float(self.result.rsquared)

    @property
    def coefficients(self) -> pd.Series:
        return self.result.params.drop("const")

    @property
    def pvalues(self) -> pd.Series:
        return self.result.pvalues.drop("const")

    @property
    def condition_number(self) -> float:
        """statsmodels' condition number of the design matrix (constant included)."""
        return float(self.result.condition_number)

    @property
    def standardized_condition_number(self) -> float:
        """Condition number of the centred, unit-variance regressors: collinearity only,
        without the scale and offset of the log-variables."""
        x = self.result.model.exog[:, 1:]
        if x.shape[1] < 2:
            return 1.0
        z = (x - x.mean(axis=0)) / x.std(axis=0)
        return float(np.linalg.cond(z))


def fit_spec(data: pd.DataFrame, terms: Sequence[str], name: str = "") -> SpecFit:
    """OLS of ``log L`` on ``terms`` (names from :data:`SPECS`) plus a constant.

    Parameters
    ----------
    data
        As in :func:`log_features`.
    terms
        Regressors, e.g. ``("N_total", "n_exp", "n_topk")``.
    name
        Label of the specification.

    Returns
    -------
    SpecFit

    Raises
    ------
    ValueError
        If a term is unknown, there are not more observations than parameters, or the terms
        (with the constant) are collinear in ``data``, so their coefficients are not determined
        (e.g. runs that repeat two designs over seeds).
    """
    feats = log_features(data)
    unknown = [t for t in terms if t not in feats.columns or t == "log_loss"]
    if unknown or not terms:
        raise ValueError(f"unknown or empty terms: {list(terms)}")
    if len(feats) <= len(terms) + 1:
        raise ValueError(f"{len(feats)} observations cannot fit {len(terms) + 1} parameters")
    exog = add_constant(feats[list(terms)], has_constant="add")
    rank = np.linalg.matrix_rank(exog.to_numpy(dtype=float))
    if rank < exog.shape[1]:
        constant = [t for t in terms if feats[t].nunique() == 1]
        raise ValueError(
            f"{list(terms)} with a constant have rank {rank} < {exog.shape[1]} in these "
            f"{len(feats)} runs ({feats[list(terms)].drop_duplicates().shape[0]} distinct "
            f"designs; constant here: {constant or 'none'}): the coefficients are not determined")
    result = OLS(feats["log_loss"], exog).fit()
    return SpecFit(name or " + ".join(terms), tuple(terms), result)


def table3(data: pd.DataFrame, specs: dict[str, tuple[str, ...]] | None = None,
           alpha: float = 0.05) -> pd.DataFrame:
    """Every specification of :data:`SPECS` fitted to ``data``: Table 8's analysis.

    Parameters
    ----------
    data
        As in :func:`log_features`.
    specs
        ``{name: terms}``; :data:`SPECS` by default.
    alpha
        Significance level of the t-tests.

    Returns
    -------
    pandas.DataFrame
        Indexed by specification: ``R2``, ``paper R2`` (Table 8, where it has the row),
        ``all significant``, ``max p``, ``cond``, ``cond (standardized)``, and
        ``coefficients`` (a ``term: value`` string).

    Raises
    ------
    ValueError
        As :func:`fit_spec`, or if ``alpha`` is not in (0, 1).
    """
    if not 0 < alpha < 1:
        raise ValueError("alpha must be in (0, 1)")
    rows = {}
    for name, terms in (specs or SPECS).items():
        fit = fit_spec(data, terms, name)
        rows[name] = {
            "R2": fit.r2,
            "paper R2": PAPER_R2.get(name, np.nan),
            "all significant": bool((fit.pvalues < alpha).all()),
            "max p": float(fit.pvalues.max()),
            "cond": fit.condition_number,
            "cond (standardized)": fit.standardized_condition_number,
            "coefficients": ", ".join(f"{k}: {v:+.4f}" for k, v in fit.coefficients.items()),
        }
    return pd.DataFrame.from_dict(rows, orient="index")
