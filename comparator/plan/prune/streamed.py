"""Plan a job reading its offers group by group, as the walk reaches them (pure).

The catalog summarises the job's offers per group (:class:`GroupSummary`: one row per
provider, data centre, GPU, node size and links, from ``GROUP BY`` in SQL); each summary gets
a key no candidate of its group can beat, and the best-first walk of
:func:`comparator.plan.prune.pruning.choose_lazy` reads a group's offers only when it reaches that key
(docs/planner-pruning.md, rule 5). Plans, alternatives and costs are those of the unpruned
planner; what is reported of offers (exclusions, compliance reports) covers the groups read,
and the offers on GPUs that cannot take the job are counted per GPU with their reason.
A job the walk finds no plan for returns None: the caller plans it over every offer, so that
the diagnosis sees every exclusion.
"""

from __future__ import annotations

import dataclasses
import heapq
import math
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from datetime import datetime, timedelta
from decimal import Decimal
from typing import Any, NamedTuple
from zoneinfo import ZoneInfo

import numpy as np

from comparator.compliance.verdicts import ProviderReport
from comparator.domain.billing import CONTRACT_MODES, PERIOD_HOURS
from comparator.domain.calendar import HolidaySupplement
from comparator.domain.group_list import ListStream
from comparator.domain.job import Job
from comparator.domain.offer_filter import FilteredOffers, GroupSummary
from comparator.domain.offer_source import GroupShape, GroupStream, OrderedGroup
from comparator.domain.offer_view import OfferView
from comparator.domain.profile import ProviderProfile
from comparator.domain.profile_plan import PlanTerms
from comparator.domain.zones import DEFAULT_TIMEZONE
from comparator.errors import CalendarError
from comparator.estimate.throughput import is_rdma
from comparator.plan.bill import DataBill
from comparator.plan.candidates import (
    CandidateBuilder,
    CandidateOptions,
    CandidateSet,
    GpuWork,
    GroupInput,
    card_counts,
)
from comparator.plan.context import PlanContext
from comparator.plan.dp.grid import PRICE_PLACES, PriceBasis, SlotGrid, slot_grid
from comparator.plan.dp.pausing.dominated_contracts import most_runs_per_period
from comparator.plan.dp.slot_prices import least_factor_within
from comparator.plan.dp.windows import rentable
from comparator.plan.groups import GroupKey, _link_key, group_offers
from comparator.plan.job_plan import Prepared, candidate_options, conclude, discounts
from comparator.plan.prune.block_floors import MAX_RULES, Scale, SummaryFloors, blocks_bind
from comparator.plan.prune.bounds import (
    FIRST,
    Key,
    KeyScale,
    count_span,
    key_scale,
    lengths_key,
    restarts,
    scaled_key,
)
from comparator.plan.prune.group_order import (
    LazyTerms,
    PendingGroups,
    TermsReader,
    shape_orders,
    window_slots,
)
from comparator.plan.prune.pruning import UNREAD, Entry, LazyCandidates, choose_lazy
from comparator.plan.result import ExcludedOffer, PlanResult
from comparator.plan.screening import OfferScreen
from comparator.plan.selection import PlanOptions
from comparator.plan.work import WorkTable, work_table
from comparator.plan.work_hours import work_run_hours

Reader = Callable[[Sequence[GroupSummary]], list[OfferView]]  # their offers, by offer id
ProfileReader = Callable[[Collection[str]], dict[str, ProviderProfile]]  # parsed profiles


def rule_floors(
    rules: Sequence[str],
    earliest: datetime,
    deadline: datetime,
    windows: tuple[str, ...] = (),
    holidays: HolidaySupplement | None = None,
) -> dict[str, float]:
    """A factor no run slot of any provider's window goes below, per time-of-use rule.

    The window is widened by a day on each side and read in one zone: every zone's local
    hours of the window lie within it (offsets differ by less than a day), and a rule's
    factor depends only on the local hour and date; so does whether the job's run
    ``windows`` allow a slot, so only the slots they allow are read. 0 where the calendar
    cannot say."""
    widened = (earliest - timedelta(days=1), deadline + timedelta(days=1))
    grid = slot_grid(*widened, DEFAULT_TIMEZONE, holidays)
    allowed = rentable(grid, 0, windows)
    out = {}
    for rule in rules[:MAX_RULES]:
        try:
            slots = max(grid.deadline_slot, 1)
            out[rule] = least_factor_within(
                rule, grid.first, slots, grid.timezone, allowed, holidays
            )
        except CalendarError:
            out[rule] = 0.0
    return out


