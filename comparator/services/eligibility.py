"""Glue between the catalog, a job file and the pure compliance core.

``suanli check --job`` and ``suanli offers --compliant-for`` both read a job file, take "today"
in the configured time zone and the job's last day from ``[schedule] deadline``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date
from pathlib import Path

from sqlalchemy import Engine

from comparator.catalog.current_offers import oldest_prices
from comparator.catalog.queries import load_profiles, provider_ids
from comparator.compliance import (
    Eligibility,
    ProviderReport,
    check_providers,
    evaluate_offers,
)
from comparator.config import Settings
from comparator.domain.offer_view import OfferView
from comparator.domain.policy import JobPolicy
from comparator.domain.profile import ProviderProfile
from comparator.errors import InputError, Msg


def job_policy(job_path: str | Path | None, settings: Settings, today: date | None) -> JobPolicy:
    """The policy of a job file (or of no job) in the configured time zone."""
    if job_path is None:
        return JobPolicy.of(None, timezone=settings.timezone, today=today)
    from comparator.domain.job import load_job  # the job model (pydantic) loads for a job only

    return JobPolicy.of(load_job(job_path), timezone=settings.timezone, today=today)


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
    policy = job_policy(job_path, settings, today)
    return evaluate_offers(
        offers,
        load_profiles(engine, {o.provider for o in offers}),
        policy.requirements,
        today=policy.today,
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
    """Only the offers that pass every fail-level check for the job and every one of its
    [requirements] the planner applies (GPU models, spot) — ``offers --compliant-for``."""
    from comparator.domain.job import load_job

    job = load_job(job_path)
    eligible = evaluate_for_job(engine, offers, job_path, settings, today=today).eligible
    from comparator.plan import requirement_reason  # the planner loads only for --compliant-for

    return [o for o in eligible if requirement_reason(job, o) is None]


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
    profiles = _select(engine, provider_ids)
    policy = job_policy(job_path, settings, today)
    oldest = oldest_prices(engine, list(provider_ids) or None)
    reports = check_providers(
        profiles,
        policy.requirements,
        today=policy.today,
        last_day=policy.last_day,
        oldest_prices={place: t for place, t in oldest.items() if place[0] in profiles},
        freshness_days=settings.price_freshness_days,
    )
    return CatalogCheck(policy.today, policy.last_day, reports)


def _select(engine: Engine, ids: Sequence[str]) -> dict[str, ProviderProfile]:
    """The profiles of ``ids`` (all when none), parsing only those."""
    profiles = load_profiles(engine, set(ids) if ids else None)
    unknown = [i for i in ids if i not in profiles]
    if unknown:
        known = ", ".join(provider_ids(engine)) or "none (run `suanli import --profile …`)"
        raise InputError(
            "suanli check: unknown provider {unknown!r}; known: {known}",
            unknown=unknown[0],
            known=known,
            hint=Msg("`suanli providers` lists the provider ids of the catalog"),
        )
    return {i: profiles[i] for i in ids} if ids else profiles


def default_verdicts(
    engine: Engine, offers: Sequence[OfferView], settings: Settings, *, today: date | None = None
) -> dict[str, str]:
    """The default policy's verdict (pass / warn / fail) of each offer, by offer id — what
    ``suanli offers`` shows. Each provider is judged once, on the profiles of the listed
    providers only; each offer then reads its data centre's verdict."""
    policy = job_policy(None, settings, today)
    profiles = load_profiles(engine, {o.provider for o in offers})
    judged = evaluate_offers(
        offers,
        profiles,
        None,
        today=policy.today,
        freshness_days=settings.price_freshness_days,
    )
    verdicts = {o.offer_id: "pass" for o in judged.eligible}
    verdicts.update({i: "warn" for i in judged.warnings})
    verdicts.update({e.offer.offer_id: "fail" for e in judged.excluded})
    return verdicts
