"""The execution cache is keyed on the environment and on every file a chapter reads
(book/_ext/moelaws_exec_cache.py).

jupyter-cache alone keys a chapter on its code cells, so a changed data file left the old outputs
in the book. These tests change a data file under a cached result and check the result goes
(and that nothing else does: an unchanged rebuild is a cache hit), and change
``requirements.txt`` and check the whole cache goes.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path
from types import SimpleNamespace

import nbformat
import pytest
import yaml
from book_extensions import MYST_NOTEBOOK_HEADER, build_in_process, load_extension
from jupyter_cache import get_cache
from jupyter_cache.base import CacheBundleIn

ROOT = Path(__file__).resolve().parents[1]
EXT_PATH = ROOT / "book" / "_ext" / "moelaws_exec_cache.py"
ext = load_extension("moelaws_exec_cache")


def _cached_notebook(root: Path) -> tuple[Path, Path, object]:
    """A project notebook with a cached (fake) execution, and the data file it 'read'."""
    data = root / "data" / "value.txt"
    data.parent.mkdir(parents=True)
    data.write_text("1\n")
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell("print(open('data/value.txt').read())")]
    path = root / "tiny.ipynb"
    nbformat.write(nb, path)
    cache_path = root / "_build" / "jc"
    cache = get_cache(str(cache_path))
    cache.add_nb_to_project(str(path))
    executed = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(
        nb.cells[0].source, outputs=[nbformat.v4.new_output("stream", text="1\n")])])
    cache.cache_notebook_bundle(CacheBundleIn(executed, str(path.absolute())),
                                check_validity=False)
    (cache_path / ext.HASH_FILE).write_text(ext.environment_hash(root))
    return cache_path, data, cache


def test_a_changed_data_file_invalidates_only_its_record(tmp_path: Path) -> None:
    cache_path, data, cache = _cached_notebook(tmp_path)
    uri = str((tmp_path / "tiny.ipynb").absolute())
    assert ext.remember(cache_path, tmp_path, tmp_path / "tiny.ipynb", [data]) is not None

    assert ext.invalidate(cache_path, tmp_path) == {}
    assert cache.get_cached_project_nb(uri) is not None, "unchanged files: the result stays"
    assert ext.main([str(cache_path), "--root", str(tmp_path)]) == 0

    data.write_text("2\n")
    assert ext.main([str(cache_path), "--root", str(tmp_path)]) == 1, "make lab's check"
    assert cache.get_cached_project_nb(uri) is not None, "the check removes nothing"
    removed = ext.invalidate(cache_path, tmp_path)
    assert removed == {uri: ["data/value.txt changed"]}
    assert cache.get_cached_project_nb(uri) is None
    assert [r.uri for r in cache.list_unexecuted()] == [uri]
    assert ext.load_manifest(cache_path)["records"] == {}


def test_make_labs_check_sees_a_changed_environment(tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    """``make lab-notebooks`` asks the script whether the next build would execute again: a
    changed ``requirements.txt`` empties the whole cache at that build, so it says stale."""
    cache_path, _, cache = _cached_notebook(tmp_path)
    ext.remember(cache_path, tmp_path, tmp_path / "tiny.ipynb", [])
    assert ext.main([str(cache_path), "--root", str(tmp_path)]) == 0
    (tmp_path / "requirements.txt").write_text("numpy==2\n")
    assert ext.main([str(cache_path), "--root", str(tmp_path)]) == 1
    assert "environment changed" in capsys.readouterr().out
    assert len(cache.list_cache_records()) == 1, "the check removes nothing"


def test_a_record_without_recorded_reads_is_invalidated(tmp_path: Path) -> None:
    cache_path, _, cache = _cached_notebook(tmp_path)
    removed = ext.invalidate(cache_path, tmp_path)
    assert list(removed.values()) == [["no record of the files it read"]]
    assert cache.list_cache_records() == []


def test_fingerprints_of_files_folders_and_missing_paths(tmp_path: Path) -> None:
    (tmp_path / "d").mkdir()
    (tmp_path / "d" / "a.csv").write_text("x")
    prints = ext.fingerprints([tmp_path / "d", tmp_path / "d" / "a.csv", tmp_path / "gone"],
                              tmp_path)
    assert set(prints) == {"d", "d/a.csv", "gone"}
    assert prints["gone"] == ext.MISSING and prints["d"].startswith("dir:")
    assert ext.changed_files(prints, tmp_path) == []
    (tmp_path / "d" / "b.csv").write_text("y")
    (tmp_path / "gone").write_text("here now")
    assert ext.changed_files(prints, tmp_path) == ["d", "gone"]


def test_the_recorder_notes_reads_imports_and_globs_but_not_writes(tmp_path: Path) -> None:
    pkg = tmp_path / "pkg"
    (pkg / "data").mkdir(parents=True)
    (pkg / "__init__.py").write_text(
        "import pathlib\nVALUE = (pathlib.Path(__file__).parent / 'data' / 'v.txt').read_text()\n")
    (pkg / "data" / "v.txt").write_text("7")
    outside = tmp_path.parent / f"{tmp_path.name}-outside.txt"
    outside.write_text("not under a root")
    code = (f"import glob, pkg; glob.glob({str(pkg / 'data')!r} + '/*'); "
            f"open({str(tmp_path / 'written.txt')!r}, 'w').write('x'); "
            f"open({str(outside)!r}).read()")
    # A runner may set PYTHONDONTWRITEBYTECODE (CI here does); an empty value writes bytecode,
    # as a reader's Python does, so that the second run reads pkg's bytecode, not its source.
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ext.RECORDER), str(tmp_path)]),
           "MOELAWS_READS_ROOTS": str(tmp_path), "PYTHONDONTWRITEBYTECODE": ""}
    for run in range(2):  # the second run imports pkg from its bytecode cache
        out = tmp_path / f"reads{run}"
        subprocess.run([sys.executable, "-c", code], env={**env, "MOELAWS_READS_DIR": str(out)},
                       check=True, cwd=tmp_path)
        reads = {p.relative_to(tmp_path).as_posix() for p in ext.recorded_reads(out)}
        assert reads == {"pkg/__init__.py", "pkg/data/v.txt", "pkg/data"}, run
        assert list((pkg / "__pycache__").glob("__init__.*.pyc")), "no bytecode for run 2"
    subprocess.run([sys.executable, "-c", "import pkg"], env=env, check=True, cwd=tmp_path)


def _tiny_book(src: Path, runs: Path) -> None:
    (src / "data").mkdir(parents=True)
    (src / "data" / "value.txt").write_text("first value\n")
    (src / "helper.py").write_text(textwrap.dedent(f"""
        from pathlib import Path

        def value():
            with open({str(runs)!r}, "a") as log:
                log.write("executed\\n")
            return (Path(__file__).parent / "data" / "value.txt").read_text().strip()
        """))
    (src / "index.md").write_text(MYST_NOTEBOOK_HEADER + textwrap.dedent("""\
        # Tiny

        ```{code-cell} ipython3
        import sys
        sys.path.insert(0, ".")
        import helper
        print("VALUE:", helper.value())
        ```
        """))
    (src / "conf.py").write_text(textwrap.dedent(f"""
        import sys
        sys.path.insert(0, {str(EXT_PATH.parent)!r})
        extensions = ["myst_nb", "moelaws_exec_cache"]
        nb_execution_mode = "cache"
        nb_execution_cache_path = {str(src / "_build" / ".jupyter_cache")!r}
        exclude_patterns = ["_build"]
        """))


def _build(src: Path, capsys: pytest.CaptureFixture[str]) -> str:
    """The tiny book built in this process (book_extensions.build_in_process); its page."""
    assert build_in_process(src) == 0, capsys.readouterr().err[-3000:]
    return (src / "_build" / "html" / "index.html").read_text()


@pytest.mark.slow
def test_a_book_build_re_executes_a_chapter_whose_data_changed(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A real Sphinx + MyST-NB build: cache hit when nothing changed, re-execution when the
    data file the chapter read changed, and the new value in the page. (A changed environment
    empties the cache: the hook's own tests below, a fourth build here would cost 18 s.)"""
    src, runs = tmp_path / "book", tmp_path / "runs.log"
    _tiny_book(src, runs)
    assert "first value" in _build(src, capsys)
    assert runs.read_text().count("executed") == 1
    manifest = ext.load_manifest(src / "_build" / ".jupyter_cache")["records"]
    [entry] = manifest.values()
    assert {"data/value.txt", "helper.py"} <= set(entry["files"])

    assert "first value" in _build(src, capsys)
    assert runs.read_text().count("executed") == 1, "an unchanged rebuild must be a cache hit"

    (src / "data" / "value.txt").write_text("second value\n")
    page = _build(src, capsys)
    assert runs.read_text().count("executed") == 2
    assert "second value" in page and "first value" not in page


