"""Lower bounds of groups and card counts for the best-first walk (pure;
docs/planner-pruning.md, rule 2): from the offers' prices and their rules' least factors,
without any slot-price array."""

from __future__ import annotations

import math
from collections.abc import Sequence
from datetime import datetime
from decimal import Decimal
from functools import lru_cache
from typing import Any, NamedTuple
from zoneinfo import ZoneInfo

import numpy as np

from comparator.domain.billing import HOURLY_MODES
from comparator.domain.offer_view import OfferView
from comparator.estimate.throughput import is_rdma
from comparator.plan.bill import DataBill
from comparator.plan.candidates import CandidateOptions, GpuWork, GroupInput
from comparator.plan.dp.grid import SlotGrid
from comparator.plan.dp.pausing.dominated_contracts import most_runs_per_period
from comparator.plan.dp.problem import ScheduleProblem
from comparator.plan.dp.slot_prices import least_factor_within
from comparator.plan.dp.windows import daily_cap, rentable
from comparator.plan.prune.block_floors import blocks_bind, factor_array, group_block_floor
from comparator.plan.prune.block_lengths import Envelope, envelope
from comparator.plan.selection import _days, _fewest_run_slots, _within_daily_cap
from comparator.plan.work_hours import work_run_hours

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


def floors_of(g: GroupInput, options: CandidateOptions) -> list[Floor]:
    """Each offer's floor; an hourly offer's at its rule's least factor over the slots the
    job's run windows allow (every slot without windows), a contract's per period divided by
    the run slots one period can hold (docs/planner-pruning.md, rule 6)."""
    slots = max(g.grid.deadline_slot, 1)
    windows, hours = options.run_windows, options.max_hours_per_day
    allowed = rentable(g.grid, 0, windows)
    least: dict[str, float] = {}  # per time-of-use rule of the group
    out = []
    for offer in g.offers:
        price = float(g.prices[offer.offer_id])
        if offer.billing in HOURLY_MODES:
            rule = offer.time_of_use
            if rule not in least:
                grid = g.grid
                least[rule] = least_factor_within(
                    rule, grid.first, slots, grid.timezone, allowed, grid.holidays
                )
            out.append(Floor(max_cards(offer), offer.cards, price * least[rule], 0, 0))
        else:
            period = offer.period_hours
            most = period_runs(g.grid, windows, hours, options.day_zone, period) or period
            per_period = price / most
            out.append(
                Floor(max_cards(offer), offer.cards, None, per_period, offer.min_units * price)
            )
    return out