def contract_runs(job: Job, holidays: HolidaySupplement | None = None) -> dict[str, int]:
    """Per contract billing mode, at least the run slots one period can hold in any provider's
    window (the summaries' floor divides a contract's price by it; docs/planner-pruning.md,
    rule 6): the slots the run windows allow in any ``period + 2`` consecutive slots of the
    widened window read in one zone, plus 2 (a daylight-saving shift skips or repeats a local
    hour), at most the period."""
    periods = {b: PERIOD_HOURS[b] for b in CONTRACT_MODES}
    if not job.schedule.run_windows:
        return periods
    schedule = job.schedule
    grid = slot_grid(
        schedule.earliest_start - timedelta(days=1),
        schedule.deadline + timedelta(days=1),
        DEFAULT_TIMEZONE,
        holidays,
    )
    mask = rentable(grid, 0, schedule.run_windows)
    usable = np.ones(grid.deadline_slot, dtype=bool) if mask is None else np.array(mask, bool)
    return {b: min(p, most_runs_per_period(usable, p + 2, 0, None) + 2) for b, p in periods.items()}


def most_runs(job: Job) -> int:
    """More run slots than any provider's window holds (contracts' floors divide by it)."""
    return (
        math.ceil((job.schedule.deadline - job.schedule.earliest_start).total_seconds() / 3600) + 2
    )


def _summary_floor(s: GroupSummary, discount: float) -> float:
    """A floor per card and run slot no offer of ``s`` goes below once priced: its price is
    rounded to PRICE_PLACES at most half a place down, so ``d·A − h·M`` (float margin)."""
    half = float(PRICE_PLACES) / 2
    least = (s.least_per_card or 0.0) * discount - half * s.most_factor_per_card
    return max(least, 0.0) * (1 - 1e-9)


class SummaryKeyer:
    """Unread entries of groups: each keyed by :func:`~comparator.plan.prune.bounds.scaled_key`
    at its summaries' floor (on the group's own run slots with ``floors``:
    :class:`~.block_floors.SummaryFloors`, rule 7) with its data centre's bill (the providers'
    terms must be in the builder's options and ``basis`` first)."""

    def __init__(
        self,
        table: WorkTable,
        builder: CandidateBuilder,
        basis: PriceBasis,
        objective: str,
        floors: SummaryFloors | None = None,
    ) -> None:
        self.table, self.builder, self.basis, self.objective = table, builder, basis, objective
        self.floors = floors
        self.scales: dict[tuple[str, int, str, bool, str], tuple[KeyScale, Scale] | None] = {}
        self.counts: dict[tuple[str, int, str, bool], _Counts | None] = {}  # zone apart
        self.bills: dict[tuple[str, str], DataBill] = {}  # per (provider, data centre)
        self.providers: dict[str, tuple[ZoneInfo, float]] = {}  # provider → (zone, discount)

    def entry(self, key: GroupKey, parts: list[GroupSummary]) -> Entry | None:
        """The unread entry of one group (None: its GPU cannot take the job, or no count)."""
        rdma = any(is_rdma(s.network) for s in parts)
        if (terms := self.providers.get(key[0])) is None:
            zone = self.builder.options.timezones.get(key[0], DEFAULT_TIMEZONE)
            terms = self.providers[key[0]] = (zone, float(self.basis.discounts.get(key[0], 1)))
        shape = (key[2], key[3], key[4], rdma, terms[0].key)  # GPU, node size, links, RDMA, zone
        if (scale := self.scales.get(shape, _UNSEEN)) is _UNSEEN:
            if (found := self.counts.get(shape[:4], _UNSEEN)) is _UNSEEN:
                every, options = self.floors is not None, self.builder.options
                found = self.counts[shape[:4]] = _counts(key, parts, self.table, options, every)
            scale = None
            if found is not None:
                scale = _scale(found, self.builder.grid_for(key[0]), self.builder.options)
            self.scales[shape] = scale
        if scale is None:  # no work on the GPU or no card count: nothing of it is built
            return None
        if len(parts) == 1:
            floor, first = _summary_floor(parts[0], terms[1]), parts[0].first_offer_id
        else:
            floor = min(_summary_floor(s, terms[1]) for s in parts)
            first = min(s.first_offer_id for s in parts)
        if self.floors is not None:
            floor = max(floor, self.floors.floor(parts, terms[1], terms[0], scale[1]))
        if (bill := self.bills.get(key[:2])) is None:
            bill = self.bills[key[:2]] = self.builder.bill(key)
        entry_key = scaled_key(scale[0], floor, self.objective, bill)
        if self.floors is not None and entry_key != FIRST:
            least = self.floors.lengths(parts, terms[1], terms[0], scale[1])
            if least > 0:  # the block-length floor ("Sixth round: growth")
                entry_key = max(entry_key, lengths_key(scale[0], least, self.objective, bill))
        return (entry_key, first, -2, UNREAD, (key, parts))


