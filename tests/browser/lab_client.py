"""The project's JupyterLab (and Notebook 7) on 127.0.0.1, driven by Playwright.

One server per test session (``lab_server`` in conftest.py): the ``.venv``'s ``jupyter lab``
on a free port of 127.0.0.1 with a random token, the repository as its root, and
``--expose-app-in-browser`` so that a test drives the front end through its own commands
(``docmanager:open``, ``notebook:run-all-cells``) rather than by pixel. Besides ``.venv``'s
kernel it offers the fresh environment's (tests/fresh_env.py), on which the chapters' downloads
run from a folder outside the repository, linked at READERS. Its user settings live in a
temporary folder: autosave every few seconds (the tests let autosave run) and notebook
windowing off (every cell's output stays in the page, where the tests count the charts). The
chapter copies ``make lab`` generates (``make lab-notebooks``) go here into
``_build/lab-test``; the ``.md`` default viewer is the one ``make lab-settings`` writes.

Two front ends are served, one per tab (:func:`use_myst` before the tab loads): a reader's own
JupyterLab without this project's ``live`` extra, so without ``jupyterlab-myst``, where the
downloads run (its plain Markdown renderer shows any MyST left in a download as raw text,
where jupyterlab-myst would render a directive); and ``make lab``'s and Binder's, with
``jupyterlab-myst`` (``requirements.txt``, ``binder/requirements.txt``), where a chapter's
``.md`` source runs and a chapter of ``make lab``'s copies opens in Notebook 7.
"""

from __future__ import annotations

import json
import os
import re
import secrets
import socket
import subprocess
import sys
import time
import urllib.request
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from book_browser import ROOT, SCREENSHOTS, VIEWPORT

LAB_DIR = "_build/lab-test"
"""Where the tests' generated chapter copies go (``make lab`` uses ``_build/lab``)."""
READERS = f"{LAB_DIR}/reader"
"""A link to the folder outside the repository holding the reader's copies of the downloads
(tests/fresh_env.py): JupyterLab serves them from under its root, the repository, while their
kernels run in the real folder, with no repository beside it."""
AUTOSAVE_SECONDS = 5
"""JupyterLab's autosave interval in the tests (its default is 120 s): each chapter waits one
interval and a margin after Ctrl+S for a late change to make the notebook dirty
(:func:`let_autosave_run`)."""
POLL_S = 0.5
"""How often the tests ask the page whether a panel changed or the charts are drawn (whether the
kernel is idle: every second, :func:`wait_for`'s default). With every poll at 0.25 s (96fe6ad)
the reader's stage alone took no less time and about 50 busy CPU-seconds more (400 s and 533
CPU-s, against 397 s and 481 at c0480f1; one run each, 2026-11-27)."""
RUN_TIMEOUT_S = float(os.environ.get("MOELAWS_LAB_RUN_TIMEOUT", "900"))
REACT_TIMEOUT_S = float(os.environ.get("MOELAWS_LAB_REACT_TIMEOUT", "120"))
LIVE_MIME = "application/vnd.vegalite.v5+json"
MYST_EXTENSION = "jupyterlab-myst"
MYST_PLUGIN = "jupyterlab-myst:content-factory"
"""The plugin that renders a notebook's Markdown cells as MyST when the extension is on."""


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def git_status() -> str:
    return subprocess.run(["git", "status", "--porcelain"], cwd=ROOT, capture_output=True,
                          text=True, check=True).stdout


@dataclass
class LabServer:
    """A running ``jupyter lab`` and what a test needs to reach it."""

    process: subprocess.Popen
    port: int
    token: str
    log: Path
    config: Path
    """The server's ``JUPYTER_CONFIG_DIR``."""

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/"

    def url(self, path: str) -> str:
        sep = "&" if "?" in path else "?"
        return f"{self.base_url}{path}{sep}token={self.token}"


