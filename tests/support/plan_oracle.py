"""Brute force over every rental timeline of a small schedule problem (a test oracle).

Independent of the dynamic programme: it enumerates every sequence of rentals (single hourly
slots, contract chains of any length, idle slots, padding after the deadline), merges them into
segments exactly as billing.md defines them, prices each segment with ``Decimal`` and
``round_money``, and then tries every set of run slots the paid slots allow. Every rate has a
machine: consecutive run slots on two machines are a migration (a new run block, which pays the
restart overhead and is refused to a job that may not pause); docs/billing.md. A restart's
overhead lies in the line item where its block starts, and every line item paid before the
finish does some work (a line item rented only to restart in is not a plan). Ties count
*migrations*: run blocks whose machine differs from the previous block's (after a pause or not).
Under a daily cap (``max_run_slots_per_day``) every local day runs at most that many slots.

With :class:`RunRules` (taken from the problem's ``run_allowed`` when it has run windows or a
cap) the job runs only in the ``allowed`` slots (the run windows), and a contract may be paid
for hours the job does not run (window closed, cap reached, or any other pattern: every subset
of its paid slots is tried); hourly slots are still run whenever they are paid before the
finish. Contracts lie wherever their rate is rentable, windows or not.
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from decimal import Decimal

from comparator.domain.money import round_money
from comparator.plan.dp.problem import ScheduleProblem

Piece = tuple[str, int, int, int]  # kind, rate index, start slot, periods (1 for hourly)


@dataclass(frozen=True)
class RunRules:
    """The plan space of contracts with paid idle hours: run only where ``allowed`` (None: in
    every slot), and leave any paid contract slot unrun."""

    allowed: tuple[bool, ...] | None = None

    def runs_at(self, slot: int) -> bool:
        return self.allowed is None or (slot < len(self.allowed) and self.allowed[slot])


def _timelines(problem: ScheduleProblem) -> Iterator[tuple[Piece, ...]]:
    deadline = problem.deadline_slot
    pad_end = deadline + max((r.min_slots for r in problem.hourly), default=1) - 1

    def walk(t: int, pieces: tuple[Piece, ...], covered: int) -> Iterator[tuple[Piece, ...]]:
        if covered + max(0, deadline - t) < problem.work_slots:
            return
        if t >= deadline:
            yield pieces
            last = pieces[-1] if pieces else None
            padding = t < pad_end and last and last[0] == "hourly" and last[2] + 1 == t
            if padding and last and problem.hourly[last[1]].usable(t):
                yield from walk(t + 1, (*pieces, ("hourly", last[1], t, 1)), covered)
            return
        yield from walk(t + 1, pieces, covered)
        for j, rate in enumerate(problem.hourly):
            if rate.usable(t) and _trial_allows(problem, pieces, j, t):
                yield from walk(t + 1, (*pieces, ("hourly", j, t, 1)), covered + 1)
        for j, contract in enumerate(problem.contracts):
            period = contract.period_slots
            longest = (deadline - t + period - 1) // period + contract.min_periods
            for periods in range(1, longest + 1):
                end = t + periods * period
                if all(contract.usable(s) for s in range(t, end)):
                    gained = min(end, deadline) - t
                    yield from walk(end, (*pieces, ("contract", j, t, periods)), covered + gained)

    yield from walk(0, (), 0)


def _trial_allows(problem: ScheduleProblem, pieces: tuple[Piece, ...], j: int, t: int) -> bool:
    """A free trial opens the plan: only before any other rental, contiguous, at most its
    ``trial_slots`` slots."""
    trial = problem.hourly[j].trial_slots
    if not trial:
        return True
    if any(p[0] != "hourly" or p[1] != j for p in pieces) or len(pieces) >= trial:
        return False
    return not pieces or pieces[-1][2] + 1 == t


def _merge(problem: ScheduleProblem, pieces: tuple[Piece, ...]) -> list[list[int]]:
    """Segments as [kind flag, rate, start, end, count] after merging adjacent pieces."""
    segments: list[list[int]] = []
    for kind, rate, start, periods in pieces:
        flag = 0 if kind == "hourly" else 1
        count = 1 if flag == 0 else periods
        end = start + (1 if flag == 0 else periods * problem.contracts[rate].period_slots)
        last = segments[-1] if segments else None
        if last and last[0] == flag and last[1] == rate and last[3] == start:
            last[3] = end
            last[4] += count
            continue
        segments.append([flag, rate, start, end, count])
    return segments


def _price(problem: ScheduleProblem, pieces: tuple[Piece, ...]) -> _Priced | None:
    """Cost, segment count and per-slot machine and hourly flag of a timeline, or None when a
    minimum is not met. ``machines[t]`` is the machine renting slot ``t`` (None where nothing
    is rented)."""
    total = Decimal(0)
    machines: list[str | None] = [None] * problem.deadline_slot
    hourly_slots = [False] * problem.deadline_slot
    items: list[int | None] = [None] * problem.deadline_slot
    segments = _merge(problem, pieces)
    for item, (flag, rate, start, end, count) in enumerate(segments):
        if flag == 0:
            hourly = problem.hourly[rate]
            if count < hourly.min_slots:
                return None
            total += round_money(sum((hourly.slot_costs[t] for t in range(start, end)), Decimal(0)))
            machine = hourly.machine
        else:
            contract = problem.contracts[rate]
            if count < contract.min_periods:
                return None
            total += round_money(count * contract.cost)
            machine = contract.machine
        for t in range(start, min(end, problem.deadline_slot)):
            machines[t] = machine
            hourly_slots[t] = flag == 0
            items[t] = item
    return total, len(segments), (tuple(machines), tuple(hourly_slots), tuple(items))


# machine, hourly flag and line item per slot
Rented = tuple[tuple[str | None, ...], tuple[bool, ...], tuple[int | None, ...]]
_Priced = tuple[Decimal, int, Rented]
Best = tuple[Decimal, int, int, int]  # cost, migrations, line items, finish


def _runs(
    problem: ScheduleProblem, rented: Rented, rules: RunRules | None
) -> list[tuple[int, int, int]]:
    """(migrations, first run slot, finish) of every set of rented run slots doing exactly the
    job's work.

    A block is a maximal run of consecutive run slots on one machine: a pause or a change of
    machine (a migration) starts a new one, which loses the overhead."""
    machines, hourly, items = rented
    overhead = problem.restart_overhead_slots if problem.interruptible else 0
    work, cap = problem.work_slots, problem.max_run_slots_per_day
    days = problem.day_indices(len(machines))
    if rules is None and (cap or problem.run_allowed is not None):
        rules = RunRules(problem.run_allowed)  # the problem's own windows and cap
    found = []
    runnable = [
        t for t, m in enumerate(machines) if m is not None and (rules is None or rules.runs_at(t))
    ]
    for mask in range(1, 1 << len(runnable)):
        slots = [t for i, t in enumerate(runnable) if mask >> i & 1]
        ran = set(slots)
        firsts = [t for t in slots if not (t - 1 in ran and machines[t - 1] == machines[t])]
        if not problem.interruptible and len(firsts) > 1:
            continue
        if len(slots) - overhead * (len(firsts) - 1) != work:
            continue
        if not _line_items_work(items, slots, firsts, overhead):
            continue
        if rules is not None and not _hourly_run(hourly, slots):
            continue
        if cap and not _within_cap(slots, days, cap):
            continue
        moved = sum(1 for a, b in itertools.pairwise(firsts) if machines[a] != machines[b])
        found.append((moved, slots[0], slots[-1] + 1))
    return found


def _line_items_work(
    items: tuple[int | None, ...], slots: list[int], firsts: list[int], overhead: int
) -> bool:
    """A restart's overhead lies in the line item where its block starts, and every line item
    paid before the finish does at least one slot of work (docs/billing.md)."""
    ran = set(slots)
    overhead_slots: set[int] = set()
    for first in firsts[1:]:
        block = [t for t in range(first, first + overhead) if t in ran]
        if any(items[t] != items[first] for t in block):
            return False
        overhead_slots.update(block)
    worked = {items[t] for t in slots if t not in overhead_slots}
    paid = {items[t] for t in range(slots[-1] + 1) if items[t] is not None}
    return paid <= worked


def _within_cap(slots: list[int], days: list[int], cap: int) -> bool:
    """At most ``cap`` run slots a day."""
    return all(count <= cap for count in Counter(days[t] for t in slots).values())


def _hourly_run(hourly: tuple[bool, ...], slots: list[int]) -> bool:
    """Every hourly slot paid before the finish is run (only contracts hold paid idle hours)."""
    ran = set(slots)
    return all(t in ran for t in range(slots[-1] + 1) if hourly[t])


def _plans(problem: ScheduleProblem, rules: RunRules | None = None) -> dict[int, Best]:
    """The best (cost, restarts, line items) of finishing exactly at each finish slot."""
    cheapest: dict[Rented, tuple[Decimal, int]] = {}
    for pieces in _timelines(problem):
        priced = _price(problem, pieces)
        if priced is None:
            continue
        cost, items, rented = priced
        if (cost, items) < cheapest.get(rented, (Decimal("Infinity"), 0)):
            cheapest[rented] = (cost, items)
    best: dict[int, Best] = {}
    for rented, (cost, items) in cheapest.items():
        for moved, first, finish in _runs(problem, rented, rules):
            stored = problem.storage_per_slot * (finish - first)  # the data disk, pauses too
            key = (cost + stored, moved, items, finish)
            if finish not in best or key < best[finish]:
                best[finish] = key
    return best


def brute_force(problem: ScheduleProblem, rules: RunRules | None = None) -> dict[int, Decimal]:
    """The cheapest cost of finishing by each finish slot that some plan reaches."""
    best = _plans(problem, rules)
    by_finish: dict[int, Decimal] = {}
    running: Decimal | None = None
    for finish in range(1, problem.deadline_slot + 1):
        if finish in best and (running is None or best[finish][0] < running):
            running = best[finish][0]
        if running is not None:
            by_finish[finish] = running
    return by_finish


def brute_force_best(problem: ScheduleProblem, rules: RunRules | None = None) -> Best | None:
    """The plan a person would order: cheapest, then fewest migrations, then fewest line
    items, then earliest finish."""
    best = _plans(problem, rules)
    return min(best.values()) if best else None
