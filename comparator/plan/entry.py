"""The planner's entry: a job (or several) planned on an offer source (pure).

:func:`plan_job` asks an :class:`~comparator.domain.offer_source.OfferSource` what it needs and
owns the order of the questions: the job's filter (:mod:`.prune.sql_prefilter`), then, for the
cost objective, the time-of-use rules and the groups' floors, the profiles of their providers,
and the groups the walk reaches (:mod:`.prune.streamed`, docs/planner-pruning.md, rule 5); every
offer of the job when streaming cannot decide (the time objective, free trials, no feasible
plan). Offers already loaded (a sequence) are planned as they are (:func:`.job_plan.plan_offers`).
:func:`plan_jobs` plans several jobs on the same source, each read through its own filter.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import TYPE_CHECKING

from comparator.domain.job import Job
from comparator.domain.offer_filter import FilteredOffers, GroupSummary, OfferFilter
from comparator.domain.offer_source import GroupPricing, OfferSource, ProfileSource
from comparator.domain.offer_view import OfferView
from comparator.domain.profile import ProviderProfile
from comparator.domain.profile_plan import PlanTerms
from comparator.plan.context import PlanContext
from comparator.plan.job_plan import plan_offers
from comparator.plan.prune.sql_prefilter import (
    card_floors,
    filtered_reasons,
    job_offer_filter,
    job_works,
    unfit_reasons,
)
from comparator.plan.prune.streamed import contract_runs, most_runs, plan_streamed, rule_floors
from comparator.plan.result import PlanResult

if TYPE_CHECKING:  # the shared planner loads when several jobs are planned together
    from comparator.plan.joint.joint_plan import SharedPlan

Offers = OfferSource | Sequence[OfferView]
Profiles = Mapping[str, ProviderProfile] | ProfileSource


@dataclass(frozen=True)
class OffersRead:
    """What the planner read for a job: the offers, their providers' profiles, and how many
    offers the job's filter left out, by why (docs/planner-pruning.md, rule 1)."""

    offers: list[OfferView]
    profiles: dict[str, ProviderProfile]
    filtered: list[FilteredOffers]


def profiles_of(profiles: Profiles, providers: Collection[str]) -> dict[str, ProviderProfile]:
    """The profiles of ``providers``, from a mapping or a profile source."""
    if isinstance(profiles, Mapping):
        return {p: profiles[p] for p in sorted(providers) if p in profiles}
    return profiles.profiles(providers)


def terms_of_providers(profiles: Profiles, providers: Collection[str]) -> dict[str, PlanTerms]:
    """What the planner's bounds read of the profiles of ``providers``: a profile source's
    terms, parsed without the whole profiles (docs/planner-pruning.md, rule 5), or the
    profiles themselves."""
    if isinstance(profiles, Mapping):
        return {p: profiles[p] for p in sorted(providers) if p in profiles}
    return dict(profiles.provider_terms(providers))


def plan_job(
    job: Job,
    source: Offers,
    profiles: Profiles | None,
    context: PlanContext,
    *,
    prune: bool = True,
    filtered: Sequence[FilteredOffers] = (),
) -> PlanResult:
    """The best plan, alternatives and exclusions of ``job`` on ``source`` (exact).

    ``source`` is an offer source (the catalog, an
    :class:`~comparator.domain.offer_list.OfferList`) or offers already loaded; ``profiles`` a
    mapping or a profile source (None: ``source``'s own). ``filtered`` counts offers the
    caller already left out (loaded offers only). ``prune=False`` skips the
    optimality-preserving pruning, streaming included: every offer of the job is read
    (benchmarks and tests compare both)."""
    return plan_job_read(job, source, profiles, context, prune=prune, filtered=filtered)[0]


def plan_job_read(
    job: Job,
    source: Offers,
    profiles: Profiles | None,
    context: PlanContext,
    *,
    prune: bool = True,
    filtered: Sequence[FilteredOffers] = (),
) -> tuple[PlanResult, OffersRead]:
    """:func:`plan_job`, with what it read (a quote shows those offers)."""
    if isinstance(source, Sequence):
        if profiles is None:
            raise TypeError("plan_job: offers given as a list need their providers' profiles")
        given = profiles if isinstance(profiles, Mapping) else profiles_of(profiles, _of(source))
        result = plan_offers(job, source, given, context, prune=prune, filtered=filtered)
        return result, OffersRead(list(source), dict(given), list(filtered))
    asked = source if profiles is None else profiles
    wanted = job_offer_filter(job)
    if context.objective == "cost" and prune:  # finishes order the time objective's walk
        streamed = _streamed(job, source, asked, context, wanted)
        if streamed is not None:
            return streamed
    offers = source.offers(wanted)
    read = OffersRead(offers, profiles_of(asked, _of(offers)), _left_out(source, wanted, offers))
    result = plan_offers(job, offers, read.profiles, context, prune=prune, filtered=read.filtered)
    return result, read


def _of(offers: Sequence[OfferView] | Sequence[GroupSummary]) -> set[str]:
    return {o.provider for o in offers}


def left_out(
    source: OfferSource, wanted: OfferFilter, loaded: int, in_places: int | None = None
) -> list[FilteredOffers]:
    """The current offers of ``source`` beyond the ``loaded`` offers of ``wanted``, counted by
    why (``in_places``: the count of its places' offers, when known: :meth:`OfferSource.census`)."""
    total = source.count()
    in_place = total if not wanted.by_place else in_places
    if in_place is None:
        in_place = source.count(wanted)
    return filtered_reasons(wanted, total - in_place, in_place - loaded)


