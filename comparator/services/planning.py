"""Plan job files against the catalog: read the job and the current offers, call the pure planner.

The planner itself (:mod:`comparator.plan`) never opens a database; this module is where the
catalog, the settings and a job file meet it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import date, datetime
from decimal import Decimal
from pathlib import Path
from typing import TYPE_CHECKING

from sqlalchemy import Engine

from comparator.catalog import CatalogGroups, current_snapshot_ids
from comparator.config import Settings
from comparator.domain import (
    FilteredOffers,
    FxTable,
    Job,
    OfferView,
    ProviderProfile,
    load_calibration,
    load_holidays_file,
    load_job,
)
from comparator.domain.collector import collector_paused
from comparator.domain.job import anchored
from comparator.domain.limits import check_window
from comparator.errors import JobFileError, Msg, MsgList, PlanError
from comparator.plan import (
    DEFAULT_TOP,
    OBJECTIVES,
    PlanContext,
    PlanResult,
    plan_job_read,
    plan_jobs,
)

if TYPE_CHECKING:  # the shared planner loads when several jobs are planned together
    from comparator.plan import SharedPlan


@dataclass(frozen=True)
class JobCatalog:
    """What the planner read of the catalog for one job: the offers it loaded, their
    providers' profiles, and how many offers it left out (docs/planner-pruning.md, rule 1)."""

    offers: list[OfferView]
    profiles: dict[str, ProviderProfile]
    filtered: list[FilteredOffers]
    snapshot_ids: list[str]  # every current snapshot with offers, loaded or not


def plan_for_job(engine: Engine, job: Job, context: PlanContext) -> tuple[PlanResult, JobCatalog]:
    """The plan of ``job`` on the catalog behind ``engine`` (the planner reads it group by
    group as its walk reaches them: :func:`comparator.plan.plan_job`), with what it read."""
    result, read = plan_job_read(job, CatalogGroups(engine), None, context)
    snapshots = current_snapshot_ids(engine)
    return result, JobCatalog(read.offers, read.profiles, read.filtered, snapshots)


def context_from_settings(
    settings: Settings,
    *,
    objective: str = "cost",
    top: int | None = None,
    today: date | None = None,
    lang: str = "en",
) -> PlanContext:
    """The planner's context from the settings: today, FX, efficiency, headroom, zone and the
    holiday calendar (``SUANLI_HOLIDAYS_FILE``, read here: a library caller gets it too)."""
    if objective not in OBJECTIVES:
        raise PlanError(
            "--objective: expected cost or time, got {objective!r}", objective=objective
        )
    holidays = load_holidays_file(settings.holidays_file) if settings.holidays_file else None
    return PlanContext(
        today=today or datetime.now(settings.timezone).date(),
        fx=FxTable(settings.fx_rates, settings.fx_date),
        multi_node_efficiency=(
            None
            if settings.multi_node_efficiency is None
            else Decimal(repr(settings.multi_node_efficiency))
        ),
        headroom=settings.headroom,
        freshness_days=settings.price_freshness_days,
        objective=objective,
        top=DEFAULT_TOP if top is None else max(top, 0),
        lang=lang,
        timezone=settings.timezone,
        holidays=holidays,
    )


def sane_job(job: Job, context: PlanContext) -> Job:
    """``job``, its relative window (``[schedule] days``) starting on the planning day
    (``--today`` or the real date), when that window is sane and its currency has a rate: a
    window that ended before it, or one that starts years after it, is a
    :class:`JobFileError` naming the key (:func:`comparator.domain.limits.check_window`)."""
    job = anchored(job, context.today)
    check_window(job.schedule.earliest_start, job.schedule.deadline, context.today, job.source)
    if not context.fx.knows(job.currency):
        raise JobFileError(
            "{path}: currency: no exchange rate for {code} (known: {codes})",
            path=job.source,
            code=job.currency,
            codes=", ".join(sorted(context.fx.rates_cny)),
            hint=Msg("SUANLI_FX_RATES adds a rate: CODE=RATE, the CNY price of one unit"),
        )
    return job


def _work_key(job: Job) -> str:
    if job.workload.card_hours is not None:
        return "workload.card_hours"
    training = job.training or {}
    return next((f"[training] {k}" for k in ("tokens", "samples") if k in training), "[model]")


@contextmanager
def within_range(jobs: Sequence[Job]) -> Iterator[None]:
    """Arithmetic that overflows while ``jobs`` are planned, as one error naming their work.

    The job file's bounds (:mod:`comparator.domain.limits`) keep every key in range; what is
    left is their product (tokens × epochs on one slow card, a calibration 10⁶ times slower
    than predicted): its hours then pass the calendar's end, year 9999."""
    try:
        yield
    except OverflowError:
        places = [Msg("{path}: {key}", path=job.source, key=_work_key(job)) for job in jobs]
        raise JobFileError(
            "{places}: the work is too large to schedule (its run would end after the year 9999)",
            places=MsgList(places),
            hint=Msg(
                "check the size of the work and its unit (tokens, epochs, card-hours), and "
                "the [calibration] speed"
            ),
        ) from None


def plan_job_file(
    engine: Engine,
    path: str | Path,
    settings: Settings,
    *,
    objective: str = "cost",
    top: int | None = None,
    today: date | None = None,
    lang: str = "en",
    calibration: str | Path | None = None,
) -> PlanResult:
    """Read ``path`` and the catalog behind ``engine``, and plan the job (moved to the measured
    run of the ``calibration`` file when given: it replaces the job's ``[calibration]``)."""
    job = with_calibration(load_job(path), calibration)
    context = context_from_settings(settings, objective=objective, top=top, today=today, lang=lang)
    job = sane_job(job, context)
    with collector_paused(), within_range([job]):
        return plan_for_job(engine, job, context)[0]


def with_calibration(job: Job, path: str | Path | None) -> Job:
    """``job`` with the measured run of a calibration file (``--calibration FILE``)."""
    if path is None:
        return job
    return dataclasses.replace(job, calibration=load_calibration(path))


def plan_jobs_files(
    engine: Engine,
    paths: Sequence[str | Path],
    settings: Settings,
    *,
    objective: str = "cost",
    top: int | None = None,
    today: date | None = None,
    lang: str = "en",
    time_limit_s: float = 30.0,
) -> SharedPlan:
    """Plan several jobs together: they share the stock of the catalog's offers (each job's
    read through its own filter, as when it is planned alone)."""
    jobs = [load_job(p) for p in paths]
    if objective != "cost":
        raise PlanError("--objective time plans one job at a time; plan the jobs separately")
    context = context_from_settings(settings, objective=objective, top=top, today=today, lang=lang)
    jobs = [sane_job(job, context) for job in jobs]
    with within_range(jobs):
        return plan_jobs(jobs, CatalogGroups(engine), None, context, time_limit_s=time_limit_s)
