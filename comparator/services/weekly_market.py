"""``suanli report market``: the weekly market report as one JSON-able document.

Reads the catalog's snapshots week by week (:mod:`comparator.catalog.market_queries` and
:mod:`comparator.catalog.market_changes` aggregate in the database), judges providers with the
pure compliance core for the cheapest compliant offers and the verdicts that changed, and
lists the credentials about to lapse. The document is what ``--json`` prints and what the HTML
and PDF are rendered from (docs/market-report.md documents its shape and the index method).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any

from sqlalchemy import Engine

from comparator.catalog.market_changes import FailedSource, WeekDiff, failed_sources, week_diff
from comparator.catalog.market_queries import (
    CheapestOffer,
    Pricing,
    distinct_rules,
    market_index,
    week_snapshots,
)
from comparator.catalog.queries import load_profiles
from comparator.compliance import check_providers
from comparator.config import Settings
from comparator.domain.price_index import IndexStats, change, to_cent, week_factor_sum
from comparator.domain.profile import ProviderProfile
from comparator.errors import CalendarError, InputError, Msg
from comparator.services.eligibility import job_policy

EXPIRY_DAYS = 90
DEFAULT_WEEKS = 12
SCHEMA = 1


@dataclass(frozen=True)
class Week:
    label: str  # ISO week, 2026-W49
    start: date  # its Monday
    end: datetime  # exclusive: the next Monday 00:00, or the day after "today" for this week


def report_weeks(today: date, count: int, zone: Any) -> list[Week]:
    """The ``count`` ISO weeks up to the one holding ``today``, oldest first."""
    monday = today - timedelta(days=today.weekday())
    weeks = []
    for back in range(count - 1, -1, -1):
        start = monday - timedelta(weeks=back)
        end_day = min(start + timedelta(days=7), today + timedelta(days=1))
        year, number, _ = start.isocalendar()
        weeks.append(Week(f"{year}-W{number:02d}", start, datetime.combine(end_day, time(), zone)))
    return weeks


def market_report(
    engine: Engine,
    settings: Settings,
    *,
    today: date | None = None,
    weeks: int = DEFAULT_WEEKS,
    policy_job: Path | None = None,
    software_version: str = "",
) -> dict[str, Any]:
    """The report's document (see docs/market-report.md for its shape)."""
    if not 2 <= weeks <= 104:
        raise InputError(
            "--weeks: expected a whole number 2–104, got {weeks}",
            weeks=weeks,
            hint=Msg("write a whole number of weeks from 2 to 104, such as 12"),
        )
    zone = settings.timezone
    policy = job_policy(policy_job, settings, today)
    calendar = report_weeks(policy.today, weeks, zone)
    with engine.connect() as conn:
        by_week = week_snapshots(conn, [w.end for w in calendar])
        rules = distinct_rules(conn, [s for snaps in by_week.values() for s in snaps.values()])
    pricing = _pricing(settings, rules, calendar[-1].start)
    failed = failed_sources(engine)
    profiles = load_profiles(engine)
    excluded = _excluded_places(profiles, policy)
    index = market_index(engine, by_week, pricing, [f.provider for f in failed], excluded)
    last = len(calendar) - 1
    diff = week_diff(engine, by_week[last], by_week[last - 1])
    stale = {f.provider for f in failed}
    return {
        "report": "market",
        "schema": SCHEMA,
        "software_version": software_version,
        "created_at": datetime.now(zone).replace(microsecond=0).isoformat(),
        "today": policy.today.isoformat(),
        "week": calendar[-1].label,
        "weeks": [w.label for w in calendar],
        "currency": settings.currency,
        "tax_basis": "tax_inclusive",
        "fx": {
            "date": settings.fx_date.isoformat(),
            "rates_cny": {k: str(v) for k, v in sorted(pricing.fx_rates_cny.items())},
        },
        "reference_week": {
            "start": calendar[-1].start.isoformat(),
            "end": (calendar[-1].start + timedelta(days=6)).isoformat(),
            "time_zone": zone.key,
        },
        "policy": {"job": None if policy_job is None else str(policy_job)},
        "index": _index_rows(index.stats, calendar, index.cheapest, stale),
        "changes": _changes(diff, profiles, policy.today, settings, policy_job),
        "failed_sources": [_failed_json(f, zone) for f in failed],
    }


def _pricing(settings: Settings, rules: Sequence[str], week_start: date) -> Pricing:
    rates = {"CNY": Decimal(1), **{k.upper(): v for k, v in settings.fx_rates.items()}}
    if settings.currency not in rates:
        raise InputError(
            "SUANLI_CURRENCY {currency}: no rate in SUANLI_FX_RATES to convert prices into it",
            currency=settings.currency,
            hint=Msg(
                "add the currency's rate to SUANLI_FX_RATES (README, section Settings), or set SUANLI_CURRENCY=CNY"
            ),
        )
    first = datetime.combine(week_start, time(), settings.timezone)
    sums: dict[str, Decimal] = {}
    for rule in rules:
        try:
            sums[rule] = week_factor_sum(rule, first, settings.timezone)
        except CalendarError:  # import validates rules; an old row that fails counts at 1
            continue
    return Pricing(settings.currency, rates, sums)


def _excluded_places(profiles: Mapping[str, ProviderProfile], policy: Any) -> set[tuple[str, str]]:
    """(provider, data centre) places that fail a check of the policy: no compliant offer."""
    reports = check_providers(
        profiles, policy.requirements, today=policy.today, last_day=policy.last_day
    )
    excluded: set[tuple[str, str]] = set()
    for report in reports:
        for dc in profiles[report.provider].datacenters:
            if report.failures_for(dc.id):
                excluded.add((report.provider, dc.id))
    return excluded


