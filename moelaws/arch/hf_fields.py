"""Strictly typed, range-checked access to the fields of a parsed ``config.json``.

A count is only as good as the numbers it reads, so a field is taken as what JSON says it is
and nothing else: an integer is a JSON integer (not ``true``, not ``"2048"``, not ``2048.9``;
a float with an integral value such as ``2048.0`` is refused as well, since no hub config
writes sizes as floats and accepting it would blur the rule), a boolean is ``true`` or
``false`` (not ``"no"``, not ``1``), a string is a string. ``null`` reads as an absent field.
Every size is checked against a documented plausible maximum (:data:`LIMITS`) as it is read,
before anything loops over layers or experts. Every refusal is a ``ValueError`` naming the
field (``text_config.num_hidden_layers`` for a nested one).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

__all__ = ["LIMITS", "MAX_TOTAL_PARAMS", "Fields"]

LIMITS: dict[str, int] = {
    "layers": 10_000,
    "width": 10_000_000,
    "heads": 100_000,
    "experts": 1_000_000,
    "vocab": 10_000_000,
}
"""Plausible maxima of what a config's integers describe (the largest stored model, Kimi-K2,
has 61 layers, width 7168, 384 experts and a 163,840-token vocabulary)."""

MAX_TOTAL_PARAMS = 1e14
"""Largest total parameter count (embeddings included) accepted from a ``config.json``."""

_MISSING = object()


class Fields:
    """A config dict (or a nested part of one) that remembers which fields were read.

    Parameters
    ----------
    data
        The parsed object.
    prefix
        Path of this part in the file (``"text_config."``), for messages.
    """

    def __init__(self, data: Mapping[str, Any], prefix: str = "") -> None:
        self.data = dict(data)
        self.prefix = prefix
        self.read: set[str] = set()

    def name(self, key: str) -> str:
        """The field's full name, for messages."""
        return f"{self.prefix}{key}"

    def has(self, key: str) -> bool:
        """Whether the field is present and not ``null`` (marks it read)."""
        self.read.add(key)
        return self.data.get(key) is not None

    def raw(self, key: str) -> Any:
        self.read.add(key)
        return self.data.get(key)

    def _missing(self, key: str) -> ValueError:
        return ValueError(f"config.json has no {self.name(key)!r}, which the count needs")

    def int(self, key: str, limit: str, default: Any = _MISSING, *, low: int = 1) -> Any:
        """An integer in ``[low, LIMITS[limit]]``; ``default`` (returned as is) when absent."""
        value = self.raw(key)
        if value is None:
            if default is _MISSING:
                raise self._missing(key)
            return default
        return self._check_int(self.name(key), value, limit, low)

    def _check_int(self, name: str, value: Any, limit: str, low: int) -> int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise ValueError(f"{name} must be a JSON integer, got {_shown(value)}")
        high = LIMITS[limit]
        if not low <= value <= high:
            raise ValueError(f"{name}={_shown(value)} is outside [{low}, {high:,}]")
        return value

    def _typed(self, key: str, kind: type, words: str, default: Any) -> Any:
        value = self.raw(key)
        if value is None:
            return default
        if not isinstance(value, kind):
            raise ValueError(f"{self.name(key)} must be {words}, got {_shown(value)}")
        return value

    def bool(self, key: str, default: bool | None) -> bool | None:
        """``true`` or ``false``; ``default`` when absent."""
        return self._typed(key, bool, "a JSON boolean (true or false)", default)

    def str(self, key: str, default: str | None = None) -> str | None:
        """A string; ``default`` when absent."""
        return self._typed(key, str, "a JSON string", default)

    def int_list(self, key: str, limit: str, *, low: int = 0) -> list[int] | None:
        """A list of integers each in ``[low, LIMITS[limit]]``; ``None`` when absent."""
        value = self.raw(key)
        if value is None:
            return None
        if not isinstance(value, list):
            raise ValueError(f"{self.name(key)} must be a JSON list of integers, got "
                             f"{_shown(value)}")
        return [self._check_int(f"{self.name(key)}[{i}]", v, limit, low)
                for i, v in enumerate(value)]

    def str_list(self, key: str) -> list[str] | None:
        """A list of strings; ``None`` when absent."""
        value = self.raw(key)
        if value is None:
            return None
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise ValueError(f"{self.name(key)} must be a JSON list of strings, got "
                             f"{_shown(value)}")
        return value

    def nested(self, key: str) -> Fields | None:
        """A nested object as :class:`Fields`; ``None`` when absent."""
        value = self.raw(key)
        if value is None:
            return None
        if not isinstance(value, dict):
            raise ValueError(f"{self.name(key)} must be a JSON object, got {_shown(value)}")
        return Fields(value, f"{self.name(key)}.")

    def first_int(self, keys: Sequence[str], limit: str, *, low: int = 1) -> tuple[str, int] | None:
        """The first present of several names for one quantity, as ``(name, value)``.

        Every present one is read and checked; two that disagree are refused.
        """
        found = [(k, self.int(k, limit, None, low=low)) for k in keys if self.has(k)]
        for key, value in found[1:]:
            if value != found[0][1]:
                raise ValueError(f"{self.name(key)} and {self.name(found[0][0])} disagree "
                                 f"({value} vs {found[0][1]})")
        return found[0] if found else None

    def unknown(self, known: frozenset[str]) -> list[str]:
        """Full names of the fields neither read nor in ``known``."""
        return sorted(self.name(k) for k in self.data if k not in self.read and k not in known)


def _shown(value: Any) -> str:
    """A value for a message, cut short (it may be a megabyte of list)."""
    text = repr(value) if not isinstance(value, int) or value.bit_length() < 128 else (
        f"an integer of {len(str(value))} digits")
    return text if len(text) <= 60 else text[:57] + "..."
