"""JSON objects that remember a key given twice, so no input lets the last value silently win.

``json.loads`` keeps the last of two equal keys (``{"price": "8.5", "price": "85"}`` is 85).
Parsed with ``object_pairs_hook=json_object``, an object with a key given twice is a
:class:`JsonObject` whose ``duplicate`` names that key, and the reader that knows where the
object stands (a sheet's row, an API's record) refuses it naming the key and the place.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any


class JsonObject(dict[str, Any]):
    """A JSON object that was given a key twice; ``duplicate`` is the first such key."""

    __slots__ = ("duplicate",)

    def __init__(self, pairs: list[tuple[str, Any]]) -> None:
        super().__init__(pairs)
        seen: set[str] = set()
        self.duplicate: str | None = None
        for key, _ in pairs:
            if key in seen:
                self.duplicate = key
                break
            seen.add(key)


def json_object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """``object_pairs_hook`` for :func:`json.loads`: a plain dict, or a :class:`JsonObject`
    when a key is given twice (the common case stays as cheap as a dict)."""
    obj = dict(pairs)
    return obj if len(obj) == len(pairs) else JsonObject(pairs)


def duplicate_key(value: object) -> str | None:
    """The key ``value`` (a parsed object, or anything else) was given twice, if any."""
    return value.duplicate if isinstance(value, JsonObject) else None


def first_duplicate(document: object, path: str = "") -> tuple[str, str] | None:
    """(dotted path of the object, key) of the first key given twice anywhere in ``document``;
    the path is ``""`` for the document itself, ``0.price`` for a key of the first item's
    ``price`` object."""
    for where, value in _objects(document, path):
        key = duplicate_key(value)
        if key is not None:
            return where, key
    return None


def _objects(value: object, path: str) -> Iterator[tuple[str, object]]:
    stack: list[tuple[str, object]] = [(path, value)]
    while stack:  # iterative: a document nested 100,000 deep must not overflow the stack
        where, item = stack.pop()
        if isinstance(item, dict):
            yield where, item
            children = list(item.items())
        elif isinstance(item, list):
            children = [(str(i), v) for i, v in enumerate(item)]
        else:
            continue
        prefix = f"{where}." if where else ""
        stack.extend((prefix + key, child) for key, child in reversed(children))
