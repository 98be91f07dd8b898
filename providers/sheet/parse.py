"""Price sheets (billing.md): CSV, XLSX or JSON; English or Chinese headers; UTF-8 or GB18030.

:func:`parse_sheet` is pure: bytes in, offers out. Every bad cell of every row is collected and
reported together in one :class:`SheetError`; a sheet with any bad row yields nothing.
Row numbers are what a spreadsheet shows (the header is row 1); in JSON, the object's position.
"""

from __future__ import annotations

import io
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import PurePath
from zoneinfo import ZoneInfo

import pandas as pd

from comparator.catalog.models import OfferColumns, OfferIn
from comparator.domain.zones import DEFAULT_TIMEZONE
from comparator.errors import InputError, RowProblem, SheetError
from providers.sheet.columns import (
    COLUMNS,
    REQUIRED,
    closest_header,
    header_map,
    unknown_headers,
)
from providers.sheet.values import ColumnCheck, column_checks, fill_tax_defaults


@dataclass(frozen=True)
class KnownCatalog:
    """What a sheet may refer to: provider ids and each provider's data centres (id or name)."""

    regions: Mapping[str, Mapping[str, str]] = field(default_factory=dict)

    def region_id(self, provider: str, region: str) -> str | None:
        return self.regions.get(provider, {}).get(region)


def decode_csv(content: bytes) -> str:
    """UTF-8 (with or without BOM), else GB18030 — what Chinese Excel exports."""
    try:
        return content.decode("utf-8-sig")
    except UnicodeDecodeError:
        return content.decode("gb18030")


def read_table(content: bytes, filename: str) -> tuple[pd.DataFrame, int]:
    """The sheet as a frame of strings, and the row number of its first data row."""
    suffix = PurePath(filename).suffix.lower()
    try:
        if suffix in (".xlsx", ".xlsm"):
            return _read_xlsx(content, filename), 2
        if suffix == ".json":
            return _json_frame(content, filename), 1
        text = decode_csv(content)
        frame = pd.read_csv(
            io.StringIO(text),
            dtype=str,
            keep_default_na=False,
            sep=None if suffix == ".tsv" else ",",
            engine="c" if suffix != ".tsv" else "python",
        )
        return frame, 2
    except UnicodeDecodeError:
        raise InputError(
            f"{filename}: expected text in UTF-8 or GB18030 (as Excel saves CSV in China), "
            "got bytes that are neither; save it again as CSV UTF-8"
        ) from None
    except (ValueError, pd.errors.ParserError) as exc:
        raise InputError(
            f"{filename}: not a readable {suffix.lstrip('.') or 'CSV'} sheet: {exc}"
        ) from None
    except ImportError as exc:
        raise InputError(
            f"{filename}: XLSX needs openpyxl: pip install 'suanli[xlsx]' ({exc})"
        ) from None


def _read_xlsx(content: bytes, filename: str) -> pd.DataFrame:
    """An XLSX workbook's first sheet; anything else is named for what it is."""
    import zipfile

    if not content.startswith(b"PK"):
        what = "an empty file" if not content else _looks_like(content)
        raise InputError(
            f"{filename}: expected an Excel workbook (.xlsx, a ZIP file as Excel or LibreOffice "
            f"save it), got {what}; save it as .xlsx again, or rename a CSV to .csv"
        )
    try:
        return pd.read_excel(io.BytesIO(content), dtype=str, keep_default_na=False)
    except (zipfile.BadZipFile, KeyError, ValueError) as exc:
        raise InputError(
            f"{filename}: expected an Excel workbook (.xlsx), got a damaged or non-Excel ZIP "
            f"file ({exc}); save it as .xlsx again"
        ) from None


def _looks_like(content: bytes) -> str:
    head = content[:512]
    if head.startswith(b"\xd0\xcf\x11\xe0"):
        return "an old Excel 97-2003 .xls file (save it as .xlsx)"
    if head.lstrip().startswith((b"{", b"[")):
        return "JSON text (rename it to .json)"
    try:
        head.decode("utf-8")
    except UnicodeDecodeError:
        return "a file that is neither a workbook nor text"
    return "plain text, probably CSV (rename it to .csv)"


def _json_frame(content: bytes, filename: str) -> pd.DataFrame:
    try:
        rows = json.loads(decode_csv(content), parse_float=str, parse_int=str)
    except json.JSONDecodeError as exc:
        raise InputError(f"{filename}: invalid JSON at line {exc.lineno}: {exc.msg}") from None
    if isinstance(rows, dict) and isinstance(rows.get("offers"), list):
        rows = rows["offers"]
    if not isinstance(rows, list) or not all(isinstance(r, dict) for r in rows):
        raise InputError(f"{filename}: expected a JSON list of objects (one per offer)")
    records = [{k: "" if v is None else str(v) for k, v in r.items()} for r in rows]
    return pd.DataFrame.from_records(records).fillna("").astype(str)


