"""Per-rate tables of the dynamic programme (:mod:`comparator.plan.dp.dp_solver`), stacked by rate.

Hourly rates: exact prefix sums of slot costs in integer *ticks* (the rate's finest decimal
place), split into whole cents ``a`` and remainders ``b``; the *start class* of a segment is
``b`` at its first slot, and ``carry[j, k, t]`` is the half-up rounding carry (−1, 0 or 1 cent)
of closing at ``t`` a segment of start class ``k``. Contract rates: the remainder of a chain's
exact cost, and what one more period adds in cents. Both know which slots may be rented.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from functools import lru_cache
from itertools import accumulate

import numpy as np
from numpy.typing import NDArray

from comparator.errors import AmountsTooLargeError, PlanError
from comparator.plan.dp.problem import (
    ContractRate,
    HourlyRate,
    ScheduleProblem,
    decimal_places,
    to_ticks,
)

Ints = NDArray[np.int64]
Bools = NDArray[np.bool_]
INF = np.int64(2**62)
FINITE = 2**61
_SCALED_LIMIT = 2**60
# the most cents a candidate's amounts may add up to (every rate over the whole horizon): a
# plan's partial sums, their differences and INF + one of them then stay inside int64
CENT_LIMIT = 2**59


def _ticks_per_cent(values: list[Decimal], what: str) -> tuple[int, int]:
    """(decimal places, ticks per cent) of one rate: its finest decimal place."""
    places = decimal_places(values)
    if places > 12:
        raise PlanError(
            "rate {what}: prices with {places} decimal places are too fine to plan",
            what=what,
            places=places,
        )
    return places, 10 ** (places - 2)


def _unusable_prefix(flags: list[bool], length: int) -> Ints:
    """Running count of unusable slots, padded with unusable slots up to ``length`` slots."""
    padded = flags + [False] * (length - len(flags))
    counts = np.zeros(length + 1, dtype=np.int64)
    counts[1:] = np.cumsum(np.logical_not(np.array(padded, dtype=bool)))
    return counts


def _split_prefix(ticks: list[int], cent: int) -> tuple[Ints, Ints]:
    """Whole cents and remainders (ticks) of the exact prefix sums ``0, t0, t0 + t1, …``.

    Ticks are never negative, so the sums are at most ``max × count``: below 2**62 they are
    summed in int64; above (a price of 10**11 with 12 decimal places is 10**23 ticks) in
    Python's exact integers, and only the cents (checked against ``CENT_LIMIT`` by the
    caller, saturated here) and the remainders (below ``cent`` ≤ 10**10) go to int64."""
    if not ticks or max(ticks) * len(ticks) < 2**62:
        prefix = np.zeros(len(ticks) + 1, dtype=np.int64)
        prefix[1:] = np.cumsum(np.array(ticks, dtype=np.int64))
        return prefix // cent, prefix % cent
    sums = list(accumulate(ticks, initial=0))
    whole = np.array([min(s // cent, CENT_LIMIT) for s in sums], dtype=np.int64)
    return whole, np.array([s % cent for s in sums], dtype=np.int64)


def _usable_flags(available: tuple[bool, ...] | None, rentable: int, horizon: int) -> list[bool]:
    """Whether each slot ``0 … horizon − 1`` may be rented: the first ``rentable`` slots (a
    rate's ``usable``: those with a cost), unless ``available`` says no."""
    flags = [True] * rentable + [False] * (horizon - rentable)
    if available is not None:
        known = min(rentable, len(available))
        flags[:known] = [bool(flag) for flag in available[:known]]
    return flags


@lru_cache(maxsize=64)
def _all_true(rows: int, width: int) -> Bools:
    flags: Bools = np.ones((rows, width), dtype=bool)
    flags.setflags(write=False)
    return flags


def _free_windows(unusable: Ints, first: int, width: int, length: Ints | int) -> Bools:
    """``[rate, d]``: no unusable slot in ``[first + d, first + d + length)`` of each rate."""
    before = unusable[:, first : first + width]
    if isinstance(length, int):
        free: Bools = (unusable[:, first + length : first + length + width] - before) == 0
        return free
    after = np.stack(
        [
            row[first + n : first + n + width]
            for row, n in zip(unusable, length.tolist(), strict=True)
        ]
    )
    free = (after - before) == 0
    return free


@dataclass(frozen=True)
class Ties:
    """How the programme breaks cost ties: a value is ``cents·scale + migrations·restart +
    segments·segment``, so that the cheapest value is the cheapest plan, then the one with the
    fewest migrations (changes of machine; a resume on the same machine is none), then the
    fewest line items. A plan has at most
    ``deadline`` segments (each runs a slot of its own), so the parts never carry into the next;
    when the scaled amounts could overflow, ties are left unbroken (scale 1, exact cents)."""

    scale: int = 1
    restart: int = 0
    segment: int = 0

    @staticmethod
    def for_problem(problem: ScheduleProblem) -> Ties:
        unit = problem.deadline_slot + 1
        scale = unit * unit
        bound = Decimal(0)
        for hourly in problem.hourly:
            bound += sum((abs(c) for c in hourly.slot_costs), Decimal(0))
        for contract in problem.contracts:
            periods = problem.deadline_slot // contract.period_slots + contract.min_periods + 2
            bound += contract.cost * periods
        bound += problem.storage_per_slot * (problem.deadline_slot + 1)
        cents = int(bound * 100) + problem.deadline_slot + 2
        if cents >= CENT_LIMIT:
            raise AmountsTooLargeError(
                "amounts: up to {amount} over the horizon, past the {limit} the planner "
                "computes exactly",
                amount=f"{bound:.2E}",
                limit=f"{Decimal(CENT_LIMIT) / 100:.2E}",
            )
        if cents * scale * 4 >= _SCALED_LIMIT:
            return Ties()
        return Ties(scale, unit, 1)

    def cents(self, value: int) -> int:
        return value // self.scale


class Grid:
    """Values of one family of states (exact cents; ``INF`` where unreachable)."""

    def __init__(self, shape: tuple[int, ...]) -> None:
        self.values: Ints = np.full(shape, INF)

    def relax(self, index: tuple[Ints | slice, ...], values: Ints) -> None:
        """Lower the states at ``index`` (distinct cells) to ``values`` where smaller."""
        self.values[index] = np.minimum(self.values[index], values)

    def relax_view(self, index: tuple[int | slice, ...], values: Ints) -> None:
        """Lower ``values[index]`` (basic indexing: a view) where smaller."""
        current = self.values[index]
        np.minimum(current, values, out=current)


class HourlyRates:
    """Prefix sums, start classes and rounding carries of every hourly rate, stacked."""

    def __init__(
        self, rates: tuple[HourlyRate, ...], deadline: int, overhead: int, ties: Ties = Ties()
    ) -> None:
        self.rates = rates
        self.ties = ties
        self.min_slots = np.array([r.min_slots for r in rates], dtype=np.int64)
        longest = int(self.min_slots.max())
        self.length = deadline + longest  # prefix indices 0 .. deadline + longest - 1
        self.reach = deadline + longest + overhead + 2  # slots a window test may look at
        tables = [self._tables(r, deadline) for r in rates]
        self.a = np.stack([t[0] for t in tables])
        self.b = np.stack([t[1] for t in tables])
        self.unusable = np.stack([t[2] for t in tables])
        self.cent = np.array([t[3] for t in tables], dtype=np.int64)
        self.places = [t[4] for t in tables]
        classes = [np.unique(b[:deadline]) for b in self.b]
        self.class_count = max(len(c) for c in classes)
        self.start_class = np.stack(
            [np.searchsorted(c, b[:deadline]) for c, b in zip(classes, self.b, strict=True)]
        )
        self.carry = self._carry_table(classes)
        self.scaled_a: Ints = self.a * ties.scale
        self.scaled_carry: Ints = self.carry * ties.scale
        horizons = [deadline + r.min_slots - 1 for r in rates]
        self.all_free = all(int(self.unusable[j, h]) == 0 for j, h in enumerate(horizons))

    def _tables(self, rate: HourlyRate, deadline: int) -> tuple[Ints, Ints, Ints, int, int]:
        horizon = deadline + rate.min_slots - 1
        usable = _usable_flags(rate.available, min(horizon, len(rate.slot_costs)), horizon)
        costs = rate.slot_costs[:horizon]
        distinct = list(dict.fromkeys(c for c, ok in zip(costs, usable, strict=False) if ok))
        places, cent = _ticks_per_cent(distinct, rate.key)  # time-of-use: a few prices
        tick_of = {cost: to_ticks(cost, places) for cost in distinct}
        ticks = [tick_of[c] if ok else 0 for c, ok in zip(costs, usable, strict=False)]
        ticks += [0] * (horizon - len(ticks))
        ticks += [0] * (self.length - 1 - horizon)
        whole, parts = _split_prefix(ticks, cent)
        if int(whole[-1]) >= CENT_LIMIT:
            raise AmountsTooLargeError(
                "amounts: rate {key} adds up past what the planner computes exactly", key=rate.key
            )
        unusable = _unusable_prefix(usable, self.reach)
        return whole, parts, unusable, cent, places

    def _carry_table(self, classes: list[Ints]) -> Ints:
        """``carry[j, k, t]``: rounding carry of closing at ``t`` a segment of start class k."""
        carry = np.zeros((len(classes), self.class_count, self.length), dtype=np.int64)
        rows = np.arange(self.class_count)[:, None]
        for j, values in enumerate(classes):
            cent, half = int(self.cent[j]), int(self.cent[j]) // 2
            low = np.searchsorted(values, self.b[j] + half - cent, side="right")
            high = np.searchsorted(values, self.b[j] + half, side="right")
            carry[j] = (rows < low).astype(np.int64) - (rows >= high)
        return carry

    def free(self, first: int, width: int, length: Ints | int) -> Bools:
        """``[rate, d]``: whether slots ``[first + d, first + d + length)`` may be rented."""
        if self.all_free:
            return _all_true(len(self.rates), width)
        return _free_windows(self.unusable, first, width, length)


class ContractRates:
    """Chain classes (remainder of the exact chain cost) of every contract rate, stacked."""

    def __init__(self, rates: tuple[ContractRate, ...], deadline: int, ties: Ties = Ties()) -> None:
        self.rates = rates
        self.ties = ties
        self.period = np.array([r.period_slots for r in rates], dtype=np.int64)
        self.min_periods = np.array([r.min_periods for r in rates], dtype=np.int64)
        self.span = self.period * self.min_periods
        chains = [self._chain(r, deadline) for r in rates]
        self.class_count = max(len(c[2]) for c in chains)
        self.first_cents = np.array([c[0] for c in chains], dtype=np.int64)
        self.cost_ticks = [c[1] for c in chains]
        self.cent = [c[3] for c in chains]
        self.next_class = np.full((len(rates), self.class_count), -1, dtype=np.int64)
        self.increment = np.zeros((len(rates), self.class_count), dtype=np.int64)
        for j, (_, _, nxt, _, inc) in enumerate(chains):
            self.next_class[j, : len(nxt)] = nxt
            self.increment[j, : len(inc)] = inc
        self.first_value: Ints = self.first_cents * ties.scale + ties.segment
        self.scaled_increment: Ints = self.increment * ties.scale
        horizon = deadline + int(self.span.max()) + int(self.period.max()) + 1
        self.unusable = np.stack(
            [_unusable_prefix(_usable_flags(r.available, horizon, horizon), horizon) for r in rates]
        )
        self.all_free = not self.unusable[:, -1].any()

    @staticmethod
    def _chain(rate: ContractRate, deadline: int) -> tuple[int, int, list[int], int, list[int]]:
        places, cent = _ticks_per_cent([rate.cost], rate.key)
        cost = to_ticks(rate.cost, places)
        first = cent // 2 + rate.min_periods * cost
        limit = deadline // rate.period_slots + 3
        index: dict[int, int] = {}
        remainders: list[int] = []
        remainder = first % cent
        while remainder not in index and len(remainders) < limit:
            index[remainder] = len(remainders)
            remainders.append(remainder)
            remainder = (remainder + cost) % cent
        nxt = [index.get((r + cost) % cent, -1) for r in remainders]
        increment = [(r + cost) // cent for r in remainders]
        return first // cent, cost, nxt, cent, increment
