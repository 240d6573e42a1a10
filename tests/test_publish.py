"""``make publish`` refuses a working tree that differs from HEAD and a build not made from HEAD.

The published book's notebooks install the commit they were built from, so publishing
uncommitted work, or a stale ``_build/html``, would publish notebooks that install other code.
Each test runs ``make`` in a throw-away clone of this repository; nothing is built or pushed.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _clone(tmp_path: Path) -> Path:
    if shutil.which("git") is None or shutil.which("make") is None:
        pytest.skip("needs git and make")
    if not (ROOT / ".git").exists():
        pytest.skip("not a git checkout")
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "--quiet", "--local", str(ROOT), str(clone)], check=True)
    return clone


def _make(clone: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["make", "--no-print-directory", *args], cwd=clone, capture_output=True,
                          text=True, check=False)


def test_publish_refuses_a_tree_that_differs_from_head(tmp_path: Path) -> None:
    clone = _clone(tmp_path)
    assert _make(clone, "publish-guard").returncode == 0
    (clone / "notes.txt").write_text("uncommitted\n")
    refused = _make(clone, "publish-guard")
    assert refused.returncode != 0
    assert "differs from HEAD" in refused.stdout and "notes.txt" in refused.stdout
    (clone / "notes.txt").unlink()
    (clone / "README.md").write_text("edited\n")
    assert _make(clone, "publish-guard").returncode != 0


def test_publish_refuses_a_build_not_made_from_head(tmp_path: Path) -> None:
    clone = _clone(tmp_path)
    html = clone / "_build" / "html"
    html.mkdir(parents=True)
    (html / ".build-commit").write_text("0" * 40 + "\n")
    # -o book: take the (fake) build as it is instead of building the book.
    refused = _make(clone, "-o", "book", "publish")
    assert refused.returncode != 0
    assert "not HEAD" in refused.stdout
    assert "ghp-import" not in refused.stdout
