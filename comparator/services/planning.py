"""Plan job files against the catalog: read the job and the current offers, call the pure planner.

The planner itself (:mod:`comparator.plan`) never opens a database; this module is where the
catalog, the settings and a job file meet it.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date, datetime
from decimal import Decimal
from pathlib import Path

from sqlalchemy import Engine

from comparator.catalog.queries import current_offers, load_profiles
from comparator.config import Settings
from comparator.domain.job import load_job
from comparator.domain.money import FxTable
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
        raise PlanError(f"--objective: expected cost or time, got {objective!r}")
    return PlanContext(
        today=today or datetime.now(settings.timezone).date(),
        fx=FxTable(settings.fx_rates, settings.fx_date),
        multi_node_efficiency=Decimal(repr(settings.multi_node_efficiency)),
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
) -> PlanResult:
    """Read ``path`` and the catalog behind ``engine``, and plan the job."""
    job = load_job(path)
    context = context_from_settings(settings, objective=objective, top=top, today=today, lang=lang)
    return plan_job(job, current_offers(engine), load_profiles(engine), context)


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
