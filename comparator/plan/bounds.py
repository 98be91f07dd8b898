"""Lower bounds of groups and card counts for the best-first walk (pure;
docs/planner-pruning.md, rule 2): from the offers' prices and their rules' least factors,
without any slot-price array."""

from __future__ import annotations

import math
from collections.abc import Sequence
from datetime import datetime
from typing import Any, NamedTuple

from comparator.domain.billing import HOURLY_MODES
from comparator.domain.offer_view import OfferView
from comparator.estimate.throughput import is_rdma, run_hours
from comparator.plan.candidates import CandidateOptions, GpuWork, GroupInput
from comparator.plan.grid import SlotGrid
from comparator.plan.slot_prices import least_factor

Key = tuple[Any, ...]
FIRST: Key = (0,)  # groups with an infeasible card count are expanded first (recorded as such)


def max_cards(offer: OfferView) -> float:
    """The most cards ``offer`` can rent (its stock of units; one node without RDMA)."""
    most = math.inf if offer.stock is None else offer.stock * offer.cards
    return most if is_rdma(offer.network) else min(most, offer.node_cards)


class Floor(NamedTuple):
    """What one offer contributes to a count's bound: per unit and run slot, at least
    ``hourly`` (hourly offers) or ``max(per_period, per_runs / runs)`` (contracts). A tuple:
    one is built for each of the job's offers."""

    max_cards: float
    cards: int
    hourly: float | None
    per_period: float
    per_runs: float


def floors_of(g: GroupInput) -> list[Floor]:
    slots = max(g.grid.deadline_slot, 1)
    least: dict[str, float] = {}  # per time-of-use rule of the group
    out = []
    for offer in g.offers:
        price = float(g.prices[offer.offer_id])
        if offer.billing in HOURLY_MODES:
            rule = offer.time_of_use
            if rule not in least:
                least[rule] = least_factor(rule, g.grid.first, slots, g.grid.timezone)
            out.append(Floor(max_cards(offer), offer.cards, price * least[rule], 0, 0))
        else:
            per_period = price / offer.period_hours
            out.append(
                Floor(max_cards(offer), offer.cards, None, per_period, offer.min_units * price)
            )
    return out


def count_key(
    g: GroupInput, floors: Sequence[Floor], cards: int, options: CandidateOptions, objective: str
) -> Key | None:
    """The smallest key the group's ``cards``-card candidate can have (None: no such
    candidate; FIRST: its work cannot fit the window)."""
    usable = [f for f in floors if f.max_cards >= cards]
    if not usable:
        return None
    slots = g.grid.deadline_slot
    work = run_hours(g.work.card_hours_on(cards), cards, g.key[3], options.multi_node_efficiency)
    if work > slots:
        return FIRST
    overhead = options.restart_overhead_hours if options.interruptible else 0
    runs = max(min(slots, work + overhead * (work - 1)), 1)
    floor = min(
        -(-cards // f.cards)
        * (f.hourly if f.hourly is not None else max(f.per_period, f.per_runs / runs))
        for f in usable
    )
    bound = math.floor(work * floor * 100 * (1 - 1e-6)) - (runs + 1) // 2 - 1
    earliest = g.grid.at(work)
    return (1, earliest, bound) if objective == "time" else (1, bound, earliest)


def group_key(
    g: GroupInput, floors: Sequence[Floor], options: CandidateOptions, objective: str
) -> Key:
    """A key no candidate of the group can beat, from its offers alone (no count is sketched):
    :func:`bound_key` at the least floor per card of its offers."""
    runs = max(g.grid.deadline_slot, 1)
    floor = min(
        (f.hourly if f.hourly is not None else max(f.per_period, f.per_runs / runs)) / f.cards
        for f in floors
    )
    return bound_key(g.key[3], g.work, g.counts, g.grid, options, objective, floor)


def bound_key(
    node: int,
    work: GpuWork,
    counts: Sequence[int],
    grid: SlotGrid,
    options: CandidateOptions,
    objective: str,
    floor_per_card: float,
) -> Key:
    """The group key of a group of ``node``-card machines with these card ``counts`` whose
    offers cost at least ``floor_per_card`` per card and run slot.

    Any count ``n`` runs ``W(n) ≥ card_hours / (n · max(1, efficiency))`` slots on
    ``units(n) ≥ n / cards`` units of an offer, so it costs at least
    ``card_hours / max(1, efficiency)`` card-slots at that floor; its finish is no earlier
    than that of the fastest count. FIRST: some count may not fit the window.
    """
    span = count_span(node, work, counts, options)
    return span_key(span, work, grid, options, objective, floor_per_card)


def count_span(
    node: int, work: GpuWork, counts: Sequence[int], options: CandidateOptions
) -> tuple[int, int]:
    """(slowest, fastest) run slots the group key reads: the slower of the smallest count
    within a node and the smallest beyond, and the faster of the largest of each."""
    counts = sorted(counts)
    single = [n for n in counts if n <= node]
    multi = [n for n in counts if n > node]
    eff = options.multi_node_efficiency

    def hours(n: int) -> int:
        return run_hours(work.card_hours_on(n), n, node, eff)

    slowest = max(hours(part[0]) for part in (single, multi) if part)
    fastest = min(hours(part[-1]) for part in (single, multi) if part)
    return slowest, fastest


def span_key(
    span: tuple[int, int],
    work: GpuWork,
    grid: SlotGrid,
    options: CandidateOptions,
    objective: str,
    floor_per_card: float,
) -> Key:
    """:func:`bound_key` from the group's :func:`count_span`."""
    return scaled_key(key_scale(span, work, grid, options), floor_per_card, objective)


class KeyScale(NamedTuple):
    """What a group key reads besides its floor: whether some count cannot fit the window,
    the card-slots any count runs, half the window's slots (rounded up) and the fastest
    count's finish."""

    first: bool
    card_slots: float
    half_slots: int
    earliest: datetime


def key_scale(
    span: tuple[int, int], work: GpuWork, grid: SlotGrid, options: CandidateOptions
) -> KeyScale:
    slowest, fastest = span
    slots = grid.deadline_slot
    scale = float(work.card_hours) / max(1.0, float(options.multi_node_efficiency))
    return KeyScale(slowest > slots, scale, (slots + 1) // 2, grid.at(fastest))


def scaled_key(scale: KeyScale, floor_per_card: float, objective: str) -> Key:
    """The key of a group with this :class:`KeyScale` at ``floor_per_card``."""
    if scale.first:
        return FIRST
    bound = math.floor(scale.card_slots * floor_per_card * 100 * (1 - 1e-6)) - scale.half_slots - 1
    return (1, scale.earliest, bound) if objective == "time" else (1, bound, scale.earliest)
