"""Plan a job: work per GPU → compliance → requirements → candidates → exact DP → plans.

:func:`plan_offers` is pure: a job, offers already loaded, provider profiles and a
:class:`PlanContext` in, a :class:`~comparator.plan.result.PlanResult` out. The planner's entry,
:func:`comparator.plan.entry.plan_job`, asks an offer source for the offers (group by group, or
all of them) and calls it; reading the job file and opening the catalog is
:mod:`comparator.services.planning`'s work.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any
from zoneinfo import ZoneInfo

from comparator.domain.calendar import parse_time_of_use, provisional_years
from comparator.domain.job import Job
from comparator.domain.offer_filter import FilteredOffers
from comparator.domain.offer_view import OfferView
from comparator.domain.profile import ProviderProfile
from comparator.domain.profile_plan import PlanTerms
from comparator.errors import Msg
from comparator.estimate.estimator import Estimate
from comparator.i18n import msg_to_json, render
from comparator.plan.candidates import (
    CandidateOptions,
    CandidateSet,
    build_candidates,
)
from comparator.plan.context import PlanContext
from comparator.plan.dated_plan import realise
from comparator.plan.dp.grid import PriceBasis
from comparator.plan.explain.card_supply import check_card_supply
from comparator.plan.explain.diagnose import budget_diagnosis, diagnose
from comparator.plan.priced import figure_rows, fit_advice, plan_link, with_figures
from comparator.plan.prune.pruning import LazyCandidates, choose_lazy, lazy_candidates
from comparator.plan.result import ExcludedOffer, Plan, PlanResult
from comparator.plan.screening import OfferScreen, exclusion
from comparator.plan.selection import PlanOptions, Selection, choose
from comparator.plan.work import WorkTable, calibration_fit, placement_estimate, work_table


def discounts(profiles: Mapping[str, PlanTerms]) -> dict[str, Decimal]:
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
        "data_included": job.data.stated,
        # null: the estimator's network model prices the multi-node loss (set: it replaces it)
        "calibration": fit.to_json() if (fit := calibration_fit(job, context.headroom)) else None,
        "multi_node_efficiency": (
            None if context.multi_node_efficiency is None else str(context.multi_node_efficiency)
        ),
        "card_hours_by_gpu": {g: str(w.card_hours) for g, w in sorted(table.work.items())},
        "card_hours_range_by_gpu": {
            g: {"low": str(low), "high": str(high)}
            for g, (low, high) in sorted(table.card_hours_range.items())
        },
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
    job: Job, table: WorkTable, best: Plan | None
) -> tuple[Decimal | None, str | None]:
    """The job's card-hours and GPU: a ``[workload]`` job's own; a ``[model]`` job's on the
    best plan as priced (the figure its line items add up to), else on its first GPU."""
    if job.workload.card_hours is not None:
        return job.workload.card_hours, job.workload.gpu
    if best is not None:
        return best.card_hours, best.gpu
    gpu = next(iter(sorted(table.work)), None)
    if gpu is None or gpu not in table.work:
        return None, gpu
    return table.work[gpu].card_hours, gpu


def deadline_reason(job: Job) -> Msg:
    """Why an offer whose every schedule misses the job's deadline is left out."""
    return Msg(
        "deadline: no schedule on this offer finishes by {deadline}",
        deadline=job.schedule.deadline.isoformat(),
    )


def _schedule_exclusions(selection: Selection, job: Job) -> list[ExcludedOffer]:
    """Offers whose every candidate was solved and missed the deadline (or whose amounts
    were beyond the planner's exact range: kind ``amounts``)."""
    solved: dict[str, list[bool]] = {}
    offers: dict[str, OfferView] = {}
    refused: dict[str, Msg] = {}
    skipped = {offer_id for c in selection.skipped for offer_id in c.offers}
    for evaluated in selection.evaluated:
        for offer_id, offer in evaluated.candidate.offers.items():
            solved.setdefault(offer_id, []).append(evaluated.cheapest_cents is not None)
            offers[offer_id] = offer
            if evaluated.refused is not None:
                refused.setdefault(offer_id, evaluated.refused)
    reason = deadline_reason(job)
    return [
        exclusion(offers[i], "amounts", [refused[i]])
        if i in refused
        else exclusion(offers[i], "deadline", [reason])
        for i, results in solved.items()
        if not any(results) and i not in skipped
    ]


