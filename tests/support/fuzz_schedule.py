"""Seeded crons, zones and instants for the schedule's arithmetic: the parts Hypothesis draws
from in tests/refresh/test_schedule_dst.py, and a plain ``random.Random`` form of the same for
``scripts/faults --only dst`` (:mod:`tests.support.faults`).
"""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta

DST_ZONES = (
    "America/New_York",
    "Europe/Berlin",
    "Australia/Lord_Howe",  # a 30-minute DST shift
    "Antarctica/Troll",  # a 2-hour DST shift
    "America/Santiago",  # DST changes at midnight
    "Asia/Tehran",
    "Pacific/Chatham",
    "America/St_Johns",
    "Asia/Shanghai",
)
# a crontab line: minute, hour, day of month, month, day of week
CRON_FIELDS = (
    ("0", "30", "59", "*", "*/15", "0,30"),
    ("0", "1", "2", "3", "*", "1-3", "23"),
    ("*", "1", "29", "31", "1-7"),
    ("*", "3", "10", "11", "2", "4"),
    ("*", "sun", "mon", "sat,sun"),
)
# the short form: days, hour 0-23, minute
SHORT_DAYS = ("daily", "sun", "mon", "sat,sun")
SHORT_MINUTES = (0, 1, 30, 59)


def cron_case(rng: random.Random) -> str:
    if rng.random() < 0.5:
        return " ".join(rng.choice(choices) for choices in CRON_FIELDS)
    return f"{rng.choice(SHORT_DAYS)} {rng.randrange(24):02d}:{rng.choice(SHORT_MINUTES):02d}"


def instant_near(rng: random.Random, changes: tuple[datetime, ...]) -> datetime:
    """A UTC instant within 150 minutes of one of ``changes`` (DST), else anywhere in
    2024-2028; a clock that jumped there."""
    if changes and rng.random() < 0.7:
        return rng.choice(changes) + timedelta(minutes=rng.randint(-150, 150))
    start = datetime(2024, 1, 1, tzinfo=UTC)
    return start + timedelta(seconds=rng.randrange(5 * 366 * 86400))
