"""The quote document: everything a quote report shows, frozen as one JSON-able dict (pure).

Shape (keys are stable; reports render from this alone)::

    number, created_at, lang, software_version, input_sha256, snapshot_ids, objective,
    providers {id: {name}}, job {...}, estimate (Estimate.to_json()) | null,
    plan (PlanResult.to_json(), the `plan --json` document: its texts in the quote's language,
          each beside its message, reason_msgs / message_msg / calendar.warning_msg, which
          render in either language; quotes stored before these carried reason_texts
          {zh-CN: [...], en: [...]} on some exclusions, or their texts alone),
    compliance {today, last_day, providers: [...] (at most 50, the recommended plan's provider
    first, then the alternatives' by rank; each with quote_status: its own checks and the best
    of its data centres the plans use), omitted? {providers, by_status}},
    assumptions {mfu, throughput_table[], fx{rates, date}, multi_node_efficiency, headroom,
                 price_freshness_days},
    price_ages [{offer_id, provider, region, gpu, cards, billing, price, currency,
                 observed_at, age_days, stale, snapshot_id}]   # the offers the report names:
                 # the plans', then the exclusions it lists (domain.report_bounds)
    price_curve_offer: offer id | null,
    price_curve [{hour_start, price}]   # card-hour price in the quote currency, time-of-use
                                        # applied; each point holds until the next one

Money is a decimal string; times are ISO 8601 with their offset.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from decimal import Decimal
from functools import cached_property
from typing import Any
from zoneinfo import ZoneInfo

from comparator.compliance import FAIL, PASS, WARN, ProviderReport, worst
from comparator.config import Settings
from comparator.domain.billing import HOURLY_MODES
from comparator.domain.calendar import HolidaySupplement, slot_factors
from comparator.domain.job import Job, Requirements
from comparator.domain.money import FxTable
from comparator.domain.offer_view import OfferView
from comparator.domain.report_bounds import listed_exclusions
from comparator.plan import Plan, PlanResult

MAX_CURVE_HOURS = 24 * 400
MAX_COMPLIANCE_PROVIDERS = 50  # reports a quote holds in full (the plans' providers always)
STATUS_ORDER = (PASS, WARN, FAIL)  # best first


@dataclass(frozen=True)
class QuoteParts:
    """What a quote is assembled from: the planner's result and the offers behind it."""

    job: Job
    input_sha256: str
    result: PlanResult
    offers: Sequence[OfferView]
    provider_names: Mapping[str, str]
    objective: str = "cost"
    check_lang: str = "zh"  # the language of the compliance reasons
    # the catalog's current snapshots when the planner loaded only some of their offers
    snapshot_ids: Sequence[str] | None = None
    holidays: HolidaySupplement | None = None  # the calendar the plan was made on

    @cached_property
    def plan(self) -> dict[str, Any]:
        return self.result.to_json()

    @cached_property
    def estimate(self) -> dict[str, Any] | None:
        return self.result.estimate.to_json() if self.result.estimate else None


def throughput_rows(result: PlanResult) -> list[dict[str, Any]]:
    """The GPU table (卡型算力表): the plan's own rows (``assumptions.throughput``), the
    figures that priced each placement, copied as they are (:mod:`comparator.plan.figures`)."""
    rows = result.assumptions.get("throughput") or []
    return [dict(row) for row in rows]


def _plan_providers(result: PlanResult) -> dict[str, set[str]]:
    """The providers of the plans shown, the recommended first, then by rank (each once), with
    the data centres those plans use."""
    plans = [result.best, *result.alternatives, result.cheapest_without_budget]
    used: dict[str, set[str]] = {}
    for plan in plans:
        if plan is not None:
            used.setdefault(plan.provider, set()).add(plan.region)
    return used


def quote_status(report: ProviderReport, used: set[str]) -> str:
    """The provider's status in the quote: its own checks, and the best of its data centres
    the plans shown use (of all of them when none is used): a provider whose one compliant
    data centre is an alternative's passes, though its other data centres fail."""
    centres = [d for d in report.datacenters if d.id in used] or list(report.datacenters)
    best_centre = min((d.status for d in centres), key=STATUS_ORDER.index, default=PASS)
    return worst([*(c.status for c in report.checks), best_centre])


