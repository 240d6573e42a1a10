"""Reading a ``config.json`` someone hands us, without trusting it.

:func:`read_json_object` reads only a regular file (a FIFO, a device such as ``/dev/zero``, a
socket or a directory is refused without being read), at most :data:`MAX_BYTES` bytes (the
size is checked before reading, and the read itself is bounded, so a file that grows meanwhile
cannot make it read more), as strict UTF-8 JSON whose nesting is at most :data:`MAX_DEPTH`
levels (the parser's ``RecursionError`` on a file nested some thousand levels deep is caught,
and shallower excess is measured without recursion), without
the ``NaN``/``Infinity`` literals Python's parser accepts but JSON does not, without duplicate
keys (JSON parsers keep the last one silently, which would change the meaning unseen), and
whose top level is an object. Every refusal is a ``ValueError`` naming the file and the reason.
"""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path
from typing import Any

__all__ = ["MAX_BYTES", "MAX_DEPTH", "parse_json_object", "read_json_object"]

MAX_BYTES = 1 << 20
"""Largest ``config.json`` read (1 MiB; the stored hub configs are under 10 KiB)."""

MAX_DEPTH = 32
"""Deepest nesting of objects and lists accepted (hub configs nest three or four levels)."""


def _depth(value: Any) -> int:
    """Deepest nesting of objects and lists in a parsed value (iterative: no recursion)."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        item, level = stack.pop()
        if isinstance(item, (dict, list)):
            deepest = max(deepest, level)
            children = item.values() if isinstance(item, dict) else item
            stack.extend((child, level + 1) for child in children)
    return deepest


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise ValueError(f"duplicate key {key!r}")
        out[key] = value
    return out


def parse_json_object(text: str, where: str) -> dict[str, Any]:
    """Parse ``text`` (from ``where``) as a JSON object under the rules of this module.

    Raises
    ------
    ValueError
        Too deep, invalid JSON, ``NaN``/``Infinity``, a number too long to convert, a duplicate
        key, or a top level that is not an object.
    """
    try:
        data = json.loads(text, parse_constant=_no_constant, object_pairs_hook=_unique_keys)
    except json.JSONDecodeError as exc:
        raise ValueError(f"{where} is not valid JSON: {exc}") from None
    except RecursionError:  # the parser's own guard, near 1000 levels
        raise ValueError(f"{where} nests deeper than {MAX_DEPTH} levels") from None
    except ValueError as exc:  # NaN/Infinity, a duplicate key, an integer of > 4300 digits
        raise ValueError(f"{where} is not valid JSON: {exc}") from None
    if _depth(data) > MAX_DEPTH:
        raise ValueError(f"{where} nests deeper than {MAX_DEPTH} levels")
    if not isinstance(data, dict):
        raise ValueError(f"{where} is not a JSON object (its top level is a "
                         f"{type(data).__name__})")
    return data


def read_json_object(path: str | Path) -> tuple[dict[str, Any], Path]:
    """Read ``path`` (a ``config.json``, or a directory holding one) as a JSON object.

    Returns
    -------
    (dict, Path)
        The parsed object and the file it came from.

    Raises
    ------
    ValueError
        No such file, not a regular file, larger than :data:`MAX_BYTES`, unreadable, not
        UTF-8, or refused by :func:`parse_json_object`.
    """
    file = Path(path)
    try:
        if file.is_dir():
            file = file / "config.json"
        info = os.stat(file)
    except FileNotFoundError:
        raise ValueError(f"no such configuration file: {file}") from None
    except OSError as exc:  # a symlink loop, a too-long name, no permission
        raise ValueError(f"cannot read {file}: {exc.strerror or exc}") from None
    if not stat.S_ISREG(info.st_mode):
        raise ValueError(f"{file} is not a regular file")
    if info.st_size > MAX_BYTES:
        raise ValueError(f"{file} is larger than {MAX_BYTES} bytes ({info.st_size}); "
                         "a config.json is a few kilobytes")
    try:
        # O_NONBLOCK: should a FIFO replace the file after the check, opening it must not wait
        # for a writer; fstat then refuses it.
        fd = os.open(file, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
        with os.fdopen(fd, "rb") as stream:
            if not stat.S_ISREG(os.fstat(stream.fileno()).st_mode):
                raise ValueError(f"{file} is not a regular file")
            raw = stream.read(MAX_BYTES + 1)
    except OSError as exc:
        raise ValueError(f"cannot read {file}: {exc.strerror or exc}") from None
    if len(raw) > MAX_BYTES:
        raise ValueError(f"{file} is larger than {MAX_BYTES} bytes")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ValueError(f"{file} is not UTF-8 text: {exc.reason} at byte {exc.start}") from None
    return parse_json_object(text, str(file)), file
