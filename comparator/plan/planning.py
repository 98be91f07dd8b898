"""Plan a job: work per GPU → compliance → requirements → candidates → exact DP → plans.

:func:`plan_job` is pure: a job, offers, provider profiles and a :class:`PlanContext` in, a
:class:`~comparator.plan.result.PlanResult` out. Reading the job file and the catalog is
:mod:`comparator.services.planning`'s work.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import date
from decimal import Decimal
from typing import Any
from zoneinfo import ZoneInfo

from comparator.compliance.engine import evaluate_offers
from comparator.compliance.model import ProviderReport
from comparator.domain.calendar import parse_time_of_use, provisional_years
from comparator.domain.job import Job
from comparator.domain.money import FxTable
from comparator.domain.offer_view import OfferView
from comparator.domain.policy import JobPolicy
from comparator.domain.profile import ProviderProfile
from comparator.domain.zones import DEFAULT_TIMEZONE
from comparator.estimate.throughput import throughput_table
from comparator.plan.candidates import (
    CandidateOptions,
    CandidateSet,
    PriceBasis,
    build_candidates,
)
from comparator.plan.diagnose import budget_diagnosis, diagnose
from comparator.plan.result import ExcludedOffer, Plan, PlanResult
from comparator.plan.solve import PlanOptions, Selection, choose, realise
from comparator.plan.work import WorkTable, placement_estimate, work_table

DEFAULT_TOP = 5


@dataclass(frozen=True)
class PlanContext:
    """Everything a plan depends on besides the job and the offers."""

    today: date
    fx: FxTable
    multi_node_efficiency: Decimal = Decimal("0.90")
    headroom: float = 0.10
    freshness_days: int = 30
    objective: str = "cost"
    top: int = DEFAULT_TOP
    lang: str = "en"
    timezone: ZoneInfo = DEFAULT_TIMEZONE  # of "today" and of the job's last day


def _exclusion(offer: OfferView, kind: str, reasons: Sequence[str]) -> ExcludedOffer:
    return ExcludedOffer(
        offer.provider, offer.offer_id, offer.region, offer.gpu, offer.billing, tuple(reasons), kind
    )


def _kind_of(reason: str) -> str:
    head = reason.split(":", 1)[0].strip()
    return {"time of use": "time-of-use"}.get(head, head)


def requirement_reason(job: Job, offer: OfferView, lang: str) -> str | None:
    req = job.requirements
    if req.gpus and offer.gpu not in req.gpus:
        allowed = ", ".join(req.gpus)
        if lang == "zh":
            return f"requirements: 卡型 {offer.gpu} 不在 [requirements] gpus（{allowed}）之内"
        return f"requirements: GPU {offer.gpu} is not among [requirements] gpus ({allowed})"
    if offer.billing == "spot" and not (req.spot and job.schedule.interruptible):
        if lang == "zh":
            return (
                "requirements: 竞价实例可能被抢占；任务须设 spot = true 且 "
                "interruptible = true 才能使用"
            )
        return (
            "requirements: spot offers may be pre-empted; the job needs spot = true and "
            "interruptible = true to use them"
        )
    return None


class _Filter:
    """Offers pass compliance, then the job's GPU/spot rules, then need work on their GPU."""

    def __init__(self, job: Job, context: PlanContext) -> None:
        self.job = job
        self.context = context
        self.policy = JobPolicy.of(job, timezone=context.timezone, today=context.today)
        self.excluded: list[ExcludedOffer] = []
        self.warnings: dict[str, list[str]] = {}
        self.reports: tuple[ProviderReport, ...] = ()

    def compliant(
        self, offers: Sequence[OfferView], profiles: Mapping[str, ProviderProfile]
    ) -> list[OfferView]:
        eligibility = evaluate_offers(
            offers,
            profiles,
            self.policy.requirements,
            today=self.policy.today,
            last_day=self.policy.last_day,
            freshness_days=self.context.freshness_days,
            lang=self.context.lang,
        )
        self.excluded += [
            _exclusion(e.offer, "compliance", e.reasons) for e in eligibility.excluded
        ]
        self.warnings = dict(eligibility.warnings)
        self.reports = tuple(eligibility.reports[pid] for pid in sorted(eligibility.reports))
        return list(eligibility.eligible)

    def allowed(self, offers: Sequence[OfferView]) -> list[OfferView]:
        kept = []
        for offer in offers:
            reason = requirement_reason(self.job, offer, self.context.lang)
            if reason:
                self.excluded.append(_exclusion(offer, "requirements", [reason]))
            else:
                kept.append(offer)
        return kept

    def affordable(self, offers: Sequence[OfferView], basis: PriceBasis) -> list[OfferView]:
        """``[budget] max_price_per_card_hour``: offers above it (tax-inclusive, after the
        discount, before time of use) are excluded."""
        limit = self.job.max_price_per_card_hour
        if limit is None:
            return list(offers)
        kept = []
        for offer in offers:
            price = basis.unit_price(offer)
            per_card_hour = None if price is None else price / (offer.cards * offer.period_hours)
            if per_card_hour is not None and per_card_hour > limit:
                shown = per_card_hour.quantize(Decimal("0.0001"))
                reason = (
                    f"budget: 每卡时 {shown} {self.job.currency}，高于 [budget] "
                    f"max_price_per_card_hour {limit}"
                    if self.context.lang == "zh"
                    else f"budget: {shown} {self.job.currency} per card-hour, above [budget] "
                    f"max_price_per_card_hour {limit}"
                )
                self.excluded.append(_exclusion(offer, "price", [reason]))
            else:
                kept.append(offer)
        return kept

    def workable(self, offers: Sequence[OfferView], table: WorkTable) -> list[OfferView]:
        kept = []
        for offer in offers:
            if offer.gpu in table.work:
                kept.append(offer)
            elif offer.gpu in table.unusable:
                kind, reason = table.unusable[offer.gpu]
                self.excluded.append(_exclusion(offer, kind, [reason]))
        return kept

    def unschedulable(self, offers: Sequence[OfferView], built: CandidateSet) -> None:
        used = {offer_id for c in built.candidates for offer_id in c.offers}
        by_id = {o.offer_id: o for o in offers}
        for offer_id, reasons in built.reasons.items():
            if offer_id not in used and offer_id in by_id:
                self.excluded.append(_exclusion(by_id[offer_id], _kind_of(reasons[0]), reasons))


