"""The hours-run-today dimension of the DP (``[schedule] max_hours_per_day``).

With a daily cap every family of states gets an axis ``h`` (second to last, before the
diagonal): the run slots (overhead included) already spent in the local day of the state's
slot, ``0 … cap``; a state at the first slot of a day has ``h = 0``. Without a cap the axis has
size 1 and every operation here returns its input, so jobs without the cap pay nothing.

Running ``n`` slots from slot ``s`` with ``h`` run today arrives at slot ``s + n``: within the
same day at ``h + n`` (at most the cap); across midnight only if the rest of the first day
(``h`` plus its slots) fits the cap and no whole day in between is longer than the cap, at the
slots already run in the arrival day. A pause keeps ``h`` within a day and resets it at
midnight.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from comparator.plan.dp.problem import ScheduleProblem
from comparator.plan.dp.rates import INF, Ints


class DailyCap:
    """Day boundaries of a problem's slots and the transitions of the ``h`` axis."""

    def __init__(self, problem: ScheduleProblem, horizon: int) -> None:
        self.cap = problem.max_run_slots_per_day
        self.size = self.cap + 1 if self.cap else 1
        if not self.cap:
            return
        slots = horizon + 2
        day = np.array(problem.day_indices(slots), dtype=np.int64)
        first = np.ones(slots, dtype=bool)
        first[1:] = day[1:] != day[:-1]
        starts = np.nonzero(first)[0]
        self.day = day
        self.day_start = starts[np.cumsum(first) - 1]  # first slot of each slot's day
        ends = np.append(starts[1:], slots)
        self.next_start = ends[np.cumsum(first) - 1]  # first slot of the next day
        lengths = ends - starts
        long_days = np.cumsum(lengths > self.cap)  # per day index among ``starts``
        self.long_before = np.concatenate(([0], long_days))
        self.ordinal = np.cumsum(first) - 1  # the day's position among ``starts``
        self.midnight = first  # slot t starts a day
        # a whole day after the first (partial) one that fits the cap: then long runs may fit
        self.short_inner = bool((lengths[1:-1] <= self.cap).any())
        self.longest = int(lengths.max())

    @property
    def active(self) -> bool:
        return self.cap > 0

    def least(self, values: Ints) -> Ints:
        """The cheapest over the ``h`` axis (a view without a cap)."""
        least: Ints = values[..., 0, :] if self.size == 1 else values.min(axis=-2)
        return least

    def day_of(self, slot: int) -> int:
        """The day of ``slot`` (0 without a cap: then days never matter)."""
        return int(self.day[slot]) if self.cap else 0

    def run_from(self, values: Ints, first: int, slots: int) -> Ints:
        """:meth:`run` from slots ``first + c`` (column ``c``): a few slots one at a time, and
        nothing reachable when the run is longer than two days' caps and no whole day fits."""
        if not self.cap:
            return values
        if slots > 2 * self.cap and not self.short_inner:
            return np.full(values.shape, INF)
        if slots <= 4:
            for k in range(slots):
                values = self._tick(values, first + k)
            return values
        return self.run(values, first + np.arange(values.shape[-1], dtype=np.int64), slots)

    def _tick(self, values: Ints, first: int) -> Ints:
        """Run one slot from slots ``first + c``: ``h + 1`` within a day (at most the cap);
        arriving at midnight, 0 from any ``h`` below the cap."""
        ticked = np.empty_like(values)
        ticked[..., 0, :] = INF
        ticked[..., 1:, :] = values[..., :-1, :]
        width = values.shape[-1]
        columns = np.nonzero(self.midnight[first + 1 : first + 1 + width])[0]
        if len(columns):
            ticked[..., columns] = INF
            ticked[..., 0, columns] = values[..., : self.cap, columns].min(axis=-2)
        return ticked

    def run(self, values: Ints, starts: Ints, slots: Ints | int) -> Ints:
        """``values[..., h, c]`` after running ``slots`` slots from slot ``starts[c]``."""
        if not self.cap:
            return values
        n = np.broadcast_to(np.asarray(slots, dtype=np.int64), starts.shape)
        arrive = starts + n
        lead = (1,) * (values.ndim - 2)
        source = np.arange(self.size, dtype=np.int64)[:, None] - n[None, :]
        shifted = np.take_along_axis(values, _lead(np.clip(source, 0, self.cap), lead), -2)
        shifted = np.where(_lead(source >= 0, lead), shifted, INF)
        crossed = self._crossed(values, starts, arrive, lead)
        same = _lead((self.day[arrive] == self.day[starts])[None, :], lead)
        result: Ints = np.where(same, shifted, crossed)
        return result

    def _crossed(self, values: Ints, starts: Ints, arrive: Ints, lead: tuple[int, ...]) -> Ints:
        """Running from ``starts`` into a later day: the first day must fit, no whole day in
        between may be longer than the cap, and the arrival day has run ``arrive − its start``."""
        limit = self.cap - (self.next_start[starts] - starts)
        first, last = self.ordinal[starts], self.ordinal[arrive]
        long_inside = self.long_before[np.maximum(last, first + 1)] - self.long_before[first + 1]
        arrived = arrive - self.day_start[arrive]
        ok = (limit >= 0) & (arrived <= self.cap) & (long_inside == 0)
        best = np.minimum.accumulate(values, axis=-2)
        picked = np.take_along_axis(best, _lead(np.clip(limit, 0, self.cap)[None, :], lead), -2)
        picked = np.where(_lead(ok[None, :], lead), picked, INF)
        crossed = np.full(values.shape, INF)
        rows = np.broadcast_to(_lead(np.clip(arrived, 0, self.cap)[None, :], lead), picked.shape)
        np.put_along_axis(crossed, rows, picked, -2)
        return crossed

    def pause(self, closed: Ints, layer: int, storage: int) -> Ints:
        """``idle[h, d]``: paused since a closed segment ``closed[h, e]`` of an earlier diagonal
        ``e < d`` (slot ``layer + e``), each paused slot paying ``storage``; ``h`` is kept within
        a day and reset at midnight."""
        width = closed.shape[-1]
        idle = np.full(closed.shape, INF)
        if width < 2:
            return idle
        if not (self.cap or storage):
            idle[..., 1:] = np.minimum.accumulate(closed, axis=-1)[..., :-1]
            return idle
        steps = np.arange(width, dtype=np.int64) * storage
        shifted = np.minimum(closed, INF) - steps
        if not self.cap:
            running = np.minimum.accumulate(shifted, axis=-1)
            idle[..., 1:] = np.minimum(running[..., :-1] + steps[1:], INF)
            return idle
        slots = layer + np.arange(width, dtype=np.int64)
        day = self.ordinal[slots] - self.ordinal[layer]  # the column's day, from 0
        offset = slots - self.day_start[slots]  # its slot within that day
        padded = np.full((shifted.shape[0], int(day[-1]) + 1, self.longest), INF)
        padded[:, day, offset] = shifted
        running = np.minimum.accumulate(padded, axis=-1)
        earlier = running[:, day, np.maximum(offset - 1, 0)]
        idle = np.where(offset > 0, earlier, INF)  # paused since a slot of the same day
        anywhere = np.minimum.accumulate(shifted.min(axis=0))
        day_first = slots - offset - layer  # the column where the column's day starts
        crossed = np.where(day > 0, anywhere[np.maximum(day_first - 1, 0)], INF)
        idle[0] = np.minimum(idle[0], crossed)  # paused since an earlier day: h resets
        paused: Ints = np.minimum(idle + steps, INF)
        return paused


def _lead(array: NDArray[Any], lead: tuple[int, ...]) -> NDArray[Any]:
    """``array`` (rows, columns) with unit axes in front for broadcasting."""
    return array.reshape(*lead, *array.shape)
