"""Floors for a job that may not pause: the least mean price over one uninterrupted block
(pure; docs/planner-pruning.md, rule 2's block bound, rules 5 and 6).

A job with ``interruptible = false`` and no daily cap runs one block of ``W(n)`` consecutive
slots, and every count ``n`` of a group runs at least its ``fewest`` slots ``W₀``; so each
candidate pays at least ``card_hours`` times the least *mean* price per card over any block
of ``W ≥ W₀`` consecutive slots it may run in — above the cheapest slot wherever time-of-use
rules make nights cheap. The mean is taken over the pointwise cheapest offer of the group
(the DP may switch between offers of one machine without a pause, so each offer's own least
mean would not be a bound). For the summaries, whose offers are not read, only a group whose
offers are all hourly with one time-of-use rule gets more than its least factor: its
summary's floor times :meth:`BlockRatios.ratio`, the rule's least block mean over its least
factor on the widened window.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from datetime import timedelta
from functools import lru_cache
from typing import NamedTuple
from zoneinfo import ZoneInfo

import numpy as np
from numpy.typing import NDArray

from comparator.domain.billing import HOURLY_MODES
from comparator.domain.offer_filter import GroupSummary
from comparator.domain.zones import DEFAULT_TIMEZONE
from comparator.errors import CalendarError
from comparator.plan.candidates import CandidateOptions, GroupInput
from comparator.plan.dp.grid import PRICE_PLACES, SlotGrid, slot_grid
from comparator.plan.dp.slot_prices import shared_factors
from comparator.plan.dp.windows import rentable
from comparator.plan.prune.block_lengths import Envelope, envelope

MAX_RULES = 200  # time-of-use rules priced in SQL; any other gets the factor 0 (still a bound)
MARGIN = 1 - 1e-9  # the prefix sums' float error is far below this
CELLS = 1 << 18  # (start, length) pairs read at once


def blocks_bind(options: CandidateOptions) -> bool:
    """Whether every plan of the job runs one uninterrupted block (``selection._least_block``
    bounds its candidates so): it may not pause and has no daily cap."""
    return not options.interruptible and not options.max_hours_per_day


def least_block_mean(per_slot: NDArray[np.float64], fewest: int) -> float | None:
    """The least mean of ``per_slot`` over any ``W ≥ fewest`` consecutive finite slots (None:
    no such block). Any block of ``L ≥ fewest`` slots splits into consecutive pieces of
    ``fewest`` to ``2·fewest − 1`` slots, and its mean is a weighted mean of theirs, so only
    those lengths are read."""
    slots, fewest = len(per_slot), max(fewest, 1)
    if slots < fewest:
        return None
    finite = np.isfinite(per_slot)
    sums = np.concatenate(([0.0], np.cumsum(np.where(finite, per_slot, 0.0))))
    gaps = np.concatenate(([0], np.cumsum(~finite)))
    longest = min(2 * fewest - 1, slots)
    step = max(1, CELLS // (slots - fewest + 1))  # lengths read at once
    least = np.inf
    for low in range(fewest, longest + 1, step):
        lengths = np.arange(low, min(low + step - 1, longest) + 1)
        starts = np.arange(slots - low + 1)
        ends = starts[:, None] + lengths[None, :]  # past the slots: masked below
        inside = ends <= slots
        ends = np.minimum(ends, slots)
        whole = inside & (gaps[ends] == gaps[starts][:, None])
        if whole.any():
            means = (sums[ends] - sums[starts][:, None]) / lengths[None, :]
            least = min(least, float(means[whole].min()))
    return least if np.isfinite(least) else None


@lru_cache(maxsize=4096)
def factor_array(rule: str, grid: SlotGrid, windows: tuple[str, ...]) -> NDArray[np.float64] | None:
    """A rule's factor in every slot of ``grid`` the run ``windows`` allow (inf in the
    others), as floats; None when the calendar cannot say."""
    slots = max(grid.deadline_slot, 1)
    try:
        factors = shared_factors(rule, grid.first, slots, grid.timezone, grid.holidays)
    except CalendarError:
        return None
    out = np.array(factors, dtype=float)
    allowed = rentable(grid, 0, windows)
    if allowed is not None:
        out[~np.array(allowed + (False,) * (slots - len(allowed)), bool)] = np.inf
    out.setflags(write=False)
    return out


def group_block_floor(
    g: GroupInput, options: CandidateOptions, fewest: int, flat: float
) -> float | None:
    """The least mean, over any block of ``W ≥ fewest`` consecutive slots the run windows
    allow on the group's grid, of the cheapest price per card and run slot of its offers:
    an hourly offer's price × the slot's factor / cards, or ``flat``, its contracts' least
    floor per card and run slot (``bounds.group_key``); None: no such block."""
    grid, windows = g.grid, options.run_windows
    slots = max(grid.deadline_slot, 1)
    cheapest: dict[str, float] = {}  # per rule, the least price per card
    for offer in g.offers:
        if offer.billing in HOURLY_MODES:
            price, rule = float(g.prices[offer.offer_id]) / offer.cards, offer.time_of_use
            cheapest[rule] = min(price, cheapest.get(rule, np.inf))
    per_slot = np.full(slots, flat)
    for rule, price in cheapest.items():
        factors = factor_array(rule, grid, windows)
        if factors is None:
            return None
        np.minimum(per_slot, price * factors, out=per_slot)
    allowed = rentable(grid, 0, windows)
    if allowed is not None:  # the job runs only inside its windows, whatever it rents
        per_slot[~np.array(allowed + (False,) * (slots - len(allowed)), bool)] = np.inf
    least = least_block_mean(per_slot, fewest)
    return None if least is None else least * MARGIN


class RuleCurve(NamedTuple):
    """Time-of-use rules over the summaries' widened window: the least of their factors over
    the factor each was floored by, in every slot the run windows allow (inf elsewhere), its
    least and greatest there, and the greatest of any one rule's factor over its floor."""

    factors: NDArray[np.float64]
    least: float
    most: float
    widest: float


