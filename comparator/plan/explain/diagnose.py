"""Why nothing is feasible: the binding constraint and what would make the job feasible."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal

from comparator.domain.job import Job
from comparator.domain.money import money_str
from comparator.domain.offer_filter import FilteredOffers
from comparator.errors import Msg, MsgList
from comparator.plan.candidates import Candidate
from comparator.plan.result import ExcludedOffer, Plan
from comparator.plan.selection import Selection


@dataclass(frozen=True)
class Diagnosis:
    binding: str  # catalog | compliance | requirements | memory | stock | deadline | budget
    message: Msg


def _top_reasons(
    excluded: Sequence[ExcludedOffer],
    kinds: set[str],
    limit: int = 3,
    filtered: Sequence[FilteredOffers] = (),
) -> MsgList:
    # counted by their English: messages of one template share a hash (offers of one data
    # centre share their reason objects, rendered once)
    english: dict[int, str] = {}
    first: dict[str, Msg] = {}
    counts: Counter[str] = Counter()
    said = [(r, 1) for e in excluded if e.kind in kinds for r in e.reasons]
    for reason, count in [*said, *((f.reason, f.count) for f in filtered if f.kind in kinds)]:
        text = english.get(id(reason))
        if text is None:
            text = english[id(reason)] = str(reason)
            first.setdefault(text, reason)
        counts[text] += count
    return MsgList(
        [Msg("{reason} (×{count})", reason=first[t], count=n) for t, n in counts.most_common(limit)]
    )


def _by_kind(excluded: Sequence[ExcludedOffer]) -> Counter[str]:
    return Counter(e.kind for e in excluded)


def _fastest(candidates: Sequence[Candidate]) -> Candidate:
    return min(candidates, key=lambda c: c.grid.at(c.run_hours))


def _deadline(job: Job, candidates: Sequence[Candidate]) -> Diagnosis:
    fastest = _fastest(candidates)
    grid = fastest.grid
    return Diagnosis(
        "deadline",
        Msg(
            "no placement finishes by the deadline {deadline}: the fastest one ({where}) needs "
            "{run_hours} h of run time and the window holds {window} whole hours. Move the "
            "deadline to {earliest_finish} or later, start earlier, or allow more cards / more "
            "GPU models{limits}",
            deadline=job.schedule.deadline.isoformat(),
            where=f"{fastest.provider}/{fastest.region}, {fastest.cards} × {fastest.gpu}",
            run_hours=fastest.run_hours,
            window=grid.deadline_slot,
            earliest_finish=grid.at(fastest.run_hours).isoformat(),
            limits=_limits(job),
        ),
    )


def _limits(job: Job) -> Msg | str:
    """The job's own limits on run hours, which push the finish past the whole-hour count."""
    schedule, limits = job.schedule, []
    if schedule.run_windows:
        limits.append("run_windows " + ", ".join(schedule.run_windows))
    if schedule.max_hours_per_day is not None:
        limits.append(f"max_hours_per_day = {schedule.max_hours_per_day}")
    if not limits:
        return ""
    return Msg(
        "; the job's own limits ({limits}) leave fewer hours to run in: loosen them too",
        limits="; ".join(limits),
    )


def budget_diagnosis(job: Job, plan: Plan) -> Diagnosis:
    """Over budget, naming the plan that ``plan`` without the budget returns."""
    return Diagnosis(
        "budget",
        Msg(
            "the cheapest plan that meets the deadline costs {cost} {currency} ({where}, "
            "finishing {finish}), above [budget] max_cost {limit}. Raise max_cost to at least "
            "{cost}, or move the deadline later (a later deadline never costs more)",
            cost=money_str(plan.total_cost),
            currency=job.currency,
            where=f"{plan.provider}/{plan.region}, {plan.cards} × {plan.gpu}",
            finish=plan.finish.isoformat(),
            limit=money_str(job.max_cost or Decimal(0)),
        ),
    )


