"""moelaws.notebook_export: standalone notebooks in plain Markdown, and what they need to run.

Each conversion is tested on its own; then every real chapter and its student edition is
exported and searched for MyST text that JupyterLab, Notebook 7, VS Code or Colab would show
raw. The glue values of a real chapter come from an executed book (tests/test_downloads.py
runs the book's own downloads); here every glue key gets a stand-in number, which is enough
to prove that no role is left.
"""

from __future__ import annotations

import ast
import importlib.metadata
import json
import re
import sys
from pathlib import Path

import jupytext
import nbformat
import pytest
import tomllib

from moelaws import glue as glue_module
from moelaws import notebook_export as ne
from moelaws.teaching.student import student_notebook

ROOT = Path(__file__).resolve().parents[1]
CHAPTERS = sorted((ROOT / "notebooks").glob("*.md"))
BIB = ne.bib_labels(ROOT / "book" / "references.bib")
TITLES = ne.chapter_titles(CHAPTERS)

# MyST text a plain-Markdown client would show raw.
LEFTOVER = re.compile(r"\{glue|:::\{|```\{|\{[a-z][\w:.-]*\}`")


def convert(source: str, glue: dict | None = None, **kwargs) -> str:
    return ne.convert_markdown(source, glue or {}, bib=BIB, titles=TITLES, **kwargs)


class AnyGlue(dict):
    """A glue value for every key: one that every format spec accepts."""

    def __getitem__(self, key: str) -> dict:
        return {"data": {"text/plain": "12"}}


# --- glue ---------------------------------------------------------------------------------


def test_glue_text_is_formatted_as_the_book_formats_it() -> None:
    glue = {"x": {"data": {"text/plain": "0.123456"}}, "n": {"data": {"text/plain": "1234"}}}
    assert convert("a {glue:text}`x:.2f` b {glue:text}`n:,d`", glue) == "a 0.12 b 1,234"
    assert convert("{glue:text}`x`", glue) == "0.123456"
    assert convert("{glue}`x`", glue) == "0.123456"
    assert convert("{glue:text}`x:.1%`", glue) == "12.3%"


def test_glue_from_another_chapter_reads_its_glue_file(tmp_path: Path) -> None:
    (tmp_path / "06_allocation.glue.json").write_text(
        json.dumps({"att": {"data": {"text/plain": "47.6"}, "metadata": {}}}))
    (tmp_path / "02_leverage.glue.json").write_text(
        json.dumps({"own": {"data": {"text/plain": "'text'"}, "metadata": {}}}))
    store = ne.GlueStore(tmp_path, "02_leverage")
    text = convert("{glue:text}`own` and {glue:text}`06_allocation.md::att:.0f` %", store)
    assert text == "text and 48 %"


def test_a_missing_glue_value_is_an_error() -> None:
    with pytest.raises(ValueError, match="nothere"):
        convert("{glue:text}`nothere:.2f`", {})


def test_plain_python_values_are_formatted_with_format() -> None:
    assert convert("{glue:text}`v:.3f`", {"v": 2.0}) == "2.000"


# --- directives ---------------------------------------------------------------------------


def test_admonitions_become_block_quotes_with_their_title() -> None:
    text = convert(":::{admonition} In this chapter\n:class: tip\n**Learn** it.\n\nMore.\n:::")
    assert text == "> **In this chapter**\n>\n> **Learn** it.\n>\n> More."
    assert convert("```{note}\nMind {term}`this <router>`.\n```") == "> **Note**\n>\n> Mind this."
    assert convert(":::{warning} Careful\nx\n:::").startswith("> **Warning: Careful**")


def test_nested_fences_close_at_their_own_length() -> None:
    text = convert("::::{tip}\n:::{note}\ninner\n:::\nouter\n::::")
    assert text == "> **Tip**\n>\n> > **Note**\n> >\n> > inner\n> outer"


def test_list_table_becomes_a_markdown_table() -> None:
    source = (":::{list-table} Fact card: *Paper*\n:header-rows: 0\n:widths: 25 75\n\n"
              "* - What is fitted\n  - EL as a function of the\n"
              "    {term}`activation ratio` $|A|$\n"
              "* - Data\n  - Table 5 {cite:p}`tian2025leverage`\n:::")
    lines = convert(source).splitlines()
    assert lines[0] == "**Fact card: *Paper***"
    assert lines[2:4] == ["|  |  |", "|---|---|"]
    assert lines[4] == "| What is fitted | EL as a function of the activation ratio $\\|A\\|$ |"
    assert lines[5] == "| Data | Table 5 (Tian et al., 2025) |"
    header = convert(":::{list-table}\n:header-rows: 1\n\n* - a\n  - b\n* - 1\n  - 2\n:::")
    assert header.splitlines() == ["| a | b |", "|---|---|", "| 1 | 2 |"]


