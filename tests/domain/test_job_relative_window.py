"""`[schedule] days = N`: a window that starts on the planning day (README, Job files), so a
job file never expires; dates and days together, or neither, are an error naming the key."""

from __future__ import annotations

import tomllib
from datetime import date, datetime
from pathlib import Path
from typing import Any

import pytest

from comparator.domain.job import anchored, parse_job
from comparator.domain.zones import DEFAULT_TIMEZONE
from comparator.errors import JobFileError

JOB = """name = "rel"
[workload]
gpu = "H100"
card_hours = 64
[schedule]
{schedule}
"""


def _parse(schedule: str, today: date | None = None) -> Any:
    return parse_job(tomllib.loads(JOB.format(schedule=schedule)), "rel.toml", today)


def test_days_start_the_window_on_the_planning_day() -> None:
    job = _parse("days = 7", date(2026, 12, 10))
    start = datetime(2026, 12, 10, tzinfo=DEFAULT_TIMEZONE)
    assert job.schedule.earliest_start == start
    assert job.schedule.deadline == datetime(2026, 12, 17, tzinfo=DEFAULT_TIMEZONE)
    moved = anchored(job, date(2027, 1, 4)).schedule
    assert (moved.earliest_start.date(), moved.deadline.date()) == (
        date(2027, 1, 4),
        date(2027, 1, 11),
    )


def test_a_window_of_dates_stays_where_it_is() -> None:
    job = _parse("earliest_start = 2026-12-01T00:00:00+08:00\ndeadline = 2026-12-08T00:00:00+08:00")
    assert anchored(job, date(2026, 12, 5)) is job


@pytest.mark.parametrize(
    ("schedule", "key"),
    [
        ("days = 7\nearliest_start = 2026-12-01T00:00:00+08:00", "schedule.earliest_start"),
        ("days = 7\ndeadline = 2026-12-08T00:00:00+08:00", "schedule.deadline"),
        ("deadline = 2026-12-08T00:00:00+08:00", "schedule.earliest_start"),
        ("interruptible = true", "schedule.earliest_start"),
        ("days = 0", "schedule.days"),
        ("days = 732", "schedule.days"),
    ],
)
def test_days_and_dates_together_or_neither_name_the_key(schedule: str, key: str) -> None:
    with pytest.raises(JobFileError) as caught:
        _parse(schedule)
    assert key in str(caught.value)


def test_plan_runs_a_relative_window_from_today(cli: Any, demo_db_url: str, tmp_path: Path) -> None:
    path = tmp_path / "rel.toml"
    path.write_text(JOB.format(schedule="days = 7"), encoding="utf-8")
    for today in ("2026-12-10", "2027-03-01"):
        result = cli("plan", str(path), "--today", today, "--json", db=demo_db_url, lang="en")
        assert result.code == 0, result.err
        best = result.json()["plans"][0]["best"]
        assert today <= best["start"][:10] and best["finish"][:10] <= str(
            date.fromisoformat(today).replace(day=date.fromisoformat(today).day + 7)
        )


def test_the_compliance_policy_judges_a_relative_window_from_its_day() -> None:
    from comparator.domain.policy import JobPolicy

    policy = JobPolicy.of(_parse("days = 7"), timezone=DEFAULT_TIMEZONE, today=date(2027, 6, 1))
    assert policy.last_day == date(2027, 6, 8)