def _budget(job: Job, selection: Selection) -> Diagnosis:
    on_time = selection.meets_deadline
    cheapest = min(on_time, key=lambda e: e.cheapest_cents or 0)
    c = cheapest.candidate
    return Diagnosis(
        "budget",
        Msg(
            "the cheapest plan that meets the deadline costs {cost} {currency} ({where}), above "
            "[budget] max_cost {limit}. Raise max_cost to at least {cost}, or move the deadline "
            "later (a later deadline never costs more)",
            cost=money_str(Decimal(cheapest.cheapest_cents or 0) / 100),
            currency=job.currency,
            where=f"{c.provider}/{c.region}, {c.cards} × {c.gpu}",
            limit=money_str(job.max_cost or Decimal(0)),
        ),
    )


def diagnose(
    job: Job,
    offer_count: int,
    excluded: Sequence[ExcludedOffer],
    candidates: Sequence[Candidate],
    selection: Selection,
    *,
    filtered: Sequence[FilteredOffers] = (),
) -> Diagnosis:
    """The first constraint that left nothing feasible, with what would lift it.

    ``filtered`` offers (left out by the catalog) count as excluded offers of their kind."""
    kinds = _by_kind(excluded)
    kinds.update({f.kind: f.count for f in filtered})
    offer_count += sum(f.count for f in filtered)
    if offer_count == 0:
        return Diagnosis(
            "catalog",
            Msg(
                "the catalog has no current offers: run `suanli init` (demo catalog) or "
                "`suanli import` price sheets"
            ),
        )
    if kinds["compliance"] == offer_count:
        return Diagnosis(
            "compliance",
            Msg(
                "all {count} offers fail compliance for this job: {reasons}. Relax "
                "[requirements] or import providers that satisfy them",
                count=offer_count,
                reasons=_top_reasons(excluded, {"compliance"}, filtered=filtered),
            ),
        )
    if not candidates:
        return _no_candidates(excluded, kinds, filtered)
    if not selection.meets_deadline:
        refused = [e.refused for e in selection.evaluated if e.refused is not None]
        if refused:
            return Diagnosis(
                "amounts",
                Msg(
                    "no plan: {reason}; check the offers' prices (suanli offers --compliant-for "
                    "JOB.toml) or shorten the job's horizon",
                    reason=refused[0],
                ),
            )
        return _deadline(job, candidates)
    return _budget(job, selection)


_ADVICE = {
    "memory": Msg("use LoRA/QLoRA, ZeRO-3, a smaller model, or allow GPUs with more memory"),
    "requirements": Msg(
        "widen [requirements] gpus, or allow spot offers (spot = true with interruptible = true)"
    ),
    "stock": Msg("fix fewer cards, or wait for stock"),
    "price": Msg("raise [budget] max_price_per_card_hour"),
    "network": Msg("choose offers with an IB/RoCE network, or fewer cards (one node)"),
    "throughput": Msg("give card-hours on a GPU with a known throughput"),
    "currency": Msg("set an FX rate for the offer's currency (SUANLI_FX_RATES)"),
    "time-of-use": Msg("fix the offer's time-of-use rules or update chinesecalendar"),
}


def _no_candidates(
    excluded: Sequence[ExcludedOffer],
    kinds: Counter[str],
    filtered: Sequence[FilteredOffers] = (),
) -> Diagnosis:
    """Nothing survived the filters: the most common non-compliance reason binds."""
    planner_kinds = Counter({k: n for k, n in kinds.items() if k != "compliance"})
    kind = planner_kinds.most_common(1)[0][0] if planner_kinds else "compliance"
    return Diagnosis(
        kind,
        Msg(
            "no offer can take the job: {reasons}. {advice}",
            reasons=_top_reasons(excluded, {kind}, filtered=filtered),
            advice=_ADVICE.get(kind, Msg("relax [requirements]")),
        ),
    )
