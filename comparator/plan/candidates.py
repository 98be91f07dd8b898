"""From eligible offers to candidates: one (provider, data centre, GPU, card count) each.

Every rate is labelled with its *machine* (docs/billing.md): the offer's rental unit size
(cards per unit), so that a per-card rental and a whole-machine rental of one data centre are
two machines and switching between them is a migration. A provider whose profile says
``converts_billing = false`` cannot change billing in place: each of its offers is a machine.

Offers of one provider, data centre, GPU and node size form a *group*; a group with ``n``
cards is a *candidate*. Every offer of the group that can rent ``n`` cards (enough stock, an
RDMA network when ``n`` spans nodes) becomes a rate of the candidate's
:class:`~comparator.plan.dp.problem.ScheduleProblem`: ``units = ceil(n / offer.cards)`` units,
billed alike. Prices are compared tax-inclusive in the job's currency (VAT added where quoted
before it, FX converted), an adjusted unit price kept to four decimal places. Slots are whole
hours of the provider's time zone from the first whole hour at or after the earliest start
to the last whole hour that ends by the deadline.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from decimal import Decimal
from zoneinfo import ZoneInfo

from comparator.domain.billing import HOURLY_MODES
from comparator.domain.calendar import HolidaySupplement
from comparator.domain.job import DataNeeds
from comparator.domain.offer_view import OfferView
from comparator.domain.storage import StorageTerms
from comparator.domain.zones import DEFAULT_TIMEZONE
from comparator.errors import CalendarError, Msg
from comparator.estimate.throughput import is_rdma, run_hours
from comparator.plan.bill import DataBill, data_bill
from comparator.plan.dp.grid import PriceBasis, SlotGrid, slot_grid
from comparator.plan.dp.problem import ContractRate, HourlyRate, ScheduleProblem
from comparator.plan.dp.slot_prices import shared_factors, shared_slot_costs
from comparator.plan.dp.windows import Mask, daily_cap, free_trials, rentable
from comparator.plan.groups import GroupKey, group_offers
from comparator.plan.work_hours import layout_counts, priced_card_hours, work_run_hours

MAX_NODES = 16


@dataclass(frozen=True)
class GpuWork:
    """The job's work on one GPU model: card-hours there and the card counts it may use."""

    gpu: str
    card_hours: Decimal
    min_cards: int = 1
    fixed_cards: int | None = None
    # The estimator's card-hours on a given card count (PCIe cards lose more to communication
    # as they multiply); None: the same card-hours on every count ([workload] jobs).
    card_hours_at: Callable[[int], Decimal] | None = field(default=None, compare=False)
    # (low, high) multipliers of the expected hours (the throughput fit's range); None: exact
    hours_range: tuple[Decimal, Decimal] | None = field(default=None, compare=False)
    # card_hours_at on a group's links (plan.groups.link_key); None: links do not matter
    on_links: Callable[[str], Callable[[int], Decimal]] | None = field(default=None, compare=False)
    network_modelled: bool = False  # card_hours_at holds the multi-node loss (plan.work_hours)
    layout: tuple[int, int, int] | None = None  # TP, CP, PP when DP cannot hold it (work_hours)

    def on_link(self, key: str) -> GpuWork:
        """This work on the links of a group (the estimator's card-hours there)."""
        if self.on_links is None:
            return self
        return dataclasses.replace(self, card_hours_at=self.on_links(key))

    def card_hours_on(self, cards: int) -> Decimal:
        """Card-hours on ``cards`` cards, never below ``card_hours`` (what the bounds assume)."""
        if self.card_hours_at is None:
            return self.card_hours
        return max(self.card_hours, self.card_hours_at(cards))