@dataclass
class Prepared:
    """A job made ready to solve: offers filtered, work per GPU, candidates built."""

    job: Job
    context: PlanContext
    offers: Sequence[OfferView]
    checks: OfferScreen
    table: WorkTable
    built: CandidateSet
    discounts: Mapping[str, Decimal]
    filtered: Sequence[FilteredOffers] = ()  # offers the catalog left out (counted, not listed)
    lazy: LazyCandidates | None = None  # groups expanded only when reached (prune=True)


def candidate_options(
    job: Job, context: PlanContext, profiles: Mapping[str, PlanTerms]
) -> CandidateOptions:
    """What every candidate of ``job`` is built with: its window, prices and providers' terms."""
    return CandidateOptions(
        job.schedule.earliest_start,
        job.schedule.deadline,
        job.schedule.interruptible,
        job.schedule.restart_overhead_hours,
        context.multi_node_efficiency,
        PriceBasis(job.currency, context.fx, discounts(profiles)),
        {pid: ZoneInfo(p.timezone) for pid, p in profiles.items()},
        no_conversion=frozenset(p for p, prof in profiles.items() if not prof.converts_billing),
        data=job.data,
        run_windows=job.schedule.run_windows,
        max_hours_per_day=job.schedule.max_hours_per_day,
        day_zone=context.timezone,
        use_free_trial=job.use_free_trial,
        storage_terms={
            (pid, dc.id): dc.storage for pid, p in profiles.items() for dc in p.datacenters
        },
        holidays=context.holidays,
    )


def prepare(
    job: Job,
    offers: Sequence[OfferView],
    profiles: Mapping[str, ProviderProfile],
    context: PlanContext,
    *,
    prune: bool = False,
    filtered: Sequence[FilteredOffers] = (),
) -> Prepared:
    """Compliance, requirements, work per GPU and every candidate placement of ``job``.

    With ``prune`` the candidates are built lazily (:mod:`comparator.plan.prune.pruning`) and
    ``built`` fills as :func:`~comparator.plan.prune.pruning.choose_lazy` reaches them."""
    checks = OfferScreen(job, context)
    basis = PriceBasis(job.currency, context.fx, discounts(profiles))
    eligible = checks.affordable(checks.allowed(checks.compliant(offers, profiles)), basis)
    table = work_table(job, {o.gpu for o in eligible}, headroom=context.headroom)
    workable = checks.workable(eligible, table)
    options = candidate_options(job, context, profiles)
    if prune:
        lazy = lazy_candidates(workable, table.work, options)
        checks.unschedulable(workable, lazy.built, lazy.used)
        return Prepared(
            job, context, offers, checks, table, lazy.built, basis.discounts, tuple(filtered), lazy
        )
    built = build_candidates(workable, table.work, options)
    checks.unschedulable(workable, built)
    return Prepared(job, context, offers, checks, table, built, basis.discounts, tuple(filtered))


def _priced(
    prepared: Prepared, best: Plan | None, alternatives: list[Plan], card_hours: Decimal | None
) -> tuple[Plan | None, list[Plan], Estimate | None, list[dict[str, Any]]]:
    """The plans with the figures that priced them, the estimate on the best placement and
    the GPU table (``assumptions.throughput``)."""
    job, offers, headroom = prepared.job, prepared.offers, prepared.context.headroom
    placement = (best.gpu, best.cards) if best else None
    estimate = placement_estimate(job, placement, headroom=headroom, link=plan_link(best, offers))
    table = prepared.table
    if best is not None:
        best = with_figures(best, job, table, offers, headroom, card_hours, estimate)
    alternatives = [with_figures(a, job, table, offers, headroom, card_hours) for a in alternatives]
    shown = [p for p in (best, *alternatives) if p is not None]
    return best, alternatives, estimate, figure_rows(shown, job, table, card_hours)


def _stats(prepared: Prepared, selection: Selection) -> dict[str, Any]:
    """The plan's ``stats``: offers, candidates, what was solved and pruned, what was filtered."""
    return {
        "offers": len(prepared.offers),
        "candidates": len(prepared.built.candidates),
        "solved": len(selection.evaluated),
        "pruned": selection.pruned,
        "counts_not_built": prepared.lazy.not_built if prepared.lazy else 0,
        "dominated_offers": len(prepared.lazy.dominated) if prepared.lazy else 0,
        "filtered_in_catalog": [
            {
                "kind": f.kind,
                "reason": render(f.reason, prepared.context.lang),
                "reason_msg": msg_to_json(f.reason),
                "count": f.count,
            }
            for f in prepared.filtered
        ],
    }


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
    excluded = checks.excluded + _schedule_exclusions(selection, job)
    card_hours, gpu = _job_reference(job, prepared.table, best)
    best, alternatives, best_estimate, rows = _priced(prepared, best, alternatives, card_hours)
    assumptions = _assumptions(job, context, prepared.offers, prepared.table, prepared.discounts)
    assumptions["throughput"] = rows
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
        assumptions=assumptions,
        utilisation=fit_advice(best, alternatives),
        stats=_stats(prepared, selection),
        estimate=best_estimate,
        compliance=checks.reports,
        policy=checks.policy,
        lang=context.lang,
    )
    _calendar_warning(result, prepared)
    if best is None:
        check_card_supply(job, prepared.offers)
        diagnosis = diagnose(
            job,
            len(prepared.offers),
            excluded,
            prepared.built.candidates,
            selection,
            filtered=prepared.filtered,
        )
        result.binding, result.message = diagnosis.binding, diagnosis.message
    return result