def prepare_copies() -> None:
    """``make lab-notebooks lab-settings`` into LAB_DIR: the generated chapters, the settings."""
    # Not `make test`'s flags and variables (FRESH=1 would empty the execution cache if a
    # chapter had to be executed again; -j's jobserver is not passed on).
    env = {k: v for k, v in os.environ.items() if k not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL")}
    subprocess.run(["make", "--no-print-directory", "-s", "lab-notebooks", "lab-settings",
                    f"LAB_DIR={LAB_DIR}"], cwd=ROOT, check=True, env=env)


def link_readers(folder: Path) -> None:
    """Point READERS at ``folder`` (outside the repository)."""
    link = ROOT / READERS
    link.parent.mkdir(parents=True, exist_ok=True)
    if link.is_symlink() or link.exists():
        link.unlink()
    link.symlink_to(folder, target_is_directory=True)


def launch_server(tmp: Path, kernels: Path | None = None) -> LabServer:
    """Start JupyterLab on 127.0.0.1 with the venv's kernel and temporary user settings, and
    the kernels that ``kernels`` (a folder for ``JUPYTER_PATH``, filled in later if need be)
    will hold; :func:`wait_until_ready` waits for it."""
    settings = tmp / "user-settings" / "@jupyterlab"
    (settings / "docmanager-extension").mkdir(parents=True)
    (settings / "notebook-extension").mkdir(parents=True)
    (settings / "docmanager-extension" / "plugin.jupyterlab-settings").write_text(
        # Before writing, a save asks the server for the file's hash and compares it with the
        # one its model holds; JupyterLab 4.6 compares modification times (within
        # lastModifiedCheckMargin) only when the server sends no hash, and this server (with
        # Jupytext's contents manager) sends one. So a save that starts while another is in
        # flight (Ctrl+S beside an autosave tick) finds the first one's bytes on disk and asks
        # whether to overwrite "a changed file" (jupyterlab#7743). Autosave's interval grows to
        # ten times a slow save's duration, so on a loaded machine the ticks are irregular.
        # press_save waits until no save is in flight; an autosave can still start during
        # Ctrl+S's own save, which the tests report (not fail).
        json.dumps({"autosave": True, "autosaveInterval": AUTOSAVE_SECONDS,
                    "lastModifiedCheckMargin": 60_000}))
    (settings / "notebook-extension" / "tracker.jupyterlab-settings").write_text(
        json.dumps({"windowingMode": "none"}))
    (settings / "apputils-extension").mkdir(parents=True)
    (settings / "apputils-extension" / "notification.jupyterlab-settings").write_text(
        json.dumps({"fetchNews": "false", "checkForUpdates": False}))
    port, token = free_port(), secrets.token_hex(16)
    env = dict(os.environ, JUPYTER_PREFER_ENV_PATH="1", OMP_NUM_THREADS="1",
               MKL_NUM_THREADS="1", JUPYTER_CONFIG_DIR=str(tmp / "config"),
               JUPYTER_RUNTIME_DIR=str(tmp / "runtime"),
               JUPYTERLAB_SETTINGS_DIR=str(tmp / "user-settings"),
               JUPYTERLAB_WORKSPACES_DIR=str(tmp / "workspaces"))
    if kernels is not None:
        env["JUPYTER_PATH"] = os.pathsep.join(
            [str(kernels), *filter(None, env.get("JUPYTER_PATH", "").split(os.pathsep))])
    log = tmp / "jupyter-lab.log"
    process = subprocess.Popen(
        [sys.executable, "-m", "jupyterlab", "--no-browser", "--ip=127.0.0.1", f"--port={port}",
         f"--IdentityProvider.token={token}", f"--ServerApp.root_dir={ROOT}",
         "--allow-root", "--LabApp.expose_app_in_browser=True",
         "--JupyterNotebookApp.expose_app_in_browser=True"],
        cwd=ROOT, env=env, stdout=log.open("w"), stderr=subprocess.STDOUT)
    return LabServer(process, port, token, log, tmp / "config")


def use_myst(server: LabServer, enabled: bool) -> None:
    """Whether JupyterLab pages loaded from now on load ``jupyterlab-myst`` (the server reads
    its page configuration, ``disabledExtensions`` included, on each page request)."""
    folder = server.config / "labconfig"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "page_config.json").write_text(
        json.dumps({"disabledExtensions": {MYST_EXTENSION: not enabled}}))


