"""The worker's cron and the refresh *period* it defines.

A period starts at the cron's latest fire time. A weekly cron (the default, Monday 03:00
Asia/Shanghai) gives periods labelled by the ISO week of that fire time, such as ``2026-W48``;
a cron firing more often gives one period per fire time (``2026-11-30T03:00``). Refresh runs
are recorded per provider and period, which is how the worker knows what it still owes.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

from apscheduler.triggers.cron import CronTrigger

from comparator.errors import InputError

_LOOKBACKS = (
    timedelta(hours=2),
    timedelta(days=2),
    timedelta(days=8),
    timedelta(days=32),
    timedelta(days=370),
)
_WEEKLY = timedelta(days=7) - timedelta(hours=2)  # a DST change may shorten a week by an hour


def parse_cron(text: str, zone: ZoneInfo, where: str = "cron") -> CronTrigger:
    """``"mon 03:00"``, ``"mon,thu 03:00"``, ``"daily 03:00"`` or a 5-field crontab line."""
    parts = text.split()
    try:
        if len(parts) == 5:
            return CronTrigger.from_crontab(text, timezone=zone)
        if len(parts) == 2 and ":" in parts[1]:
            hour, minute = parts[1].split(":", 1)
            days = "*" if parts[0].lower() in ("daily", "*") else parts[0].lower()
            return CronTrigger(day_of_week=days, hour=int(hour), minute=int(minute), timezone=zone)
    except ValueError as exc:
        raise InputError(f"{where}: {exc} (got {text!r})") from None
    raise InputError(
        f'{where}: expected "mon 03:00", "daily 03:00" or a crontab line '
        f'"0 3 * * mon", got {text!r}'
    )


@dataclass(frozen=True)
class Period:
    label: str
    start: datetime  # the cron fire time the period began with


def last_fire(trigger: CronTrigger, now: datetime) -> datetime | None:
    """The latest fire time at or before ``now`` (within a year)."""
    for lookback in _LOOKBACKS:
        fire = trigger.get_next_fire_time(None, now - lookback)
        if fire is None or fire > now:
            continue
        while True:
            following = trigger.get_next_fire_time(fire, fire + timedelta(seconds=1))
            if following is None or following > now:
                return fire  # type: ignore[no-any-return]
            fire = following
    return None


def current_period(trigger: CronTrigger, now: datetime) -> Period:
    """The period ``now`` falls in."""
    start = last_fire(trigger, now)
    if start is None:
        return Period(iso_week(now), now)
    following = trigger.get_next_fire_time(start, start + timedelta(seconds=1))
    weekly = following is None or following - start >= _WEEKLY
    return Period(iso_week(start) if weekly else start.strftime("%Y-%m-%dT%H:%M"), start)


def iso_week(moment: datetime) -> str:
    year, week, _ = moment.isocalendar()
    return f"{year}-W{week:02d}"