def _package(root: Path) -> Path:
    (root / "moelaws" / "data" / "paper").mkdir(parents=True)
    (root / "moelaws" / "__init__.py").write_text("")
    (root / "moelaws" / "data" / "paper" / "table.csv").write_text("a,b\n1,2\n")
    (root / "requirements.txt").write_text("numpy==1\n")
    return root


def test_environment_hash_follows_requirements_not_the_package(tmp_path: Path) -> None:
    """The package and its data are keyed per chapter (the files it read), not here."""
    root = _package(tmp_path)
    first = ext.environment_hash(root)
    assert ext.environment_hash(root) == first
    (root / "moelaws" / "__init__.py").write_text("X = 1\n")
    (root / "moelaws" / "data" / "paper" / "table.csv").write_text("a,b\n1,3\n")
    assert ext.environment_hash(root) == first
    (root / "requirements.txt").write_text("numpy==2\n")
    assert ext.environment_hash(root) != first


def _app(root: Path, mode: str = "cache") -> SimpleNamespace:
    config = SimpleNamespace(execution_mode=mode, execution_cache_path=str(root / "_build/jc"))
    return SimpleNamespace(srcdir=str(root), env=SimpleNamespace(mystnb_config=config))


@pytest.fixture
def hook_environ(monkeypatch: pytest.MonkeyPatch) -> None:
    """The builder-inited hook puts the reads recorder on this process's ``PYTHONPATH`` (for the
    kernels it starts); restored after the test."""
    for name in ("PYTHONPATH", "MOELAWS_READS_ROOTS"):
        monkeypatch.setenv(name, os.environ.get(name, ""))


