"""One way to read a TOML input file: job files, provider profiles, sources files, holidays.

The bytes are UTF-8, with or without the BOM Windows Notepad writes. A file saved as
GB18030 (or GBK, a subset) says so on its first line, as Python and Emacs files do::

    # -*- coding: gb18030 -*-

and is then decoded as GB18030; without that line a byte that is not UTF-8 is an error that
names the file, the line and column of the byte, and both fixes (save as UTF-8, or declare
GB18030). Encodings are never guessed: a TOML file is short and a wrong guess is silent.

Every error is the caller's :class:`InputError` subclass and reads the same for every kind of
file: ``{path}: not valid TOML (line 3, column 7: expected '=' after a key)``.
"""

from __future__ import annotations

import codecs
import re
import tomllib
from pathlib import Path
from typing import Any

from comparator.domain.bounded_read import read_limited
from comparator.errors import InputError, Msg, os_reason

# PEP 263's form of a declaration, on the first line only
_DECLARED = re.compile(rb"^[ \t\f]*#[^\r\n]*?coding[:=][ \t]*([-\w.]+)")
_GB_NAMES = {"gb18030", "gbk", "gb2312", "cp936", "euc-cn"}
_UTF8_NAMES = {"utf-8", "utf8", "utf-8-sig", "utf_8"}
_GB18030_BOM = b"\x84\x31\x95\x33"
MAX_TOML_BYTES = 16 * 2**20  # a job file, profile or sources file is a few KB; read no more
_AT = re.compile(r"^(.*?)\s*\(at (?:line (\d+), column (\d+)|end of document)\)$", re.S)
# tomllib's reasons (its _parser.py) in the catalogue's words; others give the place only
_REASONS: tuple[tuple[re.Pattern[str], Msg], ...] = tuple(
    (re.compile(pattern), reason)
    for pattern, reason in (
        (r"^Invalid statement$", Msg("expected a key = value, a [table] or a comment")),
        (r"^Expected '=' after a key", Msg("expected '=' after a key")),
        (r"^Cannot overwrite a value$", Msg("a key given twice")),
        (r"^Cannot declare .* twice$", Msg("a table given twice")),
        (r"^Duplicate inline table key", Msg("a key given twice")),
        (r"^Invalid value$", Msg("expected a value (a quoted string, number, date, true/false)")),
        (r"^Unclosed array$", Msg("expected ']' to close the array")),
        (r"^Unclosed inline table$", Msg("expected a closing brace to end the inline table")),
        (r"^Unterminated string$", Msg("expected the closing quote of the string")),
        (r"^Illegal character", Msg("a control character inside a string")),
        (r"^Invalid date or datetime$", Msg("expected a date or date-time such as 2027-01-31")),
        (r"^Expected '\]' at the end of a table", Msg("expected ']' at the end of the table name")),
        (r"^Expected '\]\]' at the end of an array", Msg("expected ']]' at the end of the name")),
        (r"^Invalid initial character for a key part$", Msg("expected a key")),
    )
)


def read_toml(
    path: str | Path, *, error: type[InputError], kind: Msg, missing: Msg | None = None
) -> dict[str, Any]:
    """The document of the TOML file at ``path``; ``error`` names the file and the place.

    ``kind`` names the file in a read error ("the job file"); ``missing``, if given, is the
    whole message for a file that does not exist (with its hint)."""
    content = read_input(path, error=error, kind=kind, missing=missing)
    return loads_toml(content, str(path), error=error)