def compliance_section(result: PlanResult, lang: str) -> dict[str, Any]:
    """The ``check --json`` document of the providers the planner judged, on its dates.

    Bounded at national scale: the providers of the plans shown come first (the recommended
    one, then by rank), then the others by id, up to :data:`MAX_COMPLIANCE_PROVIDERS` reports;
    the rest are counted by status under ``omitted`` (a key only present when some were left
    out). Each report has ``quote_status`` beside its ``status`` (:func:`quote_status`)."""
    policy = result.policy
    shown = _plan_providers(result)
    rank = {provider: index for index, provider in enumerate(shown)}
    reports = sorted(result.compliance, key=lambda r: (rank.get(r.provider, len(rank)), r.provider))
    kept = reports[: max(MAX_COMPLIANCE_PROVIDERS, len(shown))]
    section: dict[str, Any] = {
        "today": policy.today.isoformat() if policy else None,
        "last_day": policy.last_day.isoformat() if policy and policy.last_day else None,
        "providers": [
            {
                **report.to_json(lang),
                "quote_status": quote_status(report, shown.get(report.provider, set())),
            }
            for report in kept
        ],
    }
    if len(kept) < len(reports):
        statuses = Counter(report.status for report in reports[len(kept) :])
        section["omitted"] = {
            "providers": len(reports) - len(kept),
            "by_status": dict(sorted(statuses.items())),
        }
    return section


