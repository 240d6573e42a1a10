"""Sphinx extension: the execution cache's validity, keyed on the environment and on every file
a chapter reads.

With ``execute_notebooks: cache``, jupyter-cache keys a chapter's stored outputs on its code
cells (and kernel) only. A chapter also depends on the packages installed from
``requirements.txt`` and the Python version, which every chapter shares and no chapter's reads
record, and it reads the ``moelaws`` package, its data files (the stored Hugging Face configs,
the papers' tables) and whatever else in the repository its code opens; a change there must
re-execute the chapter, and a chapter that reads none of the changed files keeps its cached
outputs.

How:

* At the start of the build, before anything executes, the whole cache is cleared when a hash
  of ``requirements.txt`` and the Python version (:func:`environment_hash`, stored in the cache
  as :data:`HASH_FILE`) differs from the one it was filled under.
* While a chapter executes, ``reads_recorder/sitecustomize.py`` (first on ``PYTHONPATH`` of the
  build's kernels, and of any Python a chapter starts) records every file opened for reading and
  every folder listed with :func:`os.scandir` under the repository, the folder the ``moelaws``
  package is imported from, and the papers' folder (:func:`read_roots`). No cell is added, so
  the chapters' cells, and jupyter-cache's hash of them, are untouched.
* After the chapter's execution, the content hash of each of those files (of each folder's list
  of names) is stored under the jupyter-cache record the execution produced, in
  ``<cache>/moelaws_reads.json`` (:data:`MANIFEST`).
* At the next build, right after the environment's check, every cache record whose recorded
  files changed, or that has no record of its reads, is removed through jupyter-cache's API
  (:func:`invalidate`), so its chapter executes again; the others stay cached.

Both checks are one builder-inited hook (:func:`_builder_inited`), so the cache's validity is
decided in one place. Not seen: a file whose absence a chapter only tested
(``os.path.exists``), folders listed with :func:`os.listdir` (the import system lists every
folder on ``sys.path`` that way), and files read by code outside Python (a C library opening a
path itself).

Run as a script, it lists the cached chapters that read a changed file and exits 1 (``make lab``
then rebuilds the book); it removes nothing::

    python book/_ext/moelaws_exec_cache.py _build/.jupyter_cache [--root .]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import platform
import shutil
import sys
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

MANIFEST = "moelaws_reads.json"
PENDING = "moelaws_reads_pending"
RECORDER = Path(__file__).resolve().parent / "reads_recorder"
MISSING = "missing"
HASH_FILE = "moelaws-environment.sha256"


def environment_hash(root: Path) -> str:
    """SHA-256 of what every executed chapter depends on and no chapter's reads record.

    Covers ``requirements.txt`` (path and contents) and the Python version.
    """
    digest = hashlib.sha256(f"python {platform.python_version()}\0".encode())
    requirements = root / "requirements.txt"
    if requirements.is_file():
        digest.update(b"requirements.txt\0" + requirements.read_bytes() + b"\0")
    return digest.hexdigest()


def clear_on_environment_change(cache_path: Path, root: Path,
                                log: Callable[[str], None] = lambda message: None) -> str:
    """Empty the cache at ``cache_path`` unless it was filled under :func:`environment_hash`
    of ``root`` as it is now, then stamp it with that hash.

    Returns
    -------
    str
        What happened, for the timing report: ``"kept (requirements unchanged)"``,
        ``"cleared (...)"`` with the reason, or ``"new"``.
    """
    stamp = cache_path / HASH_FILE
    current = environment_hash(root)
    previous = stamp.read_text().strip() if stamp.is_file() else None
    if previous == current:
        return "kept (requirements unchanged)"
    if cache_path.exists():
        reason = "requirements changed" if previous else "no environment hash recorded"
        log(f"[moelaws] clearing the execution cache {cache_path}: {reason}")
        shutil.rmtree(cache_path)
        note = f"cleared ({reason})"
    else:
        note = "new"
    cache_path.mkdir(parents=True, exist_ok=True)
    stamp.write_text(current + "\n")
    return note


def read_roots(root: Path) -> list[Path]:
    """The folders whose files are recorded when a chapter reads them.

    The repository ``root``, the folder the ``moelaws`` package is imported from (the same one
    unless an installed copy is used) and the papers' texts (``$MOELAWS_PAPERS``, else
    ``<root>/../shared/papers``).
    """
    import importlib.util

    roots = [Path(root).resolve()]
    spec = importlib.util.find_spec("moelaws")
    if spec is not None and spec.origin:
        roots.append(Path(spec.origin).resolve().parent)
    roots.append(Path(os.environ.get("MOELAWS_PAPERS") or Path(root).resolve().parent
                      / "shared" / "papers"))
    unique: list[Path] = []
    for path in roots:
        if not any(path == r or r in path.parents for r in unique):
            unique.append(path)
    return unique


def fingerprint(path: Path) -> str:
    """SHA-256 of a file's bytes, of a folder's sorted entry names, or ``"missing"``."""
    if path.is_file():
        return hashlib.sha256(path.read_bytes()).hexdigest()
    if path.is_dir():
        names = sorted(p.name for p in path.iterdir() if p.name != "__pycache__")
        return "dir:" + hashlib.sha256("\n".join(names).encode()).hexdigest()
    return MISSING


def _key(path: Path, root: Path) -> str:
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return path.as_posix()


def _path(key: str, root: Path) -> Path:
    path = Path(key)
    return path if path.is_absolute() else root / path


def recorded_reads(pending: Path) -> list[Path] | None:
    """The paths the recorder logged in ``pending`` (``None``: no process logged there)."""
    logs = sorted(pending.glob("*.reads")) if pending.is_dir() else []
    if not logs:
        return None
    paths = set()
    for log in logs:
        for line in log.read_text(encoding="utf-8").splitlines():
            if line[:2] in ("F ", "D "):
                paths.add(Path(line[2:]))
    return sorted(paths)


def fingerprints(paths: Iterable[Path], root: Path) -> dict[str, str]:
    """``{path relative to root (absolute outside it): fingerprint}`` of ``paths``."""
    root = Path(root).resolve()
    return {_key(Path(p), root): fingerprint(Path(p)) for p in sorted(set(paths))}


def changed_files(files: dict[str, str], root: Path) -> list[str]:
    """The recorded files whose fingerprint differs now."""
    root = Path(root).resolve()
    return [key for key, digest in files.items() if fingerprint(_path(key, root)) != digest]


def load_manifest(cache_path: Path) -> dict[str, Any]:
    path = Path(cache_path) / MANIFEST
    if path.is_file():
        data = json.loads(path.read_text(encoding="utf-8"))
        if data.get("version") == 1:
            return data
    return {"version": 1, "records": {}}


def save_manifest(cache_path: Path, manifest: dict[str, Any]) -> None:
    path = Path(cache_path) / MANIFEST
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(manifest, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    tmp.replace(path)


def stale_records(cache_path: Path, root: Path) -> list[tuple[Any, list[str]]]:
    """The cache records whose recorded reads changed or were never recorded, with the reasons.

    Reads the cache and the manifest only.
    """
    from jupyter_cache import get_cache

    entries = load_manifest(cache_path)["records"]
    stale = []
    for record in get_cache(str(cache_path)).list_cache_records():
        entry = entries.get(record.hashkey)
        if entry is None:
            reasons = ["no record of the files it read"]
        else:
            reasons = [f"{key} changed" for key in changed_files(entry["files"], root)]
        if reasons:
            stale.append((record, reasons))
    return stale


def _describe(record: Any, reasons: list[str]) -> str:
    more = f" (and {len(reasons) - 5} more)" if len(reasons) > 5 else ""
    return f"{record.uri}: {'; '.join(reasons[:5])}{more}"


def invalidate(cache_path: Path, root: Path,
               log: Callable[[str], None] = lambda message: None) -> dict[str, list[str]]:
    """Remove every cache record whose recorded reads changed or were never recorded.

    Returns
    -------
    dict
        ``{notebook URI: reasons}`` of the removed records (empty: everything kept).
    """
    from jupyter_cache import get_cache

    cache = get_cache(str(cache_path))
    removed: dict[str, list[str]] = {}
    for record, reasons in stale_records(cache_path, root):
        log(f"[moelaws] re-executing {_describe(record, reasons)}")
        cache.remove_cache(record.pk)
        removed[record.uri] = reasons
    manifest = load_manifest(cache_path)
    live = {record.hashkey for record in cache.list_cache_records()}
    manifest["records"] = {k: v for k, v in manifest["records"].items() if k in live}
    save_manifest(cache_path, manifest)
    return removed


def remember(cache_path: Path, root: Path, notebook: Path, reads: Iterable[Path]) -> str | None:
    """Store the fingerprints of ``reads`` under the cache record of ``notebook``'s cells.

    Returns the record's hash key, or ``None`` when the cache holds no record for the notebook
    as it is now (its execution failed).
    """
    from jupyter_cache import get_cache

    cache = get_cache(str(cache_path))
    uri = str(Path(notebook).absolute())
    try:
        record = cache.get_cached_project_nb(uri)
    except (KeyError, OSError):
        record = None
    if record is None:
        return None
    manifest = load_manifest(cache_path)
    manifest["records"][record.hashkey] = {
        "uri": _key(Path(uri), Path(root).resolve()),
        "files": fingerprints(reads, root),
    }
    save_manifest(cache_path, manifest)
    return record.hashkey


def _cache_path(app: Any) -> Path | None:
    config = getattr(app.env, "mystnb_config", None)
    if config is None or config.execution_mode != "cache":
        return None
    return Path(config.execution_cache_path)


def _pending(cache_path: Path, docname: str) -> Path:
    return cache_path / PENDING / docname.replace("/", "__")


def _builder_inited(app: Any) -> None:
    from sphinx.util import logging

    cache_path = _cache_path(app)
    if cache_path is None:
        return
    logger = logging.getLogger(__name__)
    app.moelaws_reads_start = time.time()
    root = Path(app.srcdir)
    # The environment first: once it has emptied the cache, no record is left to check.
    app.moelaws_cache_note = clear_on_environment_change(cache_path, root, logger.info)
    if (cache_path / "global.db").is_file():
        removed = invalidate(cache_path, root, logger.info)
        app.moelaws_cache_note += (f"; {len(removed)} record(s) invalidated by the files their "
                                   "chapter read")
    os.environ["MOELAWS_READS_ROOTS"] = os.pathsep.join(str(p) for p in read_roots(root))
    python_path = [str(RECORDER)] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep)
                                     if p and p != str(RECORDER)]
    os.environ["PYTHONPATH"] = os.pathsep.join(python_path)


def reads_dir(app: Any, docname: str) -> Path:
    """An empty folder for the recorder's logs of ``docname``'s kernel (``MOELAWS_READS_DIR``):
    read back, stored and removed when the document has been read (``doctree-read``)."""
    pending = _pending(Path(app.env.mystnb_config.execution_cache_path), docname)
    shutil.rmtree(pending, ignore_errors=True)
    pending.mkdir(parents=True)
    return pending


def _source_read(app: Any, docname: str, source: list[str]) -> None:
    cache_path = _cache_path(app)
    if cache_path is None:
        return
    # A notebook moelaws_parallel_exec.py executed before Sphinx read it: its reads are there
    # already, and kept (were it executed again now, the new reads would join them).
    if docname in getattr(app, "moelaws_preexecuted", {}):
        pending = _pending(cache_path, docname)
    else:
        pending = reads_dir(app, docname)
    os.environ["MOELAWS_READS_DIR"] = str(pending)


def _doctree_read(app: Any, doctree: Any) -> None:
    from sphinx.util import logging

    cache_path = _cache_path(app)
    if cache_path is None:
        return
    os.environ.pop("MOELAWS_READS_DIR", None)
    docname = app.env.docname
    pending = _pending(cache_path, docname)
    reads = recorded_reads(pending)
    shutil.rmtree(pending, ignore_errors=True)
    if reads is None:
        data = (getattr(app.env, "nb_metadata", {}) or {}).get(docname, {}).get("exec_data")
        if data and (data.get("mtime") or 0.0) >= getattr(app, "moelaws_reads_start", 0.0):
            logging.getLogger(__name__).warning(
                f"[moelaws] {docname} executed but no file it read was recorded "
                f"(is {RECORDER}/sitecustomize.py imported?); it will execute again next time")
        return
    notebook = Path(app.env.doc2path(docname))
    if remember(cache_path, Path(app.srcdir), notebook, reads) is None:
        logging.getLogger(__name__).info(
            f"[moelaws] {docname}: executed but not cached; its reads are not stored")


def main(argv: list[str] | None = None) -> int:
    """Exit 1, saying why, if the next build would execute a cached chapter again: the
    environment changed (:func:`environment_hash`), or a chapter read a file that changed since
    it executed."""
    parser = argparse.ArgumentParser(description=main.__doc__)
    parser.add_argument("cache", type=Path, help="the execution cache (_build/.jupyter_cache)")
    parser.add_argument("--root", type=Path, default=Path("."), help="the repository")
    args = parser.parse_args(argv)
    if not (args.cache / "global.db").is_file():
        print(f"no execution cache at {args.cache}")
        return 1
    stamp = args.cache / HASH_FILE
    if not stamp.is_file() or stamp.read_text().strip() != environment_hash(args.root):
        print(f"stale: the environment changed (requirements.txt or Python) since {args.cache} "
              "was filled")
        return 1
    stale = stale_records(args.cache, args.root)
    for record, reasons in stale:
        print(f"stale: {_describe(record, reasons)}")
    return 1 if stale else 0


def setup(app: Any) -> dict[str, Any]:
    # After MyST-NB's builder-inited handler, which settles the cache path, and
    # moelaws_execution's (900), which takes the build's start time for the timing report.
    app.connect("builder-inited", _builder_inited, priority=950)
    app.connect("source-read", _source_read)
    app.connect("doctree-read", _doctree_read)
    return {"parallel_read_safe": True, "parallel_write_safe": True}


if __name__ == "__main__":
    sys.exit(main())
