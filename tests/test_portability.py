"""The repository runs anywhere: no file names a path on one machine, and the transcription
tests find the papers beside the repository (and fail in CI when they are missing)."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest
from conftest import ROOT, papers_dir

pytest_plugins = ("pytester",)

# An absolute path into a home, root or scratch folder (spelled in pieces so that this file
# does not match itself).
_MACHINE_PATH = re.compile(r"(?<![\w.~])/(" + "|".join(["work", "root", "home", "tmp"]) + r")/")


def _tracked_text_files() -> list[Path]:
    try:
        listed = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True,
                                check=True).stdout.splitlines()
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("not a git checkout")
    out = []
    for name in listed:
        path = ROOT / name
        if path.is_file() and path.suffix not in {".png", ".ipynb", ".lock"}:
            out.append(path)
    return out


def test_no_file_names_a_machine_path() -> None:
    hits = []
    for path in _tracked_text_files():
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
        for number, line in enumerate(text.splitlines(), 1):
            if _MACHINE_PATH.search(line):
                hits.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()[:100]}")
    assert not hits, "machine paths in the repository:\n" + "\n".join(hits)


def test_the_pattern_catches_machine_paths() -> None:
    assert _MACHINE_PATH.search("see " + "/" + "work/shared/papers/x.txt")
    assert _MACHINE_PATH.search("/" + "tmp/" + "out.ipynb")
    assert not _MACHINE_PATH.search("../shared/papers/x.txt")
    assert not _MACHINE_PATH.search("https://example.org/home/page")


def test_papers_are_beside_the_repository(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("MOELAWS_PAPERS", raising=False)
    assert papers_dir() == ROOT.parent / "shared" / "papers"
    monkeypatch.setenv("MOELAWS_PAPERS", "elsewhere")
    assert papers_dir() == Path("elsewhere")


@pytest.mark.parametrize(("ci", "outcome"), [("", "skipped"), ("true", "failed")])
def test_missing_papers_skip_locally_and_fail_in_ci(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, ci: str, outcome: str
) -> None:
    monkeypatch.setenv("CI", ci)
    monkeypatch.setenv("MOELAWS_PAPERS", str(pytester.path / "no-papers-here"))
    pytester.makeconftest((ROOT / "tests" / "conftest.py").read_text(encoding="utf-8"))
    pytester.makepyfile("def test_x(paper_text):\n    paper_text('some-paper.txt')\n")
    result = pytester.runpytest_inprocess("-q", "-p", "no:cacheprovider")
    result.assert_outcomes(**{outcome: 1})