def _jsonable_table(table: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """A TOML table with its values as JSON keeps them (dates and others become strings)."""
    if not table:
        return None
    plain = (str, int, float, bool, type(None))
    return {key: value if isinstance(value, plain) else str(value) for key, value in table.items()}


def job_section(job: Job) -> dict[str, Any]:
    """The job as the quote shows it (canonical names, ISO times, decimal strings)."""
    req = job.requirements
    return {
        "name": job.name,
        "currency": job.currency,
        "source": job.source,
        "card_hours": None if job.workload.card_hours is None else str(job.workload.card_hours),
        "gpu": job.workload.gpu,
        "cards": job.workload.cards,
        "model": _jsonable_table(job.model),
        "training": _jsonable_table(job.training),
        "earliest_start": job.schedule.earliest_start.isoformat(),
        "deadline": job.schedule.deadline.isoformat(),
        "interruptible": job.schedule.interruptible,
        "restart_overhead_hours": job.schedule.restart_overhead_hours,
        "run_windows": list(job.schedule.run_windows),
        "max_hours_per_day": job.schedule.max_hours_per_day,
        "requirements": {
            "gpus": list(req.gpus),
            "provinces": list(req.provinces),
            "cities": list(req.cities),
            "certifications": list(req.certifications),
            "mlps_level": req.mlps_level,
            "contains_personal_info": req.contains_personal_info,
            "export_basis": req.export_basis,
            "invoice": req.invoice,
            "spot": req.spot,
            **_service_requirements(req),
        },
        "data_stated": job.data.stated,
        "max_cost": None if job.max_cost is None else f"{job.max_cost:.2f}",
    }


def _service_requirements(req: Requirements) -> dict[str, Any]:
    service = req.service
    latency = service.max_latency_ms
    return {
        "own_datacenter": service.own_datacenter,
        "support": service.support,
        "max_support_response_minutes": service.max_support_response_minutes,
        "elastic_scaling": service.elastic_scaling,
        "max_latency_ms": None if latency is None else str(latency),
        "latency_from": service.latency_from,
    }


def _plans(result: PlanResult) -> list[Plan]:
    return ([result.best] if result.best else []) + list(result.alternatives)


def referenced_offer_ids(result: PlanResult) -> list[str]:
    """Offer ids the report names: best, alternatives, then the exclusions it lists
    (:func:`~comparator.domain.report_bounds.listed_exclusions`); each once."""
    ids = [s.offer_id for p in _plans(result) for s in p.segments]
    excluded = result.excluded
    listed = [excluded[i] for i in listed_exclusions([e.kind for e in excluded])]
    ids += [e.offer_id for e in listed if e.offer_id]
    return list(dict.fromkeys(ids))


def price_age(offer: OfferView, today: date, zone: ZoneInfo, freshness_days: int) -> dict[str, Any]:
    """Where one price came from and how many days old it is on ``today``."""
    age_days = (today - offer.observed_at.astimezone(zone).date()).days
    return {
        "offer_id": offer.offer_id,
        "provider": offer.provider,
        "region": offer.region,
        "gpu": offer.gpu,
        "cards": offer.cards,
        "billing": offer.billing,
        "price": str(offer.price),
        "currency": offer.currency,
        "observed_at": offer.observed_at.astimezone(zone).isoformat(),
        "age_days": age_days,
        "stale": age_days > freshness_days,
        "snapshot_id": str(offer.snapshot_id),
    }


def price_ages(
    result: PlanResult,
    offers: Mapping[str, OfferView],
    today: date,
    zone: ZoneInfo,
    freshness_days: int,
) -> list[dict[str, Any]]:
    """The age of every price the plan refers to."""
    return [
        price_age(offers[i], today, zone, freshness_days)
        for i in referenced_offer_ids(result)
        if i in offers
    ]


def curve_offer(
    best: Plan | None, offers: Mapping[str, OfferView], candidates: Iterable[OfferView]
) -> OfferView | None:
    """The hourly offer whose price curve the timeline shows: one the best plan uses, else an
    hourly offer of the same provider, data centre and GPU (cheapest list price), else none."""
    if best is None:
        return None
    used = [offers[s.offer_id] for s in best.segments if s.offer_id in offers]
    hourly = [o for o in used if o.billing in HOURLY_MODES]
    if hourly:
        return hourly[0]
    same = [
        o
        for o in candidates
        if o.billing in HOURLY_MODES
        and o.provider == best.provider
        and o.region == best.region
        and o.gpu == best.gpu
    ]
    return min(same, key=lambda o: (o.card_hour_price, o.offer_id), default=None)


def price_curve(
    offer: OfferView | None,
    job: Job,
    fx: FxTable,
    zone: ZoneInfo,
    holidays: HolidaySupplement | None = None,
) -> list[dict[str, str]]:
    """Change points of the offer's card-hour price over the job's window, in the quote currency
    (``holidays``: the calendar the plan was made on)."""
    if offer is None or not fx.knows(offer.currency) or not fx.knows(job.currency):
        return []
    first = job.schedule.earliest_start.astimezone(zone).replace(minute=0, second=0, microsecond=0)
    hours = int((job.schedule.deadline - first).total_seconds() // 3600)
    hours = max(1, min(hours, MAX_CURVE_HOURS))
    base = fx.convert(offer.card_hour_price, offer.currency, job.currency)
    points: list[dict[str, str]] = []
    for k, factor in enumerate(slot_factors(offer.time_of_use, first, hours, zone, holidays)):
        price = f"{base * factor:.4f}"
        if not points or points[-1]["price"] != price:
            moment = (first.astimezone(ZoneInfo("UTC")) + timedelta(hours=k)).astimezone(zone)
            points.append({"hour_start": moment.isoformat(), "price": price})
    return points


def fx_rates_into(fx: FxTable, currency: str) -> dict[str, str]:
    """One unit of every other known currency, priced in ``currency`` (6 significant digits)."""
    return {
        code: f"{fx.rate(code, currency):.6g}"
        for code in sorted(fx.rates_cny)
        if code != currency.upper()
    }


def assumptions_section(settings: Settings, parts: QuoteParts) -> dict[str, Any]:
    fx = FxTable(settings.fx_rates, settings.fx_date)
    return {
        "mfu": parts.result.estimate.solution.mfu if parts.result.estimate else None,
        "throughput_table": throughput_rows(parts.result),
        "fx": {
            "rates": fx_rates_into(fx, parts.job.currency),
            "to": parts.job.currency,
            "date": settings.fx_date.isoformat(),
        },
        "multi_node_efficiency": (
            None
            if settings.multi_node_efficiency is None
            else str(Decimal(str(settings.multi_node_efficiency)))
        ),
        "headroom": str(Decimal(str(settings.headroom))),
        "price_freshness_days": settings.price_freshness_days,
    }


def assemble_document(
    parts: QuoteParts,
    settings: Settings,
    *,
    created_at: datetime,
    today: date,
    lang: str,
    software_version: str,
) -> dict[str, Any]:
    """The quote document (without its number, which storing it assigns)."""
    by_id = {o.offer_id: o for o in parts.offers}
    fx = FxTable(settings.fx_rates, settings.fx_date)
    shown = curve_offer(parts.result.best, by_id, parts.offers)
    ages = price_ages(parts.result, by_id, today, settings.timezone, settings.price_freshness_days)
    return {
        "number": "",
        "created_at": created_at.isoformat(),
        "lang": lang,
        "software_version": software_version,
        "input_sha256": parts.input_sha256,
        "snapshot_ids": sorted(
            {str(o.snapshot_id) for o in parts.offers}
            if parts.snapshot_ids is None
            else set(parts.snapshot_ids)
        ),
        "objective": parts.objective,
        "providers": {pid: {"name": name} for pid, name in sorted(parts.provider_names.items())},
        "job": job_section(parts.job),
        "estimate": parts.estimate,
        "plan": parts.plan,
        "compliance": compliance_section(parts.result, parts.check_lang),
        "assumptions": assumptions_section(settings, parts),
        "price_ages": ages,
        "price_curve_offer": shown.offer_id if shown else None,
        "price_curve": price_curve(shown, parts.job, fx, settings.timezone, parts.holidays),
    }
