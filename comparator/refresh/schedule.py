"""The worker's cron and the refresh *period* it defines.

A period starts at the cron's latest fire time. A weekly cron (the default, Monday 03:00
Asia/Shanghai) gives periods labelled by the ISO week of that fire time, such as ``2026-W48``;
a cron firing more often gives one period per fire time (``2026-11-30T03:00``). Refresh runs
are recorded per provider and period, which is how the worker knows what it still owes.

Daylight saving time: the cron is matched against *wall-clock* times, enumerated on a clock
without DST (so the enumeration always moves forward), and each wall time is then placed on
the real time line. A wall time that a fall-back repeats fires once, at its first occurrence;
one that a spring-forward skips fires at the same moment one hour later (``02:30`` →
``03:30``), unless a later wall time already fired at or after that moment. Fire instants
therefore strictly increase, and every search below is bounded. (Compare and subtract them in
UTC: Python compares two datetimes of the same zone by their wall times.)
"""

from __future__ import annotations

import copy
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

from apscheduler.triggers.base import BaseTrigger
from apscheduler.triggers.cron import CronTrigger

from comparator.errors import InputError, Msg

_LOOKBACKS = (
    timedelta(hours=2),
    timedelta(days=2),
    timedelta(days=8),
    timedelta(days=32),
    timedelta(days=370),
)
_WEEKLY = timedelta(days=7) - timedelta(hours=2)  # a DST change may shorten a week by an hour
_DST_MARGIN = timedelta(hours=3)  # more than any zone's DST shift (at most 2 h)
_MAX_STEPS = 600_000  # wall times examined by one search: a minute cron over a year and more


class ZonedCron(BaseTrigger):  # type: ignore[misc]
    """A cron in a time zone whose fire times strictly increase across DST changes.

    An APScheduler trigger (the worker schedules it); :meth:`fires` lists fire instants.
    """

    def __init__(self, wall: CronTrigger, zone: ZoneInfo, text: str) -> None:
        self.wall = wall  # the same fields on a clock without DST: naive wall times
        self.zone = zone
        self.text = text

    def __str__(self) -> str:
        return f"cron {self.text!r} {self.zone.key}"

    def fires(self, after: datetime, until: datetime | None = None) -> Iterator[datetime]:
        """Fire instants ``>= after`` (and ``<= until``), in order, in the cron's zone."""
        start_wall = _wall(after, self.zone) - _DST_MARGIN
        cursor: datetime | None = start_wall.replace(tzinfo=UTC)
        last: datetime | None = None
        for _ in range(_MAX_STEPS):
            if cursor is None:
                return
            cursor = self.wall.get_next_fire_time(None, cursor)
            if cursor is None:
                return
            instant = cursor.replace(tzinfo=self.zone, fold=0).astimezone(UTC)
            cursor = cursor + timedelta(seconds=1)
            if last is not None and instant <= last:
                continue  # a repeated or skipped hour's duplicate
            last = instant
            if until is not None and instant > until:
                return
            if instant >= after:
                yield instant.astimezone(self.zone)
        return

    def next_after(self, moment: datetime) -> datetime | None:
        """The first fire instant strictly after ``moment``."""
        return next(self.fires(moment + timedelta(microseconds=1)), None)

    def get_next_fire_time(
        self, previous_fire_time: datetime | None, now: datetime
    ) -> datetime | None:
        """APScheduler's interface: the next fire after the previous one, else at/after now."""
        if previous_fire_time is not None:
            return self.next_after(previous_fire_time)
        return next(self.fires(now), None)


def _wall(moment: datetime, zone: ZoneInfo) -> datetime:
    return moment.astimezone(zone).replace(tzinfo=None)


def parse_cron(text: str, zone: ZoneInfo, where: str = "cron") -> ZonedCron:
    """``"mon 03:00"``, ``"mon,thu 03:00"``, ``"daily 03:00"`` or a 5-field crontab line."""
    parts = text.split()
    wall = None
    try:
        if len(parts) == 5:
            wall = CronTrigger.from_crontab(text, timezone=UTC)
        elif len(parts) == 2 and ":" in parts[1]:
            hour, minute = parts[1].split(":", 1)
            days = "*" if parts[0].lower() in ("daily", "*") else parts[0].lower()
            wall = CronTrigger(day_of_week=days, hour=int(hour), minute=int(minute), timezone=UTC)
    except ValueError as exc:
        raise InputError(
            "{where}: {reason} (got {text!r})",
            where=where,
            reason=str(exc),
            text=text,
            hint=Msg(
                'write the schedule as "mon 03:00", "daily 03:00" or a crontab line such as "0 3 * * mon"'
            ),
        ) from None
    if wall is not None:
        if _never_fires(wall):
            raise InputError(
                "{where}: {text!r} names a date that never comes (such as 31 11)",
                where=where,
                text=text,
                hint=Msg(
                    'write the schedule as "mon 03:00", "daily 03:00" or a crontab line such as "0 3 * * mon"'
                ),
            )
        return ZonedCron(wall, zone, text)
    raise InputError(
        '{where}: expected "mon 03:00", "daily 03:00" or a crontab line "0 3 * * '
        'mon", got {text!r}',
        where=where,
        text=text,
        hint=Msg(
            'write the schedule as "mon 03:00", "daily 03:00" or a crontab line such as "0 3 * * mon"'
        ),
    )


def _never_fires(wall: CronTrigger) -> bool:
    """Whether the cron matches no time at all: the calendar repeats every 400 years."""
    probe = copy.copy(wall)
    probe.end_date = datetime(2424, 1, 1, tzinfo=UTC)  # bounds the search (else to year 9999)
    return probe.get_next_fire_time(None, datetime(2024, 1, 1, tzinfo=UTC)) is None


@dataclass(frozen=True)
class Period:
    label: str
    start: datetime  # the cron fire time the period began with


def last_fire(trigger: ZonedCron, now: datetime) -> datetime | None:
    """The latest fire time at or before ``now`` (within a year)."""
    for lookback in _LOOKBACKS:
        latest = None
        for fire in trigger.fires(now - lookback, until=now):
            latest = fire
        if latest is not None:
            return latest
    return None


def current_period(trigger: ZonedCron, now: datetime) -> Period:
    """The period ``now`` falls in."""
    start = last_fire(trigger, now)
    if start is None:
        return Period(iso_week(now), now)
    following = trigger.next_after(start)
    # same-zone datetimes subtract as wall times: measure the real interval in UTC
    weekly = following is None or following.astimezone(UTC) - start.astimezone(UTC) >= _WEEKLY
    return Period(iso_week(start) if weekly else start.strftime("%Y-%m-%dT%H:%M"), start)


def iso_week(moment: datetime) -> str:
    year, week, _ = moment.isocalendar()
    return f"{year}-W{week:02d}"
