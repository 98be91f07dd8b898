"""Price sheets (billing.md): CSV, XLSX or JSON; English or Chinese headers; UTF-8 or GB18030.

Reading the bytes (and every way they can be broken) is :mod:`providers.sheet.read`'s.

:func:`parse_sheet` is pure: bytes in, offers out. Every bad cell of every row is collected and
reported together in one :class:`SheetError`; a sheet with any bad row yields nothing.
Row numbers are what a spreadsheet shows (the header is row 1); in JSON, the object's position.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import datetime
from pathlib import PurePath
from zoneinfo import ZoneInfo

import pandas as pd

from comparator.catalog.models import OfferColumns, OfferIn
from comparator.domain.zones import DEFAULT_TIMEZONE
from comparator.errors import Msg, RowProblem, SheetError
from providers.sheet.columns import (
    COLUMNS,
    REQUIRED,
    closest_header,
    header_map,
    unknown_headers,
)
from providers.sheet.known import KnownCatalog
from providers.sheet.read import Table, read_table
from providers.sheet.values import ColumnCheck, column_checks, fill_tax_defaults


def _rename_headers(table: Table, filename: str) -> pd.DataFrame:
    headers = table.headers
    mapping, problems = header_map(headers)
    missing = [c for c in REQUIRED if c not in mapping.values()]
    unmatched = unknown_headers(headers)
    for column in missing:
        aliases = ", ".join(COLUMNS[column].aliases)
        close = closest_header(column, unmatched)
        expected = (
            Msg(
                "a column named {column} (or {aliases}); closest header found: {close!r}",
                column=column,
                aliases=aliases,
                close=close,
            )
            if close
            else Msg("a column named {column} (or {aliases})", column=column, aliases=aliases)
        )
        problems.append(RowProblem(1, column, expected))
    if problems:
        raise SheetError(filename, problems)
    renamed: pd.DataFrame = table.frame[list(mapping)].rename(columns=mapping)
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
    decimal: str | None = None,
    warnings: list[Msg] | None = None,
) -> OfferColumns:
    """:func:`parse_sheet`, column by column: what bulk import stores without row objects.

    ``decimal``: the decimal mark the sheet's source declares (``","`` reads ``1,5`` as 1.5);
    None: what the sheet itself declares (a JSON ``"decimal"`` key), else ``"."``.
    ``warnings``, when given, receives what the sheet has that import ignores: columns no
    header matches, and a sheet with a header but no rows.
    """
    table = read_table(content, filename)
    frame = _rename_headers(table, filename)
    if warnings is not None:
        warnings.extend(_sheet_warnings(table, filename))
    defaults = {
        "observed_at": (imported_at or datetime.now(timezone)).isoformat(),
        "source": PurePath(filename).name,
    }
    checks = column_checks(known, timezone, decimal if decimal is not None else table.decimal)
    values, problems = _check_columns(frame, checks, defaults)
    problems += _check_rows(frame.index, values, known)
    if problems:
        raise SheetError(filename, sorted(problems, key=lambda p: p.row))
    fill_tax_defaults(values)
    return OfferColumns(values)


def _sheet_warnings(table: Table, filename: str) -> list[Msg]:
    found: list[Msg] = []
    ignored = unknown_headers(table.headers)
    if ignored:
        names = ", ".join(repr(h) for h in ignored)
        found.append(
            Msg("{path}: ignored column(s) no header matches: {names}", path=filename, names=names)
        )
    if table.frame.empty:
        found.append(
            Msg("{path}: the sheet has a header but no offers; nothing to import", path=filename)
        )
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
                    RowProblem(
                        row,
                        "region",
                        Msg(
                            "a data centre of {provider} ({choices})",
                            provider=provider,
                            choices=choices,
                        ),
                        region,
                    )
                )
        region_ids.append(region_id)
        tou, billing = values["time_of_use"][i], values["billing"][i]
        if tou and billing not in (None, "hourly", "spot"):
            problems.append(
                RowProblem(row, "time_of_use", "no time-of-use rule on a contract row", str(tou))
            )
    values["region"][:] = region_ids
    return problems
