"""Every chapter live in JupyterLab and Notebook 7, as a reader and ``make lab`` serve it.

One JupyterLab server for the session (conftest.py, lab_client.py), seen as two front ends: a
reader's own JupyterLab without this project's ``live`` extra (no ``jupyterlab-myst``) for the
downloads, and ``make lab``'s and Binder's (with it) for a chapter's ``.md`` and for a chapter
of ``make lab``'s copies in Notebook 7. For each chapter's download (the book's
``_sources/notebooks/NAME.ipynb``), copied into a folder outside the repository and opened in
the reader's JupyterLab on the fresh environment's kernel (tests/fresh_env.py; this run is also
the download check of tests/test_downloads.py): run all cells, wait for the kernel, then no
error and no stderr output, every Altair chart drawn, every ipywidgets control changing its
panel's output, no raw MyST in the page; save with Ctrl+S (and, for one chapter, let autosave
run); no tracked file changed (the download is opened with its saved outputs cleared: Run All
replaces them; the saved outputs of an executed chapter are drawn, and checked, in Notebook 7).
``make lab``'s generated copies (``make lab-notebooks``) have the same code and no raw MyST. In
``make lab``'s JupyterLab, a chapter's ``.md`` opened as a Jupytext notebook on ``.venv``'s
kernel runs with the same checks (but raw MyST) and, saved, stays byte-identical; and a chapter
of ``make lab``'s copies in Notebook 7 (``/notebooks/...``; every chapter with
``MOELAWS_NB7_CHAPTERS=all``) draws its saved charts, runs, draws them and its widgets again
and reacts to every control.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import time
import warnings
from typing import Any

import nbformat
import pytest
from book_browser import ROOT
from fresh_env import CHAPTER_DOWNLOADS, KERNEL, REQUIREMENT, reader_copy
from lab_client import (
    CLOSE,
    CONTROLS,
    DIALOGS,
    HAS_MYST,
    KERNEL_IDLE,
    LAB_DIR,
    LIVE_MIME,
    OPEN,
    OUTPUTS,
    POLL_S,
    REACT_TIMEOUT_S,
    READERS,
    RUN_ALL,
    RUN_TIMEOUT_S,
    SNAPSHOT,
    git_status,
    let_autosave_run,
    move_control,
    open_lab_tab,
    press_save,
    screenshot,
    settle_charts,
    steady_snapshot,
    use_myst,
    wait_for,
)

EXECUTED = ROOT / "_build" / "jupyter_execute" / "notebooks"
CHAPTERS = sorted(p.stem for p in (ROOT / "notebooks").glob("*.md"))
MD_CHAPTER = "06_allocation"
"""The chapter opened from its ``.md`` source in ``make lab``'s JupyterLab (a quick one, with
charts, a chart inside a widget and controls)."""
NB7_CHAPTERS = (CHAPTERS if os.environ.get("MOELAWS_NB7_CHAPTERS") == "all"
                else os.environ.get("MOELAWS_NB7_CHAPTERS", "00_anatomy").split(","))
"""The chapters of ``make lab``'s copies run in Notebook 7: chapter 0 in ``make test``; every
chapter with ``MOELAWS_NB7_CHAPTERS=all`` (``make live-nb7``), or a comma-separated list."""
LIVE_PANEL_CHAPTER = "02_leverage"
"""The download whose live panel must open at the paper's headline point, and the one download
that waits for JupyterLab's autosave after Ctrl+S (:func:`let_autosave_run`). Autosave saves
only a dirty notebook, so after Ctrl+S a wait mattered only if a late change dirtied it again;
a download lives outside the repository, so no tracked file is at stake, and each wait was at
least 7 idle seconds on ``make test``'s longest path. Without it, a late dialog or blocked
request shows in the next chapter's test (the tab is the session's), and after the last
chapter at the end of the session (the ``lab_tab`` fixture's teardown, conftest.py). The
``.md`` source, which autosave could rewrite, waits too
(:func:`test_chapter_source_opened_in_lab_is_saved_byte_identical`)."""
RAW_MYST = ("{glue", ":::{", "```{")


def _run_all(page: Any) -> dict[str, Any]:
    started = time.monotonic()
    page.evaluate(RUN_ALL)
    wait_for(page, KERNEL_IDLE, RUN_TIMEOUT_S)
    outputs = page.evaluate(OUTPUTS, LIVE_MIME)
    outputs["seconds"] = round(time.monotonic() - started, 1)
    return outputs


def _clear_outputs(path: Any) -> None:
    """The download without its saved outputs: Run All replaces them, and drawing them first
    (every chart and table of the executed chapter) cost JupyterLab's page more CPU time than
    the run itself. Saved outputs are drawn and checked in Notebook 7
    (:func:`test_a_chapter_runs_in_notebook_7`), whose renderers are JupyterLab's."""
    notebook = nbformat.read(path, as_version=4)
    for cell in notebook.cells:
        if cell.cell_type == "code":
            cell.outputs, cell.execution_count = [], None
    nbformat.write(notebook, path)


def _output_problems(outputs: dict[str, Any], drawn: dict[str, Any], *, widgets: bool = True,
                     myst_source: bool = False) -> list[str]:
    """What is wrong with a run: errors, stderr, cells not executed, charts not drawn, charts in
    widgets not drawn (``widgets``), raw MyST on the page (unless it is a ``myst_source``)."""
    problems = [f"error output: {e}" for e in outputs["errors"]]
    problems += [f"stderr output: {e}" for e in outputs["stderr"]]
    if outputs["executed"] != outputs["code"]:
        problems.append(f"{outputs['executed']} of {outputs['code']} code cells executed")
    if not drawn["top"] == drawn["topDrawn"] == outputs["charts"]:
        problems.append(f"{outputs['charts']} chart outputs, {drawn['top']} chart views, "
                        f"{drawn['topDrawn']} with SVG marks")
    if widgets and drawn["viewsDrawn"] != outputs["views"]:
        problems.append(f"{outputs['views']} widget outputs, {drawn['viewsDrawn']} drawn (or "
                        f"closed by the kernel); not drawn: {drawn['viewsMissing']}")
    if widgets and drawn["widget"] != drawn["widgetDrawn"]:
        problems.append(f"{drawn['widget']} charts in widgets, {drawn['widgetDrawn']} drawn")
    if widgets and drawn["widgetStderr"]:
        problems.append(f"{drawn['widgetStderr']} stderr/error outputs inside widgets")
    if not myst_source:
        problems += [f"raw MyST {raw!r} in the page" for raw in RAW_MYST if raw in drawn["text"]]
    return problems


def _exercise_controls(page: Any, dialogs: list[str], *,
                       drag: bool = False) -> tuple[int, list[str]]:
    """Move every slider and drop-down of every interact panel; each must change its output.
    Sliders move by the keyboard, or with ``drag`` by the mouse (:func:`move_control`).

    A dialog open in front of the notebook (an autosave's "File Changed" question on a loaded
    machine) takes the keyboard, so a slider's arrow key would not reach the slider: it is
    dismissed first, as a reader would, and its text added to ``dialogs`` for the caller to
    judge."""
    moved, problems = 0, []
    for box in page.evaluate(CONTROLS):
        for kind, count in (("slider", box["sliders"]), ("select", box["selects"])):
            for index in range(count):
                dialogs.extend(page.evaluate(DIALOGS))
                before = steady_snapshot(page, box["box"], REACT_TIMEOUT_S)
                shown = move_control(page, box["box"], kind, index, drag=drag)
                moved += 1
                try:
                    wait_for(page, f"(i) => ({SNAPSHOT})(i) !== {before!r}", REACT_TIMEOUT_S,
                             box["box"], every_s=POLL_S)
                except TimeoutError:
                    was, now = shown
                    open_dialogs = page.evaluate(DIALOGS)
                    dialogs.extend(open_dialogs)
                    problems.append(f"panel {box['box']}: {kind} {index} changed nothing "
                                    f"(the control showed {was!r}, now {now()!r}; "
                                    f"output {before[:120]!r}; dialogs open {open_dialogs})")
                wait_for(page, KERNEL_IDLE, REACT_TIMEOUT_S)
    return moved, problems


def _judge_dialogs(name: str, dialogs: list[str]) -> list[str]:
    """JupyterLab's "File Changed ... overwrite?" when two saves overlap on a loaded machine
    (an autosave tick during Ctrl+S's save: lab_client.launch_server) is reported, not failed;
    any other dialog is a problem, returned."""
    problems = []
    for dialog in dialogs:
        if dialog.startswith("File Changed"):
            warnings.warn(f"{name}: {dialog}", stacklevel=2)
        else:
            problems.append(f"dialog: {dialog}")
    return problems


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_chapter_download_runs_live_in_jupyterlab(lab_tab: Any, reader_env: Any,
                                                  lab_runs: dict[str, dict[str, Any]],
                                                  git_status_before: str, chapter: str) -> None:
    """The chapter's download, in a folder outside the repository, on the fresh environment's
    kernel (tests/fresh_env.py): this is the run tests/test_downloads.py counts on, for the
    chapter and for a student edition whose code is the chapter's first cells (``lab_runs``)."""
    assert reader_env.importable_after, "the set-up cell did not install moelaws"
    page = lab_tab.page
    dialogs: list[str] = []
    download = next(p for p in CHAPTER_DOWNLOADS if p.name == f"{chapter}.ipynb")
    path = reader_copy(download, reader_env.fresh)
    _clear_outputs(path)
    written = path.stat().st_mtime_ns
    info = page.evaluate(OPEN, [f"{READERS}/{path.parent.name}/{path.name}", "Notebook"])
    assert info["isNotebook"]
    assert info["kernel"] == KERNEL, f"{chapter} opened on kernel {info['kernel']!r}"
    try:
        outputs = _run_all(page)
        lab_runs[download.name] = outputs
        drawn = settle_charts(page, outputs)
        problems = _output_problems(outputs, drawn)
        page.evaluate(CONTROLS)
        if chapter == LIVE_PANEL_CHAPTER:
            # The live panel opens at the page's headline point (moelaws.sliders).
            first = page.evaluate(SNAPSHOT, 0)
            if "A = 3.10%, G = 12," not in first or "= 7.245" not in first:
                problems.append(f"chapter 2's panel does not open at the headline: {first!r}")
        moved, control_problems = _exercise_controls(page, dialogs)
        problems += control_problems
        if outputs["views"] and not moved:
            problems.append(f"{outputs['views']} widget outputs, but no control to move")
        screenshot(page, chapter)
        dialogs += press_save(page)
        if chapter == LIVE_PANEL_CHAPTER:
            let_autosave_run(page)
    finally:
        problems_dialogs = dialogs + page.evaluate(DIALOGS)
        page.evaluate(CLOSE)
    problems += _judge_dialogs(chapter, problems_dialogs)
    print(f"{chapter}: ran in {outputs['seconds']} s, {outputs['charts']} charts, "
          f"{drawn['widget']} in widgets, {moved} controls moved")
    assert path.stat().st_mtime_ns != written, "the notebook was never saved"
    assert not problems, f"{chapter} in JupyterLab:\n" + "\n".join(problems)
    assert not lab_tab.blocked_requests, lab_tab.blocked_requests
    assert git_status() == git_status_before


def test_the_live_panel_chapter_exists() -> None:
    """Else no panel's headline is checked and no download waits for autosave."""
    assert LIVE_PANEL_CHAPTER in CHAPTERS, f"no chapter {LIVE_PANEL_CHAPTER}"


def test_lab_copies_are_the_downloads(lab_server: Any) -> None:
    """The copies ``make lab`` serves (``make lab-notebooks``, here into LAB_DIR) have the code
    cells of the downloads run above, set-up cell included, and no MyST left in their prose."""
    for download in CHAPTER_DOWNLOADS:
        copy = nbformat.read(ROOT / LAB_DIR / "notebooks" / download.name, as_version=4)
        book = nbformat.read(download, as_version=4)
        code = [[REQUIREMENT.sub("REQUIREMENT", c.source) for c in nb.cells
                 if c.cell_type == "code"] for nb in (copy, book)]
        assert code[0] == code[1], f"{download.name}: make lab's copy runs other code"
        prose = "\n".join(c.source for c in copy.cells if c.cell_type == "markdown")
        raw = re.findall(r"\{glue|:::\{|```\{|\{[a-z][\w:.-]*\}`", prose)
        assert not raw, f"{download.name}: make lab's copy shows raw MyST {raw}"


def test_chapter_source_opened_in_lab_is_saved_byte_identical(make_lab_tab: Any,
                                                             git_status_before: str) -> None:
    """Double-clicking a chapter's .md opens a Jupytext notebook (make lab-settings, Binder's
    postBuild): in ``make lab``'s JupyterLab, with jupyterlab-myst, it runs with the checks of
    the downloads above (but raw MyST: this is the MyST source) and every control changes its
    panel; saving it must not rewrite the source (jupytext.toml, the chapters' normal form).
    Its time stamp is put back afterwards: a source newer than its executed chapter would make
    the next ``make lab`` build the book again."""
    page = make_lab_tab.page
    path = ROOT / "notebooks" / f"{MD_CHAPTER}.md"
    original = path.read_bytes()
    stamp = path.stat()
    written = stamp.st_mtime_ns
    dialogs: list[str] = []
    info = page.evaluate(OPEN, [f"notebooks/{MD_CHAPTER}.md", None])
    try:
        assert info["isNotebook"], f"{MD_CHAPTER}.md did not open as a notebook: {info}"
        outputs = _run_all(page)
        drawn = settle_charts(page, outputs)
        problems = _output_problems(outputs, drawn, myst_source=True)
        page.evaluate(CONTROLS)
        moved, control_problems = _exercise_controls(page, dialogs)
        problems += control_problems
        dialogs += press_save(page)
        let_autosave_run(page)
    finally:
        dialogs += page.evaluate(DIALOGS)
        page.evaluate(CLOSE)
        now, saved = path.read_bytes(), path.stat().st_mtime_ns != written
        if now != original:
            path.write_bytes(original)
        os.utime(path, ns=(stamp.st_atime_ns, stamp.st_mtime_ns))
    problems += _judge_dialogs(f"{MD_CHAPTER}.md", dialogs)
    print(f"{MD_CHAPTER}.md: ran in {outputs['seconds']} s, {outputs['charts']} charts, "
          f"{drawn['widget']} in widgets, {moved} controls moved")
    assert moved > 0, f"{MD_CHAPTER}.md: no control to move"
    assert drawn["widget"] > 0, f"{MD_CHAPTER}.md: no chart inside a widget was drawn"
    assert not problems, f"{MD_CHAPTER}.md in make lab's JupyterLab:\n" + "\n".join(problems)
    assert saved, "the source was never saved"
    assert hashlib.sha256(now).hexdigest() == hashlib.sha256(original).hexdigest(), (
        f"saving {MD_CHAPTER}.md from JupyterLab rewrote it")
    assert git_status() == git_status_before


@pytest.mark.parametrize("chapter", NB7_CHAPTERS)
def test_a_chapter_runs_in_notebook_7(browser: Any, lab_server: Any, git_status_before: str,
                                      chapter: str) -> None:
    """A chapter of ``make lab``'s copies in Notebook 7, with jupyterlab-myst, in a tab of its
    own: its saved charts drawn on opening; run, every chart and widget drawn again and every
    control changing its panel."""
    use_myst(lab_server, True)
    tab = open_lab_tab(browser)
    page = tab.page
    dialogs: list[str] = []
    page.goto(lab_server.url(f"notebooks/{LAB_DIR}/notebooks/{chapter}.ipynb"),
              wait_until="domcontentloaded")
    try:
        wait_for(page, """() => {
          const app = window.jupyterapp, w = app && app.shell.currentWidget;
          if (!w || !w.sessionContext || !w.context.isReady) return false;
          window._moelawsDoc = w;
          return !!(w.sessionContext.session && w.sessionContext.session.kernel);
        }""", 180)
        assert "/notebooks/" in page.url
        assert page.evaluate(HAS_MYST), "Notebook 7 opened without jupyterlab-myst"
        # The executed chapter as opened, before any run: its saved charts are drawn.
        saved = page.evaluate(OUTPUTS, LIVE_MIME)
        on_open = settle_charts(page, saved, widgets=False)
        outputs = _run_all(page)
        drawn = settle_charts(page, outputs)
        problems = _output_problems(outputs, drawn)
        page.evaluate(CONTROLS)
        moved, control_problems = _exercise_controls(page, dialogs, drag=True)
        problems += control_problems
        if outputs["views"] and not moved:
            problems.append(f"{outputs['views']} widget outputs, but no control to move")
        screenshot(page, f"nb7-{chapter}")
    finally:
        dialogs += page.evaluate(DIALOGS)
        page.evaluate(CLOSE)
        page.context.close()
    problems += _judge_dialogs(f"Notebook 7, {chapter}", dialogs)
    print(f"Notebook 7, {chapter}: {saved['charts']} saved charts drawn on opening; ran in "
          f"{outputs['seconds']} s, {outputs['charts']} charts, {drawn['widget']} in widgets, "
          f"{moved} controls moved")
    assert saved["charts"] > 0 and on_open["top"] == on_open["topDrawn"] == saved["charts"], (
        f"{saved['charts']} saved chart outputs, {on_open['top']} chart views on opening, "
        f"{on_open['topDrawn']} with marks")
    assert outputs["charts"] > 0
    assert not problems, f"{chapter} in Notebook 7:\n" + "\n".join(problems)
    assert git_status() == git_status_before


_SLIDER_MODELS = {"FloatSliderModel", "FloatLogSliderModel", "IntSliderModel"}


def test_executed_chapters_open_every_slider_on_its_grid() -> None:
    """The widgets and Vega parameters the chapters really built (the book's executed
    notebooks: widget state and chart outputs): every start value is on its slider's grid."""
    from moelaws import sliders

    checked = {"widgets": 0, "vega": 0}
    for name in CHAPTERS:
        notebook = json.loads((EXECUTED / f"{name}.ipynb").read_text())
        state = notebook["metadata"].get("widgets", {}).get(
            "application/vnd.jupyter.widget-state+json", {}).get("state", {})
        for model in state.values():
            if model["model_name"] in _SLIDER_MODELS:
                s = model["state"]
                sliders.check_on_grid(s["value"], s["min"], s["max"], s["step"],
                                      base=s.get("base"), name=f"{name}: {s['description']}")
                checked["widgets"] += 1
        for cell in notebook["cells"]:
            for output in cell.get("outputs", []):
                if LIVE_MIME in output.get("data", {}):
                    checked["vega"] += sliders.check_spec(output["data"][LIVE_MIME])
    print(f"start values on their grids: {checked}")
    assert checked["widgets"] >= 20 and checked["vega"] >= 15, checked