HAS_MYST = f"() => window.jupyterapp.hasPlugin({MYST_PLUGIN!r})"


def wait_until_ready(server: LabServer) -> LabServer:
    """Wait (up to 120 s) until the server answers ``api/status``."""
    process, log = server.process, server.log
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"jupyter lab exited:\n{log.read_text()}")
        try:
            with urllib.request.urlopen(server.url("api/status"), timeout=5) as resp:
                if resp.status == 200:
                    return server
        except OSError:
            time.sleep(1)
    process.terminate()
    raise RuntimeError(f"jupyter lab did not start in 120 s:\n{log.read_text()}")


@dataclass
class LabTab:
    """A browser tab on the server; requests to any host but 127.0.0.1 are blocked."""

    page: Any
    console_errors: list[str] = field(default_factory=list)
    blocked_requests: list[str] = field(default_factory=list)


OTHER_HOSTS = re.compile(r"^(?![a-z]+://127\.0\.0\.1[:/])")
"""Every URL not on 127.0.0.1 (the Lab server and the kernels' websockets are there)."""


def open_lab_tab(browser: Any) -> LabTab:
    context = browser.new_context(viewport=VIEWPORT, service_workers="block")
    page = context.new_page()
    tab = LabTab(page)

    def block(r: Any) -> None:
        tab.blocked_requests.append(r.request.url)
        r.abort()

    # Matched in the browser's driver: only requests to another host reach Python.
    context.route(OTHER_HOSTS, block)
    page.on("console", lambda m: tab.console_errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda exc: tab.console_errors.append(f"uncaught: {exc}"))
    return tab


# --- the front end, through its own application object (window.jupyterapp) -------------------

OPEN = """async ([path, factory]) => {
  const app = window.jupyterapp;
  const args = factory ? {path, factory} : {path};
  const w = await app.commands.execute('docmanager:open', args);
  await w.context.ready;
  if (w.sessionContext) { await w.sessionContext.ready; }
  app.shell.activateById(w.id);
  window._moelawsDoc = w;
  window._moelawsSaving = 0;
  w.context.saveState.connect((_, state) => {
    window._moelawsSaving += state === 'started' ? 1 : -1;
  });
  const session = w.sessionContext && w.sessionContext.session;
  return {isNotebook: !!(w.content && w.content.model && w.content.model.cells),
          factory: w.context.model.constructor.name,
          kernel: session && session.kernel ? session.kernel.name : null};
}"""

RUN_ALL = """async () => {
  const app = window.jupyterapp, w = window._moelawsDoc;
  app.shell.activateById(w.id);
  const ok = await app.commands.execute('notebook:run-all-cells');
  return ok;
}"""

KERNEL_IDLE = """() => {
  const w = window._moelawsDoc;
  const k = w.sessionContext.session && w.sessionContext.session.kernel;
  const running = [...w.content.widgets].some(c => c.model.type === 'code'
    && c.promptNode && c.promptNode.textContent.includes('*'));
  return !!k && k.status === 'idle' && !running;
}"""