def discounts(profiles: Mapping[str, ProviderProfile]) -> dict[str, Decimal]:
    """Each provider's negotiated discount factor (profiles that state one)."""
    return {pid: p.discount for pid, p in profiles.items() if p.discount is not None}


def _assumptions(
    job: Job,
    context: PlanContext,
    offers: Sequence[OfferView],
    table: WorkTable,
    context_discounts: Mapping[str, Decimal],
) -> dict[str, Any]:
    currencies = sorted({o.currency.upper() for o in offers} - {job.currency})
    rates = {c: str(context.fx.rate(c, job.currency)) for c in currencies if context.fx.knows(c)}
    return {
        "fx": {"date": context.fx.as_of.isoformat(), "rates": rates, "to": job.currency},
        "tax_basis": "tax-inclusive (VAT added to prices quoted before tax)",
        "multi_node_efficiency": str(context.multi_node_efficiency),
        "throughput": throughput_table(sorted(table.work) + sorted(table.unusable)),
        "card_hours_by_gpu": {g: str(w.card_hours) for g, w in sorted(table.work.items())},
        "min_cards_by_gpu": {g: w.min_cards for g, w in sorted(table.work.items())},
        "window": {
            "earliest_start": job.schedule.earliest_start.isoformat(),
            "deadline": job.schedule.deadline.isoformat(),
            "interruptible": job.schedule.interruptible,
            "restart_overhead_hours": job.schedule.restart_overhead_hours,
        },
        "budget": None if job.max_cost is None else str(job.max_cost),
        "max_price_per_card_hour": (
            None if job.max_price_per_card_hour is None else str(job.max_price_per_card_hour)
        ),
        "discounts": {pid: str(d) for pid, d in sorted(context_discounts.items())},
        "slots": "whole hours of each provider's time zone",
    }


