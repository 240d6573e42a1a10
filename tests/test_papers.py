"""The registry of papers: one adapter per paper, in reading order, and nothing else to edit.

The central test registers a sixth paper that exists only in this file and checks that it
appears in ``moelaws reproduce``, ``moelaws design``, ``moelaws counts`` and every cross-paper
table of :mod:`moelaws.compare`, with no other module changed.
"""

from __future__ import annotations

import ast
import dataclasses
import importlib
import math
import re
from pathlib import Path

import pandas as pd
import pytest
from conftest import toc_chapters

from moelaws import arch, claims, conventions, papers
from moelaws.arch.counting import exact_counts
from moelaws.cli import main
from moelaws.compare import calculator, card, counting, recommend, regimes, verdicts
from moelaws.compare.recommend import Budget, Recommendation, not_applicable
from moelaws.compare.regimes import Range, flags

ROOT = Path(__file__).resolve().parent.parent


def test_registry_follows_the_table_of_contents() -> None:
    chapters = toc_chapters()
    docnames = [p.docname for p in papers.registry()]
    assert set(docnames) <= set(chapters), set(docnames) - set(chapters)
    positions = [chapters.index(d) for d in docnames]
    assert positions == sorted(positions)
    assert list(papers.ids()) == ["anatomy", "leverage", "holistic", "comprehensive",
                                  "constrained", "allocation"]


def test_each_paper_subpackage_exposes_its_adapter_under_the_same_name() -> None:
    for paper in papers.registry():
        if paper.id == "anatomy":
            assert importlib.import_module("moelaws.arch.paper").PAPER is paper
            continue
        module = importlib.import_module(f"moelaws.{paper.id}.paper")
        assert module.PAPER is paper
        for role in ("law", "paper"):
            assert importlib.util.find_spec(f"moelaws.{paper.id}.{role}") is not None
        assert paper.bib_key in (ROOT / "book" / "references.bib").read_text(encoding="utf-8")
        assert all(getattr(paper, role) is not None for role in
                   ("claims", "convention", "ratios", "recommend", "fitted_ranges", "verdict",
                    "card", "calculator"))


def test_lookups_name_the_valid_papers() -> None:
    with pytest.raises(ValueError, match="unknown paper id 'chinchilla'; choose from anatomy"):
        papers.get("chinchilla")
    with pytest.raises(ValueError, match="with a verdict role 'anatomy'"):
        papers.get("anatomy", "verdict")
    with pytest.raises(ValueError, match="unknown role"):
        papers.having("colour")
    with pytest.raises(ValueError, match="already registered"), \
            papers.registered(papers.get("leverage")):
        pass
    assert papers.ids("verdict") == ("leverage", "holistic", "comprehensive", "constrained",
                                     "allocation")
    assert conventions.names()[0] == "exact"


# --- a paper that exists only in this test ---------------------------------------------------

TOY_ID = "toylaw"


def toy_law(C: float) -> float:
    """The toy paper's law: an optimal ratio r* = 2·(C/1e20)^0.1."""
    return 2.0 * (C / 1e20) ** 0.1


def _toy_recommend(budget: Budget) -> Recommendation:
    if budget.compute is None:
        return not_applicable(TOY_ID, "needs --compute", "toy: C = training FLOPs")
    return Recommendation(TOY_ID, TOY.label, True, values={"r* (toy)": toy_law(budget.compute)},
                          convention="toy: C = training FLOPs", open_fields="everything else",
                          flags=tuple(flags(TOY_ID, C=budget.compute)))


def _toy_verdict(cfg: arch.MoEConfig, tokens: float | None) -> dict:
    C = conventions.counts(cfg, TOY_ID).compute_per_token * (math.nan if tokens is None else tokens)
    return {"r* (toy)": toy_law(C) if math.isfinite(C) else math.nan,
            "convention": "toy: exact counts", "flags": flags(TOY_ID, C=C), "caveat": ""}


def _toy_claims() -> list[claims.Claim]:
    return [claims.Claim(paper=TOY_ID, ref="Eq. 1 at C = 1e20", quantity="r* (toy)",
                         printed="2.0", compute=lambda: toy_law(1e20),
                         kind="reproduction")]