def test_exercises_and_solutions_become_numbered_headings() -> None:
    notebook = nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_markdown_cell(
            "```{exercise-start} First\n:label: ex-a\n:class: kind-derive\n```\n**Derive.** x\n"
            "```{exercise-end}\n```"),
        nbformat.v4.new_markdown_cell("```{exercise-start} Second\n:label: ex-b\n```\ny"),
        nbformat.v4.new_markdown_cell("```{exercise-end}\n```"),
        nbformat.v4.new_markdown_cell(
            "```{solution-start} ex-b\n:class: dropdown\n```\nBecause {ref}`ex-a` says so.",
            metadata={"tags": ["solution"]}),
        nbformat.v4.new_markdown_cell("```{solution-end}\n```", metadata={"tags": ["solution"]}),
    ])
    out = ne.export_notebook(notebook, {})
    sources = [c.source for c in out.cells]
    assert sources == [
        "#### Exercise 1: First\n**Derive.** x",
        "#### Exercise 2: Second\ny",
        "**Solution to Exercise 2**\nBecause Exercise 1 says so.",
    ]


def test_figures_math_and_code_blocks() -> None:
    assert convert("```{figure} img.png\n:name: fig-a\n:alt: A plot\nThe caption.\n```") == (
        "![A plot](img.png)\n\n*The caption.*")
    assert convert("```{math}\n:label: eq-a\nx = 1\n```") == "$$\nx = 1\n$$"
    assert convert("```{code-block} python\nprint(1)\n```") == "```python\nprint(1)\n```"


def test_plain_code_fences_comments_and_targets() -> None:
    text = convert("(sec-a)=\n% a MyST comment\n```python\nx = '{term}`kept`'\n```\nText.")
    assert text == "```python\nx = '{term}`kept`'\n```\nText."


def test_an_unknown_directive_becomes_a_titled_quote() -> None:
    assert convert("```{seealso-not-known} Arg\nbody\n```").startswith(
        "> **Seealso not known: Arg**")


# --- roles --------------------------------------------------------------------------------


def test_roles_become_text() -> None:
    assert convert("{term}`granularity` and {term}`experts <routed expert>`") == (
        "granularity and experts")
    assert convert("{doc}`02_leverage`") == "[Efficiency Leverage](02_leverage.ipynb)"
    assert convert("{doc}`the law <02_leverage>`") == "[the law](02_leverage.ipynb)"
    assert convert("{doc}`../book/notation`") == "notation"
    assert convert("{cite:p}`tian2025leverage`") == "(Tian et al., 2025)"
    assert convert("{cite:t}`tian2025leverage`") == "Tian et al. (2025)"
    assert convert("{cite:p}`tian2025leverage,wan2026holistic`") == (
        "(Tian et al., 2025; Wan et al., 2026)")
    assert convert("{cite:p}`not-in-the-bib`") == "(not-in-the-bib)"
    assert convert("{ref}`sec-x`, {ref}`the section <sec-x>`") == "sec-x, the section"
    assert convert("{numref}`fig-a` {eq}`eq-a`") == "fig-a (eq-a)"
    assert convert("{math}`x^2`") == "$x^2$"


def test_citation_labels_come_from_the_bibliography() -> None:
    who, year = BIB["hoffmann2022chinchilla"]
    assert (who, year) == ("Hoffmann et al.", "2022")


# --- the notebook -------------------------------------------------------------------------


def _chapter(path: Path) -> nbformat.NotebookNode:
    return jupytext.read(path)


PREFIX = "application/papermill.record/"  # MyST-NB's prefix for glue(..., display=False)


def test_metadata_setup_cell_and_glue_outputs() -> None:
    notebook = nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_code_cell("old", metadata={"tags": [ne.SETUP_TAG]}),
        nbformat.v4.new_code_cell("glue('k', 1, display=False)", outputs=[
            nbformat.v4.new_output("display_data", data={f"{PREFIX}text/plain": "1"},
                                   metadata={"scrapbook": {"name": "k", "mime_prefix": PREFIX}}),
            nbformat.v4.new_output("stream", text="kept\n"),
        ]),
        nbformat.v4.new_markdown_cell("Value {glue:text}`k:.1f`."),
    ])
    notebook.metadata["jupytext"] = {"text_representation": {}}
    assert ne.glue_data(notebook) == {"k": {"data": {"text/plain": "1"}, "metadata": {
        "scrapbook": {"name": "k", "mime_prefix": PREFIX}}}}
    cell = ne.setup_cell(ne.install_requirement("https://github.com/o/r/", "abc123"))
    out = ne.export_notebook(notebook, ne.glue_data(notebook), setup_cell=cell)
    assert "jupytext" not in out.metadata and "jupytext" in notebook.metadata
    assert out.cells[0].metadata["tags"] == [ne.SETUP_TAG]
    requirement = "moelaws[notebook] @ git+https://github.com/o/r@abc123"
    assert f'package = "{requirement}"' in out.cells[0].source
    assert [c.source for c in out.cells[1:]] == ["glue('k', 1, display=False)", "Value 1.0."]
    assert out.cells[1].outputs == [nbformat.v4.new_output("stream", text="kept\n")]