def read_input(
    path: str | Path, *, error: type[InputError], kind: Msg, missing: Msg | None = None
) -> bytes:
    """The bytes of the input file at ``path``, read once; errors as :func:`read_toml`'s."""
    file = Path(path)
    try:
        content = read_limited(file, MAX_TOML_BYTES)
    except FileNotFoundError:
        if missing is not None:
            raise error(missing) from None
        raise error(
            "{path}: cannot read the {kind} ({reason})",
            path=str(file),
            kind=kind,
            reason=Msg("no such file or folder"),
        ) from None
    except OSError as exc:
        raise error(
            "{path}: cannot read the {kind} ({reason})",
            path=str(file),
            kind=kind,
            reason=os_reason(exc),
        ) from None
    if content is None:
        raise error(
            "{path}: more than {limit} bytes; expected a {kind} of at most {limit} bytes",
            path=str(file),
            kind=kind,
            limit=MAX_TOML_BYTES,
        )
    return content


def loads_toml(content: bytes, location: str, *, error: type[InputError]) -> dict[str, Any]:
    """The document of TOML ``content`` (a file's or a URL's bytes); errors name ``location``."""
    text = decode_toml(content, location, error=error)
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise error(
            "{path}: not valid TOML ({reason})", path=location, reason=toml_problem(exc)
        ) from None
    except RecursionError:
        raise error(
            "{path}: not valid TOML (arrays or tables nested too deep)", path=location
        ) from None


def declared_encoding(content: bytes) -> str | None:
    """The encoding a first-line ``coding:`` comment declares, lower-case, or None."""
    first_line = content.removeprefix(codecs.BOM_UTF8).split(b"\n", 1)[0]
    match = _DECLARED.match(first_line)
    return match.group(1).decode("ascii").lower().replace("_", "-") if match else None


def decode_toml(content: bytes, location: str, *, error: type[InputError]) -> str:
    """UTF-8 (a BOM is dropped), or GB18030 where the first line declares it."""
    declared = declared_encoding(content)
    if declared is not None and declared not in _GB_NAMES | _UTF8_NAMES:
        raise error(
            "{path}: line 1 declares the encoding {name!r}; expected utf-8 or gb18030 "
            "(or save the file as UTF-8 and drop the coding line)",
            path=location,
            name=declared,
        )
    if declared in _GB_NAMES and not content.startswith(codecs.BOM_UTF8):
        try:
            return content.removeprefix(_GB18030_BOM).decode("gb18030")
        except UnicodeDecodeError as exc:  # bytes GB18030 does not define (rare)
            line, column = _place(content, exc.start, "gb18030")
            raise error(
                "{path}: line {line}, column {column}: byte {byte} is not GB18030, "
                "though line 1 declares it",
                path=location,
                line=line,
                column=column,
                byte=exc.start + 1,
            ) from None
    try:
        return content.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        offset = exc.start + (3 if content[:3] == codecs.BOM_UTF8 else 0)  # in the file's bytes
        line, column = _place(content, offset)
        raise error(
            "{path}: line {line}, column {column}: expected UTF-8 text (TOML is UTF-8), but byte "
            "{byte} is not UTF-8; save the file again as UTF-8, or, if it is GB18030/GBK, say "
            "so on its first line: '# -*- coding: gb18030 -*-'",
            path=location,
            line=line,
            column=column,
            byte=offset + 1,
        ) from None


def _place(content: bytes, offset: int, encoding: str = "utf-8") -> tuple[int, int]:
    """Line and column (in characters, from 1) of the byte at ``offset``."""
    line_start = content.rfind(b"\n", 0, offset) + 1
    before = content[line_start:offset].decode(encoding, errors="replace").lstrip("\ufeff")
    return content.count(b"\n", 0, offset) + 1, len(before) + 1


def toml_problem(exc: Exception) -> Msg:
    """Where a TOML parser stopped and, when the catalogue knows it, what it expected."""
    match = _AT.match(str(exc))
    if not match:
        return Msg("{reason}", reason=str(exc))
    if match.group(2) is None:
        where = Msg("at the end of the file")
    else:
        where = Msg("line {line}, column {column}", line=match.group(2), column=match.group(3))
    for pattern, reason in _REASONS:
        if pattern.search(match.group(1)):
            return Msg("{where}: {what}", where=where, what=reason)
    return where