TOY = papers.Paper(
    id=TOY_ID,
    title="A toy paper registered by a test",
    label="Toy law (test 2026)",
    docname="notebooks/99_toy",
    claims=_toy_claims,
    convention=papers.Convention(
        TOY_ID, lambda cfg: dataclasses.replace(exact_counts(cfg), convention=TOY_ID),
        "the exact count, under another name"),
    ratios=lambda cfg: {"k/E (toy)": cfg.top_k / cfg.n_experts if cfg.is_moe else math.nan},
    recommend=_toy_recommend,
    fitted_ranges=lambda: {"C": Range("C", 1e18, 1e20, "toy sweep")},
    verdict=_toy_verdict,
    card=papers.Card(
        definitions={"N, N_a": "exact", "compute C": "training FLOPs", "G": "-", "S": "-",
                     "r / sparsity": "k/E"},
        values=lambda cfg: {"G value": math.nan, "S value": math.nan,
                            "r / sparsity value": cfg.top_k / cfg.n_experts},
    ),
    calculator=papers.CalculatorBlock(
        sliders=("C",), keys=("r* (toy)",), active=lambda rec: math.nan,
        tokens=lambda rec: math.nan),
)


def test_a_paper_registered_in_a_test_appears_everywhere(capsys) -> None:
    with papers.registered(TOY):
        assert papers.ids()[-1] == TOY_ID

        # claims and `moelaws reproduce`
        assert [c.paper for c in claims.all_claims(TOY_ID)] == [TOY_ID]
        assert main(["reproduce", "--paper", TOY_ID]) == 0
        out = capsys.readouterr().out
        assert f"== {TOY_ID}: {TOY.title}" in out
        assert f"-- {TOY_ID}: 1 claims, 1 reproduced" in out

        # `moelaws design` and `moelaws counts`
        assert main(["design", "--compute", "1e22"]) == 0
        out = capsys.readouterr().out
        assert f"== {TOY_ID}: {TOY.label}" in out
        assert f"r* (toy)  {toy_law(1e22):.4g}" in out
        assert "above the fitted range [1e+18, 1e+20] (toy sweep)" in out
        assert main(["counts", "OLMoE-1B-7B"]) == 0
        out = capsys.readouterr().out
        assert f"\n{TOY_ID} " in out and "k/E (toy)" in out

        # the cross-paper tables of moelaws.compare
        recs = recommend.recommend(compute=1e19)
        assert [r.paper for r in recs][-1] == TOY_ID and recs[-1].flags == ()
        assert regimes.fitted_ranges()[TOY_ID]["C"].high == 1e20
        tidy = verdicts.verdicts(["OLMoE-1B-7B"])
        toy_rows = tidy[tidy["paper"] == TOY_ID]
        C = arch.counts(arch.preset("OLMoE-1B-7B"), "exact").compute_per_token * 5e12
        assert toy_rows["value"].tolist() == pytest.approx([toy_law(C)])
        assert card.convention_card(arch.preset("Mixtral-8x7B")).loc[
            TOY_ID, "r / sparsity value"] == pytest.approx(2 / 8)
        report = counting.counts_report(arch.preset("Mixtral-8x7B"))
        assert report["counts"][TOY_ID]["note"] == "the exact count, under another name"
        assert report["ratios"]["k/E (toy)"] == pytest.approx(0.25)
        grid = calculator.calculator_grid(progress=False)
        toy_grid = grid[grid["paper"] == TOY_ID]
        assert len(toy_grid) == len(calculator.LOG_C)
        assert calculator.calculator_chart(grid).to_dict()["vconcat"]

    assert TOY_ID not in papers.ids()
    assert TOY_ID not in conventions.names()
    with pytest.raises(ValueError, match="toylaw"):
        claims.all_claims(TOY_ID)


# --- no per-paper list outside the registry and the adapters ---------------------------------

SHARED_MODULES = ("cli.py", "claims/__init__.py", "claims/core.py", "claims/report.py",
                  "compare/__init__.py", "compare/calculator.py", "compare/card.py",
                  "compare/counting.py", "compare/recommend.py", "compare/regimes.py",
                  "compare/report.py", "compare/tokens.py", "compare/verdicts.py",
                  "conventions.py", "torchmoe/sweep.py")
"""Modules that treat the papers alike: they may name no paper."""


