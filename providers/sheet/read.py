"""Reading a price sheet's bytes into a table of text: CSV, TSV, JSON or XLSX, within limits.

This is the input boundary: whatever the bytes are (truncated zip, broken XML, deep nesting,
odd encodings, a cell at row 1,048,576), the result is a table or an :class:`InputError` that
names the file. Sizes are checked before the work they would cause: the sheet's bytes, its
rows and columns, an XLSX's uncompressed size.
"""

from __future__ import annotations

import codecs
import csv
import io
import json
import sys
import zipfile
import zlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import PurePath
from typing import Any
from xml.etree.ElementTree import ParseError
from xml.parsers.expat import ExpatError

import numpy as np
import pandas as pd

from comparator.domain.json_input import duplicate_key
from comparator.errors import InputError, Msg, RowProblem, SheetError
from providers.parse_deadline import ROWS_PER_CHECK, check_parse_deadline
from providers.sheet.encoding import UTF8, decode_sheet
from providers.sheet.merged import MergedFill, merged_blocks
from providers.sheet.plain_csv import factorized, plain_cells
from providers.sheet.sheet_limits import (
    MAX_COLUMNS,
    MAX_ROWS,
    MAX_SHEET_BYTES,
    SHEET_FORMATS,
    SPLIT_SHEET,
    DeadlineReader,
    csv_width,
    sheet_object,
    too_big,
)

_READ_ERRORS = (
    ValueError,  # includes UnicodeError and json.JSONDecodeError
    KeyError,
    IndexError,
    TypeError,
    AttributeError,
    OverflowError,
    zipfile.BadZipFile,
    zlib.error,
    EOFError,
    NotImplementedError,
    ExpatError,
    ParseError,
    csv.Error,
    pd.errors.ParserError,
    pd.errors.EmptyDataError,
)


@dataclass(frozen=True)
class Table:
    """The header cells, and the data rows' cells by column: codes into distinct texts."""

    headers: list[str]
    rows: pd.Index  # the spreadsheet row number of each data row
    decimal: str = "."  # what the sheet declared as decimal mark (JSON "decimal")
    # column 0..n-1 → (codes, texts): each row's cell is texts[code], stripped of spaces
    distinct: Mapping[int, tuple[np.ndarray, list[str]]] = field(default_factory=dict)
    encoding: str = UTF8  # what the text was decoded from: UTF-8, or the family guessed


def short(text: object, limit: int = 120) -> str:
    """``text`` cut for an error message."""
    value = str(text)
    return value if len(value) <= limit else f"{value[:limit]}… ({len(value)} characters)"


def read_table(content: bytes, filename: str) -> Table:
    """The sheet as text cells, or InputError naming the file and what was wrong."""
    suffix = PurePath(filename).suffix.lower()
    kind = suffix.lstrip(".") or "CSV"
    if len(content) > MAX_SHEET_BYTES:
        raise too_big(filename, len(content))
    try:
        if suffix in (".xlsx", ".xlsm"):
            table = _xlsx_table(content, filename)
        elif suffix == ".json":
            table = _json_table(content, filename)
        else:
            table = _csv_table(content, filename, "\t" if suffix == ".tsv" else ",")
    except InputError as exc:
        if str(exc).startswith(filename):
            raise
        raise InputError("{path}: {reason}", path=filename, reason=exc.msg, hint=exc.hint) from None
    except ImportError:
        raise InputError(
            "{path}: XLSX needs openpyxl: pip install 'suanli[xlsx]'",
            path=filename,
            hint=Msg(
                "install the xlsx extra (pip install 'suanli[xlsx]'), or save the sheet as CSV"
            ),
        ) from None
    except MemoryError:
        raise InputError(
            "{path}: too large to read",
            path=filename,
            hint=SPLIT_SHEET,
        ) from None
    except RecursionError:  # the C JSON parser stops at the interpreter's recursion limit
        raise InputError(
            "{path}: nested too deeply; expected a list of flat objects (one per offer)",
            path=filename,
            hint=SHEET_FORMATS,
        ) from None
    except _READ_ERRORS as exc:
        raise InputError(
            "{path}: not a readable {kind} sheet ({reason})",
            path=filename,
            kind=kind.upper(),
            reason=f"{type(exc).__name__}: {short(exc)}",
            hint=SHEET_FORMATS,
        ) from None
    check_parse_deadline()
    _check_size(table, filename)
    return table


