"""The job's choices inside a paid contract under run windows or a daily cap (docs/billing.md).

A contract is paid for every slot of its period, but the job may run only in the slots its run
windows allow (``ScheduleProblem.run_allowed``) and at most ``cap`` slots a local day: so it
may leave paid slots unrun, and which ones it leaves changes how much work the period does.
Inside a contract the job is, before each slot, in one *state* ``q = status · H + h``:

* ``status`` 0, *paused*: the previous slot did not run (the job has started; the next run
  starts a block that pays the restart overhead);
* ``status`` ``1 + o``, *running* with ``o`` overhead slots of its block still to do
  (``o < overhead``; ``o = 0``: doing work);
* ``h``: the run slots already spent in the slot's local day (``H = cap + 1``; 1 without a cap).

In each slot the job runs (allowed, below the cap: work + 1 once the overhead is done) or idles
(only an interruptible job, and never in the middle of its overhead: a block shorter than the
overhead loses work and is never worth running). The transitions are the same for every slot of
one kind (allowed or not, last of its day or not), so a period's best outcome is a max-plus
product of per-slot matrices: :meth:`RunModel.window` gives, for every start slot ``s``, the most
work ``T[s, q_in, q_out]`` a period of ``length`` slots reaches from each state to each
state (a sliding window of products, two stacks: ``O(slots · Q³)`` for any length), and
:meth:`RunModel.finish_table` the earliest finish ``B[t, q, r]`` from state ``q`` before slot
``t`` needing ``r`` more work. More work in the same slots never hurts (the rest of a plan only
gets shorter), so the most work per end state is all the programme keeps; the rebuild finds a
run pattern that reaches it (:meth:`RunModel.pattern`).
"""

from __future__ import annotations

from functools import cached_property

import numpy as np
from numpy.typing import NDArray

from comparator.plan.dp.problem import ScheduleProblem

Small = NDArray[np.int32]
Longs = NDArray[np.int64]
NEG = np.int32(-(1 << 24))  # no pattern
LATE = np.int32(1 << 30)  # no finish