@pytest.mark.parametrize("module", SHARED_MODULES)
def test_shared_modules_name_no_paper(module: str) -> None:
    tree = ast.parse((ROOT / "moelaws" / module).read_text(encoding="utf-8"))
    ids = set(papers.ids())
    named = sorted({node.value for node in ast.walk(tree)
                    if isinstance(node, ast.Constant) and node.value in ids})
    imported = sorted({node.module for node in ast.walk(tree)
                       if isinstance(node, ast.ImportFrom) and node.module
                       and node.module.split(".")[1:2] and node.module.split(".")[1] in ids})
    imported += sorted({alias.name for node in ast.walk(tree)
                        if isinstance(node, ast.ImportFrom) and node.module == "moelaws"
                        for alias in node.names if alias.name in ids})
    assert named == [] and imported == [], (named, imported)


def _own_folder(path: Path) -> str | None:
    parts = path.relative_to(ROOT / "moelaws").parts
    if parts[0] == "arch" and parts[-1] in ("paper.py", "claims.py"):
        return "anatomy"
    return parts[0] if len(parts) > 1 and parts[0] in papers.ids() else None


def _papers_named(path: Path) -> set[str]:
    ids = set(papers.ids())
    named = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        modules: list[str] = []
        if isinstance(node, ast.Constant) and node.value in ids:
            named.add(node.value)
        elif isinstance(node, ast.Import):
            modules = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module:
            modules = [node.module, *(f"{node.module}.{alias.name}" for alias in node.names)]
        named.update(m.split(".")[1] for m in modules
                     if m.startswith("moelaws.") and m.split(".")[1] in ids)
    return named


def test_no_module_outside_a_paper_folder_names_the_paper() -> None:
    """Outside its folder a paper is reached only through the registry: no module names its
    id or imports its package (issue 26)."""
    found = {}
    for path in sorted((ROOT / "moelaws").rglob("*.py")):
        named = _papers_named(path) - {_own_folder(path)}
        if named:
            found[path.relative_to(ROOT / "moelaws").as_posix()] = frozenset(named)
    assert found == {}



# --- each paper's tests in its own folder -----------------------------------------------------

CROSS_PAPER_TESTS = frozenset({"tests/test_papers.py", "tests/test_compare.py"})
"""The test files that may name any paper: the registry's own and the cross-paper comparisons."""


def _paper_modules() -> dict[str, tuple[str, ...]]:
    """Each paper's own modules by dotted prefix: its package, or (chapter 0, whose package also
    holds the shared counting) its adapter and claims modules."""
    own = {}
    for paper, adapter in zip(papers.registry(), papers.ADAPTERS, strict=False):
        package = adapter.rpartition(".")[0]
        own[paper.id] = ((package,) if package.rpartition(".")[2] == paper.id
                         else (adapter, f"{package}.claims"))
    return own


def _qualified(prefix: str) -> str:
    """A pattern for a paper's module named without ``moelaws.``: a package followed by one of
    its names (``"leverage.efficiency_leverage"``), or a module itself (``"arch.claims"``)."""
    short = re.escape(prefix.removeprefix("moelaws."))
    tail = r"(?![A-Za-z0-9_])" if "." in prefix.removeprefix("moelaws.") else r"\.[A-Za-z_]"
    return r"(?<![A-Za-z0-9_./])" + short + tail


def papers_named_by_test(path: Path) -> set[str]:
    """The papers a test file names: a string that is a paper's id, an import of a paper's own
    module, or a string holding that module's dotted or slashed path (``moelaws/leverage/``)
    or a name qualified by its package (``"leverage.efficiency_leverage"``)."""
    own = _paper_modules()
    named = set()

    def names(module: str) -> set[str]:
        return {pid for pid, prefixes in own.items()
                if any(module == p or module.startswith(p + ".") for p in prefixes)}

    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            if node.value in own:
                named.add(node.value)
            for pid, prefixes in own.items():
                if any(re.search(re.escape(p).replace(r"\.", "[./]") + r"(?![A-Za-z0-9_])",
                                 node.value) or re.search(_qualified(p), node.value)
                       for p in prefixes):
                    named.add(pid)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                named |= names(alias.name)
        elif isinstance(node, ast.ImportFrom) and node.module:
            named |= names(node.module)
            for alias in node.names:
                named |= names(f"{node.module}.{alias.name}")
    return named