OUTPUTS = """(mime) => {
  const w = window._moelawsDoc, cells = w.content.model.cells, out = {
    code: 0, executed: 0, charts: 0, views: 0, errors: [], stderr: []};
  for (let i = 0; i < cells.length; i++) {
    const c = cells.get(i);
    if (c.type !== 'code') continue;
    out.code++;
    if (c.executionCount) out.executed++;
    for (const o of c.outputs.toJSON()) {
      if (o.output_type === 'error') out.errors.push(`cell ${i}: ${o.ename}: ${o.evalue}`);
      if (o.output_type === 'stream' && o.name === 'stderr')
        out.stderr.push(`cell ${i}: ${String(o.text).slice(0, 300)}`);
      if (o.data && o.data[mime]) out.charts++;
      if (o.data && o.data['application/vnd.jupyter.widget-view+json']) out.views++;
    }
  }
  return out;
}"""

DRAWN = """() => {
  const root = window._moelawsDoc.node;
  // Data marks only (as tests/browser/test_pages.py counts them): axes, legends and titles
  // are marks too, and an empty chart still draws those.
  const marks = el => [...el.querySelectorAll('svg .role-mark > *')].filter(
    m => (m.getAttribute('d') || '').length > 2 || m.textContent.trim() ||
         ['circle', 'rect', 'line', 'image'].includes(m.tagName)).length;
  const all = [...root.querySelectorAll('.jp-RenderedVegaLite')];
  const top = all.filter(el => !el.closest('.widget-output, .jupyter-widgets'));
  // A widget output's renderer (.jp-OutputArea-output, at the output's index in the cell's
  // output area) shows "Loading widget..." until its view is added as a child (.jupyter-widgets),
  // or an error; it hides itself when the kernel closes the widget.
  let viewsDrawn = 0;
  const viewsMissing = [];
  for (const [c, cell] of window._moelawsDoc.content.widgets.entries()) {
    if (cell.model.type !== 'code' || !cell.outputArea) continue;
    const outs = cell.model.outputs;
    for (let i = 0; i < outs.length; i++) {
      const data = outs.get(i).data;
      if (!data || !data['application/vnd.jupyter.widget-view+json']) continue;
      const child = cell.outputArea.widgets[i];
      const out = child && child.node.querySelector('.jp-OutputArea-output');
      if (out && (out.querySelector(':scope > .jupyter-widgets')
                  || out.classList.contains('lm-mod-hidden'))) viewsDrawn++;
      else viewsMissing.push(`cell ${c}: ${out ? JSON.stringify(out.textContent.slice(0, 80))
                                                : 'no output node'}`);
    }
  }
  return {viewsDrawn, viewsMissing, top: top.length,
          topDrawn: top.filter(el => marks(el) > 0).length,
          widget: all.length - top.length,
          widgetDrawn: all.filter(el => !top.includes(el) && marks(el) > 0).length,
          widgetStderr: root.querySelectorAll(
            '.jupyter-widgets [data-mime-type="application/vnd.jupyter.stderr"]').length};
}"""

TEXT = "() => window._moelawsDoc.node.innerText"
"""The notebook's text as shown (read once, after the charts settled: innerText lays out the
whole notebook, too costly to poll)."""

# A panel: ipywidgets.interactive, or any box of controls whose output is one of its children
# (chapter 3's `live`). Each is tagged data-moelaws-panel=N so that Playwright can find it.
CONTROLS = """() => {
  const root = window._moelawsDoc.node;
  const panels = [...root.querySelectorAll('.widget-interact, .widget-vbox')].filter(
    b => [...b.children].some(c => c.classList.contains('widget-output')));
  return panels.map((box, i) => {
    box.dataset.moelawsPanel = String(i);
    return {box: i,
            sliders: box.querySelectorAll(':scope > .widget-slider .noUi-handle').length,
            selects: box.querySelectorAll(':scope > .widget-dropdown select').length};
  });
}"""

SNAPSHOT = """(i) => {
  const box = window._moelawsDoc.node.querySelector(`[data-moelaws-panel="${i}"]`);
  const out = box && [...box.children].find(c => c.classList.contains('widget-output'));
  return out ? out.innerText + '|' + [...out.querySelectorAll('svg')].map(
    s => s.innerHTML.length).join(',') : '';
}"""