def summary_entries(
    summaries: Sequence[GroupSummary],
    table: WorkTable,
    builder: CandidateBuilder,
    basis: PriceBasis,
    objective: str,
    floors: SummaryFloors | None = None,
) -> list[Entry]:
    """One unread entry per group of ``summaries`` whose GPU can take the job
    (:class:`SummaryKeyer`), as a heap (popped in key order)."""
    keyer = SummaryKeyer(table, builder, basis, objective, floors)
    entries = [
        entry
        for key, parts in _by_group(summaries).items()
        if (entry := keyer.entry(key, parts)) is not None
    ]
    heapq.heapify(entries)  # by (key, first offer id): unique, so the groups are never compared
    return entries


_UNSEEN: Any = object()


def _by_group(summaries: Sequence[GroupSummary]) -> dict[GroupKey, list[GroupSummary]]:
    """The summaries of each rule-2 group (the same link key), in order."""
    by_group: dict[GroupKey, list[GroupSummary]] = {}
    links: dict[tuple[str | None, str | None], str] = {}
    for s in summaries:
        pair = (s.interconnect, s.network)
        if (link := links.get(pair)) is None:
            link = links[pair] = _link_key(*pair)
        key = (s.provider, s.region, s.gpu, s.node_cards, link)
        if (parts := by_group.get(key)) is None:
            by_group[key] = [s]
        else:
            parts.append(s)
    return by_group


def unusable_unread(summaries: Iterable[GroupShape], table: WorkTable) -> list[FilteredOffers]:
    """The offers on GPUs that cannot take the job, counted per GPU with the reason: the walk
    never reads their groups, and without this a quote would not say why a cheaper card is
    missing (the unstreamed planner names each of them among the exclusions)."""
    counts: dict[str, int] = {}
    for s in summaries:
        if s.gpu in table.unusable:
            counts[s.gpu] = counts.get(s.gpu, 0) + s.offers
    return [
        FilteredOffers(table.unusable[gpu][0], table.unusable[gpu][1], count)
        for gpu, count in sorted(counts.items())
    ]


class _Counts(NamedTuple):
    """What a group's key reads of its GPU, node size, links and RDMA (not of its zone): its
    work on those links, card counts, count span and (for rule 7 and the block-length floor)
    every count's work slots."""

    work: GpuWork
    counts: list[int]
    span: tuple[int, int]
    hours: tuple[int, ...]


def _counts(
    key: GroupKey,
    parts: list[GroupSummary],
    table: WorkTable,
    options: CandidateOptions,
    every: bool,
) -> _Counts | None:
    """The group's :class:`_Counts` (None: no work on its GPU or no card count); ``every``: the
    work slots of every count, else none."""
    work = table.work.get(key[2])
    if work is None:
        return None
    on_link = work.on_link(key[4])
    counts = card_counts(on_link, key[3], [s.network for s in parts], options.max_nodes)
    if not counts:
        return None
    span = count_span(key[3], on_link, counts, options)
    hours: tuple[int, ...] = ()
    if every:
        eff = options.multi_node_efficiency
        hours = tuple(work_run_hours(on_link, n, key[3], eff) for n in counts)
    return _Counts(on_link, counts, span, hours)


def _scale(found: _Counts, grid: SlotGrid, options: CandidateOptions) -> tuple[KeyScale, Scale]:
    """The group's key scale on its provider's ``grid``, and its fewest and most work slots,
    counts and their work slots (rule 7, the block-length floor; 0 and none when not read)."""
    scale = key_scale(found.span, found.work, grid, options, found.counts)
    if not found.hours:
        return scale, Scale(scale.fewest_slots, 0)
    longest = max(found.hours)
    return scale, Scale(scale.fewest_slots, longest, tuple(found.counts), found.hours)