def test_cache_is_cleared_when_the_requirements_change(tmp_path: Path,
                                                       hook_environ: None) -> None:
    root = _package(tmp_path)
    app = _app(root)
    cache = root / "_build" / "jc"
    ext._builder_inited(app)
    assert app.moelaws_cache_note == "new"
    _, data, jc = _cached_notebook(root)
    uri = str((root / "tiny.ipynb").absolute())
    assert ext.remember(cache, root, root / "tiny.ipynb", [data]) is not None
    ext._builder_inited(app)
    assert app.moelaws_cache_note.startswith("kept")
    assert app.moelaws_cache_note.endswith("; 0 record(s) invalidated by the files their "
                                           "chapter read")
    assert (cache / "global.db").exists()
    assert jc.get_cached_project_nb(uri) is not None
    (root / "requirements.txt").write_text("numpy==2\n")
    ext._builder_inited(app)
    assert app.moelaws_cache_note == "cleared (requirements changed)"
    assert not (cache / "global.db").exists()
    assert not (cache / ext.MANIFEST).exists()
    assert (cache / ext.HASH_FILE).read_text().strip() == ext.environment_hash(root)


def test_cache_is_left_alone_when_not_caching(tmp_path: Path, hook_environ: None) -> None:
    root = _package(tmp_path)
    app = _app(root, mode="force")
    ext._builder_inited(app)
    assert not (root / "_build" / "jc").exists()


def test_one_hook_checks_the_environment_then_each_chapters_reads(tmp_path: Path,
                                                                  hook_environ: None) -> None:
    """Under an unchanged environment the same hook drops the record whose reads changed, and
    puts the reads recorder first on the kernels' ``PYTHONPATH``."""
    root = _package(tmp_path)
    app = _app(root)
    ext._builder_inited(app)
    _, data, jc = _cached_notebook(root)
    uri = str((root / "tiny.ipynb").absolute())
    assert ext.remember(root / "_build" / "jc", root, root / "tiny.ipynb", [data]) is not None
    data.write_text("2\n")
    ext._builder_inited(app)
    assert app.moelaws_cache_note == ("kept (requirements unchanged); 1 record(s) invalidated "
                                      "by the files their chapter read")
    assert jc.get_cached_project_nb(uri) is None
    assert os.environ["PYTHONPATH"].split(os.pathsep)[0] == str(ext.RECORDER)


def test_the_book_configuration_uses_the_read_keyed_cache() -> None:
    config = yaml.safe_load((ROOT / "_config.yml").read_text())
    assert config["execute"]["execute_notebooks"] == "cache"
    local = config["sphinx"]["local_extensions"]
    assert local.get("moelaws_exec_cache") == "book/_ext"
    assert (ROOT / local["moelaws_exec_cache"] / "moelaws_exec_cache.py") == EXT_PATH
    assert (ext.RECORDER / "sitecustomize.py").is_file()

    connected = []

    class App:
        def connect(self, event: str, handler: object, priority: int = 500) -> None:
            connected.append((event, priority))

    ext.setup(App())
    assert ("builder-inited", 950) in connected
    assert {"source-read", "doctree-read"} <= {event for event, _ in connected}

    # The cache's validity has one home: the execution extension's only builder-inited hook
    # takes the build's start time.
    execution = load_extension("moelaws_execution")
    hooks: list[tuple[str, str]] = []

    class ExecutionApp:
        def connect(self, event: str, handler: object, priority: int = 500) -> None:
            hooks.append((event, getattr(handler, "__name__", "")))

    execution.setup(ExecutionApp())
    assert [name for event, name in hooks if event == "builder-inited"] == ["_build_start"]


def test_read_roots_cover_the_repository_and_the_papers(tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("MOELAWS_PAPERS", raising=False)
    root = tmp_path / "repo"
    root.mkdir()
    roots = ext.read_roots(root)
    assert roots[0] == root.resolve()
    assert tmp_path / "shared" / "papers" in roots