SAVED = """async () => {
  const w = window._moelawsDoc;
  return !w.context.model.dirty;
}"""

NO_SAVE_IN_FLIGHT = "() => window._moelawsSaving === 0"
"""No save of the open document has started without completing or failing (OPEN counts them)."""

DIALOGS = """() => [...document.querySelectorAll('.jp-Dialog')].map(d => {
  const text = d.innerText.replace(/\\s+/g, ' ').slice(0, 200);
  const cancel = d.querySelector('.jp-mod-reject');
  if (cancel) cancel.click();
  return text;
})"""

CLOSE = """async () => {
  const w = window._moelawsDoc;
  if (w.sessionContext) { await w.sessionContext.shutdown(); }
  w.dispose();
  window._moelawsDoc = null;
}"""


def wait_for(page: Any, script: str, timeout_s: float, arg: Any = None,
             every_s: float = 1.0) -> Any:
    """Poll ``script`` until it returns a truthy value; raise TimeoutError after ``timeout_s``."""
    deadline = time.monotonic() + timeout_s
    while True:
        value = page.evaluate(script, arg)
        if value:
            return value
        if time.monotonic() > deadline:
            raise TimeoutError(f"waited {timeout_s:.0f} s for {script[:80]!r}")
        time.sleep(every_s)


def settle_charts(page: Any, outputs: dict[str, Any], widgets: bool = True,
                  timeout_s: float = 60) -> dict[str, Any]:
    """Wait until the notebook model's chart outputs (``outputs["charts"]``, outside widgets)
    have drawn views with marks, its widget outputs (``outputs["views"]``; unless not
    ``widgets``: a notebook opened without its kernel's widgets) drawn views, the charts inside
    those widgets marks, and these counts have not changed for a second; return the last
    counts and the notebook's text (``text``). After ``timeout_s`` it returns what it has: the
    caller's checks say what is missing."""
    last, stable_since = None, time.monotonic()
    deadline = time.monotonic() + timeout_s
    while True:
        now = page.evaluate(DRAWN)
        key = (now["top"], now["topDrawn"], now["viewsDrawn"], now["widget"], now["widgetDrawn"])
        if key != last:
            last, stable_since = key, time.monotonic()
        elif (time.monotonic() - stable_since >= 1
              and now["top"] == now["topDrawn"] == outputs["charts"]
              and (not widgets or now["viewsDrawn"] == outputs["views"])
              and now["widget"] == now["widgetDrawn"]):
            break
        if time.monotonic() >= deadline:
            break
        time.sleep(POLL_S)
    return {**now, "text": page.evaluate(TEXT)}


def steady_snapshot(page: Any, box: int, timeout_s: float) -> str:
    """Panel ``box``'s output (SNAPSHOT) once two readings POLL_S apart agree: a chart still
    redrawing from the previous control must not count as the next control's change."""
    deadline = time.monotonic() + timeout_s
    last = page.evaluate(SNAPSHOT, box)
    while True:
        time.sleep(POLL_S)
        now = page.evaluate(SNAPSHOT, box)
        if now == last or time.monotonic() > deadline:
            return now
        last = now


def press_save(page: Any) -> list[str]:
    """Ctrl+S in the notebook (JupyterLab's docmanager:save), then wait until it is clean.

    A dialog already open (an autosave's "File Changed" question) would take the click: it is
    dismissed first, and its text returned for the caller to judge."""
    dialogs = page.evaluate(DIALOGS)
    page.locator(".jp-NotebookPanel:visible .jp-Notebook").first.click(position={"x": 5, "y": 5})
    page.keyboard.press("Escape")
    # A save in flight can be held by a dialog that opens meanwhile (an autosave's "File
    # Changed" question waits for its answer): dismiss each as it comes, for up to 60 s, then
    # save anyway (a fresh-clone run once waited out 60 s here on chapter 3).
    deadline = time.monotonic() + 60
    while not page.evaluate(NO_SAVE_IN_FLIGHT):
        dialogs += page.evaluate(DIALOGS)
        if time.monotonic() > deadline:
            warnings.warn("a save was still in flight after 60 s; pressing Ctrl+S anyway",
                          stacklevel=2)
            break
        time.sleep(POLL_S)
    page.keyboard.press("Control+s")
    wait_for(page, SAVED, 60)
    return dialogs


