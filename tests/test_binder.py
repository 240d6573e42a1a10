"""The Binder environment, as repo2docker would build it from binder/, checked offline.

What is checked:

* ``binder/runtime.txt`` is in a form repo2docker accepts (``python-X.Y``, optionally with a
  date) and names the Python the book is pinned for, the one running these tests (3.11);
* the JupyterLab front end (jupyterlab, notebook, jupyterlab-myst) and jupytext are pinned in
  the Binder requirements, at the same versions wherever ``requirements.txt`` pins them too;
* ``pip install --dry-run`` resolves ``binder/requirements.txt`` (with the nested
  ``-r ../requirements.txt``) against this machine's package indexes;
* ``binder/postBuild`` runs, in a sandbox prefix and Jupyter config folder, installs the
  package there and makes Jupytext's notebook view JupyterLab's default for Markdown;
* the launch buttons open ``lab/tree/<chapter>.md`` in JupyterLab (``_config.yml``, and in the
  built book when there is one; tests/browser/test_pages.py checks every chapter's link).

What is not: a full repo2docker build (it needs Docker and the network) and PyPI/PyTorch
themselves. PyTorch's CPU index (``--extra-index-url``) cannot be reached here, so the dry run
drops that line (its URL is checked as text) and resolves ``torch==2.13.0`` from the local
wheel index; whether PyTorch's index serves that version is not checked. The dry run also
resolves for this interpreter, which the runtime check ties to runtime.txt.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
BINDER = ROOT / "binder"
TORCH_CPU_INDEX = "--extra-index-url https://download.pytorch.org/whl/cpu"
FRONT_END = ("jupyterlab", "notebook", "jupyterlab-myst", "jupytext")
# repo2docker 2026.4.0's runtime.txt grammar (its parser, run from its wheel: see
# ../shared/notes/live-clients.md): name-x.y, name-x.y-yyyy-mm-dd, name-yyyy-mm-dd.
RUNTIME = re.compile(r"^python-(?P<version>\d+\.\d+)(-\d{4}-\d{2}-\d{2})?$")


def _pins(path: Path, follow: bool = True) -> dict[str, str]:
    """``{name: version}`` of a requirements file's ``name==version`` lines (and its ``-r``)."""
    pins: dict[str, str] = {}
    for line in path.read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if line.startswith("-r "):
            if follow:
                pins.update(_pins((path.parent / line[3:].strip()).resolve()))
        elif "==" in line:
            name, version = line.split("==", 1)
            pins[name.strip().lower().replace("_", "-")] = version.strip()
    return pins


def test_runtime_is_the_python_the_book_is_pinned_for() -> None:
    text = (BINDER / "runtime.txt").read_text().strip()
    match = RUNTIME.match(text)
    assert match, f"repo2docker would reject runtime.txt {text!r}"
    assert match["version"] == "3.11"
    assert match["version"] == f"{sys.version_info.major}.{sys.version_info.minor}"


def test_runtime_grammar_rejects_what_repo2docker_rejects() -> None:
    for bad in ("python-3.11.7", "python3.11", "3.11"):
        assert not RUNTIME.match(bad), bad


def test_front_end_is_pinned_as_in_requirements() -> None:
    binder = _pins(BINDER / "requirements.txt")
    book = _pins(ROOT / "requirements.txt")
    for name in FRONT_END:
        assert name in binder, f"binder/requirements.txt does not pin {name}"
        if name in book:
            assert binder[name] == book[name], (name, binder[name], book[name])
    for name, version in _pins(BINDER / "requirements.txt", follow=False).items():
        assert book.get(name, version) == version, f"{name}: binder {version}, book {book[name]}"


@pytest.mark.slow
def test_binder_requirements_resolve(tmp_path: Path) -> None:
    text = (BINDER / "requirements.txt").read_text()
    assert TORCH_CPU_INDEX in text.splitlines(), "torch must come from PyTorch's CPU index"
    offline = tmp_path / "requirements.txt"
    offline.write_text("\n".join(
        line.replace("-r ../", f"-r {ROOT}/") for line in text.splitlines()
        if line.strip() != TORCH_CPU_INDEX))
    report = tmp_path / "report.json"
    result = subprocess.run(
        [sys.executable, "-m", "pip", "install", "--dry-run", "--ignore-installed", "--quiet",
         "--report", str(report), "-r", str(offline)],
        capture_output=True, text=True, timeout=900,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    resolved = {i["metadata"]["name"].lower().replace("_", "-"): i["metadata"]["version"]
                for i in json.loads(report.read_text())["install"]}
    for name, version in _pins(offline).items():
        assert resolved.get(name, "").split("+")[0] == version, (name, resolved.get(name))


def test_postbuild_sets_jupytext_as_the_markdown_viewer(tmp_path: Path) -> None:
    prefix, config = tmp_path / "prefix", tmp_path / "jupyter-config"
    env = {
        **os.environ,
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
        "PIP_PREFIX": str(prefix),  # the package goes into the sandbox, not this environment
        "PIP_IGNORE_INSTALLED": "1",  # and this environment's own install stays
        "PIP_NO_BUILD_ISOLATION": "0",  # pip's inverted switch: build with the local setuptools
        "JUPYTER_CONFIG_DIR": str(config),
        "HOME": str(tmp_path),
    }
    result = subprocess.run(["bash", str(BINDER / "postBuild")], cwd=ROOT, env=env,
                            capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-2000:]
    settings = json.loads((config / "labconfig" / "default_setting_overrides.json").read_text())
    viewers = settings["@jupyterlab/docmanager-extension:plugin"]["defaultViewers"]
    assert viewers["markdown"] == "Jupytext Notebook"
    installed = list(prefix.rglob("*moelaws*"))
    assert installed, f"postBuild installed nothing under {prefix}"
    still_here = subprocess.run([sys.executable, "-c", "import moelaws"], cwd=tmp_path)
    assert still_here.returncode == 0, "postBuild removed this environment's moelaws"


def test_launch_buttons_open_the_chapter_in_jupyterlab() -> None:
    config = yaml.safe_load((ROOT / "_config.yml").read_text())
    assert config["launch_buttons"]["notebook_interface"] == "jupyterlab"
    book = ROOT / "_build" / "html" / "notebooks"
    pages = sorted(book.glob("*.html")) if book.is_dir() else []
    for page in pages:
        html = page.read_text()
        if "</html>" not in html:
            continue  # being written: `make test` runs the unit tests while the book builds
        links = re.findall(r'href="(https://mybinder\.org/v2/gh/[^"]+)"', html)
        assert links, page.name
        assert all(link.endswith(f"urlpath=lab/tree/notebooks/{page.stem}.md")
                   for link in links), (page.name, links)
