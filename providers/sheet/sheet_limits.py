"""The sheet limits, checked while reading, before the work a sheet past them would cause.

A sheet is at most :data:`MAX_SHEET_BYTES` (file, body, or an XLSX once unzipped), with at most
:data:`MAX_ROWS` data rows and :data:`MAX_COLUMNS` columns. Each limit stops the read as soon as
it is passed, not after everything was built: a file is read up to one byte past the limit
(:func:`comparator.domain.bounded_read.read_limited`: a FIFO stops there too), a JSON object
with more keys than a sheet has columns stops the JSON parser (:func:`sheet_object`, its ``object_pairs_hook``),
a CSV's width is read from its first record before the parser makes one column per field
(:func:`csv_width`), and an XLSX's bytes are read through :class:`DeadlineReader`, so a
refresh's ``parse_timeout_s`` also stops openpyxl's own passes over the sheet.
"""

from __future__ import annotations

import io
import re
from pathlib import Path
from typing import Any

from comparator.domain.bounded_read import read_limited
from comparator.domain.json_input import json_object
from comparator.errors import InputError, Msg
from providers.parse_deadline import check_parse_deadline

MAX_SHEET_BYTES = 256 * 2**20  # a sheet file or body, and an XLSX once uncompressed
MAX_ROWS = 2_000_000  # data rows
MAX_COLUMNS = 256
# the hints of a sheet too big to read, and of one in no format a sheet may have
SPLIT_SHEET = Msg(
    "split the price list into smaller sheets (by provider or region) and import them "
    "together: suanli import a.csv b.csv"
)
SHEET_FORMATS = Msg(
    "save the sheet as CSV (UTF-8), XLSX or a JSON list of objects, one per offer "
    "(README, section Price sheets)"
)
# one field of a CSV record: a quoted field (quotes doubled inside) is skipped whole
_QUOTED_OR_BREAK = {
    sep: re.compile(rb'"(?:[^"]|"")*"|[\r\n' + sep + rb"]") for sep in (b",", b"\t")
}


def read_sheet_file(path: Path) -> bytes:
    """The bytes of a sheet file, read no further than :data:`MAX_SHEET_BYTES`; InputError
    for a bigger one, OSError as :meth:`Path.open` raises it."""
    content = read_limited(path, MAX_SHEET_BYTES)
    if content is None:
        raise too_big(str(path))
    return content


def too_big(filename: str, size: int | None = None) -> InputError:
    """The error for a sheet of ``size`` bytes (None: more than the limit, not read whole)."""
    if size is not None:
        return InputError(
            "{path}: {size} bytes; expected a sheet of at most {limit} bytes",
            path=filename,
            size=size,
            limit=MAX_SHEET_BYTES,
            hint=SPLIT_SHEET,
        )
    return InputError(
        "{path}: more than {limit} bytes; expected a sheet of at most {limit} bytes",
        path=filename,
        limit=MAX_SHEET_BYTES,
        hint=SPLIT_SHEET,
    )


def sheet_object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """``object_pairs_hook`` of a JSON sheet: :func:`json_object`, or InputError for an object
    with more keys than a sheet has columns (raised as the parser closes it: a million-key
    object stops there instead of becoming a million columns)."""
    if len(pairs) > MAX_COLUMNS:
        raise InputError(
            "an object with {count} keys; expected at most {limit} (one key per column)",
            count=len(pairs),
            limit=MAX_COLUMNS,
            hint=SPLIT_SHEET,
        )
    return json_object(pairs)


def csv_width(raw: bytes, sep: str) -> int:
    """How many fields the first record of a CSV (UTF-8 bytes) has: what the parser makes
    columns of. Quoted fields are skipped whole, separators and line breaks in them too."""
    delimiter = sep.encode()
    end = _line_end(raw)
    line = raw[:end]
    if b'"' not in line:
        return line.count(delimiter) + 1
    fields = 1
    for match in _QUOTED_OR_BREAK[delimiter].finditer(raw):
        token = match.group()
        if token in (b"\r", b"\n"):
            break
        if token == delimiter:
            fields += 1
            if fields > MAX_COLUMNS + 1:
                break
    return fields


def _line_end(raw: bytes) -> int:
    ends = [at for at in (raw.find(b"\n"), raw.find(b"\r")) if at >= 0]
    return min(ends) if ends else len(raw)


class DeadlineReader(io.BytesIO):
    """The bytes of an XLSX for zipfile and openpyxl: every read checks the parse deadline
    (:func:`check_parse_deadline`), so a pass over a sheet that openpyxl makes in one call
    (sizing a sheet without ``<dimension>`` parses it all) stops with the refresh's limit."""

    def read(self, size: int | None = -1, /) -> bytes:
        check_parse_deadline()
        return super().read(size)

    def read1(self, size: int | None = -1, /) -> bytes:
        check_parse_deadline()
        return super().read1(size)
