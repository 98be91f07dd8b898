"""From a MILP solution's paid slots and periods to a schedule in the DP's terms.

Paid items are merged into segments (adjacent items of one rate become one segment); the job
then runs in every paid slot until its work is done, skipping blocks too short to gain anything
after the restart overhead; hourly segments are trimmed to what is run (or their minimum), and
segments without a run slot are dropped. The result never costs more than the MILP's solution.
"""

from __future__ import annotations

from collections.abc import Sequence
from decimal import Decimal

from comparator.domain.money import round_money
from comparator.plan.candidates import Candidate
from comparator.plan.dp.problem import HourlyRate, ScheduledSegment, ScheduleResult


def canonical_schedule(
    cand: Candidate, items: list[tuple[int, int, str, int]]
) -> ScheduleResult | None:
    """Merge paid items into segments and run every paid slot until the work is done.

    Blocks whose gain would not exceed the restart overhead are left idle, and segments that
    end up without a run slot are dropped (they only cost money).
    """
    segments = _merge(items)
    if segments is None:
        return None
    problem = cand.problem
    overhead = problem.restart_overhead_slots if problem.interruptible else 0
    remaining = problem.work_slots
    result: list[ScheduledSegment] = []
    index = 0
    while index < len(segments) and remaining > 0:
        block = [segments[index]]
        while (
            index + len(block) < len(segments) and segments[index + len(block)][0] == block[-1][1]
        ):
            block.append(segments[index + len(block)])
        index += len(block)
        result += _run_block(cand, block, overhead if result else 0, remaining)
        remaining = _remaining(problem.work_slots, result, overhead)
    if remaining > 0 or not result:
        return None
    if not problem.interruptible and len(_blocks(result)) > 1:
        return None
    if not _trial_opens(problem.hourly, result):
        return None
    finish = result[-1].run_end
    storage = problem.storage_per_slot * (finish - result[0].start)  # the data disk
    cost = sum((s.cost for s in result), Decimal(0)) + storage
    return ScheduleResult(cost, finish, tuple(result), storage)


def _merge(items: list[tuple[int, int, str, int]]) -> list[tuple[int, int, str, int]] | None:
    """Segments from paid items sorted by start. An item already paid for is dropped; a
    contract period overlapping the previous item is moved to start where it ends (it then
    covers more for the same price); adjacent items of one rate become one segment."""
    merged: list[tuple[int, int, str, int]] = []
    for start, end, key, periods in items:
        if merged and end <= merged[-1][1]:
            continue
        if merged and start < merged[-1][1]:
            if end - start == 1:
                return None
            start, end = merged[-1][1], merged[-1][1] + (end - start)
        if merged and merged[-1][1] == start and merged[-1][2] == key:
            last = merged[-1]
            merged[-1] = (last[0], end, key, last[3] + periods)
            continue
        merged.append((start, end, key, periods))
    return merged


def _run_block(
    cand: Candidate, block: list[tuple[int, int, str, int]], overhead: int, remaining: int
) -> list[ScheduledSegment]:
    deadline = cand.problem.deadline_slot
    length = min(block[-1][1], deadline) - block[0][0]
    if length - overhead <= 0:
        return []
    stop = block[0][0] + min(length, remaining + overhead)
    segments = []
    for start, end, key, periods in block:
        if start >= stop:
            break
        segments.append(
            _segment(
                cand,
                key,
                start,
                end,
                periods,
                min(end, stop),
                overhead if start == block[0][0] else 0,
            )
        )
    return segments


def _segment(
    cand: Candidate, key: str, start: int, end: int, periods: int, run_end: int, overhead: int
) -> ScheduledSegment:
    for rate in cand.problem.hourly:
        if rate.key == key:
            end = min(end, max(run_end, start + rate.min_slots))
            cost = round_money(sum(rate.slot_costs[start:end], Decimal(0)))
            return ScheduledSegment(key, "hourly", start, end, end - start, run_end, overhead, cost)
    contract = next(c for c in cand.problem.contracts if c.key == key)
    return ScheduledSegment(
        key,
        "contract",
        start,
        end,
        periods,
        run_end,
        overhead,
        round_money(contract.cost * periods),
    )


def _trial_opens(rates: Sequence[HourlyRate], segments: list[ScheduledSegment]) -> bool:
    """A free trial is only the plan's first segment, at most ``trial_slots`` long."""
    trials = {r.key: r.trial_slots for r in rates if r.trial_slots}
    return all(
        s.key not in trials or (k == 0 and s.end - s.start <= trials[s.key])
        for k, s in enumerate(segments)
    )


def _blocks(segments: list[ScheduledSegment]) -> list[list[ScheduledSegment]]:
    blocks: list[list[ScheduledSegment]] = []
    for s in segments:
        if blocks and blocks[-1][-1].run_end == s.start:
            blocks[-1].append(s)
        else:
            blocks.append([s])
    return blocks


def _remaining(work: int, segments: list[ScheduledSegment], overhead: int) -> int:
    blocks = _blocks(segments)
    done = sum(s.run_slots for s in segments) - overhead * max(len(blocks) - 1, 0)
    return work - done
