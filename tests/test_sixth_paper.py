"""A sixth paper, written as a real package outside ``moelaws``, reaches every cross-paper view.

Issue 26's test: the registry (:mod:`moelaws.papers`) is the only list of papers. The fixture
writes a paper package ``toy6/`` into a temporary directory (``law.py`` with one vectorised law
and its ``FITTED_RANGES``, ``claims.py`` with two claims read from a one-table CSV, ``paper.py``
with its ``PAPER`` adapter) and a chapter stub, puts the directory on ``sys.path`` and adds the
paper with one line, ``papers.registered("toy6.paper")``: the same module name the five papers
have in :data:`moelaws.papers.ADAPTERS`. No file of the repository is touched. Each test then
looks for the paper in one view: the claims registry, ``moelaws reproduce``, ``design``,
``counts``, :mod:`moelaws.compare`, the property sweep, the reproduced tables and the data
tables (its adapter's ``data_tables`` role).
"""

from __future__ import annotations

import dataclasses
import importlib
import math
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import jupytext
import pytest
from cli_runner import run_cli
from test_properties import check_law, public_laws

from moelaws import arch, claims, conventions, data_tables, papers
from moelaws.claims import tables
from moelaws.compare import calculator, card, counting, recommend, regimes, verdicts
from moelaws.data_tables import DATA_TABLES
from moelaws.interactive_tables import data_interactive_table

ID = "toy6"

INIT = '''\
"""Toy sixth paper (test 2026): an optimal ratio r*(C) = 2 (C/1e20)^0.1."""

from moelaws.validation import guard_public
from toy6.law import FITTED_RANGES, optimal_ratio

__all__ = ["FITTED_RANGES", "optimal_ratio"]

guard_public(globals(), __all__)
'''

LAW = '''\
"""The toy paper's law (its Eq. 1), vectorised, with the range it was fitted on."""

from moelaws.validation import positive, warn_if_far_outside

FITTED_RANGES = {"C": (1e18, 1e20)}
"""Table 1's budgets, training FLOPs."""


def optimal_ratio(C):
    """Eq. 1: r* = 2 (C/1e20)^0.1.

    Raises
    ------
    ValueError
        If ``C`` is not finite and positive.
    """
    c = positive("C", C)
    warn_if_far_outside("toy6", "C", c, FITTED_RANGES["C"])
    return 2.0 * (c / 1e20) ** 0.1
'''

TABLE1 = "C,r_star\n1e19,1.59\n1e20,2.00\n"

CLAIMS = '''\
"""The toy paper's claims: Table 1's two printed r*, recomputed by Eq. 1."""

from pathlib import Path

import pandas as pd

from moelaws.claim import Claim
from toy6.law import optimal_ratio

TABLE1 = pd.read_csv(Path(__file__).with_name("data") / "table1.csv", dtype={"r_star": str})

CLAIMS = [
    Claim(paper="toy6", ref=f"Table 1, C = {row.C:.0e}", quantity="r*", printed=row.r_star,
          compute=lambda C=row.C: float(optimal_ratio(C)), kind="reproduction")
    for row in TABLE1.itertuples(index=False)
]
'''

PAPER = '''\
"""The toy paper's adapter in the registry of papers."""

import dataclasses
import math

from moelaws.arch.counting import exact_counts
from moelaws.roles import (
    CalculatorBlock, Card, Convention, DataTable, Paper, Range, Recommendation, out_of_range,
)
from toy6.law import FITTED_RANGES, optimal_ratio

ID = "toy6"
CONVENTION = "toy6: exact counts, C = training FLOPs"


def _claims():
    from toy6.claims import CLAIMS

    return list(CLAIMS)


def fitted_ranges():
    return {q: Range(q, low, high, "Table 1") for q, (low, high) in FITTED_RANGES.items()}


def ratios(cfg):
    return {"k/E (toy6)": cfg.top_k / cfg.n_experts if cfg.is_moe else math.nan}


def recommend(budget):
    if budget.compute is None:
        return Recommendation.not_applicable(ID, PAPER.label, "needs --compute", CONVENTION)
    return Recommendation(
        ID, PAPER.label, True, values={"r* (toy6)": float(optimal_ratio(budget.compute))},
        convention=CONVENTION, open_fields="everything but r*",
        flags=tuple(out_of_range(fitted_ranges(), C=budget.compute)))


def _table1():
    from toy6.claims import TABLE1

    return TABLE1.assign(ours=[float(optimal_ratio(C)) for C in TABLE1["C"]])


def data_tables():
    return {"toy6-table-1": DataTable(
        paper=ID, caption="Table 1 (paper) vs ours: r* at two budgets",
        source="Table 1 (printed r*); ours from Eq. 1", load=_table1)}


def verdict(cfg, tokens):
    C = exact_counts(cfg).compute_per_token * (math.nan if tokens is None else tokens)
    return {"r* (toy6)": float(optimal_ratio(C)) if math.isfinite(C) else math.nan,
            "convention": CONVENTION, "flags": out_of_range(fitted_ranges(), C=C),
            "caveat": ""}


PAPER = Paper(
    id=ID,
    title="A toy sixth paper outside the package",
    label="Toy sixth paper (test 2026)",
    docname="notebooks/97_toy6",
    claims=_claims,
    convention=Convention(
        ID, lambda cfg: dataclasses.replace(exact_counts(cfg), convention=ID),
        "toy6: the exact count, under its own name"),
    ratios=ratios,
    recommend=recommend,
    fitted_ranges=fitted_ranges,
    verdict=verdict,
    card=Card(
        definitions={"N, N_a": "exact", "compute C": "training FLOPs", "G": "-", "S": "-",
                     "r / sparsity": "k/E"},
        values=lambda cfg: {"G value": math.nan, "S value": math.nan,
                            "r / sparsity value": cfg.top_k / cfg.n_experts},
    ),
    calculator=CalculatorBlock(sliders=("C",), keys=("r* (toy6)",),
                               active=lambda rec: math.nan, tokens=lambda rec: math.nan),
    data_tables=data_tables,
)
'''