class RunModel:
    """States and slot transitions of the job inside a paid contract of one problem."""

    def __init__(self, problem: ScheduleProblem) -> None:
        self.deadline = problem.deadline_slot
        self.interruptible = problem.interruptible
        self.overhead = problem.restart_overhead_slots if problem.interruptible else 0
        self.cap = problem.max_run_slots_per_day
        self.hours = self.cap + 1 if self.cap else 1
        self.statuses = 1 + max(self.overhead, 1)
        self.size = self.statuses * self.hours
        slots = self.deadline + 1
        allowed = problem.run_allowed
        self.allowed = np.array(
            [allowed is None or (t < len(allowed) and allowed[t]) for t in range(slots)],
            dtype=bool,
        )
        self.allowed[self.deadline :] = False  # no work after the deadline
        days = np.array(problem.day_indices(slots + 1), dtype=np.int64)
        self.day_ends = days[1:] != days[:-1] if self.cap else np.zeros(slots, dtype=bool)
        self.kinds = self.allowed.astype(np.int64) * 2 + self.day_ends.astype(np.int64)
        self.moves_by_kind = [self.moves(kind) for kind in range(4)]

    def state(self, status: int, hours: int) -> int:
        return status * self.hours + hours

    @property
    def running(self) -> int:
        """The status of a job doing work (its block's overhead done)."""
        return 1

    @cached_property
    def better(self) -> list[list[int]]:
        """Per state, the other states of the same slot that are at least as good: every
        pattern from the state is open to them with at least as much work. Fewer hours run
        today is better; doing work beats pausing (it may pause next) and beats having overhead
        left, and less overhead left beats more; a paused job and one in its overhead (which
        may not pause) are not comparable."""
        found: list[list[int]] = []
        for status in range(self.statuses):
            for h in range(self.hours):
                if status == 0:
                    others = [(1, k) for k in range(h + 1)] + [(0, k) for k in range(h)]
                else:
                    others = [
                        (o, k)
                        for o in range(1, status + 1)
                        for k in range(h + 1)
                        if (o, k) != (status, h)
                    ]
                found.append([self.state(o, k) for o, k in others])
        return found

    # --- one slot ----------------------------------------------------------------------------
    def moves(self, kind: int) -> list[tuple[int, int, int]]:
        """(from, to, work) of every move in a slot of ``kind`` (allowed · 2 + last of day)."""
        allowed, day_end = bool(kind & 2), bool(kind & 1)
        moves: list[tuple[int, int, int]] = []
        for h in range(self.hours):
            after = 0 if day_end else h
            if self.interruptible:  # idle: from paused or doing work, never mid-overhead
                moves.append((self.state(0, h), self.state(0, after), 0))
                moves.append((self.state(1, h), self.state(0, after), 0))
            if not allowed or (self.cap and h >= self.cap):
                continue
            ran = 0 if day_end or not self.cap else h + 1
            moves.append((self.state(1, h), self.state(1, ran), 1))
            for o in range(1, self.statuses - 1):  # overhead: one slot less to do
                moves.append((self.state(1 + o, h), self.state(o, ran), 0))
            if self.interruptible:  # a new block after a pause pays the overhead first
                if self.overhead:
                    moves.append((self.state(0, h), self.state(self.overhead, ran), 0))
                else:
                    moves.append((self.state(0, h), self.state(1, ran), 1))
        return moves

    @cached_property
    def matrices(self) -> Small:
        """``[kind, from, to]``: the work of one slot's move (NEG: no such move)."""
        tables = np.full((4, self.size, self.size), NEG, dtype=np.int32)
        for kind in range(4):
            for source, target, work in self.moves_by_kind[kind]:
                tables[kind, source, target] = max(tables[kind, source, target], work)
        return tables

    # --- periods -------------------------------------------------------------------------------
    def window(self, length: int) -> Small:
        """``T[s, q_in, q_out]`` for every start ``s`` whose period ``[s, s + length)`` ends
        by the deadline: the most work from ``q_in`` before ``s`` to ``q_out`` at its end."""
        starts = self.deadline - length + 1
        if starts <= 0:
            return np.full((0, self.size, self.size), NEG, dtype=np.int32)
        slots = starts + length - 1
        per_slot = self.matrices[self.kinds[:slots]]
        suffix = np.empty_like(per_slot)
        prefix = np.empty_like(per_slot)
        for first in range(0, slots, length):
            last = min(first + length, slots) - 1
            suffix[last] = per_slot[last]
            for t in range(last - 1, first - 1, -1):
                suffix[t] = _product(per_slot[t], suffix[t + 1])
            prefix[first] = per_slot[first]
            for t in range(first + 1, last + 1):
                prefix[t] = _product(prefix[t - 1], per_slot[t])
        table = suffix[:starts].copy()
        inner = np.nonzero(np.arange(starts) % length)[0]  # windows across two blocks
        if len(inner):
            table[inner] = _batched_product(suffix[inner], prefix[inner + length - 1])
        return self._without_beaten_ends(table)

    def _without_beaten_ends(self, table: Small) -> Small:
        """NEG where another end state at least as good has at least as much work: more work
        by the same slot never makes the rest of a plan dearer (docs/billing.md)."""
        kept = table.copy()
        for q, others in enumerate(self.better):
            if others:
                rival = table[:, :, others].max(axis=2)
                kept[:, :, q][rival >= table[:, :, q]] = NEG
        return kept

    def finish_table(self, work: int) -> Small:
        """``B[t, q, r]``: the earliest finish from state ``q`` before slot ``t`` needing
        ``r`` more work (``t`` when ``r = 0``; LATE when the deadline comes first)."""
        table = np.full((self.deadline + 1, self.size, work + 1), LATE, dtype=np.int32)
        table[self.deadline, :, 0] = self.deadline
        moves = [self._move_arrays(kind) for kind in range(4)]
        for t in range(self.deadline - 1, -1, -1):
            sources, targets, works = moves[int(self.kinds[t])]
            after = table[t + 1]
            best = table[t]
            best[:, 0] = t
            for gain in (0, 1):
                pick = works == gain
                if not pick.any():
                    continue
                reached = after[targets[pick], : work + 1 - gain]
                np.minimum.at(best[:, gain:], sources[pick], reached)
            best[:, 0] = t
        return table

    def _move_arrays(self, kind: int) -> tuple[Longs, Longs, Longs]:
        moves = np.array(self.moves_by_kind[kind] or [(0, 0, -1)], dtype=np.int64).reshape(-1, 3)
        return moves[:, 0], moves[:, 1], moves[:, 2]

    # --- the rebuild's run patterns ----------------------------------------------------------
    def pattern(self, start: int, length: int, source: int, target: int) -> list[bool]:
        """Which slots of ``[start, start + length)`` run on a path of the most work from
        state ``source`` to ``target`` (as :meth:`window` counts it)."""
        best = {source: 0}
        came: list[dict[int, tuple[int, bool]]] = []
        for t in range(start, start + length):
            nxt: dict[int, int] = {}
            back: dict[int, tuple[int, bool]] = {}
            for q_from, q_to, gain in self.moves_by_kind[int(self.kinds[t])]:
                if q_from in best and best[q_from] + gain > nxt.get(q_to, -1):
                    nxt[q_to] = best[q_from] + gain
                    back[q_to] = (q_from, self._ran(q_to))
            best = nxt
            came.append(back)
        return self._walk_back(came, target)

    def finish_pattern(self, table: Small, start: int, source: int, work: int) -> list[bool]:
        """Which slots from ``start`` run on a path to the earliest finish ``table[start,
        source, work]`` (the slots up to the finish)."""
        ran: list[bool] = []
        q, r, t = source, work, start
        while r > 0:
            target = int(table[t, q, r])
            for q_from, q_to, gain in self.moves_by_kind[int(self.kinds[t])]:
                if q_from == q and r - gain >= 0 and int(table[t + 1, q_to, r - gain]) == target:
                    ran.append(self._ran(q_to))
                    q, r = q_to, r - gain
                    break
            t += 1
        return ran

    def _ran(self, q_to: int) -> bool:
        """Whether a move into ``q_to`` runs its slot (every move into a running status does)."""
        return q_to // self.hours > 0

    @staticmethod
    def _walk_back(came: list[dict[int, tuple[int, bool]]], target: int) -> list[bool]:
        ran: list[bool] = []
        q = target
        for back in reversed(came):
            q, step = back[q]
            ran.append(step)
        ran.reverse()
        return ran


def _product(left: Small, right: Small) -> Small:
    """Max-plus product of two ``[Q, Q]`` matrices (NEG stays NEG)."""
    summed = left[:, :, None] + right[None, :, :]
    product: Small = np.maximum(summed.max(axis=1), NEG)
    return product


def _batched_product(left: Small, right: Small) -> Small:
    summed = left[:, :, :, None] + right[:, None, :, :]
    product: Small = np.maximum(summed.max(axis=2), NEG)
    return product