class SummaryFloors:
    """A summary's floor per card and run slot on its own run slots (docs/planner-pruning.md,
    rules 5 and 6): a contract pays its fewest periods over at most the run slots of the
    group's slowest count, and a job that may not pause pays, over one block of at least the
    group's fewest slots, at least the least mean of the cheapest offer's price per slot."""

    def __init__(
        self, options: CandidateOptions, most_runs: int, factors: Mapping[str, float] | None
    ) -> None:
        self.options, self.most_runs, self.factors = options, most_runs, factors or {}
        self.binds = blocks_bind(options)
        self.overhead = options.restart_overhead_hours if options.interruptible else 0
        day = timedelta(days=1)
        self.widened = (options.earliest - day, options.deadline + day)
        self.grid = slot_grid(*self.widened, DEFAULT_TIMEZONE, options.holidays)
        self.complete = len(self.factors) < MAX_RULES  # every rule of the job was floored
        self.curves: dict[tuple[str, str], RuleCurve | None] = {}
        self.means: dict[tuple[tuple[str, str], int, float], float | None] = {}
        self.steady: dict[ZoneInfo, bool] = {}
        self.envelopes: dict[tuple[int, float], Envelope] = {}
        self.floors_by_counts: dict[
            tuple[int, float, int, tuple[int, ...], tuple[int, ...]],
            tuple[NDArray[np.float64], NDArray[np.float64]] | None,
        ] = {}
        if self.binds and not self.steady_zone(DEFAULT_TIMEZONE):
            self.binds = False

    def lengths(
        self, parts: Sequence[GroupSummary], discount: float, zone: ZoneInfo, scale: Scale
    ) -> float:
        """A floor on what any candidate of the group pays over its run slots, by the
        block-length floor (:mod:`.block_lengths`; docs/planner-pruning.md, "Sixth round:
        growth"); 0 where it does not apply. Per card and run slot, every offer's price is at
        least ``c(t) = d·H·x(t) − μ``: ``x = min(F/H, ψ)`` (``H`` the least hourly floor per
        card, ``F`` the contracts' ``max(A, B / R_g)``, ``ψ`` the rules' curve) and ``μ = h·M·κ``
        the rounding of each price read, as in :meth:`floor`. A plan of count ``n`` on the
        provider's grid is a plan of the same blocks on the widened one (a steady zone), so it
        pays at least ``n·(d·H·Λ(x, W(n)) − μ·R)``, ``Λ`` the block-length floor (monotone:
        ``x`` is below ``c``'s share slot by slot) and ``R ≥`` its run slots."""
        hourly = [s for s in parts if s.least_hourly_per_card is not None]
        ranges = [s.hourly_rules for s in hourly if s.hourly_rules is not None]
        if not (self.overhead and scale.counts and hourly and len(ranges) == len(hourly)):
            return 0.0
        if not (self.steady_zone(DEFAULT_TIMEZONE) and self.steady_zone(zone)):
            return 0.0
        cheapest = min(s.least_hourly_per_card or 0.0 for s in hourly)
        curve = self.curve((min(r[0] for r in ranges), max(r[1] for r in ranges)))
        if curve is None or cheapest <= 0:
            return 0.0
        minima = [s.least_minimum_per_card for s in parts if s.least_minimum_per_card is not None]
        runs = self.runs(scale.longest)
        contract, scale_up = math.inf, curve.widest
        if minima:
            contract = max(contract_floor(parts), min(minima) / runs)
            scale_up = max(scale_up, self.most_runs / runs)
        margin = float(PRICE_PLACES) / 2 * max(s.most_factor_per_card for s in parts)
        step = curve.most / 256
        cap = contract / cheapest
        cap = math.inf if cap >= curve.most else math.floor(cap / step) * step
        floors = self.count_floors(curve, cap, runs, scale)
        if floors is None:
            return 0.0
        paid = floors[1] * (discount * cheapest * MARGIN) - floors[0] * (margin * scale_up * runs)
        return max(float(paid.min()), 0.0)

    def count_floors(
        self, curve: RuleCurve, cap: float, runs: int, scale: Scale
    ) -> tuple[NDArray[np.float64], NDArray[np.float64]] | None:
        """(the counts ``n``, ``n·Λ(min(cap, ψ), W(n))``) for blocks of at most ``runs`` slots
        (None: some count fits no number of blocks); cached per rule range, rounded cap, length
        and counts, as is the envelope per rule range, rounded cap and length."""
        key = (id(curve), cap, runs, scale.counts, scale.hours)
        if key in self.floors_by_counts:
            return self.floors_by_counts[key]
        shape = (id(curve), cap)  # blocks up to the widened window's slots (≥ every R)
        if (known := self.envelopes.get(shape)) is None:
            factors = curve.factors
            capped = np.where(np.isfinite(factors), np.minimum(factors, cap), np.inf)
            known = self.envelopes[shape] = envelope(capped, len(factors))
        floors = known.floors(scale.hours, self.overhead)
        counts = np.asarray(scale.counts, dtype=np.float64)
        out = None if floors is None else (counts, counts * floors)
        self.floors_by_counts[key] = out
        return out

    def steady_zone(self, zone: ZoneInfo) -> bool:
        """Whether ``zone``'s offset from UTC is the same in every hour of the widened window
        (its consecutive slots are consecutive local hours)."""
        if (known := self.steady.get(zone)) is None:
            grid = slot_grid(*self.widened, zone, self.options.holidays)
            offsets = {grid.at(t).utcoffset() for t in range(0, grid.deadline_slot + 1)}
            known = self.steady[zone] = len(offsets) == 1
        return known

    def runs(self, longest: int) -> int:
        """At least the run slots (paid, overhead included) of any count whose work is at
        most ``longest`` slots: ``selection.lower_bound_cents``'s ``R``."""
        return min(self.most_runs, max(1, longest + self.overhead * (longest - 1)))

    def floor(
        self, parts: Sequence[GroupSummary], discount: float, zone: ZoneInfo, scale: Scale
    ) -> float:
        """At least :func:`streamed._summary_floor`'s: ``d·x − h·M·κ`` where ``x`` is the
        least of the hourly offers' floor (or, for one rule and one block, the least block
        mean of the cheaper of them and the contracts) and the contracts' ``max(A,
        B / R_g)``, and ``κ ≥ 1`` covers the rounding of each price it read."""
        least = least_per_card(parts)
        margin = float(PRICE_PLACES) / 2 * max(s.most_factor_per_card for s in parts)
        hourly = [s for s in parts if s.least_hourly_per_card is not None]
        minima = [s.least_minimum_per_card for s in parts if s.least_minimum_per_card]
        contract, scale_up = math.inf, 1.0
        if minima:
            runs = self.runs(scale.longest)
            contract = max(contract_floor(parts), min(minima) / runs)
            scale_up = self.most_runs / runs
        if not hourly:
            per_slot = contract
        else:
            per_slot, wide = self._hourly(hourly, contract, zone, scale.fewest)
            scale_up = max(scale_up, wide)
        if not math.isfinite(per_slot):
            per_slot = least
        return max(per_slot * discount - margin * scale_up, 0.0) * MARGIN

    def _hourly(
        self, hourly: Sequence[GroupSummary], contract: float, zone: ZoneInfo, fewest: int
    ) -> tuple[float, float]:
        """(the floor with the hourly offers, the rounding margin's scale). Each hourly offer
        of rule ``r`` costs at least ``H·f_r(t)/m_r`` per card (``H`` its least floor,
        ``m_r`` the factor the catalog floored ``r`` by), so the cheapest costs at least
        ``H·ψ(t)``, ``ψ`` the least ``f_r/m_r`` over the rules between the group's least and
        greatest (every rule of the group is among them)."""
        cheapest = min(s.least_hourly_per_card or 0.0 for s in hourly)
        ranges = [s.hourly_rules for s in hourly if s.hourly_rules is not None]
        if not (self.binds and len(ranges) == len(hourly) and self.steady_zone(zone)):
            return min(cheapest, contract), 1.0
        span = (min(r[0] for r in ranges), max(r[1] for r in ranges))
        curve = self.curve(span)
        if curve is None:
            return min(cheapest, contract), 1.0
        cap = contract / cheapest if cheapest > 0 else math.inf
        mean = self.capped_mean(span, fewest, cap, curve)
        if mean is None:
            return min(cheapest, contract), 1.0
        return cheapest * mean, curve.widest

    def curve(self, span: tuple[str, str]) -> RuleCurve | None:
        """``ψ`` over the widened window for the rules from ``span[0]`` to ``span[1]`` (None:
        some rule among them the catalog did not floor, or no slot is allowed)."""
        if span not in self.curves:
            self.curves[span] = self._curve(span)
        return self.curves[span]

    def _curve(self, span: tuple[str, str]) -> RuleCurve | None:
        if span[0] != span[1] and not self.complete:
            return None  # rules past MAX_RULES may lie between: not all are known
        rules = [r for r in self.factors if span[0] <= r <= span[1]]
        if span[0] not in self.factors or span[1] not in self.factors:
            return None
        least = np.full(max(self.grid.deadline_slot, 1), np.inf)
        widest = 1.0
        for rule in rules:
            factors, floor = (
                factor_array(rule, self.grid, self.options.run_windows),
                self.factors[rule],
            )
            if factors is None or floor <= 0:
                return None
            np.minimum(least, factors / floor, out=least)
            widest = max(widest, float(factors[np.isfinite(factors)].max(initial=floor)) / floor)
        finite = least[np.isfinite(least)]
        if not len(finite):
            return None
        return RuleCurve(least, float(finite.min()), float(finite.max()), widest)

    def capped_mean(
        self, span: tuple[str, str], fewest: int, cap: float, curve: RuleCurve
    ) -> float | None:
        """The least mean of ``min(cap, ψ)`` over any block of ``W ≥ fewest`` allowed slots,
        with ``cap`` rounded down to 1/256 of ``ψ``'s greatest (the mean only grows with the
        cap: still a floor; one computation per rounded cap)."""
        step = curve.most / 256
        cap = curve.most if cap >= curve.most else math.floor(cap / step) * step
        if cap <= curve.least:
            return cap
        if (key := (span, fewest, cap)) not in self.means:
            capped = np.where(np.isfinite(curve.factors), np.minimum(curve.factors, cap), np.inf)
            mean = least_block_mean(capped, fewest)
            self.means[key] = None if mean is None else mean * MARGIN
        return self.means[key]