@dataclass(frozen=True)
class Candidate:
    """One placement to schedule: its offers as rates, and how they map back."""

    provider: str
    region: str
    gpu: str
    cards: int
    node_cards: int
    work: GpuWork
    grid: SlotGrid
    problem: ScheduleProblem
    offers: Mapping[str, OfferView]
    units: Mapping[str, int]
    unit_prices: Mapping[str, Decimal]
    bill: DataBill = field(default_factory=DataBill)  # upload, storage and egress (docs/billing.md)
    trials: Mapping[str, str] = field(default_factory=dict)  # free-trial rate key → offer id
    priced_card_hours: Decimal | None = None  # what prices its hours (plan.work_hours)

    @property
    def pair(self) -> tuple[str, str]:
        return self.provider, self.gpu

    @property
    def run_hours(self) -> int:
        return self.problem.work_slots


@dataclass
class CandidateSet:
    """Candidates built from a set of offers, and why some offers could not be used."""

    candidates: list[Candidate] = field(default_factory=list)
    reasons: dict[str, list[Msg]] = field(default_factory=dict)

    def note(self, offer: OfferView, reason: Msg) -> None:
        reasons = self.reasons.setdefault(offer.offer_id, [])
        if reason not in reasons:
            reasons.append(reason)


@dataclass(frozen=True)
class CandidateOptions:
    earliest: datetime
    deadline: datetime
    interruptible: bool
    restart_overhead_hours: int
    multi_node_efficiency: Decimal | None  # None: the estimator's network model
    prices: PriceBasis
    timezones: Mapping[str, ZoneInfo] = field(default_factory=dict)
    max_nodes: int = MAX_NODES
    no_conversion: frozenset[str] = frozenset()  # providers that do not convert billing
    data: DataNeeds = field(default_factory=DataNeeds)
    run_windows: tuple[str, ...] = ()  # the job runs (and rents) only inside these
    max_hours_per_day: int | None = None  # run hours a day of ``day_zone``
    day_zone: ZoneInfo = DEFAULT_TIMEZONE
    use_free_trial: bool = False
    storage_terms: Mapping[tuple[str, str], StorageTerms] = field(default_factory=dict)
    holidays: HolidaySupplement | None = None  # the calendar of workday/holiday rules


def least_cards(work: GpuWork) -> int:
    """The fewest cards of any count :func:`card_counts` gives, whatever the group."""
    return work.fixed_cards if work.fixed_cards is not None else max(1, work.min_cards)


def card_counts(
    work: GpuWork, node_cards: int, networks: Iterable[str | None], max_nodes: int
) -> list[int]:
    """Card counts worth trying on one group (``networks``): in a node, then nodes over RDMA."""
    if work.fixed_cards is not None:
        return [work.fixed_cards]
    low = least_cards(work)
    counts = list(range(low, node_cards + 1))
    if any(is_rdma(network) for network in networks):
        counts += [k * node_cards for k in range(2, max_nodes + 1) if k * node_cards >= low]
    return layout_counts(work.layout, node_cards, counts)


