"""The pattern of provider and data-centre ids: ASCII letters, digits, ``-``, ``_`` and ``.``.

Ids end up in file names, URLs, report anchors, lock keys and command lines, and a reader
must be able to tell two of them apart: so no look-alike letters (Cyrillic ``а`` beside Latin
``a``), no invisible or control characters, no ``/`` and no path-like ``..`` or leading dot.
:func:`id_problem` says what is wrong with an id, naming the first offending character by
position and code point (an invisible one shows nothing when printed).
"""

from __future__ import annotations

import re
import unicodedata

from comparator.errors import Msg

ID_CHARACTERS = "ASCII letters, digits, '-', '_' and '.'"
_ALLOWED = re.compile(r"[A-Za-z0-9_.\-]*")
_NOT_ALLOWED = re.compile(r"[^A-Za-z0-9_.\-]")
ID_RULE = Msg(
    "an id of ASCII letters, digits, '-', '_' and '.' (no leading '.', no '..')",
)


def _character(ch: str) -> str:
    """``'а' (U+0430 CYRILLIC SMALL LETTER A)``: the character, its code point and name;
    ``U+200B (ZERO WIDTH SPACE)`` for one that shows nothing."""
    name = unicodedata.name(ch, "") or f"category {unicodedata.category(ch)}"
    if ch.isprintable() and not ch.isspace():
        return f"{ch!r} (U+{ord(ch):04X} {name})"
    return f"U+{ord(ch):04X} ({name})"  # invisible: the code point alone


def id_problem(value: str) -> Msg | None:
    """None when ``value`` follows the pattern, else what is wrong and where (1-based)."""
    if _ALLOWED.fullmatch(value):
        if value.startswith("."):
            return Msg("{rule}; it starts with '.'", rule=ID_RULE)
        if ".." in value:
            return Msg(
                "{rule}; it has '..' at position {position}",
                rule=ID_RULE,
                position=value.index("..") + 1,
            )
        return None
    bad = _NOT_ALLOWED.search(value)
    assert bad is not None
    return Msg(
        "{rule}; character {position} is {character}",
        rule=ID_RULE,
        position=bad.start() + 1,
        character=_character(bad.group()),
    )
