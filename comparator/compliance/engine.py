"""Compliance of providers and offers (pure: no DB, no HTTP).

Rules 1–9 of ``docs compliance.md`` give each provider and each of its data centres a list of
:class:`Check` verdicts (pass / warn / fail, a reason in Chinese and English, the evidence).
Dates are inputs — ``today`` and the job's ``last_day`` — so results are reproducible.

* :func:`check_providers` — one :class:`ProviderReport` per provider (``suanli check``).
* :func:`evaluate_offers` — offers × profiles × job → :class:`Eligibility` (eligible offers and
  the excluded ones with their reasons), what the planner calls.

The number parsers live in :mod:`comparator.domain.credentials`; the public names of the
package are in :mod:`comparator.compliance`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping, Sequence
from datetime import date, datetime
from typing import TYPE_CHECKING

from comparator.compliance.job_rules import freshness_check, location_checks, requirement_checks
from comparator.compliance.licence import (
    LicenceAssessment,
    annual_report_check,
    assess_licences,
    coverage_check,
    no_licence_checks,
)
from comparator.compliance.numbers import gongan_checks, uscc_check, website_filing_checks
from comparator.compliance.service import claimed_check, claimed_licence_checks, service_checks
from comparator.compliance.verdicts import (
    PASS,
    WARN,
    Check,
    DatacenterReport,
    Eligibility,
    Exclusion,
    ProviderReport,
    check,
)
from comparator.domain.offer_view import OfferView
from comparator.domain.profile import DataCenter, ProviderProfile
from comparator.errors import Msg

if TYPE_CHECKING:  # the job model (pydantic) loads only where a job file is read
    from comparator.domain.job import Requirements

DEFAULT_FRESHNESS_DAYS = 30


def needs_chinese_licence(profile: ProviderProfile) -> bool:
    """A provider with a data centre in mainland China (or a CN provider with none listed)."""
    return profile.mainland or (not profile.datacenters and profile.country == "CN")


def check_provider(
    profile: ProviderProfile,
    requirements: Requirements | None,
    *,
    today: date,
    last_day: date | None = None,
    offers: Sequence[OfferView] = (),
    freshness_days: int = DEFAULT_FRESHNESS_DAYS,
    observed_at: Mapping[str, Sequence[datetime]] | None = None,
) -> ProviderReport:
    """Every check of one provider and of each of its data centres. Rule 9 reads when each
    data centre's prices were read: ``observed_at`` by data-centre id, else ``offers``."""
    last = max(today, last_day or today)
    assessed = assess_licences(profile, today, last)
    checks = _provider_checks(profile, assessed, today)
    checks += service_checks(profile, requirements.service if requirements else None)
    claimed = claimed_check(profile)
    checks += [claimed] if claimed else []
    if requirements is not None:
        checks += requirement_checks(profile, requirements, last)
    if observed_at is None:
        observed_at = _observed_by_region(o for o in offers if o.provider == profile.id)
    datacenters = tuple(
        _datacenter_report(
            dc, assessed, profile, requirements, today, observed_at.get(dc.id, []), freshness_days
        )
        for dc in profile.datacenters
    )
    return ProviderReport(profile.id, profile.name, tuple(checks), datacenters)


def _observed_by_region(offers: Iterable[OfferView]) -> dict[str, list[datetime]]:
    by_region: dict[str, list[datetime]] = {}
    for offer in offers:
        by_region.setdefault(offer.region, []).append(offer.observed_at)
    return by_region


def check_providers(
    profiles: Mapping[str, ProviderProfile] | Iterable[ProviderProfile],
    requirements: Requirements | None,
    *,
    today: date,
    last_day: date | None = None,
    offers: Sequence[OfferView] = (),
    freshness_days: int = DEFAULT_FRESHNESS_DAYS,
    oldest_prices: Mapping[tuple[str, str], datetime] | None = None,
) -> list[ProviderReport]:
    """One report per provider, ordered by provider id. Rule 9 reads ``oldest_prices`` (the
    oldest price's time by provider and data centre) when given, else ``offers``."""
    items = profiles.values() if isinstance(profiles, Mapping) else profiles
    observed: dict[str, dict[str, list[datetime]]] = {}
    for pid, offered in offers_by_provider(offers).items():
        observed[pid] = _observed_by_region(offered)
    for (pid, region), moment in (oldest_prices or {}).items():
        observed.setdefault(pid, {}).setdefault(region, []).append(moment)
    return [
        check_provider(
            p,
            requirements,
            today=today,
            last_day=last_day,
            freshness_days=freshness_days,
            observed_at=observed.get(p.id, {}),
        )
        for p in sorted(items, key=lambda p: p.id)
    ]


def _provider_checks(
    profile: ProviderProfile, assessed: list[LicenceAssessment], today: date
) -> list[Check]:
    if not needs_chinese_licence(profile):
        return [
            check(
                "licence-valid",
                PASS,
                Msg("no data centre in mainland China; no Chinese telecom licence needed"),
                f"country={profile.country}",
            )
        ]
    return [
        uscc_check(profile),
        *_licence_checks(profile, assessed, today),
        *website_filing_checks(profile),
        *gongan_checks(profile),
    ]


def _licence_checks(
    profile: ProviderProfile, assessed: list[LicenceAssessment], today: date
) -> list[Check]:
    if not assessed:
        claimed = any(lic.claimed for lic in profile.licenses)
        return claimed_licence_checks(profile) if claimed else no_licence_checks()
    best = assessed[0]
    return [best.validity, best.scope, best.cloud_item, annual_report_check(best.licence, today)]


