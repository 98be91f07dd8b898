"""Brute force over every rental timeline of a small schedule problem (a test oracle).

Independent of the dynamic programme: it enumerates every sequence of rentals (single hourly
slots, contract chains of any length, idle slots, padding after the deadline), merges them into
segments exactly as billing.md defines them, prices each segment with ``Decimal`` and
``round_money``, and then tries every set of run slots the paid slots allow.
"""

from __future__ import annotations

from collections.abc import Iterator
from decimal import Decimal
from functools import lru_cache

from comparator.domain.money import round_money
from comparator.plan.problem import ScheduleProblem

Piece = tuple[str, int, int, int]  # kind, rate index, start slot, periods (1 for hourly)


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
            if rate.usable(t):
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


def _price(problem: ScheduleProblem, pieces: tuple[Piece, ...]) -> tuple[Decimal, int] | None:
    """Cost and covered-slot bitmask of a timeline, or None when a minimum is not met."""
    total = Decimal(0)
    covered = 0
    for flag, rate, start, end, count in _merge(problem, pieces):
        if flag == 0:
            hourly = problem.hourly[rate]
            if count < hourly.min_slots:
                return None
            total += round_money(sum((hourly.slot_costs[t] for t in range(start, end)), Decimal(0)))
        else:
            contract = problem.contracts[rate]
            if count < contract.min_periods:
                return None
            total += round_money(count * contract.cost)
        for t in range(start, min(end, problem.deadline_slot)):
            covered |= 1 << t
    return total, covered


@lru_cache(maxsize=64)
def _run_sets(
    deadline: int, work: int, overhead: int, interruptible: bool
) -> list[tuple[int, int]]:
    """(bitmask, finish) of every run-slot set with exactly ``work`` slots of work."""
    found = []
    for mask in range(1, 1 << deadline):
        slots = [t for t in range(deadline) if mask >> t & 1]
        blocks = sum(1 for t in slots if not (t > 0 and mask >> (t - 1) & 1))
        if not interruptible and blocks > 1:
            continue
        if len(slots) - overhead * (blocks - 1) == work:
            found.append((mask, slots[-1] + 1))
    return found


def brute_force(problem: ScheduleProblem) -> dict[int, Decimal]:
    """The cheapest cost of finishing by each finish slot that some plan reaches."""
    cheapest_by_cover: dict[int, Decimal] = {}
    for pieces in _timelines(problem):
        priced = _price(problem, pieces)
        if priced is None:
            continue
        cost, covered = priced
        if cost < cheapest_by_cover.get(covered, Decimal("Infinity")):
            cheapest_by_cover[covered] = cost
    best: dict[int, Decimal] = {}
    run_sets = _run_sets(
        problem.deadline_slot,
        problem.work_slots,
        problem.restart_overhead_slots,
        problem.interruptible,
    )
    for covered, cost in cheapest_by_cover.items():
        for mask, finish in run_sets:
            if mask & ~covered == 0 and cost < best.get(finish, Decimal("Infinity")):
                best[finish] = cost
    by_finish: dict[int, Decimal] = {}
    running: Decimal | None = None
    for finish in range(1, problem.deadline_slot + 1):
        if finish in best and (running is None or best[finish] < running):
            running = best[finish]
        if running is not None:
            by_finish[finish] = running
    return by_finish