def _check_size(table: Table, filename: str) -> None:
    if len(table.headers) > MAX_COLUMNS:
        raise InputError(
            "{path}: {count} columns; expected at most {limit}",
            path=filename,
            count=len(table.headers),
            limit=MAX_COLUMNS,
            hint=SPLIT_SHEET,
        )
    if len(table.rows) > MAX_ROWS:
        raise InputError(
            "{path}: {count} rows; expected at most {limit}",
            path=filename,
            count=len(table.rows),
            limit=MAX_ROWS,
            hint=SPLIT_SHEET,
        )


def _from_rows(
    headers: list[str], numbered: list[tuple[int, list[str]]], decimal: str = "."
) -> Table:
    """Header + (row number, cells) of the non-blank data rows."""
    width = len(headers)
    check_parse_deadline()
    body = [(cells + [""] * width)[:width] for _, cells in numbered]
    index = pd.Index([number for number, _ in numbered], dtype="int64")
    frame = pd.DataFrame(body, index=index, columns=range(width), dtype=object)
    cells = [frame[n].to_numpy(dtype=object) for n in range(width)]
    kept, distinct = _without_blank_rows(cells, index)
    return Table(headers, kept, decimal, distinct)


def _blank(cells: list[str]) -> bool:
    return not any(c.strip() for c in cells)


def _without_blank_rows(
    columns: Sequence[Any],
    rows: pd.Index,
    factorize: Callable[[Any], tuple[np.ndarray, Any]] = pd.factorize,
) -> tuple[pd.Index, dict[int, tuple[np.ndarray, list[str]]]]:
    """The rows that have some text, and each column's codes into its distinct texts
    stripped of surrounding spaces (a missing cell is empty).

    Each distinct text of a column is stripped once (sheets repeat their values a lot).
    """
    distinct: dict[int, tuple[np.ndarray, list[str]]] = {}
    blank = np.ones(len(rows), dtype=bool)
    for number, cells in enumerate(columns):
        codes, uniques = factorize(cells)
        texts = [str(u).strip() for u in uniques]
        missing = codes < 0  # NaN or None: a row shorter than the header
        if missing.any():
            codes[missing] = len(texts)
            texts.append("")
        blank &= np.array([t == "" for t in texts], dtype=bool)[codes]
        distinct[number] = (codes, texts)
    if not columns or not blank.any():
        return rows, distinct
    kept = ~blank
    return rows[kept], {n: (codes[kept], texts) for n, (codes, texts) in distinct.items()}


def _csv_table(content: bytes, filename: str, sep: str) -> Table:
    decoded = decode_sheet(content, filename)
    # UTF-8 goes to the parser as it is (a third faster than str)
    raw = decoded.text.encode("utf-8") if decoded.guessed else content.removeprefix(codecs.BOM_UTF8)
    if not decoded.text.strip():
        return Table([], pd.Index([], dtype="int64"), encoding=decoded.encoding)
    width = csv_width(raw, sep)
    if width > MAX_COLUMNS:  # before the parser makes a column of each field
        raise _too_wide(width)
    plain = plain_cells(raw, sep)  # a small sheet without quotes: no pandas needed
    cells = _pandas_cells(raw, sep) if plain is None else plain
    factorize = pd.factorize if plain is None else factorized
    length = len(cells[0]) if cells else 0
    headers = ["" if pd.isna(c[0]) else str(c[0]).strip() for c in cells] if length else []
    rows = pd.RangeIndex(2, 1 + length) if length else pd.RangeIndex(2, 2)
    kept, distinct = _without_blank_rows([c[1:] for c in cells], rows, factorize)
    return Table(headers, kept, distinct=distinct, encoding=decoded.encoding)


def _pandas_cells(raw: bytes, sep: str) -> list[np.ndarray]:
    frame = pd.read_csv(
        io.BytesIO(raw),
        encoding="utf-8",
        dtype=str,
        header=None,
        keep_default_na=False,
        skip_blank_lines=False,
        sep=sep,
        engine="c",
        nrows=MAX_ROWS + 2,
    )
    if len(frame.columns) > MAX_COLUMNS:  # before any per-column work
        raise _too_wide(len(frame.columns))
    return [frame[name].to_numpy(dtype=object) for name in frame.columns]