def _rename_headers(frame: pd.DataFrame, filename: str) -> pd.DataFrame:
    headers = [str(c) for c in frame.columns]
    mapping, problems = header_map(headers)
    missing = [c for c in REQUIRED if c not in mapping.values()]
    unmatched = unknown_headers(headers)
    for column in missing:
        expected = f"a column named {column} (or {', '.join(COLUMNS[column].aliases)})"
        close = closest_header(column, unmatched)
        found = f"; closest header found: {close!r}" if close else ""
        problems.append(RowProblem(1, column, expected + found))
    if problems:
        raise SheetError(filename, problems)
    renamed: pd.DataFrame = frame[list(mapping)].rename(columns=mapping)
    for column in renamed.columns:
        renamed[column] = renamed[column].str.strip()
    return renamed


def parse_sheet(
    content: bytes,
    filename: str,
    known: KnownCatalog,
    *,
    imported_at: datetime | None = None,
    timezone: ZoneInfo = DEFAULT_TIMEZONE,
) -> list[OfferIn]:
    """Every offer of a price sheet, or :class:`SheetError` listing every bad row."""
    columns = parse_sheet_columns(
        content, filename, known, imported_at=imported_at, timezone=timezone
    )
    return columns.offers()


def parse_sheet_columns(
    content: bytes,
    filename: str,
    known: KnownCatalog,
    *,
    imported_at: datetime | None = None,
    timezone: ZoneInfo = DEFAULT_TIMEZONE,
    warnings: list[str] | None = None,
) -> OfferColumns:
    """:func:`parse_sheet`, column by column: what bulk import stores without row objects.

    ``warnings``, when given, receives what the sheet has that import ignores: columns no
    header matches, and a sheet with a header but no rows.
    """
    raw, first_row = read_table(content, filename)
    frame = _rename_headers(raw, filename)
    if warnings is not None:
        warnings.extend(_sheet_warnings(raw, filename))
    frame.index = pd.RangeIndex(first_row, first_row + len(frame))
    defaults = {
        "observed_at": (imported_at or datetime.now(timezone)).isoformat(),
        "source": PurePath(filename).name,
    }
    checks = column_checks(known, timezone)
    values, problems = _check_columns(frame, checks, defaults)
    problems += _check_rows(frame.index, values, known)
    if problems:
        raise SheetError(filename, sorted(problems, key=lambda p: p.row))
    fill_tax_defaults(values)
    return OfferColumns(values)


def _sheet_warnings(raw: pd.DataFrame, filename: str) -> list[str]:
    found: list[str] = []
    ignored = unknown_headers([str(c) for c in raw.columns])
    if ignored:
        names = ", ".join(repr(h) for h in ignored)
        found.append(f"{filename}: ignored column(s) no header matches: {names}")
    if raw.empty:
        found.append(f"{filename}: the sheet has a header but no offers; nothing to import")
    return found


def _check_columns(
    frame: pd.DataFrame, checks: Mapping[str, ColumnCheck], defaults: Mapping[str, str]
) -> tuple[dict[str, list[object]], list[RowProblem]]:
    values: dict[str, list[object]] = {}
    problems: list[RowProblem] = []
    for column, check in checks.items():
        cells = frame[column] if column in frame else pd.Series([""] * len(frame), frame.index)
        if column in defaults:
            cells = cells.where(cells != "", defaults[column])
        column_values, column_problems = check(cells)
        values[column] = column_values
        problems += column_problems
    return values, problems


def _check_rows(
    rows: Iterable[int], values: Mapping[str, list[object]], known: KnownCatalog
) -> list[RowProblem]:
    """Checks that need several columns of a row: region of provider, time of use per mode."""
    problems: list[RowProblem] = []
    region_ids: list[object] = []
    for i, row in enumerate(rows):
        provider, region = values["provider"][i], values["region"][i]
        region_id = None
        if isinstance(provider, str) and isinstance(region, str):
            region_id = known.region_id(provider, region)
            if region_id is None:
                choices = ", ".join(sorted(set(known.regions.get(provider, {}).values())))
                problems.append(
                    RowProblem(row, "region", f"a data centre of {provider} ({choices})", region)
                )
        region_ids.append(region_id)
        tou, billing = values["time_of_use"][i], values["billing"][i]
        if tou and billing not in (None, "hourly", "spot"):
            problems.append(
                RowProblem(row, "time_of_use", "no time-of-use rule on a contract row", str(tou))
            )
    values["region"][:] = region_ids
    return problems