def _left_out(
    source: OfferSource, wanted: OfferFilter, offers: Sequence[OfferView]
) -> list[FilteredOffers]:
    return left_out(source, wanted, len(offers))


def _streamed(
    job: Job, source: OfferSource, profiles: Profiles, context: PlanContext, wanted: OfferFilter
) -> tuple[PlanResult, OffersRead] | None:
    """The plan read group by group, with the offers of the best plan's data centre and GPU
    (the quote's price curve may show one); None when streaming cannot decide (the caller
    then plans on every offer of the job)."""
    schedule = job.schedule
    works = job_works(job, context.headroom)  # rule 8's floors; the walk's work table
    floors = () if works is None else card_floors(works)
    wanted = dataclasses.replace(wanted, card_floors=floors)
    census = source.census(wanted)  # one scan: the rules, the places' count, the unfit
    window = (schedule.earliest_start, schedule.deadline, schedule.run_windows)
    factors = rule_floors(census.rules, *window, context.holidays)
    periods = contract_runs(job, context.holidays)
    blocks = not (schedule.interruptible or schedule.max_hours_per_day)
    blocks |= bool(schedule.interruptible and schedule.restart_overhead_hours)  # round 6
    pricing = GroupPricing(job.currency, context.fx, factors, most_runs(job), periods, blocks)
    stream = source.group_stream(wanted, pricing, census)
    try:
        unfit = stream.unfit()
        loaded = sum(s.offers for s in stream.shapes()) + sum(unfit.values())
        filtered = [*left_out(source, wanted, loaded, census.in_places), *unfit_reasons(unfit)]

        def read(groups: Sequence[GroupSummary]) -> list[OfferView]:
            return source.read(wanted, groups)

        def parsed(providers: Collection[str]) -> dict[str, ProviderProfile]:
            return profiles_of(profiles, providers)

        def terms(providers: Collection[str]) -> dict[str, PlanTerms]:
            return terms_of_providers(profiles, providers)

        every = discounts_of(profiles, Later(stream.providers))  # none stated: not read
        streamed = plan_streamed(
            job,
            stream,
            read,
            terms,
            parsed,
            context,
            filtered=filtered,
            factors=factors,
            discounts_by_provider=every,
            works=works,
        )
        if streamed is None:
            return None
        result, offers, given = streamed
        if (best := result.best) is not None:
            seen = {o.offer_id for o in offers}
            same = stream.at(best.provider, best.region, best.gpu)
            offers = offers + [o for o in read(same) if o.offer_id not in seen]
    finally:
        stream.close()
    return result, OffersRead(offers, given, filtered)


class Later(Collection[str]):
    """The collection ``read`` returns, read when first asked (a catalog where no provider
    states a discount never asks for the group table's providers: a ``SELECT DISTINCT`` over
    it, 0.03-0.19 s at 1M offers, docs/planner-pruning.md, "Sixth round")."""

    def __init__(self, read: Callable[[], Collection[str]]) -> None:
        self.read = read
        self.found: Collection[str] | None = None

    def _items(self) -> Collection[str]:
        if self.found is None:
            self.found = self.read()
        return self.found

    def __contains__(self, item: object) -> bool:
        return item in self._items()

    def __iter__(self) -> Iterator[str]:
        return iter(self._items())

    def __len__(self) -> int:
        return len(self._items())


def discounts_of(profiles: Profiles, providers: Collection[str]) -> dict[str, Decimal]:
    """The discounts of ``providers`` that state one (a profile source reads nothing else)."""
    if isinstance(profiles, Mapping):
        return {
            p: d
            for p in sorted(providers)
            if p in profiles and (d := profiles[p].discount) is not None
        }
    return profiles.provider_discounts(providers)


def plan_jobs(
    jobs: Sequence[Job],
    source: Offers,
    profiles: Profiles | None,
    context: PlanContext,
    *,
    time_limit_s: float = 30.0,
) -> SharedPlan:
    """Plan ``jobs`` together under the offers' stock (:mod:`.joint.joint_plan`); from an offer
    source, each job reads its own offers through its filter, as it would alone."""
    from comparator.plan.joint.joint_plan import plan_jobs as plan_shared

    if isinstance(source, Sequence):
        if profiles is None:
            raise TypeError("plan_jobs: offers given as a list need their providers' profiles")
        given = profiles if isinstance(profiles, Mapping) else profiles_of(profiles, _of(source))
        return plan_shared(jobs, source, given, context, time_limit_s=time_limit_s)
    per_job: list[tuple[Sequence[OfferView], Sequence[FilteredOffers]]] = []
    union: dict[str, OfferView] = {}
    for job in jobs:
        wanted = job_offer_filter(job)
        offers = source.offers(wanted)
        per_job.append((offers, _left_out(source, wanted, offers)))
        union.update((o.offer_id, o) for o in offers)
    every = sorted(union.values(), key=lambda o: int(o.offer_id))
    asked = source if profiles is None else profiles
    given = profiles_of(asked, _of(every))
    return plan_shared(jobs, every, given, context, time_limit_s=time_limit_s, per_job=per_job)