def _too_wide(count: int) -> InputError:
    if count > MAX_COLUMNS + 1:
        return InputError(
            "{count} columns; expected at most {limit}",
            count=count,
            limit=MAX_COLUMNS,
            hint=SPLIT_SHEET,
        )
    return InputError(
        "more than {limit} columns; expected at most {limit}",
        limit=MAX_COLUMNS,
        hint=SPLIT_SHEET,
    )


def _json_table(content: bytes, filename: str) -> Table:
    decoded = decode_sheet(content, filename)
    document = json.loads(
        decoded.text,
        parse_float=str,
        parse_int=str,
        parse_constant=str,
        object_pairs_hook=sheet_object,  # stops at an object wider than a sheet
    )
    decimal = "."
    if isinstance(document, dict) and isinstance(document.get("offers"), list):
        _unique_keys_at_top(document, filename)
        decimal = _declared_decimal(document.get("decimal", "."), filename)
        document = document["offers"]
    if not isinstance(document, list) or not all(isinstance(r, dict) for r in document):
        raise InputError(
            "{path}: expected a JSON list of objects (one per offer)",
            path=filename,
            hint=SHEET_FORMATS,
        )
    _unique_keys_per_row(document, filename)
    headers: list[str] = []
    for record in document:
        headers += [key for key in record if key not in headers]
        if len(headers) > MAX_COLUMNS:
            break
    numbered = [(n, [_json_cell(r.get(key)) for key in headers]) for n, r in enumerate(document, 1)]
    kept = [(n, cells) for n, cells in numbered if not _blank(cells)]
    return replace(_from_rows(headers, kept, decimal), encoding=decoded.encoding)


def _unique_keys_at_top(document: dict[str, Any], filename: str) -> None:
    key = duplicate_key(document)
    if key is not None:
        raise InputError(
            "{path}: the key {key!r} is given twice in the top-level object; expected each key "
            "once (JSON would keep only the last value)",
            path=filename,
            key=short(key),
            hint=SHEET_FORMATS,
        )


def _unique_keys_per_row(records: list[dict[str, Any]], filename: str) -> None:
    """Each offer's object names each column once: the last of two would silently win."""
    problems = [
        RowProblem(row, key, _TWICE)
        for row, key in ((n, duplicate_key(r)) for n, r in enumerate(records, 1))
        if key is not None
    ]
    if problems:
        raise SheetError(filename, problems)


def _declared_decimal(value: object, filename: str) -> str:
    if value not in (".", ","):
        raise InputError(
            '{path}: decimal: expected "." or ",", got {value!r}',
            path=filename,
            value=short(value),
            hint=Msg('write "." (1.5) or "," (1,5) for the decimal mark'),
        )
    return str(value)


_TWICE = Msg(
    "each key once per object, but this key is given twice (JSON would keep only the last value)"
)


def _json_cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, dict | list):
        return json.dumps(value)[:200] + "\x1e"  # never a valid value: reported as such
    return str(value)


def _xlsx_table(content: bytes, filename: str) -> Table:
    if not content.startswith(b"PK"):
        what = Msg("an empty file") if not content else _looks_like(content)
        raise InputError(
            "{path}: expected an Excel workbook (.xlsx, a ZIP file as Excel or LibreOffice "
            "save it), got {what}; save it as .xlsx again, or rename a CSV to .csv",
            path=filename,
            what=what,
            hint=SHEET_FORMATS,
        )
    try:
        headers, numbered = _read_workbook(content, filename)
    except (InputError, MemoryError):
        raise
    except Exception as exc:  # zipfile's and openpyxl's errors on a broken file are many
        raise InputError(
            "{path}: expected an Excel workbook (.xlsx), got a damaged or non-Excel ZIP "
            "file ({reason}); save it as .xlsx again",
            path=filename,
            reason=f"{type(exc).__name__}: {short(exc)}",
            hint=SHEET_FORMATS,
        ) from None
    return _from_rows(headers, numbered)