def _stats_json(stats: IndexStats | None) -> dict[str, Any] | None:
    if stats is None:
        return None
    cents = stats.rounded()
    return {
        "providers": cents.providers,
        "stale_providers": cents.stale_providers,
        "offers": cents.offers,
        "min": str(cents.min_price),
        "median": str(cents.median_price),
        "p90": str(cents.p90_price),
    }


def _change_json(now: IndexStats | None, before: IndexStats | None) -> dict[str, str] | None:
    moved = change(
        None if now is None else now.median_price, None if before is None else before.median_price
    )
    return None if moved is None else {"amount": str(moved.amount), "pct": str(moved.pct)}


def _index_rows(
    stats: Mapping[tuple[int, str, str], IndexStats],
    calendar: Sequence[Week],
    cheapest: Mapping[tuple[str, str], CheapestOffer],
    stale: set[str],
) -> list[dict[str, Any]]:
    last = len(calendar) - 1
    groups = sorted({(gpu, billing) for _, gpu, billing in stats})
    rows = []
    for gpu, billing in groups:
        now = stats.get((last, gpu, billing))
        offer = cheapest.get((gpu, billing))
        rows.append(
            {
                "gpu": gpu,
                "billing": billing,
                "current": _stats_json(now),
                "change_1w": _change_json(now, stats.get((last - 1, gpu, billing))),
                "change_4w": _change_json(now, stats.get((last - 4, gpu, billing))),
                "history": [
                    {"week": w.label, **(_stats_json(stats.get((i, gpu, billing))) or {})}
                    for i, w in enumerate(calendar)
                ],
                "cheapest_compliant": None if offer is None else _offer_json(offer, stale),
            }
        )
    return rows


def _offer_json(offer: CheapestOffer, stale: set[str]) -> dict[str, Any]:
    return {
        "offer_id": str(offer.offer_id),
        "provider": offer.provider,
        "region": offer.region,
        "cards": offer.cards,
        "sku": offer.sku,
        "price_card_hour": str(to_cent(offer.price_card_hour)),
        "stale": offer.provider in stale,
    }


def _changes(
    diff: WeekDiff,
    profiles: Mapping[str, ProviderProfile],
    today: date,
    settings: Settings,
    policy_job: Path | None,
) -> dict[str, Any]:
    providers_now = {p for p, _ in diff.places_now}
    providers_before = {p for p, _ in diff.places_before}
    return {
        "providers_new": sorted(providers_now - providers_before),
        "providers_gone": sorted(providers_before - providers_now),
        "datacenters_new": _places(diff.places_now - diff.places_before),
        "datacenters_gone": _places(diff.places_before - diff.places_now),
        "offers_added": diff.offers_added,
        "offers_removed": diff.offers_removed,
        "price_moves": list(diff.moves),
        "stock_to_zero": list(diff.stock_to_zero),
        "expiring": expiring_credentials(profiles, today),
        "verdict_changes": _verdict_changes(profiles, today, settings, policy_job),
    }


def _places(pairs: set[tuple[str, str]] | frozenset[tuple[str, str]]) -> list[dict[str, str]]:
    return [{"provider": p, "region": r} for p, r in sorted(pairs)]


def expiring_credentials(
    profiles: Mapping[str, ProviderProfile], today: date, days: int = EXPIRY_DAYS
) -> list[dict[str, Any]]:
    """Licences and certifications whose validity ends within ``days`` from ``today``."""
    found: list[dict[str, Any]] = []
    horizon = today + timedelta(days=days)
    for pid, profile in sorted(profiles.items()):
        credentials = [("licence", lic.number, lic.valid_until) for lic in profile.licenses]
        credentials += [("certification", c.name, c.valid_until) for c in profile.certifications]
        for kind, name, until in credentials:
            if until is not None and today <= until <= horizon:
                found.append(
                    {
                        "provider": pid,
                        "kind": kind,
                        "name": name,
                        "valid_until": until.isoformat(),
                        "days_left": (until - today).days,
                    }
                )
    return sorted(found, key=lambda item: (item["days_left"], item["provider"], item["name"]))


def _verdict_changes(
    profiles: Mapping[str, ProviderProfile],
    today: date,
    settings: Settings,
    policy_job: Path | None,
) -> list[dict[str, str]]:
    """Providers whose compliance verdict differs from the one a week earlier (same profiles:
    the catalog keeps only each provider's latest profile, so dates are what moves)."""
    week_ago = today - timedelta(days=7)
    before = job_policy(policy_job, settings, week_ago)
    now = job_policy(policy_job, settings, today)
    old = {
        r.provider: r.status
        for r in check_providers(
            profiles, before.requirements, today=week_ago, last_day=before.last_day
        )
    }
    return [
        {"provider": r.provider, "before": old[r.provider], "after": r.status}
        for r in check_providers(profiles, now.requirements, today=today, last_day=now.last_day)
        if old.get(r.provider) != r.status
    ]


def _failed_json(failed: FailedSource, zone: Any) -> dict[str, Any]:
    def when(moment: datetime | None) -> str | None:
        return None if moment is None else moment.astimezone(zone).isoformat()

    return {
        "provider": failed.provider,
        "source": failed.source,
        "period": failed.period,
        "error": failed.error,
        "failed_at": when(failed.failed_at),
        "last_good_at": when(failed.last_good_at),
    }