def test_build_revision_is_the_commit_or_the_branch(tmp_path: Path) -> None:
    assert re.fullmatch(r"[0-9a-f]{40}", ne.build_revision(ROOT, "main"))
    assert ne.build_revision(tmp_path, "main") == "main"


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.stem)
def test_every_chapter_and_student_edition_exports_to_plain_markdown(path: Path) -> None:
    chapter = _chapter(path)
    for notebook in (chapter, student_notebook(chapter)):
        out = ne.export_notebook(notebook, AnyGlue(), bib=BIB, titles=TITLES,
                                 setup_cell=ne.setup_cell("moelaws"))
        text = "\n".join(c.source for c in out.cells if c.cell_type == "markdown")
        assert not LEFTOVER.findall(text), (path.name, LEFTOVER.findall(text)[:5])
        assert "jupytext" not in out.metadata
        code = [c.source for c in out.cells if c.cell_type == "code"]
        assert code[1:] == [c.source for c in notebook.cells if c.cell_type == "code"]
    exercises = len(re.findall(r"\{exercise-start\}", path.read_text()))
    assert text.count("#### Exercise ") == exercises


def test_the_checker_sees_leftovers() -> None:
    for raw in ("{glue:text}`a:.1f`", ":::{note}", "```{figure} a", "{term}`x`", "{cite:p}`k`"):
        assert LEFTOVER.search(raw), raw


def test_the_command_line_exports_chapters_and_student_editions(tmp_path: Path) -> None:
    executed = tmp_path / "executed"
    executed.mkdir()
    source = ROOT / "notebooks" / "00_anatomy.md"
    notebook = _chapter(source)
    nbformat.write(notebook, executed / "00_anatomy.ipynb")
    (executed / "00_anatomy.glue.json").write_text(json.dumps(
        {key: {"data": {"text/plain": "12"}, "metadata": {}}
         for key in re.findall(r"\{glue:text\}`([\w]+)", source.read_text())}))
    (executed / "06_allocation.glue.json").write_text("{}")
    args = ["--executed-dir", str(executed), "--out", str(tmp_path / "out"),
            "--config", str(ROOT / "_config.yml"), "--bib", str(ROOT / "book/references.bib"),
            str(source)]
    assert ne.main(args) == 0
    assert ne.main([*args, "--student"]) == 0
    chapter = nbformat.read(tmp_path / "out" / "00_anatomy.ipynb", as_version=4)
    student = nbformat.read(tmp_path / "out" / "00_anatomy.exercises.ipynb", as_version=4)
    revision = ne.build_revision(ROOT, "main")
    for out in (chapter, student):
        assert f"git+https://github.com/moelaws/moelaws@{revision}" in out.cells[0].source
    assert any("answer" in c.metadata.get("tags", []) for c in student.cells)
    assert not any("solution" in c.metadata.get("tags", []) for c in student.cells)


# --- what a downloaded chapter needs ------------------------------------------------------


def _imported_modules(code: str) -> set[str]:
    found = set()
    for node in ast.walk(ast.parse(code)):
        if isinstance(node, ast.Import):
            found |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.add(node.module.split(".")[0])
    return found


def _chapter_imports() -> set[str]:
    modules = set()
    for path in CHAPTERS:
        for cell in _chapter(path).cells:
            if cell.cell_type == "code":
                source = "\n".join(line for line in cell.source.splitlines()
                                   if not line.lstrip().startswith(("%", "!")))
                modules |= _imported_modules(source)
    return modules


def _package_imports() -> set[str]:
    """Modules imported by the package, except its build- and teaching-only tools."""
    skip = {"notebook_export.py", "code_lines.py", "student.py", "transcribe.py", "mutation.py",
            "kernel_polling.py"}
    modules = set()
    for path in (ROOT / "moelaws").rglob("*.py"):
        if path.name not in skip:
            modules |= _imported_modules(path.read_text(encoding="utf-8"))
    return modules


def _requirement_names(specs: list[str]) -> set[str]:
    return {re.split(r"[<>=!~\[ ;]", s, maxsplit=1)[0].lower().replace("_", "-") for s in specs}


