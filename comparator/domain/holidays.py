"""Reading ``SUANLI_HOLIDAYS_FILE``: official holiday schedules chinesecalendar does not have yet.

::

    # 国务院办公厅关于 2027 年部分节假日安排的通知
    [2027]
    holidays = ["2027-01-01", "2027-02-05..2027-02-11"]   # days of holiday breaks
    workdays = ["2027-02-20"]                              # 调休 make-up working days

Dates are TOML dates or ``YYYY-MM-DD`` strings; ``A..B`` is an inclusive range.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import date, timedelta
from pathlib import Path
from typing import Any

from comparator.domain.calendar import HolidaySupplement
from comparator.domain.toml_input import read_toml
from comparator.errors import CalendarError, Msg


def load_holidays_file(path: str | Path) -> HolidaySupplement:
    """The schedules of a holidays file; :class:`CalendarError` names the file and field."""
    where = Path(path)
    document = read_toml(where, error=CalendarError, kind=Msg("holidays file"))
    years: set[int] = set()
    holidays: set[date] = set()
    workdays: set[date] = set()
    for key, table in document.items():
        year = _year(where, key, table)
        years.add(year)
        holidays |= set(_days(where, f"[{key}] holidays", table.get("holidays", []), year))
        workdays |= set(_days(where, f"[{key}] workdays", table.get("workdays", []), year))
    return HolidaySupplement(frozenset(years), frozenset(holidays), frozenset(workdays))


def _year(where: Path, key: str, table: Any) -> int:
    if not (key.isdigit() and len(key) == 4 and isinstance(table, dict)):
        raise CalendarError(
            "{path}: [{key}]: expected a table per year, such as [2027]", path=where, key=key
        )
    return int(key)


def _days(where: Path, field: str, items: Any, year: int) -> Iterator[date]:
    if not isinstance(items, list):
        raise CalendarError("{path}: {field}: expected a list of dates", path=where, field=field)
    for item in items:
        first, _, last = str(item).partition("..")
        start, end = _date(where, field, first), _date(where, field, last or first)
        if start.year != year or end.year != year or end < start:
            raise CalendarError(
                "{path}: {field}: {item!r} is not a range of days in {year}",
                path=where,
                field=field,
                item=item,
                year=year,
            )
        yield from (start + timedelta(days=k) for k in range((end - start).days + 1))


def _date(where: Path, field: str, text: str) -> date:
    try:
        return date.fromisoformat(text.strip())
    except ValueError:
        raise CalendarError(
            "{path}: {field}: expected YYYY-MM-DD, got {text!r}", path=where, field=field, text=text
        ) from None
