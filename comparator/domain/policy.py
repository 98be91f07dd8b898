"""The dates a job is judged on: one policy shared by ``plan``, ``quote`` and ``check``.

Compliance asks "valid today and until the job's last day": ``today`` is the date in the
configured time zone (``SUANLI_TIMEZONE``), the last day is ``[schedule] deadline`` read in
that zone. Without a job (``suanli check`` alone) there are no requirements and no last day.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from datetime import date, datetime
from typing import TYPE_CHECKING
from zoneinfo import ZoneInfo

if TYPE_CHECKING:  # the job model (pydantic) loads only where a job file is read
    from comparator.domain.job import Job, Requirements


@dataclass(frozen=True)
class JobPolicy:
    """Today, the job's last day and its requirements, in one time zone."""

    today: date
    timezone: ZoneInfo
    requirements: Requirements | None = None
    last_day: date | None = None

    @classmethod
    def of(cls, job: Job | None, *, timezone: ZoneInfo, today: date | None = None) -> JobPolicy:
        day = today or datetime.now(timezone).date()
        if job is None:
            return cls(day, timezone)
        if job.schedule.days is not None:  # a relative window: from the judging day
            job = dataclasses.replace(job, schedule=job.schedule.anchored(day))
        last_day = job.schedule.deadline.astimezone(timezone).date()
        return cls(day, timezone, job.requirements, last_day)