class _Reading:
    """The groups read so far: their offers through the job's checks, into the walk; the
    profiles of their providers parsed as their first offers are read."""

    def __init__(
        self,
        read: Reader,
        checks: OfferScreen,
        basis: PriceBasis,
        table: WorkTable,
        profiles: ProfileReader,
    ) -> None:
        self.reader, self.checks, self.basis, self.table = read, checks, basis, table
        self.profile_reader = profiles
        self.profiles: dict[str, ProviderProfile] = {}
        self.asked: set[str] = set()
        self.offers: list[OfferView] = []
        self.workable: list[OfferView] = []
        self.phases: list[list[ExcludedOffer]] = [[], [], [], []]
        self.lazy: LazyCandidates | None = None
        self.reports: dict[str, ProviderReport] = {}  # each provider checked once
        self.batches: dict[str, int] = {}  # provider → how many batches held its offers

    def __call__(self, batch: list[Entry]) -> list[tuple[GroupInput, int, Key]]:
        assert self.lazy is not None
        groups = {entry[4][0]: entry[0] for entry in batch}
        offers = self.reader([s for entry in batch for s in entry[4][1]])
        if new := {o.provider for o in offers} - self.asked:
            self.asked |= new
            self.profiles.update(self.profile_reader(new))
        self.offers += offers
        workable = self._checked(offers)
        self.workable += workable
        out: list[tuple[GroupInput, int, Key]] = []
        for key, group in group_offers(workable).items():
            work = self.table.work.get(key[2])
            g = None if work is None or key not in groups else self.lazy.add(key, group, work)
            if g is not None:
                out.append((g, int(group[0].offer_id), groups[key]))
        return out

    def _checked(self, offers: list[OfferView]) -> list[OfferView]:
        """The job's checks in the unpruned planner's order; exclusions kept by phase."""
        checks, basis, table = self.checks, self.basis, self.table
        for provider in {o.provider for o in offers}:
            self.batches[provider] = self.batches.get(provider, 0) + 1
        steps: list[Callable[[Sequence[OfferView]], list[OfferView]]] = [
            lambda o: checks.compliant(o, self._profiles_of(o), self.reports),
            checks.allowed,
            lambda o: checks.affordable(o, basis),
            lambda o: checks.workable(o, table),
        ]
        kept: Sequence[OfferView] = offers
        for phase, step in enumerate(steps):
            at = len(checks.excluded)
            kept = step(kept)
            self.phases[phase] += checks.excluded[at:]
        return list(kept)

    def _profiles_of(self, offers: Sequence[OfferView]) -> dict[str, ProviderProfile]:
        providers = {o.provider for o in offers}
        return {p: self.profiles[p] for p in providers if p in self.profiles}

    def close(self, built: CandidateSet, used: set[str]) -> None:
        """Exclusions in the unpruned order of phases, each by offer id, then the notes; the
        compliance reports on every offer read (a provider read in one batch keeps that
        batch's report, made on the same offers; the others are checked again on all)."""
        checks = self.checks
        once = {p: r for p, r in self.reports.items() if self.batches.get(p) == 1}
        checks.compliant(self.offers, self._profiles_of(self.offers), once)  # all read
        checks.excluded = [
            e for phase in self.phases for e in sorted(phase, key=lambda e: int(e.offer_id))
        ]
        checks.unschedulable(self.workable, built, used)