def _job_reference(
    job: Job, table: WorkTable, best_gpu: str | None
) -> tuple[Decimal | None, str | None]:
    if job.workload.card_hours is not None:
        return job.workload.card_hours, job.workload.gpu
    gpu = best_gpu or next(iter(sorted(table.work)), None)
    if gpu is None or gpu not in table.work:
        return None, gpu
    return table.work[gpu].card_hours, gpu


def _schedule_exclusions(selection: Selection, job: Job, lang: str) -> list[ExcludedOffer]:
    """Offers whose every candidate was solved and missed the deadline."""
    solved: dict[str, list[bool]] = {}
    offers: dict[str, OfferView] = {}
    skipped = {offer_id for c in selection.skipped for offer_id in c.offers}
    for evaluated in selection.evaluated:
        for offer_id, offer in evaluated.candidate.offers.items():
            solved.setdefault(offer_id, []).append(evaluated.cheapest_cents is not None)
            offers[offer_id] = offer
    deadline = job.schedule.deadline.isoformat()
    reason = (
        f"deadline: 该报价无法在 {deadline} 之前完成"
        if lang == "zh"
        else f"deadline: no schedule on this offer finishes by {deadline}"
    )
    return [
        _exclusion(offers[i], "deadline", [reason])
        for i, results in solved.items()
        if not any(results) and i not in skipped
    ]


@dataclass
class Prepared:
    """A job made ready to solve: offers filtered, work per GPU, candidates built."""

    job: Job
    context: PlanContext
    offers: Sequence[OfferView]
    checks: _Filter
    table: WorkTable
    built: CandidateSet
    discounts: Mapping[str, Decimal]


def prepare(
    job: Job,
    offers: Sequence[OfferView],
    profiles: Mapping[str, ProviderProfile],
    context: PlanContext,
) -> Prepared:
    """Compliance, requirements, work per GPU and every candidate placement of ``job``."""
    checks = _Filter(job, context)
    basis = PriceBasis(job.currency, context.fx, discounts(profiles))
    eligible = checks.affordable(checks.allowed(checks.compliant(offers, profiles)), basis)
    table = work_table(job, {o.gpu for o in eligible}, headroom=context.headroom)
    workable = checks.workable(eligible, table)
    options = CandidateOptions(
        job.schedule.earliest_start,
        job.schedule.deadline,
        job.schedule.interruptible,
        job.schedule.restart_overhead_hours,
        context.multi_node_efficiency,
        PriceBasis(job.currency, context.fx, discounts(profiles)),
        {pid: ZoneInfo(p.timezone) for pid, p in profiles.items()},
        lang=context.lang,
        no_conversion=frozenset(p for p, prof in profiles.items() if not prof.converts_billing),
        data=job.data,
        run_windows=job.schedule.run_windows,
        use_free_trial=job.use_free_trial,
        storage_terms={
            (pid, dc.id): dc.storage for pid, p in profiles.items() for dc in p.datacenters
        },
    )
    built = build_candidates(workable, table.work, options)
    checks.unschedulable(workable, built)
    return Prepared(job, context, offers, checks, table, built, basis.discounts)