def fits(offer: OfferView, cards: int) -> Msg | None:
    """Why ``offer`` cannot rent ``cards`` cards, or None when it can."""
    units = -(-cards // offer.cards)
    if offer.stock is not None and units > offer.stock:
        return Msg(
            "stock: {cards} cards need {units} units, {stock} available",
            cards=cards,
            units=units,
            stock=offer.stock,
        )
    if cards > offer.node_cards and not is_rdma(offer.network):
        return Msg(
            "network: {cards} cards span several {node_cards}-card nodes, which needs an "
            "IB/RoCE network (offer has {network})",
            cards=cards,
            node_cards=offer.node_cards,
            network=offer.network or Msg("none"),
        )
    return None


def machine_of(offer: OfferView, converts: bool = True) -> str:
    """The machine an offer rents within its candidate: its rental unit size (docs/billing.md)."""
    unit = f"{offer.cards}-card unit"
    return unit if converts else f"{unit} {offer.offer_id}"


def _hourly_rate(
    offer: OfferView, units: int, price: Decimal, grid: SlotGrid, machine: str, available: Mask
) -> HourlyRate:
    horizon = grid.deadline_slot + offer.min_units - 1
    costs = shared_slot_costs(
        price * units, offer.time_of_use, grid.first, horizon, grid.timezone, grid.holidays
    )
    return HourlyRate(offer.offer_id, costs, offer.min_units, available, machine)


def _rate(
    offer: OfferView,
    units: int,
    price: Decimal,
    grid: SlotGrid,
    converts: bool = True,
    available: Mask = None,
    contract_available: Mask = None,
) -> HourlyRate | ContractRate:
    """The rate of ``offer``: hourly where ``available``, a contract where ``contract_available``."""
    machine = machine_of(offer, converts)
    if offer.billing in HOURLY_MODES:
        return _hourly_rate(offer, units, price, grid, machine, available)
    cost, minimum = price * units, offer.min_units
    return ContractRate(
        offer.offer_id, offer.period_hours, cost, minimum, contract_available, machine
    )


@dataclass(frozen=True)
class GroupInput:
    """One (provider, data centre, GPU, node size) group ready to expand into candidates."""

    key: GroupKey
    offers: Sequence[OfferView]
    prices: Mapping[str, Decimal]
    work: GpuWork
    counts: Sequence[int]
    grid: SlotGrid


class CandidateBuilder:
    def __init__(self, options: CandidateOptions, result: CandidateSet) -> None:
        self.options = options
        self.result = result

    def grid_for(self, provider: str) -> SlotGrid:
        zone = self.options.timezones.get(provider, DEFAULT_TIMEZONE)
        return slot_grid(self.options.earliest, self.options.deadline, zone, self.options.holidays)

    def prices(self, offers: Sequence[OfferView]) -> dict[str, Decimal]:
        prices: dict[str, Decimal] = {}
        for offer in offers:
            price = self.options.prices.unit_price(offer)
            if price is None:
                target = self.options.prices.currency
                self.result.note(
                    offer,
                    Msg(
                        "currency: no FX rate for {currency} → {target}",
                        currency=offer.currency,
                        target=target,
                    ),
                )
            else:
                prices[offer.offer_id] = price
        return prices

    def candidate(
        self,
        key: GroupKey,
        offers: Sequence[OfferView],
        prices: Mapping[str, Decimal],
        work: GpuWork,
        cards: int,
        grid: SlotGrid,
    ) -> Candidate | None:
        usable, units = [], {}
        for offer in offers:
            why = fits(offer, cards)
            if why is None:
                usable.append(offer)
                units[offer.offer_id] = -(-cards // offer.cards)
        if not usable:
            return None
        priced = priced_card_hours(work, cards, key[3], self.options.multi_node_efficiency)
        hours = run_hours(priced, cards, key[3], Decimal(1))
        converts = key[0] not in self.options.no_conversion
        bill = self.bill(key)
        options = self.options
        runs = rentable(grid, bill.upload_slots, options.run_windows)
        masks = (runs, rentable(grid, bill.upload_slots, ()))  # hourly, contracts
        cap = daily_cap(grid, options.max_hours_per_day, options.day_zone)
        rates = [
            _rate(o, units[o.offer_id], prices[o.offer_id], grid, converts, *masks) for o in usable
        ]
        trials = free_trials(usable, rates) if self.options.use_free_trial else {}
        rates += [trial for trial, _ in trials.values()]
        problem = ScheduleProblem(
            grid.deadline_slot,
            hours,
            self.options.interruptible,
            self.options.restart_overhead_hours if self.options.interruptible else 0,
            tuple(r for r in rates if isinstance(r, HourlyRate)),
            tuple(r for r in rates if isinstance(r, ContractRate)),
            bill.storage_per_hour,
            *cap,
            runs if options.run_windows else None,
        )
        return Candidate(
            key[0],
            key[1],
            key[2],
            cards,
            key[3],
            work,
            grid,
            problem,
            {o.offer_id: o for o in usable},
            units,
            {o.offer_id: prices[o.offer_id] for o in usable},
            bill,
            {key: offer_id for key, (_, offer_id) in trials.items()},
            priced,
        )

    def bill(self, key: GroupKey) -> DataBill:
        options = self.options
        terms = options.storage_terms.get((key[0], key[1]), StorageTerms())
        return data_bill(options.data, terms, options.prices.currency, options.prices.fx)

    def group(self, key: GroupKey, offers: list[OfferView], work: GpuWork) -> None:
        self.result.candidates.extend(self.expand(self.prelude(key, offers, work)))

    # --- hooks of the lazy builder (comparator.plan.prune.pruning): a group is prepared, then expanded
    def prelude(self, key: GroupKey, offers: list[OfferView], work: GpuWork) -> GroupInput:
        """A group's priced, calendar-checked offers and card counts (no candidate built)."""
        priced = self.prices(offers)
        offers = [o for o in offers if o.offer_id in priced]
        offers = self._calendar_checked(offers)
        counts = card_counts(work, key[3], (o.network for o in offers), self.options.max_nodes)
        return GroupInput(key, offers, priced, work, counts, self.grid_for(key[0]))

    def sketch(self, g: GroupInput, cards: int) -> Candidate | None:
        """The ``cards``-card candidate without its rates (enough for :func:`undominated`)."""
        usable = {o.offer_id: o for o in g.offers if fits(o, cards) is None}
        if not usable:
            return None
        units = {k: -(-cards // o.cards) for k, o in usable.items()}
        hours = work_run_hours(g.work, cards, g.key[3], self.options.multi_node_efficiency)
        problem = ScheduleProblem(g.grid.deadline_slot, hours, self.options.interruptible, 0)
        return Candidate(*g.key[:3], cards, g.key[3], g.work, g.grid, problem, usable, units, {})

    def expand(self, g: GroupInput) -> list[Candidate]:
        """The group's candidates, one per card count worth trying."""
        found = [
            c
            for n in g.counts
            if (c := self.candidate(g.key, g.offers, g.prices, g.work, n, g.grid)) is not None
        ]
        self.note_unusable(g.offers, g.counts, found)
        return undominated(found)

    def _calendar_checked(self, offers: list[OfferView]) -> list[OfferView]:
        kept = []
        for offer in offers:
            if offer.billing not in HOURLY_MODES or not offer.time_of_use:
                kept.append(offer)
                continue
            grid = self.grid_for(offer.provider)
            try:
                shared_factors(
                    offer.time_of_use,
                    grid.first,
                    grid.deadline_slot + offer.min_units - 1,
                    grid.timezone,
                    grid.holidays,
                )
            except CalendarError as exc:
                self.result.note(offer, Msg("time of use: {reason}", reason=exc.msg))
                continue
            kept.append(offer)
        return kept

    def note_unusable(
        self, offers: Sequence[OfferView], counts: Sequence[int], found: Sequence[Candidate]
    ) -> None:
        used = {offer_id for c in found for offer_id in c.offers}
        for offer in offers:
            if offer.offer_id in used:
                continue
            # the smallest placement tried says the most (its text would sort 104 before 24)
            reason = next((r for n in sorted(counts) if (r := fits(offer, n))), None)
            if reason is not None:
                self.result.note(offer, reason)


def undominated(candidates: list[Candidate]) -> list[Candidate]:
    """Drop card counts that are never better: slower or as slow, with more units of each offer."""
    kept = []
    for c in candidates:
        dominated = any(
            o is not c
            and o.cards > c.cards
            and o.run_hours <= c.run_hours
            and set(c.units) <= set(o.units)
            and all(o.units[k] <= c.units[k] for k in c.units)
            for o in candidates
        )
        if not dominated:
            kept.append(c)
    return kept


def build_candidates(
    offers: Sequence[OfferView], work_by_gpu: Mapping[str, GpuWork], options: CandidateOptions
) -> CandidateSet:
    """Every candidate placement of the job over ``offers`` (already eligible)."""
    result = CandidateSet()
    builder = CandidateBuilder(options, result)
    for key, group in group_offers(offers).items():
        work = work_by_gpu.get(key[2])
        if work is not None:
            builder.group(key, group, work.on_link(key[4]))
    return result
