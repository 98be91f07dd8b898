"""Glue between the catalog, a job file and the pure compliance core.

``suanli check --job`` and ``suanli offers --compliant-for`` both read a job file, take "today"
in the configured time zone and the job's last day from ``[schedule] deadline``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, datetime
from pathlib import Path
from zoneinfo import ZoneInfo

from sqlalchemy import Engine

from comparator.catalog.queries import current_offers, load_profiles
from comparator.compliance.engine import (
    Eligibility,
    ProviderReport,
    check_providers,
    evaluate_offers,
)
from comparator.config import Settings
from comparator.domain.job import Job, Requirements, load_job
from comparator.domain.offer_view import OfferView
from comparator.domain.profile import ProviderProfile
from comparator.errors import InputError


@dataclass(frozen=True)
class JobPolicy:
    """What compliance needs of a job: its requirements and last day (None without a job)."""

    requirements: Requirements | None
    last_day: date | None


def today_in(timezone: ZoneInfo) -> date:
    return datetime.now(timezone).date()


def job_last_day(job: Job, timezone: ZoneInfo) -> date:
    """The job's last day: the date of ``[schedule] deadline`` in the configured time zone."""
    return job.schedule.deadline.astimezone(timezone).date()


def job_policy(job_path: str | Path | None, timezone: ZoneInfo) -> JobPolicy:
    if job_path is None:
        return JobPolicy(None, None)
    job = load_job(job_path)
    return JobPolicy(job.requirements, job_last_day(job, timezone))


def evaluate_for_job(
    engine: Engine,
    offers: Sequence[OfferView],
    job_path: str | Path,
    settings: Settings,
    *,
    today: date | None = None,
    lang: str = "zh",
) -> Eligibility:
    """Eligible and excluded offers for a job file, against the catalog's provider profiles."""
    policy = job_policy(job_path, settings.timezone)
    return evaluate_offers(
        offers,
        load_profiles(engine),
        policy.requirements,
        today=today or today_in(settings.timezone),
        last_day=policy.last_day,
        freshness_days=settings.price_freshness_days,
        lang=lang,
    )


def eligible_for_job(
    engine: Engine,
    offers: Sequence[OfferView],
    job_path: str | Path,
    settings: Settings,
    *,
    today: date | None = None,
) -> list[OfferView]:
    """Only the offers that pass every fail-level check for the job (``offers --compliant-for``)."""
    return evaluate_for_job(engine, offers, job_path, settings, today=today).eligible


@dataclass(frozen=True)
class CatalogCheck:
    """``suanli check``'s result: the dates judged on and one report per provider."""

    today: date
    last_day: date | None
    reports: list[ProviderReport]


def check_catalog(
    engine: Engine,
    settings: Settings,
    *,
    provider_ids: Sequence[str] = (),
    job_path: str | Path | None = None,
    today: date | None = None,
) -> CatalogCheck:
    """Compliance of the catalog's providers (all, or ``provider_ids``), optionally for a job."""
    profiles = _select(load_profiles(engine), provider_ids)
    policy = job_policy(job_path, settings.timezone)
    day = today or today_in(settings.timezone)
    offers = [o for o in current_offers(engine) if o.provider in profiles]
    reports = check_providers(
        profiles,
        policy.requirements,
        today=day,
        last_day=policy.last_day,
        offers=offers,
        freshness_days=settings.price_freshness_days,
    )
    return CatalogCheck(day, policy.last_day, reports)


def _select(profiles: dict[str, ProviderProfile], ids: Sequence[str]) -> dict[str, ProviderProfile]:
    unknown = [i for i in ids if i not in profiles]
    if unknown:
        known = ", ".join(profiles) or "none (run `suanli import --profile …`)"
        raise InputError(f"suanli check: unknown provider {unknown[0]!r}; known: {known}")
    return {i: profiles[i] for i in ids} if ids else profiles
