"""The Binder environment, as repo2docker would build it from binder/, checked offline.

What is checked:

* ``binder/runtime.txt`` is in a form repo2docker accepts (``python-X.Y``, optionally with a
  date) and names the Python the book is pinned for, the one running these tests (3.11);
* the JupyterLab front end (jupyterlab, notebook, jupyterlab-myst) and jupytext are pinned in
  the Binder requirements, at the same versions wherever ``requirements.txt`` pins them too;
* ``binder/requirements.txt`` resolves (with the nested ``-r ../requirements.txt``) against
  this machine's package indexes. When the tests run in the repository's ``.venv`` and
  ``make venv`` installed it from the current ``requirements.txt`` (its stamp is not older),
  that install was this resolution: then every pin must be installed at its version and
  ``pip check`` must find no broken requirement, and Binder's file may add nothing the book
  does not pin at the same version (its ``-r`` names the book's file, its one index line is
  PyTorch's). Anything else (another environment, a stale ``.venv``, a line of either file
  that is not a plain ``name==version`` pin, a Binder-only pin or option) is resolved by
  ``pip install --dry-run``, as repo2docker would;
* ``binder/postBuild`` runs, in a sandbox prefix and Jupyter config folder, installs the
  package there and makes Jupytext's notebook view JupyterLab's default for Markdown;
* the launch buttons open ``lab/tree/<chapter>.md`` in JupyterLab (``_config.yml``, and in the
  built book when there is one; tests/browser/test_pages.py checks every chapter's link).

What is not: a full repo2docker build (it needs Docker and the network) and PyPI/PyTorch
themselves. PyTorch's CPU index (``--extra-index-url``) cannot be reached here, so the dry run
drops that line (its URL is checked as text) and resolves ``torch==2.13.0`` from the local
wheel index, as ``make venv`` installed it; whether PyTorch's index serves that version is not
checked. Both resolve for this interpreter, which the runtime check ties to runtime.txt.
"""

from __future__ import annotations

import importlib.metadata
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


VENV = ROOT / ".venv"
VENV_STAMP = VENV / ".installed"
"""What ``make venv`` touches once ``pip install -r requirements.txt`` has succeeded."""
PIN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*==[A-Za-z0-9.+!_-]+$")


def _lines(text: str) -> list[str]:
    return [line for line in (raw.split("#", 1)[0].strip() for raw in text.splitlines()) if line]


def _normalised(pin: str) -> tuple[str, str]:
    """``(name, version)`` of a ``name==version`` line, the name as pip compares it (PEP 503)."""
    name, version = pin.split("==")
    return re.sub(r"[-_.]+", "-", name).lower(), version


def _beyond_the_book(binder_text: str, book_text: str) -> list[str]:
    """Lines whose resolution installing the book's environment did not already prove.

    The book's file must be plain ``name==version`` pins (no option, marker, extra, URL or
    include); Binder's may add PyTorch's index (the book's torch pin is installed from the
    local wheel index either way), include the book's file and pin what the book pins at the
    same version. Every other line is returned.
    """
    book = _lines(book_text)
    beyond = [f"requirements.txt: {line}" for line in book if not PIN.match(line)]
    book_pins = {_normalised(line) for line in book if PIN.match(line)}
    for line in _lines(binder_text):
        if line == TORCH_CPU_INDEX:
            continue
        if line.startswith("-r ") and (BINDER / line[3:].strip()).resolve() == (
                ROOT / "requirements.txt").resolve():
            continue
        if PIN.match(line) and _normalised(line) in book_pins:
            continue
        beyond.append(f"binder/requirements.txt: {line}")
    return beyond


def _venv_installed_from_requirements() -> bool:
    """Whether this is the repository's ``.venv`` and ``make venv`` installed it from the
    current ``requirements.txt`` (make's own rule: the stamp is not older than the file)."""
    return (Path(sys.prefix).resolve() == VENV.resolve() and VENV_STAMP.is_file()
            and VENV_STAMP.stat().st_mtime >= (ROOT / "requirements.txt").stat().st_mtime)


def test_only_the_books_own_pins_count_as_resolved() -> None:
    book = "# pins\nnumpy==2.4.6\njupyterlab==4.6.6  # front end\njupyterlab_myst==2.7.0\n"
    binder = f"{TORCH_CPU_INDEX}\n-r ../requirements.txt\njupyterlab==4.6.6\n"
    assert _beyond_the_book(binder + "jupyterlab-myst==2.7.0\n", book) == []
    assert _beyond_the_book(binder + "ipympl==0.9.8\n", book) == [
        "binder/requirements.txt: ipympl==0.9.8"]
    assert _beyond_the_book(binder.replace("4.6.6", "4.6.5"), book) == [
        "binder/requirements.txt: jupyterlab==4.6.5"]
    assert _beyond_the_book(binder.replace("../requirements", "../requirement"), book) == [
        "binder/requirements.txt: -r ../requirement.txt"]
    assert _beyond_the_book(binder + "--index-url https://example.org/simple\n", book) == [
        "binder/requirements.txt: --index-url https://example.org/simple"]
    for line in ('numpy==2.4.6; python_version < "3.12"', "jsonschema[format]==4.23.0",
                 "numpy>=2.4", "-r other.txt", "--extra-index-url https://example.org"):
        assert _beyond_the_book(binder, book + line + "\n") == [f"requirements.txt: {line}"]


def _dry_run(text: str, tmp_path: Path) -> None:
    """``pip install --dry-run`` of Binder's file: every pin resolves at its version."""
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


@pytest.mark.slow
def test_binder_requirements_resolve(tmp_path: Path) -> None:
    text = (BINDER / "requirements.txt").read_text()
    assert TORCH_CPU_INDEX in text.splitlines(), "torch must come from PyTorch's CPU index"
    if _beyond_the_book(text, (ROOT / "requirements.txt").read_text()) or (
            not _venv_installed_from_requirements()):
        _dry_run(text, tmp_path)
        return
    # make venv ran this very resolution (pip install -r requirements.txt from the same
    # indexes, for this interpreter): .venv holds what pip resolved, unless changed since.
    installed = {re.sub(r"[-_.]+", "-", d.metadata["Name"]).lower(): d.version
                 for d in importlib.metadata.distributions()}
    for name, version in _pins(BINDER / "requirements.txt").items():
        name = re.sub(r"[-_.]+", "-", name)
        assert installed.get(name, "").split("+")[0] == version, (
            f"{name}=={version} pinned, .venv holds {installed.get(name)}: run make venv")
    check = subprocess.run([sys.executable, "-m", "pip", "check"], capture_output=True,
                           text=True, timeout=300)
    assert check.returncode == 0, check.stdout[-3000:] + check.stderr[-3000:]


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