def _datacenter_report(
    dc: DataCenter,
    assessed: list[LicenceAssessment],
    profile: ProviderProfile,
    requirements: Requirements | None,
    today: date,
    observed_at: Sequence[datetime],
    freshness_days: int,
) -> DatacenterReport:
    checks: list[Check] = []
    if dc.mainland and needs_chinese_licence(profile):
        checks.append(coverage_check(assessed, dc))
    if requirements is not None:
        checks += location_checks(dc, requirements)
    if observed_at:
        checks.append(freshness_check(observed_at, today, freshness_days))
    return DatacenterReport(dc.id, dc.name, tuple(checks))


# --- offers --------------------------------------------------------------------------------
def evaluate_offers(
    offers: Sequence[OfferView],
    profiles: Mapping[str, ProviderProfile],
    requirements: Requirements | None,
    *,
    today: date,
    last_day: date | None = None,
    freshness_days: int = DEFAULT_FRESHNESS_DAYS,
    lang: str = "zh",
) -> Eligibility:
    """Split offers into eligible ones (no fail-level check) and excluded ones with reasons.

    An offer whose provider has no profile, or whose data centre the profile does not list,
    is judged on what the offer itself says (country, province, city): a mainland one then
    fails for want of a licence, an overseas one needs none.
    """
    reports = provider_reports(
        offers,
        profiles,
        requirements,
        today=today,
        last_day=last_day,
        freshness_days=freshness_days,
    )
    return judge_offers(offers, reports, today=today, freshness_days=freshness_days, lang=lang)


def provider_reports(
    offers: Sequence[OfferView],
    profiles: Mapping[str, ProviderProfile],
    requirements: Requirements | None,
    *,
    today: date,
    last_day: date | None = None,
    freshness_days: int = DEFAULT_FRESHNESS_DAYS,
) -> dict[str, ProviderReport]:
    """:func:`check_provider` of every profile given, and of each provider of ``offers``
    without one, each on its own offers (a data centre the profile lacks judged on what its
    first offer says)."""
    by_provider = offers_by_provider(offers)
    full = _profiles_covering(by_provider, profiles)
    return {
        pid: check_provider(
            p,
            requirements,
            today=today,
            last_day=last_day,
            offers=by_provider.get(pid, ()),
            freshness_days=freshness_days,
        )
        for pid, p in full.items()
    }


def judge_offers(
    offers: Sequence[OfferView],
    reports: Mapping[str, ProviderReport],
    *,
    today: date,
    freshness_days: int = DEFAULT_FRESHNESS_DAYS,
    lang: str = "zh",
) -> Eligibility:
    """Each offer by its data centre's verdict in its provider's report (``reports`` covers
    every provider and data centre of ``offers``), with its own price age."""
    eligible: list[OfferView] = []
    excluded: list[Exclusion] = []
    warnings: dict[str, list[str]] = {}
    places: dict[tuple[str, str], tuple[list[Check], list[Check]]] = {}
    ages: dict[datetime, Check] = {}
    for offer in offers:
        place = (offer.provider, offer.region)
        if place not in places:
            places[place] = _place_verdict(reports[offer.provider], offer.region)
        failures, warned = places[place]
        if failures:
            excluded.append(Exclusion(offer, [c.reason(lang) for c in failures], failures))
            continue
        eligible.append(offer)
        own = ages.get(offer.observed_at)
        if own is None:  # offers of one import share their time: judge each time once
            own = ages[offer.observed_at] = freshness_check(
                [offer.observed_at], today, freshness_days
            )
        warned = [*warned, own] if own.status == WARN else warned
        if warned:
            warnings[offer.offer_id] = [c.reason(lang) for c in warned]
    return Eligibility(eligible, excluded, warnings, dict(reports))


def offers_by_provider(offers: Iterable[OfferView]) -> dict[str, list[OfferView]]:
    """Offers grouped by provider id (each provider is then checked on its own offers only)."""
    groups: dict[str, list[OfferView]] = {}
    for offer in offers:
        groups.setdefault(offer.provider, []).append(offer)
    return groups


def _place_verdict(report: ProviderReport, region: str) -> tuple[list[Check], list[Check]]:
    """Fail-level checks, and warnings but the per-offer price age, of one data centre."""
    dc_report = report.datacenter(region)
    dc_checks = [c for c in dc_report.checks if c.id != "price-freshness"] if dc_report else []
    warned = [c for c in [*report.checks, *dc_checks] if c.status == WARN]
    return report.failures_for(region), warned


def _profiles_covering(
    by_provider: Mapping[str, Sequence[OfferView]], profiles: Mapping[str, ProviderProfile]
) -> dict[str, ProviderProfile]:
    """The profiles, completed with a minimal one (or data centre) for offers they lack."""
    full = dict(profiles)
    for offer in _one_per_place(by_provider):
        profile = full.get(offer.provider) or ProviderProfile(
            id=offer.provider, name=offer.provider_name or offer.provider, country=offer.country
        )
        if profile.datacenter(offer.region) is None:
            profile = dataclasses.replace(
                profile, datacenters=(*profile.datacenters, _datacenter_of(offer))
            )
        full[offer.provider] = profile
    return full


def _one_per_place(by_provider: Mapping[str, Sequence[OfferView]]) -> list[OfferView]:
    """The first offer of each (provider, data centre)."""
    first: dict[tuple[str, str], OfferView] = {}
    for offers in by_provider.values():
        for offer in offers:
            first.setdefault((offer.provider, offer.region), offer)
    return list(first.values())


def _datacenter_of(offer: OfferView) -> DataCenter:
    country = "CN" if offer.mainland else offer.country
    return DataCenter(
        offer.region,
        offer.region_name or offer.region,
        country,
        offer.province if offer.mainland else None,
        offer.city,
    )