def _calendar_warning(result: PlanResult, prepared: Prepared) -> None:
    """Warn when offers priced by workday/holiday rules fall in a provisional calendar year."""
    schedule = prepared.job.schedule
    zone = prepared.context.timezone
    years = provisional_years(
        schedule.earliest_start.astimezone(zone).date(),
        schedule.deadline.astimezone(zone).date(),
        prepared.context.holidays,
    )
    uses_calendar = any(
        any(rule.needs_holidays for rule in parse_time_of_use(o.time_of_use))
        for c in prepared.built.candidates
        for o in c.offers.values()
    )
    if not years or not uses_calendar:
        return
    result.provisional_years = years
    result.calendar_warning = Msg(
        "the holiday calendar of {years} is provisional: statutory holidays computed by the "
        "holidays package, no 调休 make-up workdays until the State Council notice is known; "
        "prices with workday/holiday rules may change. Give the notice in SUANLI_HOLIDAYS_FILE",
        years=", ".join(str(y) for y in years),
    )


def plan_offers(
    job: Job,
    offers: Sequence[OfferView],
    profiles: Mapping[str, ProviderProfile],
    context: PlanContext,
    *,
    prune: bool = True,
    filtered: Sequence[FilteredOffers] = (),
) -> PlanResult:
    """The best plan, alternatives and exclusions of ``job`` over ``offers`` (exact).

    ``filtered`` counts the offers the catalog already left out for the job
    (:func:`comparator.plan.prune.sql_prefilter.job_offer_filter`). ``prune=False`` skips the
    optimality-preserving pruning of :mod:`comparator.plan.prune.pruning` (benchmarks and tests
    compare both)."""
    prune = prune and not _free_trials_in_play(job, offers)
    prepared = prepare(job, offers, profiles, context, prune=prune, filtered=filtered)
    options = PlanOptions(context.objective, job.max_cost, context.top)
    if prepared.lazy is not None:
        selection = choose_lazy(prepared.lazy, options)
    else:
        selection = choose(prepared.built.candidates, options)
    result = conclude(prepared, selection)
    if result.binding == "budget":
        # the cheapest plan without the budget needs every candidate, not only those reached
        full = prepared if prepared.lazy is None else prepare(job, offers, profiles, context)
        _name_the_cheapest(result, full, options)
    return result


def conclude(prepared: Prepared, selection: Selection) -> PlanResult:
    """The result of a prepared job once the walk has chosen: its plans realised."""
    job = prepared.job
    best = realise(selection.best, job.currency) if selection.best else None
    alternatives = [realise(e, job.currency) for e in selection.alternatives]
    # a contract paying > 3× the hours it runs is shown only when it is still the cheapest
    alternatives = [a for a in alternatives if not a.oversized_contract]
    return finish(prepared, selection, best, alternatives)


def _free_trials_in_play(job: Job, offers: Sequence[OfferView]) -> bool:
    """Free trial hours make a plan cheaper than its prices: the pruning bounds assume prices,
    so a job that uses trials is planned without pruning (docs/planner-pruning.md)."""
    return job.use_free_trial and any(o.free_trial_hours for o in offers)


def _name_the_cheapest(result: PlanResult, prepared: Prepared, options: PlanOptions) -> None:
    """Over budget: the plan that planning without the budget returns, and a message naming it."""
    unbudgeted = choose(prepared.built.candidates, dataclasses.replace(options, budget=None))
    if unbudgeted.best is None:
        return
    realised = realise(unbudgeted.best, prepared.job.currency)
    reference, _ = _job_reference(prepared.job, prepared.table, realised)
    job, table = prepared.job, prepared.table  # the figures as if it were the best plan
    plan = with_figures(realised, job, table, prepared.offers, prepared.context.headroom, reference)
    result.cheapest_without_budget = plan
    diagnosis = budget_diagnosis(prepared.job, plan)
    result.message = diagnosis.message