def files_naming_papers_elsewhere(tests: Path) -> dict[str, frozenset[str]]:
    """Each test file outside ``tests/papers/<id>/`` and :data:`CROSS_PAPER_TESTS` with the ids
    it names (its own folder's id not counted)."""
    found = {}
    for path in sorted(tests.rglob("*.py")):
        rel = path.relative_to(tests.parent).as_posix()
        parts = path.relative_to(tests).parts
        home = parts[1] if len(parts) > 2 and parts[0] == "papers" else None
        named = papers_named_by_test(path) - {home}
        if named and rel not in CROSS_PAPER_TESTS:
            found[rel] = frozenset(named)
    return found


def test_each_paper_is_named_only_in_its_own_test_folder() -> None:
    """Outside ``tests/papers/<id>/`` (and the registry's and the comparison's own tests) no
    test file names a paper (issue 26: a paper's expectations live in its own test folder)."""
    assert {p.name for p in (ROOT / "tests" / "papers").iterdir() if p.is_dir()} == set(
        papers.ids())
    assert files_naming_papers_elsewhere(ROOT / "tests") == {}


def test_the_test_folder_check_sees_every_way_of_naming_a_paper(tmp_path: Path) -> None:
    tests = tmp_path / "tests"
    (tests / "papers" / "holistic").mkdir(parents=True)
    forms = {
        "id": 'X = "leverage"\n',
        "import": "from moelaws.holistic import law\n",
        "from": "from moelaws import comprehensive\n",
        "module": "import moelaws.constrained.law\n",
        "path": 'P = "moelaws/allocation/law.py"\n',
        "dotted": 'M = "moelaws.allocation.views"\n',
        "chapter0": "from moelaws.arch.claims import CLAIMS\n",
        "qualified": 'Q = {"holistic.counts": 1}\n',
        "qualified0": 'Q = "arch.paper"\n',
    }
    for name, source in forms.items():
        (tests / f"test_{name}.py").write_text(source)
    (tests / "test_shared.py").write_text("from moelaws.arch import counting\nX = 'leverages'\n"
                                          "Y = 'arch.counts'\nZ = 'the leverage. Then'\n"
                                          "W = 'compare.leverage_cost'\n")
    (tests / "papers" / "holistic" / "test_own.py").write_text('X = "holistic"\n')
    assert files_naming_papers_elsewhere(tests) == {
        "tests/test_id.py": {"leverage"}, "tests/test_import.py": {"holistic"},
        "tests/test_from.py": {"comprehensive"}, "tests/test_module.py": {"constrained"},
        "tests/test_path.py": {"allocation"}, "tests/test_dotted.py": {"allocation"},
        "tests/test_chapter0.py": {"anatomy"}, "tests/test_qualified.py": {"holistic"},
        "tests/test_qualified0.py": {"anatomy"}}

# --- one entry point for toy training ---------------------------------------------------------


def test_toy_sweeps_have_one_entry_point(capsys) -> None:
    from moelaws.torchmoe import sweep

    every = sweep.named_sweeps()
    assert list(every)[: len(sweep.SWEEPS)] == list(sweep.SWEEPS)
    for name in ("toy_el", "toy_el_d32", "toy_design", "toy_design_seeds", "toy_allocation"):
        assert name in every
    assert sweep.main(["--list"]) == 0
    assert capsys.readouterr().out.split() == list(every)

    calls = []

    def run(*, retrain: bool, progress: bool) -> pd.DataFrame:
        calls.append(retrain)
        return pd.DataFrame({"label": ["a"], "val_loss": [1.0]})

    extra = dataclasses.replace(TOY, toy_sweeps=lambda: {"toy_law_sweep": run})
    with papers.registered(extra):
        assert list(sweep.named_sweeps())[-1] == "toy_law_sweep"
        assert sweep.main(["--regenerate", "toy_law_sweep"]) == 0
    assert calls == [True]
    assert "== toy_law_sweep" in capsys.readouterr().out
    clash = dataclasses.replace(TOY, toy_sweeps=lambda: {"toy_el": None})
    with papers.registered(clash), pytest.raises(ValueError, match="already taken"):
        sweep.named_sweeps()
