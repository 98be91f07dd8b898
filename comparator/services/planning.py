"""Plan job files against the catalog: read the job and the current offers, call the pure planner.

The planner itself (:mod:`comparator.plan`) never opens a database; this module is where the
catalog, the settings and a job file meet it.
"""

from __future__ import annotations

import dataclasses
import gc
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import date, datetime
from decimal import Decimal
from pathlib import Path

from sqlalchemy import Engine

from comparator.catalog.current_offers import (
    count_current,
    current_offers,
    current_snapshot_id_list,
    job_offers,
)
from comparator.catalog.queries import load_profiles
from comparator.catalog.queries_groups import CatalogGroups
from comparator.config import Settings
from comparator.domain.calibration import load_calibration
from comparator.domain.job import Job, load_job
from comparator.domain.money import FxTable
from comparator.domain.offer_filter import FilteredOffers, OfferFilter
from comparator.domain.offer_view import OfferView
from comparator.domain.profile import ProviderProfile
from comparator.errors import PlanError
from comparator.plan import (
    DEFAULT_TOP,
    OBJECTIVES,
    PlanContext,
    PlanResult,
    SharedPlan,
    plan_job,
    plan_jobs,
)
from comparator.plan.prune.sql_prefilter import filtered_reasons, job_offer_filter
from comparator.plan.prune.streamed import (
    contract_runs,
    most_runs,
    plan_streamed,
    rule_floors,
)


@dataclass(frozen=True)
class JobCatalog:
    """What the catalog holds for one job: the offers that can matter, their providers'
    profiles, and how many offers it left out (docs/planner-pruning.md, rule 1)."""

    offers: list[OfferView]
    profiles: dict[str, ProviderProfile]
    filtered: list[FilteredOffers]
    snapshot_ids: list[str]  # every current snapshot with offers, loaded or not


@contextmanager
def collector_paused() -> Iterator[None]:
    """Python's cyclic garbage collector paused while a job is loaded and planned.

    Loading and planning allocate millions of objects and almost no cycles (at 1M offers a
    collection afterwards finds ~300 unreachable objects), yet the collector's passes over the
    growing heap took a third of the planner's time. Memory is still freed by reference
    counting; the collector resumes afterwards."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def load_for_job(engine: Engine, job: Job) -> JobCatalog:
    """The current offers ``job`` can use, filtered in SQL, with their providers' profiles."""
    offer_filter = job_offer_filter(job)
    offers = job_offers(engine, offer_filter)
    profiles = load_profiles(engine, {o.provider for o in offers})
    return _catalog(engine, offer_filter, offers, profiles, len(offers))


def _catalog(
    engine: Engine,
    offer_filter: OfferFilter,
    offers: list[OfferView],
    profiles: dict[str, ProviderProfile],
    job_offer_count: int,
    in_places: int | None = None,
) -> JobCatalog:
    total = count_current(engine)
    in_place = total if not offer_filter.by_place else in_places
    if in_place is None:
        in_place = count_current(engine, offer_filter)
    filtered = filtered_reasons(offer_filter, total - in_place, in_place - job_offer_count)
    return JobCatalog(offers, profiles, filtered, current_snapshot_id_list(engine))


def plan_for_job(engine: Engine, job: Job, context: PlanContext) -> tuple[PlanResult, JobCatalog]:
    """The plan of ``job`` on the catalog, reading its offers group by group as the planner's
    walk reaches them (docs/planner-pruning.md, rule 5), with the catalog it read; every
    offer when streaming cannot decide. The offers of the best plan's data centre and GPU
    are read too (the quote's price curve may show one)."""
    if context.objective != "cost":  # finishes, not prices, order the walk: nothing to skip
        catalog = load_for_job(engine, job)
        result = plan_job(job, catalog.offers, catalog.profiles, context, filtered=catalog.filtered)
        return result, catalog
    offer_filter = job_offer_filter(job)
    source = CatalogGroups(engine, offer_filter, context.fx, job.currency)
    schedule = job.schedule
    factors = rule_floors(
        source.rules(), schedule.earliest_start, schedule.deadline, schedule.run_windows
    )
    summaries, in_places = source.summaries(factors, most_runs(job), contract_runs(job))
    profiles = load_profiles(engine, {s.provider for s in summaries})
    count = sum(s.offers for s in summaries)
    catalog = _catalog(engine, offer_filter, [], profiles, count, in_places)
    streamed = plan_streamed(
        job, summaries, source.read, profiles, context, filtered=catalog.filtered
    )
    if streamed is None:
        offers = job_offers(engine, offer_filter)
        result = plan_job(job, offers, profiles, context, filtered=catalog.filtered)
        return result, dataclasses.replace(catalog, offers=offers)
    result, offers = streamed
    best = result.best
    if best is not None:
        place = (best.provider, best.region, best.gpu)
        read = {o.offer_id for o in offers}
        same = [s for s in summaries if (s.provider, s.region, s.gpu) == place]
        offers = offers + [o for o in source.read(same) if o.offer_id not in read]
    return result, dataclasses.replace(catalog, offers=offers)


def context_from_settings(
    settings: Settings,
    *,
    objective: str = "cost",
    top: int | None = None,
    today: date | None = None,
    lang: str = "en",
) -> PlanContext:
    """The planner's context from the settings: today, FX, efficiency, headroom and zone."""
    if objective not in OBJECTIVES:
        raise PlanError(
            "--objective: expected cost or time, got {objective!r}", objective=objective
        )
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
    )


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
    with collector_paused():
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
    """Plan several jobs together: they share the stock of the catalog's offers."""
    jobs = [load_job(p) for p in paths]
    if objective != "cost":
        raise PlanError("--objective time plans one job at a time; plan the jobs separately")
    context = context_from_settings(settings, objective=objective, top=top, today=today, lang=lang)
    return plan_jobs(
        jobs, current_offers(engine), load_profiles(engine), context, time_limit_s=time_limit_s
    )