def plan_streamed(
    job: Job,
    summaries: Sequence[GroupSummary] | GroupStream,
    read: Reader,
    terms: Mapping[str, PlanTerms] | TermsReader,
    profiles: ProfileReader,
    context: PlanContext,
    *,
    filtered: Sequence[FilteredOffers] = (),
    factors: Mapping[str, float] | None = None,
    discounts_by_provider: Mapping[str, Decimal] | None = None,
    works: WorkTable | None = None,
) -> tuple[PlanResult, list[OfferView], dict[str, ProviderProfile]] | None:
    """The plan of ``job`` reading only the groups the walk reaches, with the offers read and
    their providers' profiles.

    ``summaries`` are the job's group summaries, or a stream of them the catalog orders
    (rule 5, Claim C: only the head the walk reaches is keyed); ``terms`` the providers'
    terms the bounds read (or what reads them, as the groups are keyed), with every
    provider's discount in ``discounts_by_provider`` (default: ``terms``'s); ``profiles``
    parses the profiles of the providers whose offers are read (compliance reads them);
    ``works`` the job's work on GPUs already estimated (those of the summaries are used). None
    when streaming cannot decide: the time objective (finishes, not prices, order the walk),
    free trial hours in play, or no feasible plan (the diagnosis needs every offer)."""
    stream = ListStream(summaries) if isinstance(summaries, Sequence) else summaries
    shapes = stream.shapes()
    if context.objective != "cost" or (job.use_free_trial and any(s.free_trial for s in shapes)):
        return None
    if isinstance(terms, Mapping):
        given = terms
        if discounts_by_provider is None:
            discounts_by_provider = discounts(given)
        terms = lambda ps: {p: given[p] for p in ps if p in given}  # noqa: E731
    checks = OfferScreen(job, context)
    basis = PriceBasis(job.currency, context.fx, dict(discounts_by_provider or {}))
    table = _work_of(job, {s.gpu for s in shapes}, context.headroom, works)
    built = CandidateSet()
    options = dataclasses.replace(candidate_options(job, context, {}), prices=basis)
    lazy = LazyCandidates(CandidateBuilder(options, built), [], built)
    reading = _Reading(read, checks, basis, table, profiles)
    reading.lazy = lazy
    floors = None
    if blocks_bind(lazy.builder.options) or restarts(lazy.builder.options):  # rule 7, round 6
        floors = SummaryFloors(lazy.builder.options, most_runs(job), factors)
    lazy.pending = _pending(
        stream, shapes, table, lazy.builder, basis, LazyTerms(terms, lazy.builder), floors
    )
    lazy.read = reading
    selection = choose_lazy(lazy, PlanOptions(context.objective, job.max_cost, context.top))
    reading.lazy = None  # no cycle (reading ↔ lazy): its summaries go when the plan returns
    if selection.best is None:
        return None
    reading.close(built, lazy.used)
    not_read = (*filtered, *unusable_unread(shapes, table))
    prepared = Prepared(
        job, context, reading.offers, checks, table, built, basis.discounts, not_read, lazy
    )
    result = conclude(prepared, selection)
    result.stats["groups_not_read"] = lazy.unread if lazy.pending is None else lazy.pending.left()
    result.stats["offers_not_read"] = sum(s.offers for s in shapes) - len(reading.offers)
    return result, reading.offers, reading.profiles


def _work_of(job: Job, gpus: set[str], headroom: float, works: WorkTable | None) -> WorkTable:
    """The job's work on ``gpus``: taken from ``works`` when it covers them, else estimated."""
    if works is None or not gpus <= {*works.work, *works.unusable}:
        return work_table(job, gpus, headroom=headroom)
    return WorkTable(
        {g: w for g, w in works.work.items() if g in gpus},
        {g: u for g, u in works.unusable.items() if g in gpus},
        {g: e for g, e in works.estimates.items() if g in gpus},
        {g: r for g, r in works.card_hours_range.items() if g in gpus},
    )


def _pending(
    stream: GroupStream,
    shapes: Sequence[GroupShape],
    table: WorkTable,
    builder: CandidateBuilder,
    basis: PriceBasis,
    terms: LazyTerms,
    floors: SummaryFloors | None,
) -> PendingGroups:
    """The stream's groups in the order of their keys' lower bound (rule 5, Claim C), keyed
    as the walk reaches them, their providers' terms read then."""
    keyer = SummaryKeyer(table, builder, basis, "cost", floors)
    least = float(min([*basis.discounts.values(), Decimal(1)]))
    count, ordered = stream.ordered(
        shape_orders(shapes, table, builder.options), least, float(PRICE_PLACES) / 2
    )

    def keyed(groups: list[OrderedGroup]) -> list[Entry]:
        terms.ensure({g.parts[0].provider for g in groups})
        out = []
        for g in groups:
            for key, parts in _by_group(g.parts).items():
                if (entry := keyer.entry(key, parts)) is not None:
                    out.append(entry)
        return out

    return PendingGroups(ordered, count, keyed, window_slots(builder.options))
