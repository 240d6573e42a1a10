"""Record which files a Python process reads, for the book's execution cache.

``book/_ext/moelaws_exec_cache.py`` puts this folder first on ``PYTHONPATH`` while the book
executes its chapters, so every Python process of a chapter (its kernel, and a ``python -m
moelaws ...`` the chapter starts) imports this file at start-up. It is inert unless
``MOELAWS_READS_DIR`` is set. Then an audit hook (PEP 578) notes every file opened for reading
and every folder listed with :func:`os.scandir` (``glob``, ``Path.glob``, ``os.walk``) under the
folders of ``MOELAWS_READS_ROOTS`` (``os.pathsep``-separated), one ``F <path>`` or ``D <path>``
line per new path, in ``$MOELAWS_READS_DIR/<pid>.reads``. A module loaded from its bytecode
cache is recorded as its source file. Lines are written as they are found, so a kernel that is
killed leaves what it read so far.

Only standard-library code runs here, and the Python installation (``sys.prefix``) is skipped:
the packages installed there are keyed on ``requirements.txt`` instead. A ``sitecustomize``
module that this one shadows runs afterwards.
"""

import os
import sys


def _folder(path: str) -> str:
    return os.path.join(os.path.normpath(os.path.abspath(path)), "")


def _install() -> None:
    out = os.environ.get("MOELAWS_READS_DIR")
    roots_text = os.environ.get("MOELAWS_READS_ROOTS")
    if not out or not roots_text:
        return
    from importlib.util import source_from_cache

    roots = tuple({_folder(r) for r in roots_text.split(os.pathsep) if r}
                  | {_folder(os.path.realpath(r)) for r in roots_text.split(os.pathsep) if r})
    skipped = tuple({_folder(p) for p in (sys.prefix, sys.exec_prefix, sys.base_prefix, out)}
                    | {_folder(os.path.realpath(p)) for p in (sys.prefix, out)})
    os.makedirs(out, exist_ok=True)
    log = open(os.path.join(out, f"{os.getpid()}.reads"), "a", encoding="utf-8", buffering=1)
    seen: set[str] = set()
    busy = False

    def note(kind: str, target: object) -> None:
        if isinstance(target, int) or target is None:
            return
        path = os.path.normpath(os.path.abspath(os.fsdecode(os.fspath(target))))
        key = kind + path
        if key in seen:
            return
        seen.add(key)
        if not path.startswith(roots) or path.startswith(skipped):
            return
        if kind == "F" and os.sep + "__pycache__" + os.sep in path:
            try:
                path = source_from_cache(path)
            except ValueError:
                return
        log.write(f"{kind} {path}\n")

    def hook(event: str, args: tuple) -> None:
        nonlocal busy
        if busy or event not in ("open", "os.scandir"):
            return
        busy = True
        try:
            if event == "os.scandir":
                note("D", args[0] if args[0] is not None else ".")
                return
            target, mode, flags = args
            if isinstance(mode, str):
                reads = "r" in mode or ("a" in mode and "+" in mode)
            else:
                access = flags & os.O_ACCMODE
                reads = access != os.O_WRONLY and not flags & os.O_TRUNC
            if reads:
                note("F", target)
        except Exception:  # a recorder must never break the process it watches
            pass
        finally:
            busy = False

    log.write(f"# pid {os.getpid()}: {sys.executable}\n")
    sys.addaudithook(hook)


def _chain() -> None:
    """Run the ``sitecustomize`` that this module shadows, if there is one."""
    import importlib.machinery
    import importlib.util

    here = os.path.dirname(os.path.abspath(__file__))
    path = [p for p in sys.path if os.path.abspath(p or ".") != here]
    spec = importlib.machinery.PathFinder.find_spec("sitecustomize", path)
    if spec is not None and spec.loader is not None:
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)


_install()
_chain()
