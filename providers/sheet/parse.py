"""Price sheets (billing.md): CSV, XLSX or JSON; English or Chinese headers; UTF-8, or a
confidently detected GB18030, Big5 or Shift-JIS (:mod:`providers.sheet.encoding`).

Reading the bytes (and every way they can be broken) is :mod:`providers.sheet.read`'s.

:func:`parse_sheet` is pure: bytes in, offers out. Every bad cell of every row is collected and
reported together in one :class:`SheetError`; a sheet with any bad row yields nothing.
Row numbers are what a spreadsheet shows (the header is row 1); in JSON, the object's position.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from pathlib import PurePath
from zoneinfo import ZoneInfo

import numpy as np
import pandas as pd

from comparator.catalog.models import OfferColumns, OfferIn
from comparator.domain.zones import DEFAULT_TIMEZONE
from comparator.errors import Msg, RowProblem, SheetError
from providers.parse_deadline import check_parse_deadline
from providers.phase_clock import phase
from providers.sheet.columns import (
    COLUMNS,
    REQUIRED,
    closest_header,
    header_map,
    unknown_headers,
)
from providers.sheet.encoding import UTF8
from providers.sheet.known import KnownCatalog
from providers.sheet.read import Table, read_table
from providers.sheet.values import (
    Cells,
    ColumnCheck,
    column_checks,
    fill_tax_defaults,
    objects,
    rows_where,
    spread,
)


def _rename_headers(table: Table, filename: str) -> dict[str, Cells]:
    """The cells of each column a header names, by the column's name."""
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
    return {name: Cells(table.rows, *table.distinct[index]) for index, name in mapping.items()}


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
    header matches, and a sheet with a header but no rows; and the encoding guessed for a
    sheet that is not UTF-8.
    """
    with phase("read"):
        table = read_table(content, filename)
    with phase("check"):
        return _checked_columns(table, filename, known, imported_at, timezone, decimal, warnings)


def _checked_columns(
    table: Table,
    filename: str,
    known: KnownCatalog,
    imported_at: datetime | None,
    timezone: ZoneInfo,
    decimal: str | None,
    warnings: list[Msg] | None,
) -> OfferColumns:
    cells = _rename_headers(table, filename)
    if warnings is not None:
        warnings.extend(_sheet_warnings(table, filename))
    defaults = {
        "observed_at": (imported_at or datetime.now(timezone)).isoformat(),
        "source": PurePath(filename).name,
    }
    checks = column_checks(known, timezone, decimal if decimal is not None else table.decimal)
    values, problems = _check_columns(table.rows, cells, checks, defaults)
    codes = {name: column.codes for name, column in cells.items()}
    codes["region"], region_problems = _check_rows(table.rows, values, known)
    problems += region_problems
    if problems:
        raise SheetError(filename, sorted(problems, key=lambda p: p.row))
    for name in fill_tax_defaults(values):
        codes.pop(name, None)
    return OfferColumns(values, codes)


def _sheet_warnings(table: Table, filename: str) -> list[Msg]:
    found: list[Msg] = []
    if table.encoding != UTF8:
        found.append(
            Msg(
                "{path}: not UTF-8; read as {encoding} (detected); if names look wrong, save "
                "the sheet as UTF-8",
                path=filename,
                encoding=table.encoding,
            )
        )
    ignored = unknown_headers(table.headers)
    if ignored:
        names = ", ".join(repr(h) for h in ignored)
        found.append(
            Msg("{path}: ignored column(s) no header matches: {names}", path=filename, names=names)
        )
    if not len(table.rows):
        found.append(
            Msg("{path}: the sheet has a header but no offers; nothing to import", path=filename)
        )
    return found


def _check_columns(
    rows: pd.Index,
    cells: Mapping[str, Cells],
    checks: Mapping[str, ColumnCheck],
    defaults: Mapping[str, str],
) -> tuple[dict[str, list[object]], list[RowProblem]]:
    values: dict[str, list[object]] = {}
    problems: list[RowProblem] = []
    for column, check in checks.items():
        check_parse_deadline()
        found = cells.get(column) or Cells(rows, np.zeros(len(rows), dtype=np.intp), [""])
        if column in defaults:
            texts = [text or defaults[column] for text in found.texts]
            found = Cells(rows, found.codes, texts)
        column_values, column_problems = check(found)
        values[column] = column_values
        problems += column_problems
    return values, problems


def _pairs(
    firsts: list[object], seconds: list[object]
) -> tuple[np.ndarray, list[tuple[object, object]]]:
    """(codes, distinct pairs) of two columns read side by side; None is a value like others."""
    first_codes, first_values = pd.factorize(objects(firsts))
    second_codes, second_values = pd.factorize(objects(seconds))
    width = len(second_values) + 1
    codes, keys = pd.factorize((first_codes + 1) * width + second_codes + 1)
    firsts_of = [None, *first_values.tolist()]
    seconds_of = [None, *second_values.tolist()]
    distinct = [(firsts_of[k // width], seconds_of[k % width]) for k in keys.tolist()]
    return codes, distinct


def _check_rows(
    rows: pd.Index, values: dict[str, list[object]], known: KnownCatalog
) -> tuple[np.ndarray, list[RowProblem]]:
    """Checks that need several columns of a row: region of provider, time of use per mode;
    with the codes of the region column (data-centre ids) they leave.

    Each distinct (provider, region) pair is looked up once; rows are never visited one by one
    unless they have a problem.
    """
    numbers = rows.to_numpy()
    codes, distinct = _pairs(values["provider"], values["region"])
    region_ids: list[object] = []
    unknown: dict[int, Msg] = {}
    for code, (provider, region) in enumerate(distinct):
        region_id = None
        if isinstance(provider, str) and isinstance(region, str):
            region_id = known.region_id(provider, region)
            if region_id is None:
                choices = ", ".join(sorted(set(known.regions.get(provider, {}).values())))
                unknown[code] = Msg(
                    "a data centre of {provider} ({choices})", provider=provider, choices=choices
                )
        region_ids.append(region_id)
    problems = (
        [
            RowProblem(int(row), "region", unknown[code], str(values["region"][i]))
            for i, (row, code) in enumerate(zip(numbers.tolist(), codes.tolist(), strict=True))
            if code in unknown
        ]
        if unknown
        else []
    )
    tou_on_contract = rows_where(values["time_of_use"], bool) & ~rows_where(
        values["billing"], lambda b: b in (None, "hourly", "spot")
    )
    problems += [
        RowProblem(
            int(numbers[i]),
            "time_of_use",
            "no time-of-use rule on a contract row",
            str(values["time_of_use"][i]),
        )
        for i in np.flatnonzero(tou_on_contract).tolist()
    ]
    values["region"] = spread(region_ids, codes)
    return codes, problems