def count_key(
    g: GroupInput,
    floors: Sequence[Floor],
    cards: int,
    options: CandidateOptions,
    objective: str,
    bill: DataBill,
    lengths: Envelope | float | None = None,
) -> Key | None:
    """The smallest key the group's ``cards``-card candidate can have (None: no such
    candidate; FIRST: its work cannot fit the window); ``bill`` is its data centre's;
    ``lengths``: the group's :func:`lengths_envelope` (its offers' price per card), whose
    floor for ``cards`` cards bounds the candidate's where higher (an interruptible job with
    restart overhead; docs/planner-pruning.md, "Sixth round: growth"), or that floor per card
    already read (:func:`count_floors`)."""
    usable = [f for f in floors if f.max_cards >= cards]
    if not usable:
        return None
    slots = g.grid.deadline_slot
    work = work_run_hours(g.work, cards, g.key[3], options.multi_node_efficiency)
    if may_not_fit(work, g.grid, bill.upload_slots, options):
        return FIRST
    overhead = options.restart_overhead_hours if options.interruptible else 0
    runs = max(min(slots, work + overhead * (work - 1)), 1)
    floor = min(
        -(-cards // f.cards)
        * (f.hourly if f.hourly is not None else max(f.per_period, f.per_runs / runs))
        for f in usable
    )
    least = work * floor
    if isinstance(lengths, Envelope):
        lengths = lengths.floor(work, overhead)
    if lengths is not None:
        least = max(least, cards * lengths)
    bound = math.floor(least * 100 * (1 - 1e-6)) - (runs + 1) // 2 - 1
    bound += bill.least_cents(work)
    earliest = g.grid.at(work)
    return (1, earliest, bound) if objective == "time" else (1, bound, earliest)


def group_key(
    g: GroupInput,
    floors: Sequence[Floor],
    options: CandidateOptions,
    objective: str,
    bill: DataBill,
    lengths: bool = True,
) -> Key:
    """A key no candidate of the group can beat, from its offers alone (no count is sketched):
    :func:`scaled_key` at the least floor per card of its offers, with its data centre's
    ``bill``; for a job that may not pause, at the least mean over one uninterrupted block
    of the group's cheapest price per slot when higher (:mod:`.block_floors`); with
    ``lengths``, at the block-length floor when higher (:func:`lengths_key_of`)."""
    hours = count_hours(g, options)
    runs = group_runs(g, options, hours)
    floor = min(
        (f.hourly if f.hourly is not None else max(f.per_period, f.per_runs / runs)) / f.cards
        for f in floors
    )
    span = count_span(g.key[3], g.work, g.counts, options)
    scale = key_scale(span, g.work, g.grid, options, g.counts)
    if blocks_bind(options):  # one uninterrupted block of at least its fewest slots
        flat = min(
            (max(f.per_period, f.per_runs / runs) / f.cards for f in floors if f.hourly is None),
            default=math.inf,
        )
        block = group_block_floor(g, options, scale.fewest_slots, flat)
        floor = floor if block is None else max(floor, block)
    key = scaled_key(scale, floor, objective, bill)
    if not lengths or key == FIRST:
        return key
    raised = lengths_key_of(g, options, objective, bill, (hours, runs, scale))
    return key if raised is None else max(key, raised)


def lengths_key_of(
    g: GroupInput,
    options: CandidateOptions,
    objective: str,
    bill: DataBill,
    known: tuple[list[int], int, KeyScale] | None = None,
) -> Key | None:
    """The group's key at its block-length floor (the least over its counts of ``n`` times
    the envelope's floor for ``W(n)``; None: the floor does not apply); ``known``: its counts'
    work slots, ``group_runs`` and key scale, when read."""
    if not restarts(options):
        return None
    if known is None:
        hours = count_hours(g, options)
        runs = group_runs(g, options, hours)
        span = count_span(g.key[3], g.work, g.counts, options)
        known = (hours, runs, key_scale(span, g.work, g.grid, options, g.counts))
    hours, runs, scale = known
    lengths = lengths_envelope(g, options, runs)
    if lengths is None:
        return None
    least = lengths_floor(lengths, hours, g.counts, restarts(options))
    return lengths_key(scale, least, objective, bill)


def count_floors(
    g: GroupInput, cards: Sequence[int], options: CandidateOptions, lengths: Envelope | None
) -> list[float | None]:
    """The envelope's floor for each of ``cards`` (:func:`count_key`'s, read at once)."""
    if lengths is None or not cards:
        return [None] * len(cards)
    eff, overhead = options.multi_node_efficiency, restarts(options)
    works = [work_run_hours(g.work, n, g.key[3], eff) for n in cards]
    floors = lengths.floors(works, overhead)
    if floors is None:  # some count fits no number of blocks: each apart
        return [lengths.floor(w, overhead) for w in works]
    return [float(f) for f in floors]


def count_hours(g: GroupInput, options: CandidateOptions) -> list[int]:
    """``W(n)``, the run slots of each of the group's card counts ``g.counts``, in order."""
    eff = options.multi_node_efficiency
    return [work_run_hours(g.work, n, g.key[3], eff) for n in g.counts]


def restarts(options: CandidateOptions) -> int:
    """The restart overhead the block-length floor reads (0: it does not apply)."""
    return options.restart_overhead_hours if options.interruptible else 0


def lengths_envelope(g: GroupInput, options: CandidateOptions, runs: int) -> Envelope | None:
    """The block-length envelope (:mod:`.block_lengths`) of the group's cheapest price per card
    and run slot on its grid, for blocks of up to the grid's slots (at least any candidate's
    ``R``; one envelope serves every GPU): an hourly offer's price × the slot's factor / cards,
    its contracts' least floor per card (``max(per_period, per_runs / runs)``, ``runs`` at
    least any candidate's ``R``), ``inf`` outside the run windows. Every candidate's per-slot
    minimum for ``n`` cards is at least ``n`` times it (``units ≥ n / cards``), slot by slot.
    None: no overhead, or a rule the calendar cannot read."""
    if not restarts(options):
        return None
    cheapest: dict[str, float] = {}  # per rule, the least price per card
    flat = math.inf
    for offer in g.offers:
        price = float(g.prices[offer.offer_id])
        if offer.billing in HOURLY_MODES:
            rule = offer.time_of_use
            cheapest[rule] = min(price / offer.cards, cheapest.get(rule, math.inf))
        else:
            period = offer.period_hours
            windows, hours = options.run_windows, options.max_hours_per_day
            most = period_runs(g.grid, windows, hours, options.day_zone, period) or period
            flat = min(flat, max(price / most, offer.min_units * price / runs) / offer.cards)
    longest = max(g.grid.deadline_slot, 1)  # ≥ every candidate's R: one envelope per grid
    if len(cheapest) == 1:  # one rule: its envelope, scaled (shared by the groups of a grid)
        ((rule, price),) = cheapest.items()
        cap = flat / price if price > 0 else math.inf
        return _scaled_envelope(
            rule, g.grid, options.run_windows, longest, _rounded_cap(cap), price
        )
    per_slot = np.full(max(g.grid.deadline_slot, 1), flat)
    for rule, price in cheapest.items():
        factors = factor_array(rule, g.grid, options.run_windows)
        if factors is None:
            return None
        np.minimum(per_slot, price * factors, out=per_slot)
    allowed = rentable(g.grid, 0, options.run_windows)
    if allowed is not None:
        per_slot[~np.array(allowed + (False,) * (len(per_slot) - len(allowed)), bool)] = np.inf
    return envelope(per_slot, longest)


def _rounded_cap(cap: float) -> float:
    """``cap`` rounded down to 1/256 (a lower curve: still a floor; fewer envelopes)."""
    return cap if math.isinf(cap) else math.floor(cap * 256) / 256


def _scaled_envelope(
    rule: str, grid: SlotGrid, windows: tuple[str, ...], longest: int, cap: float, price: float
) -> Envelope | None:
    unit = _rule_envelope(rule, grid, windows, longest, cap)
    return None if unit is None else Envelope(unit.lengths, unit.sums * price)


@lru_cache(maxsize=4096)
def _rule_envelope(
    rule: str, grid: SlotGrid, windows: tuple[str, ...], longest: int, cap: float
) -> Envelope | None:
    """The envelope of ``min(cap, f_r(t))`` on ``grid`` (``inf`` outside the run windows)."""
    factors = factor_array(rule, grid, windows)
    if factors is None:
        return None
    return envelope(np.where(np.isfinite(factors), np.minimum(factors, cap), np.inf), longest)


def lengths_floor(
    lengths: Envelope, hours: Sequence[int], counts: Sequence[int], overhead: int
) -> float:
    """The least, over card counts ``n`` of ``W(n)`` work slots (``hours``), of ``n`` times the
    envelope's floor: no candidate's block-length floor is below it (0: some count fits no
    number of blocks, or none is given)."""
    floors = lengths.floors(hours, overhead)
    if floors is None:
        return 0.0
    least = float((np.asarray(counts, dtype=np.float64) * floors).min())
    return least if math.isfinite(least) else 0.0


def lengths_key(scale: KeyScale, least: float, objective: str, bill: DataBill) -> Key:
    """:func:`scaled_key` of a group whose candidates all pay at least ``least`` over their run
    slots (a block-length floor)."""
    return scaled_key(scale, least / scale.card_slots, objective, bill)


def group_runs(g: GroupInput, options: CandidateOptions, hours: Sequence[int] = ()) -> int:
    """At least the run slots any candidate of the group pays (``lower_bound_cents``'s ``R``:
    the window, or fewer when its longest count's work and restarts take fewer); ``hours``:
    :func:`count_hours`, when known."""
    longest = max(hours or count_hours(g, options))
    overhead = options.restart_overhead_hours if options.interruptible else 0
    return max(min(g.grid.deadline_slot, longest + overhead * (longest - 1)), 1)


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
        return work_run_hours(work, n, node, eff)

    slowest = max(hours(part[0]) for part in (single, multi) if part)
    fastest = min(hours(part[-1]) for part in (single, multi) if part)
    return slowest, fastest


class KeyScale(NamedTuple):
    """What a group key reads besides its floor and data bill: the slowest count's run slots
    (whether some count may not fit the window), the card-slots any count runs, half the
    window's slots (rounded up), the fastest count's finish, the fewest run slots of any
    count and the grid.

    Any count ``n`` runs ``W(n) ≥ card_hours / n`` slots (a multi-node efficiency ≤ 1 only
    lengthens it) on ``units(n) ≥ n / cards`` units of an offer, so it costs at least
    ``card_hours`` card-slots at the floor per card, and it runs at least
    ``⌈card_hours / most⌉`` slots (``most`` the largest count), each
    paying the data centre's storage; its finish is no earlier than that of the fastest count.
    """

    slowest: int
    card_slots: float
    half_slots: int
    earliest: datetime
    fewest_slots: int
    grid: SlotGrid


def key_scale(
    span: tuple[int, int],
    work: GpuWork,
    grid: SlotGrid,
    options: CandidateOptions,
    counts: Sequence[int],
) -> KeyScale:
    """The :class:`KeyScale` of a group with these card ``counts`` (:func:`count_span`)."""
    slowest, fastest = span
    slots = grid.deadline_slot
    scale = float(work.card_hours)  # an efficiency ≤ 1 only lengthens the run
    fewest = max(1, math.ceil(scale / max(counts) * (1 - 1e-9)))
    return KeyScale(slowest, scale, (slots + 1) // 2, grid.at(fastest), fewest, grid)


def scaled_key(scale: KeyScale, floor_per_card: float, objective: str, bill: DataBill) -> Key:
    """The key of a group with this :class:`KeyScale` at ``floor_per_card``, whose data centre
    bills ``bill``: FIRST when some count may exceed the window."""
    if scale.slowest > scale.grid.deadline_slot:
        return FIRST
    bound = math.floor(scale.card_slots * floor_per_card * 100 * (1 - 1e-6)) - scale.half_slots - 1
    bound += bill.least_cents(scale.fewest_slots)
    return (1, scale.earliest, bound) if objective == "time" else (1, bound, scale.earliest)


def may_not_fit(work: int, grid: SlotGrid, upload_slots: int, options: CandidateOptions) -> bool:
    """Whether a candidate of ``work`` run slots on ``grid`` may have no bound (its work does
    not fit the slots it may rent: after the upload, inside the run windows, under the daily
    cap), exactly when :func:`comparator.plan.selection.lower_bound_cents` says so: every rate of
    a candidate is rentable on the same slots. Such a count gets the FIRST key, so the walk
    records it as unsolvable as ``choose`` does (rule 2, Claim 3); more work never fits better.
    A group's key is FIRST only when its slowest count exceeds the window (the upload and run
    windows would make nearly every group FIRST); a group dropped whole records its counts
    that may not fit (``prune._Walk.drop``)."""
    hours, zone = options.max_hours_per_day, options.day_zone
    if not (upload_slots or options.run_windows or hours):
        return work > grid.deadline_slot  # every slot of the window may be rented
    overhead = options.restart_overhead_hours if options.interruptible else 0
    return _unfit(grid, upload_slots, options.run_windows, hours, zone, work, overhead)


@lru_cache(maxsize=4096)
def _unfit(
    grid: SlotGrid,
    upload_slots: int,
    windows: tuple[str, ...],
    hours: int | None,
    zone: ZoneInfo,
    work: int,
    overhead: int,
) -> bool:
    slots = grid.deadline_slot
    if work > slots:
        return True
    mask = rentable(grid, upload_slots, windows)
    if mask is None and not hours:
        return False
    cap = daily_cap(grid, hours, zone)
    problem = ScheduleProblem(slots, work, overhead > 0, overhead, (), (), Decimal(0), *cap)
    runnable = np.ones(slots, dtype=bool) if mask is None else np.array(mask, dtype=bool)
    needed = _fewest_run_slots(problem, runnable, overhead)
    if needed is None:
        return True
    kept = _within_daily_cap(problem, np.where(runnable, 0.0, np.inf))
    return int(np.isfinite(kept).sum()) < needed


@lru_cache(maxsize=4096)
def period_runs(
    grid: SlotGrid, windows: tuple[str, ...], hours: int | None, zone: ZoneInfo, period: int
) -> int:
    """The most run slots one contract period can hold on ``grid``: the slots the run windows
    allow in any ``period`` consecutive slots, at most ``hours`` a day under a cap (the
    candidates' own count, ``dp.dominated.most_runs_per_period``, reads a subset of these slots)."""
    slots = grid.deadline_slot
    mask = rentable(grid, 0, windows)
    usable = np.ones(slots, dtype=bool) if mask is None else np.array(mask, dtype=bool)
    cap = daily_cap(grid, hours, zone)
    problem = ScheduleProblem(slots, 1, False, 0, (), (), Decimal(0), *cap)
    return most_runs_per_period(usable, period, cap[0], _days(problem, slots))