def finish(
    prepared: Prepared,
    selection: Selection,
    best: Plan | None,
    alternatives: list[Plan],
    *,
    optimal: bool = True,
) -> PlanResult:
    """The :class:`PlanResult` of a prepared job once its plans are chosen."""
    job, context, checks = prepared.job, prepared.context, prepared.checks
    excluded = checks.excluded + _schedule_exclusions(selection, job, context.lang)
    card_hours, gpu = _job_reference(job, prepared.table, best.gpu if best else None)
    result = PlanResult(
        job_name=job.name,
        job_card_hours=card_hours,
        job_gpu=gpu,
        currency=job.currency,
        objective=context.objective,
        best=best,
        alternatives=alternatives,
        excluded=excluded,
        optimal=optimal,
        warnings=checks.warnings,
        assumptions=_assumptions(job, context, prepared.offers, prepared.table, prepared.discounts),
        stats={
            "offers": len(prepared.offers),
            "candidates": len(prepared.built.candidates),
            "solved": len(selection.evaluated),
            "pruned": selection.pruned,
        },
        estimate=placement_estimate(
            job, (best.gpu, best.cards) if best else None, headroom=context.headroom
        ),
        compliance=checks.reports,
        policy=checks.policy,
    )
    _calendar_warning(result, prepared)
    if best is None:
        diagnosis = diagnose(
            job, len(prepared.offers), excluded, prepared.built.candidates, selection, context.lang
        )
        result.binding, result.message = diagnosis.binding, diagnosis.message
    return result


def _calendar_warning(result: PlanResult, prepared: Prepared) -> None:
    """Warn when offers priced by workday/holiday rules fall in a provisional calendar year."""
    schedule = prepared.job.schedule
    zone = prepared.context.timezone
    years = provisional_years(
        schedule.earliest_start.astimezone(zone).date(), schedule.deadline.astimezone(zone).date()
    )
    uses_calendar = any(
        any(rule.needs_holidays for rule in parse_time_of_use(o.time_of_use))
        for c in prepared.built.candidates
        for o in c.offers.values()
    )
    if not years or not uses_calendar:
        return
    result.provisional_years = years
    named = ", ".join(str(y) for y in years)
    result.calendar_warning = (
        f"{named} 年的节假日安排为暂定：法定节假日按 holidays 库计算，国务院通知发布前没有调休补班日；"
        f"含 workday/holiday 规则的价格可能变化。通知发布后在 SUANLI_HOLIDAYS_FILE 中给出即可"
        if prepared.context.lang == "zh"
        else f"the holiday calendar of {named} is provisional: statutory holidays computed by the "
        f"holidays package, no 调休 make-up workdays until the State Council notice is known; "
        f"prices with workday/holiday rules may change. Give the notice in SUANLI_HOLIDAYS_FILE"
    )


def plan_job(
    job: Job,
    offers: Sequence[OfferView],
    profiles: Mapping[str, ProviderProfile],
    context: PlanContext,
) -> PlanResult:
    """The best plan, alternatives and exclusions of ``job`` over ``offers`` (exact)."""
    prepared = prepare(job, offers, profiles, context)
    options = PlanOptions(context.objective, job.max_cost, context.top)
    selection = choose(prepared.built.candidates, options)
    best = realise(selection.best, job.currency) if selection.best else None
    alternatives = [realise(e, job.currency) for e in selection.alternatives]
    # a contract paying > 3× the hours it runs is shown only when it is still the cheapest
    alternatives = [a for a in alternatives if not a.oversized_contract]
    result = finish(prepared, selection, best, alternatives)
    if result.binding == "budget":
        _name_the_cheapest(result, prepared, options)
    return result


def _name_the_cheapest(result: PlanResult, prepared: Prepared, options: PlanOptions) -> None:
    """Over budget: the plan that planning without the budget returns, and a message naming it."""
    unbudgeted = choose(prepared.built.candidates, dataclasses.replace(options, budget=None))
    if unbudgeted.best is None:
        return
    plan = realise(unbudgeted.best, prepared.job.currency)
    result.cheapest_without_budget = plan
    diagnosis = budget_diagnosis(prepared.job, plan, prepared.context.lang)
    result.message = diagnosis.message
