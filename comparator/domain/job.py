"""Job files (TOML): what to train, by when, and under which requirements.

A job gives its work either directly (``[workload] card_hours`` on a reference GPU) or through
the estimator (``[model]`` + ``[training]``), never both. Dates must carry a time zone; a naive
date-time is read in Asia/Shanghai. GPU names are canonicalised through the GPU registry and
province names through :mod:`comparator.domain.provinces`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import date, datetime, time, timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from comparator.domain.calibration import Calibration, calibration_of
from comparator.domain.input_model import render_errors
from comparator.domain.job_model import (
    BudgetTable,
    DataTable,
    JobFile,
    RequirementsTable,
    WorkloadTable,
)
from comparator.domain.job_model import window_rules as window_rules  # plan/dp/windows.py reads it
from comparator.domain.job_service import SERVICE_REQUIREMENT_KEYS, ServiceRequirements
from comparator.domain.toml_input import loads_toml, read_input
from comparator.domain.zones import DEFAULT_TIMEZONE
from comparator.errors import JobFileError, Msg


@dataclass(frozen=True)
class Workload:
    """Work given directly: card-hours on the reference ``gpu``, optionally a fixed card count."""

    card_hours: Decimal | None = None
    gpu: str | None = None
    cards: int | None = None


@dataclass(frozen=True)
class Schedule:
    earliest_start: datetime
    deadline: datetime
    interruptible: bool = False
    restart_overhead_hours: int = 0
    run_windows: tuple[str, ...] = ()  # e.g. "mon-fri 09:00-18:00": the job runs only inside
    max_hours_per_day: int | None = None  # run hours (restarts included) per day, job's zone
    days: int | None = None  # `[schedule] days`: the window starts on the planning day

    def anchored(self, day: date) -> Schedule:
        """A relative window (``days``) moved to start on ``day`` at 00:00 (Asia/Shanghai, as
        a naive time is read); a window of dates stays as it is."""
        if self.days is None:
            return self
        start = datetime.combine(day, time(), DEFAULT_TIMEZONE)
        end = start + timedelta(days=self.days)
        return dataclasses.replace(self, earliest_start=start, deadline=end)

    def in_window(self, moment: datetime) -> bool:
        """Whether the hour starting at ``moment`` (local time) lies in a run window."""
        if not self.run_windows:
            return True
        return any(rule.matches(moment) for rule in window_rules(self.run_windows))


@dataclass(frozen=True)
class Requirements:
    """What a placement must satisfy; empty tuples / ``None`` mean "no requirement"."""

    gpus: tuple[str, ...] = ()
    provinces: tuple[str, ...] = ()
    cities: tuple[str, ...] = ()
    certifications: tuple[str, ...] = ()
    mlps_level: int | None = None
    contains_personal_info: bool = False
    export_basis: str | None = None
    invoice: str | None = None
    spot: bool = False
    service: ServiceRequirements = field(default_factory=ServiceRequirements)


@dataclass(frozen=True)
class DataNeeds:
    """``[data]``: what the job keeps on the data centre's disks (GB, decimal: 1 TB = 1000 GB).

    The dataset is uploaded before the first run slot and, with the checkpoints, stored for the
    whole rental window; the checkpoints are downloaded at the end (egress)."""

    dataset_gb: Decimal = Decimal(0)
    checkpoint_gb: Decimal = Decimal(0)
    stated: bool = False  # the job has a [data] table (without one the bill leaves data out)

    @property
    def stored_gb(self) -> Decimal:
        return self.dataset_gb + self.checkpoint_gb


@dataclass(frozen=True)
class Job:
    name: str
    schedule: Schedule
    currency: str = "CNY"
    workload: Workload = field(default_factory=Workload)
    model: Mapping[str, Any] | None = None
    training: Mapping[str, Any] | None = None
    requirements: Requirements = field(default_factory=Requirements)
    max_cost: Decimal | None = None
    source: str = ""
    data: DataNeeds = field(default_factory=DataNeeds)
    max_price_per_card_hour: Decimal | None = None  # [budget]: tax-inclusive, job currency
    use_free_trial: bool = False  # [budget]: use offers' free trial hours (once per provider)
    calibration: Calibration | None = None  # [calibration]: a measured trial run


def _today() -> date:
    return datetime.now(DEFAULT_TIMEZONE).date()


def anchored(job: Job, day: date) -> Job:
    """``job`` with a relative window (``[schedule] days``) starting on the planning day."""
    if job.schedule.days is None:
        return job
    return dataclasses.replace(job, schedule=job.schedule.anchored(day))


def parse_job(data: Mapping[str, Any], source: str, today: date | None = None) -> Job:
    """A :class:`Job` from parsed TOML ``data``; ``source`` names the file in errors. A
    relative window (``[schedule] days``) starts on ``today`` (None: today in Asia/Shanghai;
    :func:`anchored` moves it to the planning day)."""
    try:
        file = JobFile.model_validate(dict(data))
    except ValidationError as exc:
        raise render_errors(exc, JobFile, source, JobFileError) from None
    budget = file.budget or BudgetTable()
    data_table = file.data or DataTable()
    return Job(
        name=file.name or Path(source).stem,
        currency=file.currency,
        workload=_workload(file.workload),
        model=None if file.workload else dict(file.model or {}),
        training=None if file.workload else dict(file.training or {}),
        schedule=Schedule(**dict(file.schedule)).anchored(today or _today()),
        requirements=_requirements(file.requirements),
        max_cost=budget.max_cost,
        max_price_per_card_hour=budget.max_price_per_card_hour,
        use_free_trial=budget.use_free_trial,
        source=source,
        data=DataNeeds(
            data_table.dataset_gb or Decimal(0),
            data_table.checkpoint_gb or Decimal(0),
            stated=file.data is not None,
        ),
        calibration=calibration_of(file.calibration, source),
    )


def _requirements(table: RequirementsTable) -> Requirements:
    values = dict(table)
    service = ServiceRequirements(**{key: values.pop(key) for key in SERVICE_REQUIREMENT_KEYS})
    return Requirements(**values, service=service)


def _workload(table: WorkloadTable | None) -> Workload:
    if table is None:
        return Workload()
    return Workload(table.card_hours, table.gpu, table.cards)


def load_job(path: str | Path) -> Job:
    """Read and validate a job file; :class:`JobFileError` names the file and the field."""
    return read_job_file(path)[0]


def read_job_file(path: str | Path) -> tuple[Job, bytes]:
    """The job of ``path`` and the bytes it was parsed from, read once (a quote hashes those
    bytes: a second read could see an edit made in between)."""
    source = str(path)
    raw = read_input(
        path,
        error=JobFileError,
        kind=Msg("job file"),
        missing=Msg("{path}: no such job file", path=source),
    )
    return loads_job(raw, source), raw


def loads_job(raw: bytes, source: str) -> Job:
    """Validate the bytes of a job file (``source`` names it in errors)."""
    return parse_job(loads_toml(raw, source, error=JobFileError), source)
