"""Time-of-use rules and the official Chinese holiday calendar (billing.md, "Time-of-use rules").

A rule is ``[DAYS] [HH:MM-HH:MM] *FACTOR``; rules are separated by ``;``. ``DAYS`` is a comma
list of weekday names (``mon``…``sun``), weekday ranges (``mon-fri``), ``workday`` and
``holiday``. A slot's factor is the lowest factor among the rules matching its start time, 1 when
none matches. A time range that wraps midnight belongs to the day it starts.

``workday`` is an official working day, 调休 make-up Saturdays and Sundays included; ``holiday``
is a day of an official public-holiday break (法定节假日 with the weekend days moved into it).
Ordinary weekends are neither: name them with ``sat-sun``. Both come from the ``chinese_calendar``
package, then from ``SUANLI_HOLIDAYS_FILE`` (which overrides it for the years it lists). A year
neither covers is *provisional*: its statutory holidays come from the ``holidays`` package
(China) and it has no 调休 make-up workdays until the State Council notice is known;
:func:`provisional_years` names such years so that plans and quotes can warn.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from decimal import Decimal, InvalidOperation
from functools import lru_cache
from zoneinfo import ZoneInfo

import chinese_calendar

from comparator.errors import CalendarError, Msg, as_msg

WEEKDAYS: tuple[str, ...] = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")
DAY_KINDS: tuple[str, ...] = ("workday", "holiday")
MINUTES_PER_DAY = 24 * 60
ONE = Decimal(1)

_RULE = re.compile(
    r"^(?P<days>[a-z][a-z,\s-]*?)?\s*"
    r"(?P<time>\d{1,2}:\d{2}\s*-\s*\d{1,2}:\d{2})?\s*"
    r"\*\s*(?P<factor>\S+)$"
)


@dataclass(frozen=True)
class TouRule:
    """One time-of-use rule. ``weekdays`` uses Monday = 0; an empty rule day-set = every day."""

    factor: Decimal
    weekdays: frozenset[int] = frozenset()
    kinds: frozenset[str] = frozenset()
    start_minute: int = 0
    end_minute: int = MINUTES_PER_DAY
    text: str = ""

    @property
    def every_day(self) -> bool:
        return not self.weekdays and not self.kinds

    @property
    def wraps(self) -> bool:
        return self.end_minute <= self.start_minute

    @property
    def needs_holidays(self) -> bool:
        return bool(self.kinds)

    def day_matches(self, day: date, holidays: HolidaySupplement | None = None) -> bool:
        if self.every_day or day.weekday() in self.weekdays:
            return True
        return ("workday" in self.kinds and is_workday(day, holidays)) or (
            "holiday" in self.kinds and is_holiday(day, holidays)
        )

    def matches(self, moment: datetime, holidays: HolidaySupplement | None = None) -> bool:
        """Whether the slot starting at ``moment`` (local wall-clock time) falls under the rule
        (``workday``/``holiday`` from the official calendar and ``holidays``)."""
        minute = moment.hour * 60 + moment.minute
        day = moment.date()
        if not self.wraps:
            return self.start_minute <= minute < self.end_minute and self.day_matches(day, holidays)
        if minute >= self.start_minute and self.day_matches(day, holidays):
            return True
        return minute < self.end_minute and self.day_matches(day - timedelta(days=1), holidays)


# --- the holiday calendar -------------------------------------------------------------------
@dataclass(frozen=True)
class HolidaySupplement:
    """Official holidays and 调休 workdays for years the chinesecalendar package lacks.

    The State Council publishes next year's schedule each November, often before a
    chinesecalendar release carries it; ``SUANLI_HOLIDAYS_FILE`` fills the gap. A value the
    core is given (the planner's context, a quote's parts), never a process-wide setting.
    """

    years: frozenset[int] = frozenset()
    holidays: frozenset[date] = frozenset()
    workdays: frozenset[date] = frozenset()


NO_SUPPLEMENT = HolidaySupplement()


@lru_cache(maxsize=256)
def _chinese_calendar_covers(year: int) -> bool:
    try:
        chinese_calendar.is_workday(date(year, 1, 1))
        chinese_calendar.is_workday(date(year, 12, 31))
    except NotImplementedError:
        return False
    return True


@lru_cache(maxsize=64)
def _provisional_holidays(year: int) -> frozenset[date]:
    """Statutory holidays of ``year`` from the ``holidays`` package (no 调休 workdays)."""
    import holidays as holiday_tables  # only for years chinesecalendar lacks; slow to import

    days = frozenset(holiday_tables.country_holidays("CN", years=year))
    if not days:
        raise CalendarError(
            "no Chinese holiday calendar for {year} (neither chinesecalendar nor the holidays "
            "package has it); give that year's official schedule in SUANLI_HOLIDAYS_FILE, or "
            "drop workday/holiday rules for that period",
            year=year,
        )
    return days


def is_provisional(year: int, holidays: HolidaySupplement | None = None) -> bool:
    """Whether ``year``'s calendar is computed, not official (no 调休 make-up workdays): neither
    ``holidays`` nor chinesecalendar has it."""
    supplement = holidays or NO_SUPPLEMENT
    return year not in supplement.years and not _chinese_calendar_covers(year)


def provisional_years(
    first: date, last: date, holidays: HolidaySupplement | None = None
) -> tuple[int, ...]:
    """The years from ``first`` to ``last`` whose holiday calendar is provisional."""
    return tuple(y for y in range(first.year, last.year + 1) if is_provisional(y, holidays))


@lru_cache(maxsize=4096)
def is_workday(day: date, holidays: HolidaySupplement | None = None) -> bool:
    """An official working day (调休 make-up weekend days included), ``holidays`` answering
    for the years it lists."""
    supplement = holidays or NO_SUPPLEMENT
    if day.year in supplement.years:
        return day in supplement.workdays or (day.weekday() < 5 and day not in supplement.holidays)
    if is_provisional(day.year):
        return day.weekday() < 5 and day not in _provisional_holidays(day.year)
    return bool(chinese_calendar.is_workday(day))


@lru_cache(maxsize=4096)
def is_holiday(day: date, holidays: HolidaySupplement | None = None) -> bool:
    """A day of an official public-holiday break (not an ordinary weekend), ``holidays``
    answering for the years it lists."""
    supplement = holidays or NO_SUPPLEMENT
    if day.year in supplement.years:
        return day in supplement.holidays
    if is_provisional(day.year):
        return day in _provisional_holidays(day.year)
    return day in chinese_calendar.holidays


# --- parsing ---------------------------------------------------------------------------------
def _fail(where: str, index: int, rule: str, expected: str | Msg) -> CalendarError:
    return CalendarError(
        "{where}: rule {index} {rule!r}: expected {expected}",
        where=where,
        index=index,
        rule=rule,
        expected=as_msg(expected),
    )


def _weekday(name: str, where: str, index: int, rule: str) -> int:
    if name not in WEEKDAYS:
        raise _fail(
            where,
            index,
            rule,
            Msg(
                "a day among {names}, got {name!r}",
                names=", ".join(WEEKDAYS + DAY_KINDS),
                name=name,
            ),
        )
    return WEEKDAYS.index(name)


def _day_item(item: str, where: str, index: int, rule: str) -> tuple[set[int], set[str]]:
    if item in DAY_KINDS:
        return set(), {item}
    first, sep, last = item.partition("-")
    start = _weekday(first.strip(), where, index, rule)
    if not sep:
        return {start}, set()
    end = _weekday(last.strip(), where, index, rule)
    span = (end - start) % 7
    return {(start + k) % 7 for k in range(span + 1)}, set()


def _days(text: str, where: str, index: int, rule: str) -> tuple[frozenset[int], frozenset[str]]:
    weekdays: set[int] = set()
    kinds: set[str] = set()
    for item in (part.strip() for part in text.split(",")):
        if not item:
            raise _fail(where, index, rule, "day names separated by commas")
        more_days, more_kinds = _day_item(item, where, index, rule)
        weekdays |= more_days
        kinds |= more_kinds
    return frozenset(weekdays), frozenset(kinds)


def _minute(text: str, where: str, index: int, rule: str, *, is_end: bool) -> int:
    hours, _, minutes = text.strip().partition(":")
    hour, minute = int(hours), int(minutes)
    limit = 24 if is_end else 23
    if hour > limit or minute > 59 or (hour == 24 and minute != 0):
        latest = "24:00" if is_end else "23:59"
        raise _fail(
            where,
            index,
            rule,
            Msg(
                "a time HH:MM from 00:00 to {latest}, got {text!r}",
                latest=latest,
                text=text.strip(),
            ),
        )
    return hour * 60 + minute


def _time_range(text: str, where: str, index: int, rule: str) -> tuple[int, int]:
    first, _, last = text.partition("-")
    start = _minute(first, where, index, rule, is_end=False)
    end = _minute(last, where, index, rule, is_end=True)
    if start == end:
        raise _fail(where, index, rule, "a range whose start and end differ")
    return start, end


def _factor(text: str, where: str, index: int, rule: str) -> Decimal:
    try:
        factor = Decimal(text)
    except InvalidOperation:
        factor = Decimal(0)
    if not factor.is_finite() or factor <= 0:
        expected = Msg("a positive decimal factor after '*', got {text!r}", text=text)
        raise _fail(where, index, rule, expected)
    return factor


def parse_rule(rule: str, *, where: str = "time_of_use", index: int = 1) -> TouRule:
    """One rule such as ``sat-sun 22:00-08:00*0.5``; :class:`CalendarError` names what is wrong."""
    text = unicodedata.normalize("NFKC", rule).strip().lower()
    found = _RULE.match(text)
    if found is None:
        raise _fail(
            where, index, rule, "[DAYS] [HH:MM-HH:MM] *FACTOR, e.g. 'sat-sun 00:00-08:00*0.5'"
        )
    weekdays: frozenset[int] = frozenset()
    kinds: frozenset[str] = frozenset()
    if found["days"]:
        weekdays, kinds = _days(found["days"], where, index, rule)
    start, end = 0, MINUTES_PER_DAY
    if found["time"]:
        start, end = _time_range(found["time"], where, index, rule)
    factor = _factor(found["factor"], where, index, rule)
    return TouRule(factor, weekdays, kinds, start, end, rule.strip())


@lru_cache(maxsize=1024)
def parse_time_of_use(text: str, where: str = "time_of_use") -> tuple[TouRule, ...]:
    """Every rule of a ``time_of_use`` cell; an empty cell means no time-of-use pricing."""
    parts = unicodedata.normalize("NFKC", text).split(";")
    if len(parts) > 1 and not parts[-1].strip():
        parts.pop()  # a trailing ';' is harmless
    if not text.strip():
        return ()
    return tuple(parse_rule(part, where=where, index=i) for i, part in enumerate(parts, 1))


# --- factors ---------------------------------------------------------------------------------
def factor_at(
    rules: Sequence[TouRule], moment: datetime, holidays: HolidaySupplement | None = None
) -> Decimal:
    """The factor of the slot starting at ``moment`` (local time): lowest matching rule, else 1."""
    matching = [rule.factor for rule in rules if rule.matches(moment, holidays)]
    return min(matching) if matching else ONE


def slot_starts(first: datetime, hours: int, timezone: ZoneInfo) -> list[datetime]:
    """The local start time of each of ``hours`` whole-hour slots from ``first`` (aware)."""
    utc_first = first.astimezone(ZoneInfo("UTC"))
    return [(utc_first + timedelta(hours=k)).astimezone(timezone) for k in range(hours)]


@lru_cache(maxsize=512)
def slot_factors(
    text: str,
    first: datetime,
    hours: int,
    timezone: ZoneInfo,
    holidays: HolidaySupplement | None = None,
) -> tuple[Decimal, ...]:
    """The factor of every slot of a horizon, for one offer's ``time_of_use`` cell."""
    rules = parse_time_of_use(text)
    if not rules:
        return (ONE,) * hours
    starts = slot_starts(first, hours, timezone)
    return tuple(factor_at(rules, moment, holidays) for moment in starts)


def validate_time_of_use(text: str, where: str = "time_of_use") -> None:
    """Raise :class:`CalendarError` when ``text`` is not a valid list of rules."""
    parse_time_of_use(text, where)
