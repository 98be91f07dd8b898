"""``json.dumps(value, ensure_ascii=False, indent=2, default=...)``, the same text, faster.

With ``indent`` the standard library encodes in pure Python, one generator per nested
container; the quote of the seeds' 13B job at 1M offers prints 4 MB of JSON (6,801 excluded
offers), 0.16–0.17 CPU s that way and 0.08 s here (2026-12-03, the same bytes). Strings are
escaped by the standard library's C function; numbers, constants, keys and the layout follow
:mod:`json.encoder` exactly (``tests/cli/test_indented_json.py`` compares the two).
"""

from __future__ import annotations

from collections.abc import Callable
from json.encoder import encode_basestring
from typing import Any

_INFINITY = float("inf")
_float_text = float.__repr__
_int_text = int.__repr__


def _float(value: float) -> str:
    if value != value:  # NaN
        return "NaN"
    if value == _INFINITY:
        return "Infinity"
    if value == -_INFINITY:
        return "-Infinity"
    return _float_text(value)


def _key(key: object) -> str:
    if isinstance(key, str):
        return key
    if isinstance(key, float):
        return _float(key)
    if key is True or key is False or key is None:
        return {True: "true", False: "false", None: "null"}[key]
    if isinstance(key, int):
        return _int_text(key)
    raise TypeError(f"keys must be str, int, float, bool or None, not {type(key).__name__}")


def indented_json(value: object, default: Callable[[Any], Any]) -> str:
    """``value`` as :func:`json.dumps` writes it with ``ensure_ascii=False, indent=2`` and
    ``default`` (no circular-reference check: the documents are trees)."""
    parts: list[str] = []
    append = parts.append

    def encode(item: object, level: int) -> None:
        if isinstance(item, str):
            append(encode_basestring(item))
        elif item is None:
            append("null")
        elif item is True:
            append("true")
        elif item is False:
            append("false")
        elif isinstance(item, int):
            append(_int_text(item))
        elif isinstance(item, float):
            append(_float(item))
        elif isinstance(item, list | tuple):
            sequence(item, level)
        elif isinstance(item, dict):
            mapping(item, level)
        else:
            encode(default(item), level)

    def sequence(items: list[Any] | tuple[Any, ...], level: int) -> None:
        if not items:
            append("[]")
            return
        lead = "\n" + "  " * (level + 1)
        between = "," + lead
        append("[")
        for item in items:
            append(lead)
            lead = between
            if isinstance(item, str):
                append(encode_basestring(item))
            else:
                encode(item, level + 1)
        append("\n" + "  " * level + "]")

    def mapping(items: dict[Any, Any], level: int) -> None:
        if not items:
            append("{}")
            return
        lead = "\n" + "  " * (level + 1)
        between = "," + lead
        append("{")
        for key, item in items.items():
            append(lead)
            lead = between
            append(encode_basestring(_key(key)))
            append(": ")
            if isinstance(item, str):
                append(encode_basestring(item))
            else:
                encode(item, level + 1)
        append("\n" + "  " * level + "}")

    encode(value, 0)
    return "".join(parts)