def _looks_like(content: bytes) -> Msg:
    """What a file that is not a workbook looks like, to name it in the message."""
    head = content[:512]
    if head.startswith(b"\xd0\xcf\x11\xe0"):
        return Msg("an old Excel 97-2003 .xls file (save it as .xlsx)")
    if head.lstrip().startswith((b"{", b"[")):
        return Msg("JSON text (rename it to .json)")
    try:
        head.decode("utf-8")
    except UnicodeDecodeError:
        return Msg("a file that is neither a workbook nor text")
    return Msg("plain text, probably CSV (rename it to .csv)")


def _read_workbook(content: bytes, filename: str) -> tuple[list[str], list[tuple[int, list[str]]]]:
    from openpyxl import load_workbook

    with zipfile.ZipFile(DeadlineReader(content)) as archive:
        unpacked = sum(info.file_size for info in archive.infolist())
        if unpacked > MAX_SHEET_BYTES:
            raise InputError(
                "{path}: {size} bytes once unzipped; expected at most {limit}",
                path=filename,
                size=unpacked,
                limit=MAX_SHEET_BYTES,
                hint=SPLIT_SHEET,
            )
        book = load_workbook(DeadlineReader(content), read_only=True, data_only=True)
        try:
            if not book.worksheets:
                raise InputError(
                    "{path}: the workbook has no sheet",
                    path=filename,
                    hint=SHEET_FORMATS,
                )
            sheet = book.worksheets[0]
            blocks = merged_blocks(archive, sheet._worksheet_path)
            # the header row's blocks (a title over two columns) stay as before: one header
            merged = MergedFill([b for b in blocks if b.min_row > 1])
            return _xlsx_rows(sheet, filename, merged)
        finally:
            book.close()


def _xlsx_rows(
    sheet: Any, filename: str, merged: MergedFill
) -> tuple[list[str], list[tuple[int, list[str]]]]:
    """The first row's cells as headers and the non-blank rows below it, numbered; a merged
    block's cells all read its top-left value."""
    headers: list[str] | None = None
    numbered: list[tuple[int, list[str]]] = []
    widest = 0  # the most cells of a data row (past the headers: columns no header names)
    rows = sheet.iter_rows(values_only=True, max_col=MAX_COLUMNS + 1)
    fill = merged.fill if merged.blocks else None
    for number, values in enumerate(rows, 1):
        if not number % ROWS_PER_CHECK:
            check_parse_deadline()  # a refresh's parse_timeout_s stops a long sheet here
        if fill is not None:
            values = fill(number, values)
        values = _unpadded(values)
        if number > MAX_ROWS + 1:
            raise InputError(
                "{path}: more than {limit} rows; expected at most {limit}",
                path=filename,
                limit=MAX_ROWS,
                hint=SPLIT_SHEET,
            )
        if not values or values.count(None) == len(values):
            continue  # a blank row (openpyxl pads gaps up to the last used row with them)
        # interned: a sheet repeats its providers, regions, GPUs, modes and currencies on
        # every row; each is held once
        cells = ["" if v is None else sys.intern(_xlsx_cell(v)) for v in values]
        if len(cells) > MAX_COLUMNS and cells[MAX_COLUMNS]:
            raise InputError(
                "{path}: row {row} has a cell past column {limit}; expected at most {limit} columns",
                path=filename,
                row=number,
                limit=MAX_COLUMNS,
                hint=SPLIT_SHEET,
            )
        if headers is None and number == 1:
            headers = [c.strip() for c in cells[:MAX_COLUMNS]]
        elif not _blank(cells):
            numbered.append((number, cells[:MAX_COLUMNS]))
            widest = max(widest, min(len(cells), MAX_COLUMNS))
    headers = headers or []
    return headers + [""] * (widest - len(headers)), numbered


def _unpadded(values: tuple[object, ...]) -> tuple[object, ...]:
    """A row without the empty cells openpyxl pads it with up to ``max_col`` (every row came
    257 cells wide: a 500,000-row sheet's refresh held 2.3 KiB a row and peaked at 4.2 GB,
    and each import warned of 248 columns with no header)."""
    end = len(values)
    while end and values[end - 1] is None:
        end -= 1
    return values if end == len(values) else values[:end]


def _xlsx_cell(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer() and abs(value) < 2**53:
        return str(int(value))
    if hasattr(value, "isoformat"):
        return str(value.isoformat())
    return str(value)