def test_the_notebook_extra_lists_every_module_the_chapters_import() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    declared = _requirement_names(project["dependencies"])
    declared |= _requirement_names(project["optional-dependencies"][ne.EXTRA])
    distributions = importlib.metadata.packages_distributions()
    # The kernel itself (ipykernel) brings IPython; myst_nb is optional (moelaws.glue).
    # docutils: imported only by the MyST-NB mime plugin (moelaws.charts), inside the book build.
    provided = {"moelaws", "IPython", "myst_nb", "docutils"} | set(sys.stdlib_module_names)
    missing = {}
    for module in (_chapter_imports() | _package_imports()) - provided:
        names = {d.lower().replace("_", "-") for d in distributions.get(module, [module])}
        if not names & declared:
            missing[module] = names
    assert not missing, f"imported but not in the dependencies or [{ne.EXTRA}]: {missing}"


def test_no_chapter_needs_myst_nb() -> None:
    assert "myst_nb" not in _chapter_imports()
    for path in CHAPTERS:
        assert "from myst_nb" not in path.read_text(), path.name


def test_glue_calls_myst_nb_when_it_is_there(monkeypatch: pytest.MonkeyPatch) -> None:
    calls = []
    import myst_nb

    monkeypatch.setattr(myst_nb, "glue", lambda *a, **k: calls.append((a, k)))
    glue_module.glue("k", 1.5, display=False)
    assert calls == [(("k", 1.5), {"display": False})]


def test_glue_turns_numpy_scalars_into_python_numbers(monkeypatch: pytest.MonkeyPatch) -> None:
    """NumPy 2 prints a scalar as "np.float64(0.76)", which a formatted glue role cannot read."""
    import myst_nb
    import numpy as np

    calls = []
    monkeypatch.setattr(myst_nb, "glue", lambda *a, **k: calls.append(a[1]))
    glue_module.glue("k", np.float64(0.75), display=False)
    glue_module.glue("n", np.int64(3), display=False)
    glue_module.glue("a", np.array([1.0, 2.0]), display=False)
    assert type(calls[0]) is float and calls[0] == 0.75
    assert type(calls[1]) is int and calls[1] == 3
    assert isinstance(calls[2], np.ndarray)


def test_glue_without_myst_nb_shows_only_what_is_asked(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setitem(sys.modules, "myst_nb", None)  # import fails, as in a fresh kernel
    glue_module.glue("k", 1.5, display=False)
    assert capsys.readouterr().out == ""
    glue_module.glue("k", 2.5)
    assert "2.5" in capsys.readouterr().out


def test_a_chapter_missing_from_the_executed_folder_is_executed(tmp_path: Path) -> None:
    source = tmp_path / "99_tiny.md"
    source.write_text(
        (ROOT / "notebooks" / "00_anatomy.md").read_text().split("\n---\n", 1)[0] + "\n---\n\n"
        "# Tiny\n\n```{code-cell} ipython3\nfrom moelaws.glue import glue\n\n"
        "glue('half', 0.5, display=False)\nprint('ran')\n```\n\n"
        "Half is {glue:text}`half:.2f`.\n")
    out = ne.export_chapter(source, tmp_path / "no-such-folder", setup_cell=None)
    assert [c.source for c in out.cells if c.cell_type == "markdown"] == [
        "# Tiny", "Half is 0.50."]
    code = next(c for c in out.cells if c.cell_type == "code")
    assert [o.get("text") for o in code.outputs] == ["ran\n"]  # the glue output is gone


@pytest.mark.parametrize("run", ["execute_chapter", "check_chapter"])
def test_every_chapter_runner_polls_the_kernel_in_slices(run: str, tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """A widget cell can hide its reply from nbclient's poll, which then waits out the whole
    timeout (jupyter/nbclient#312; a 300 s stall in `make rounding`, 2026-11-28): every runner
    patches jupyter_client's polling before it starts a kernel."""
    import nbclient
    from jupyter_client.channels import AsyncZMQSocketChannel

    from moelaws.teaching import mutation

    unpatched = getattr(AsyncZMQSocketChannel.get_msg, "_moelaws_original",
                        AsyncZMQSocketChannel.get_msg)
    monkeypatch.setattr(AsyncZMQSocketChannel, "get_msg", unpatched)
    seen = []

    class Recording:
        def __init__(self, *args, **kwargs):
            seen.append(getattr(AsyncZMQSocketChannel.get_msg, "_moelaws_sliced", False))
            raise RuntimeError("stop before any kernel starts")

    monkeypatch.setattr(nbclient, "NotebookClient", Recording)
    source = tmp_path / "page.md"
    source.write_text("# A page\n\n```{code-cell} ipython3\n1 + 1\n```\n")
    with pytest.raises(RuntimeError, match="stop before"):
        if run == "execute_chapter":
            ne.execute_chapter(source)
        else:
            mutation.check_chapter(source, kernel=object())
    assert seen == [True]