def let_autosave_run(page: Any) -> None:
    """Wait until the document has stayed saved (not dirty) for one autosave interval and a
    margin: a change in that time (late output, widget state) makes it dirty and starts the
    wait again, until autosave has written it. (JupyterLab restarts its autosave timer on every
    save and stretches it after a slow save, so a tick in the window is likely, not certain; a
    tick on a clean notebook writes nothing.) Gives up silently after four times that: the
    caller's checks of the files on disk then decide."""
    needed = AUTOSAVE_SECONDS + 2
    deadline = time.monotonic() + 4 * needed
    clean_since = time.monotonic()
    while time.monotonic() < deadline:
        if not page.evaluate(SAVED):
            clean_since = time.monotonic()
        elif time.monotonic() - clean_since >= needed:
            return
        time.sleep(POLL_S)


def move_control(page: Any, box: int, kind: str, index: int, *,
                 drag: bool = False) -> tuple[str, Callable[[], str]]:
    """Move one control of panel ``box`` (tagged by CONTROLS) by the DOM: a slider's handle one
    step with the keyboard (or, with ``drag``, a fifth of its track with the mouse), a
    drop-down to another option. Returns what the control showed
    before (a slider's readout, a drop-down's option) and a function that reads what it shows
    now, for the caller's message when its output did not change: a control that did not move
    is not a chapter's fault."""
    panel = page.locator(f'.jp-NotebookPanel:visible [data-moelaws-panel="{box}"]')
    if kind == "slider":
        handle = panel.locator(":scope > .widget-slider .noUi-handle").nth(index)
        readout = handle.locator("xpath=ancestor::*[contains(@class, 'widget-slider')][1]"
                                 "//*[contains(@class, 'widget-readout')]")

        def shown() -> str:
            text = readout.inner_text() if readout.count() else ""
            return text or str(handle.get_attribute("aria-valuenow"))

        handle.scroll_into_view_if_needed()
        before = shown()
        now = float(handle.get_attribute("aria-valuenow") or 0)
        top = float(handle.get_attribute("aria-valuemax") or 0)
        if drag:
            # Notebook 7 gives the keyboard back to its active cell after Run All, whether the
            # handle is focused or clicked (an arrow key then moves nothing): drag it with the
            # mouse, as most readers would, a fifth of the track towards the side with room.
            track = handle.locator("xpath=ancestor::*[contains(@class, 'noUi-target')][1]")
            width = track.bounding_box()["width"]
            bounds = handle.bounding_box()
            x, y = bounds["x"] + bounds["width"] / 2, bounds["y"] + bounds["height"] / 2
            page.mouse.move(x, y)
            page.mouse.down()
            page.mouse.move(x + (-width if now >= top else width) / 5, y, steps=5)
            page.mouse.up()
        else:
            handle.focus()
            handle.press("ArrowLeft" if now >= top else "ArrowRight")
        return before, shown
    else:
        select = panel.locator(":scope > .widget-dropdown select").nth(index)
        select.scroll_into_view_if_needed()
        # The option farthest down the list (the first if the last is selected): neighbouring
        # options may legitimately give the same result (chapter 5: k_align 8 to 64).
        options = select.locator("option").all_text_contents()
        current = select.evaluate("s => s.options[s.selectedIndex].text")
        select.select_option(label=options[0] if current == options[-1] else options[-1])
        return current, lambda: select.evaluate("s => s.options[s.selectedIndex].text")


def screenshot(page: Any, name: str) -> None:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / f"lab-{name}.png"))