class Scale(NamedTuple):
    """What a summary's floor reads of its group's counts: the fewest and the most work
    slots of any of them, and (for the block-length floor) the counts and their work slots."""

    fewest: int
    longest: int
    counts: tuple[int, ...] = ()
    hours: tuple[int, ...] = ()


def contract_floor(parts: Sequence[GroupSummary]) -> float:
    """``A`` of the parts' contracts: the least ``price × tax × FX × m / cards`` of their
    contracts where the catalog summed it (``least_contract_per_card``), else of all their
    offers (``least_per_card``, the hourly ones too). Every contract offer pays at least its
    own ``A_o`` and ``B_o / R`` per card and run slot (rule 6), so their least pays at least
    ``max(min A_o, min B_o / R)``; the hourly offers' floor is no floor of a contract's
    (docs/planner-pruning.md, "Seventh round")."""
    known = [s.least_contract_per_card for s in parts if s.least_contract_per_card is not None]
    if known and all(
        s.least_contract_per_card is not None for s in parts if s.least_minimum_per_card
    ):
        return min(known)
    return least_per_card(parts)


def least_per_card(parts: Sequence[GroupSummary]) -> float:
    """The least ``least_per_card`` of the parts (0 where none has an FX rate)."""
    return min((s.least_per_card for s in parts if s.least_per_card is not None), default=0)