CHAPTER = '''\
---
jupytext:
  text_representation:
    extension: .md
    format_name: myst
kernelspec:
  name: python3
  display_name: Python 3
---

# A toy sixth paper

```{code-cell} ipython3
from moelaws.interactive_tables import chapter_claims_table

chapter_claims_table("toy6")
```
'''


def toy_law(C: float) -> float:
    return 2.0 * (C / 1e20) ** 0.1


@pytest.fixture
def sixth(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[papers.Paper]:
    """The toy paper package in ``tmp_path``, registered for the test."""
    pkg = tmp_path / ID
    (pkg / "data").mkdir(parents=True)
    for name, text in (("__init__.py", INIT), ("law.py", LAW), ("claims.py", CLAIMS),
                       ("paper.py", PAPER), ("data/table1.csv", TABLE1)):
        (pkg / name).write_text(textwrap.dedent(text), encoding="utf-8")
    (tmp_path / "notebooks").mkdir()
    (tmp_path / "notebooks" / "97_toy6.md").write_text(CHAPTER, encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    try:
        with papers.registered("toy6.paper") as paper:  # the one line that adds the paper
            yield paper
    finally:
        for name in [m for m in sys.modules if m == ID or m.startswith(f"{ID}.")]:
            del sys.modules[name]
    assert ID not in papers.ids()


def test_the_paper_is_in_the_registry(sixth: papers.Paper) -> None:
    assert papers.ids()[-1] == ID
    assert papers.get(ID) is sixth is importlib.import_module("toy6.paper").PAPER
    assert papers.packages()[-1] == ID
    law = importlib.import_module("toy6.law")
    assert {q: (r.low, r.high) for q, r in sixth.fitted_ranges().items()} == law.FITTED_RANGES
    with pytest.raises(ValueError, match="already registered"), papers.registered(ID + ".paper"):
        pass
    with pytest.raises(ValueError, match=r"no adapter module .toy6\.nothing."):
        papers.registered("toy6.nothing")
    with pytest.raises(TypeError, match=r"toy6\.law\.PAPER is not"):
        papers.registered("toy6.law")


def test_claims_and_reproduce(sixth: papers.Paper) -> None:
    assert [c.ref for c in claims.all_claims(ID)] == ["Table 1, C = 1e+19", "Table 1, C = 1e+20"]
    results = claims.results(ID)
    assert [r.ok for r in results] == [True, True]
    assert [r.ours for r in results] == pytest.approx([toy_law(1e19), toy_law(1e20)])
    proc = run_cli("reproduce", "--paper", ID)
    assert proc.returncode == 0, proc.stderr
    assert f"== {ID}: {sixth.title}" in proc.stdout
    assert f"-- {ID}: 2 claims, 2 reproduced" in proc.stdout
    every = run_cli("reproduce", "--json")
    assert f'"paper": "{ID}"' in every.stdout


def test_design(sixth: papers.Paper) -> None:
    proc = run_cli("design", "--compute", "1e22")
    assert proc.returncode == 0, proc.stderr
    assert f"== {ID}: {sixth.label}" in proc.stdout
    assert f"r* (toy6)  {toy_law(1e22):.4g}" in proc.stdout
    assert "above the fitted range [1e+18, 1e+20] (Table 1)" in proc.stdout


def test_counts_has_its_convention(sixth: papers.Paper) -> None:
    assert ID in conventions.names()
    cfg = arch.preset("OLMoE-1B-7B")
    counted = conventions.counts(cfg, ID)
    assert counted.convention == ID and counted.total == arch.counts(cfg, "exact").total
    proc = run_cli("counts", "OLMoE-1B-7B")
    assert proc.returncode == 0, proc.stderr
    assert f"\n{ID} " in proc.stdout and "k/E (toy6)" in proc.stdout


def test_compare(sixth: papers.Paper) -> None:
    recs = recommend.recommend(compute=1e19)
    assert recs[-1].paper == ID and recs[-1].flags == ()
    assert recs[-1].values["r* (toy6)"] == pytest.approx(toy_law(1e19))
    assert regimes.fitted_ranges()[ID]["C"].high == 1e20
    tidy = verdicts.verdicts(["OLMoE-1B-7B"])
    C = arch.counts(arch.preset("OLMoE-1B-7B"), "exact").compute_per_token * 5e12
    assert tidy[tidy["paper"] == ID]["value"].tolist() == pytest.approx([toy_law(C)])
    assert card.convention_card(arch.preset("Mixtral-8x7B")).loc[
        ID, "r / sparsity value"] == pytest.approx(2 / 8)
    report = counting.counts_report(arch.preset("Mixtral-8x7B"))
    assert report["counts"][ID]["note"] == "toy6: the exact count, under its own name"
    assert report["ratios"]["k/E (toy6)"] == pytest.approx(0.25)
    grid = calculator.calculator_grid(progress=False)
    assert len(grid[grid["paper"] == ID]) == len(calculator.LOG_C)


def test_property_sweep_finds_its_law(sixth: papers.Paper) -> None:
    laws = {name: rest for name, *rest in public_laws(papers.packages())}
    assert "toy6.optimal_ratio" in laws
    fn, base, numeric = laws["toy6.optimal_ratio"]
    assert numeric == ["C"]
    for value in (math.nan, math.inf, -1.0, 0.0, "1e9", None, [1.0, math.nan], 1e300, 1e19):
        check_law("toy6.optimal_ratio", fn, base, "C", value)


def test_tables(sixth: papers.Paper) -> None:
    listing = tables.list_tables(ID)
    assert listing[["paper", "table", "claims"]].values.tolist() == [[ID, "Table 1", 2]]
    df = tables.reproduced_table(ID, "Table 1")
    assert df["paper value"].tolist() == ["1.59", "2.00"]
    assert (df["as expected"] == "yes").all()
    assert ID in set(tables.reproduced_table()["paper"])
    proc = run_cli("tables", "--paper", ID)
    assert proc.returncode == 0, proc.stderr
    assert f"== {ID}: {sixth.title}" in proc.stdout and "Table 1" in proc.stdout
    csv = run_cli("reproduce", "--paper", ID, "--table", "1", "--format", "csv")
    assert csv.returncode == 0 and "1.59" in csv.stdout


def test_the_chapter_stub_shows_its_claims(sixth: papers.Paper, tmp_path: Path) -> None:
    notebook = jupytext.read(tmp_path / "notebooks" / "97_toy6.md")
    namespace: dict = {}
    *cells, last = next(c.source for c in notebook.cells if c.cell_type == "code").splitlines()
    exec("\n".join(cells), namespace)
    shown = eval(last, namespace)
    assert "Table 1, C = 1e+19" in shown._repr_html_()
    assert sixth.docname == "notebooks/97_toy6"


def test_a_data_table_name_is_taken_once(sixth: papers.Paper) -> None:
    clash = dataclasses.replace(sixth, id="toy7", data_tables=lambda: {
        "holistic-appendix": DATA_TABLES["holistic-appendix"]})
    with papers.registered(clash), pytest.raises(ValueError, match="already taken"):
        data_tables.all_data_tables()


def test_data_tables(sixth: papers.Paper) -> None:
    assert "toy6-table-1" not in DATA_TABLES
    assert data_tables.all_data_tables()["toy6-table-1"].paper == ID
    df = data_tables.data_table("toy6-table-1")
    assert df["ours"].tolist() == pytest.approx([toy_law(1e19), toy_law(1e20)])
    proc = run_cli("tables", "--paper", ID)
    assert "toy6-table-1" in proc.stdout
    csv = run_cli("data", "toy6-table-1")
    assert csv.returncode == 0 and csv.stdout == data_tables.data_csv("toy6-table-1")
    shown = data_interactive_table("toy6-table-1")
    assert "r* at two budgets" in shown._repr_html_()
