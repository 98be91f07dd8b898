"""Contract chains that may pause inside their paid periods (run windows or a daily cap).

The states of a chain live at its period boundaries, like :class:`~comparator.plan.dp.steps.
ContractSteps`' chains, with the job's state there (:mod:`comparator.plan.dp.pausing.flex`) as one more
axis: ``values[rate, layer, class, q, d]``. A period from boundary slot ``s`` moves a state
``q_in`` to every ``q_out`` with the most work ``g = T[s, q_in, q_out]`` it can do there: to
layer ``w + g`` and diagonal ``d + length − g``, paying the period and the storage of its
``length − g`` slots without work. A chain closes at a boundary where the job is running (a
*closed* segment: the next line item may continue on the same machine) or paused (an *idle*
state of its machine); it completes the job inside a period at the earliest finish the finish
table gives, when that lies inside the period. A chain's first slot runs when it opens the plan
(a chain whose first slots idle before the job starts is the same plan shifted later, and
contracts are rentable from the end of the upload on), and a chain does at least one slot of
work. A period that does no work keeps its layer: those moves are settled before the layer's
chains are read.
"""

from __future__ import annotations

import numpy as np

from comparator.plan.dp.pausing.flex import LATE, RunModel, Small
from comparator.plan.dp.rates import FINITE, INF, ContractRates, Ints
from comparator.plan.dp.steps import Sources, Terminal


class FlexContractSteps:
    def __init__(
        self,
        rates: ContractRates,
        model: RunModel,
        width: int,
        work: int,
        storage: int,
        first_rate: int,
    ) -> None:
        self.rates = rates
        self.model = model
        self.width = width
        self.work = work
        self.storage = storage  # scaled, per slot without work
        self.first_rate = first_rate
        self.count = len(rates.rates)
        self.span = [int(s) for s in rates.span]
        self.period = [int(p) for p in rates.period]
        self.size = model.size
        self.values: Ints = np.full(
            (self.count, work, rates.class_count, self.size, width), INF, dtype=np.int64
        )
        self._windows: dict[int, Small] = {}
        self._zero: dict[int, bool] = {}
        self._rentable: dict[tuple[int, int], Ints] = {}
        self.finish: Small = model.finish_table(work)
        self.columns = np.arange(width, dtype=np.int64)

    def window(self, length: int) -> Small:
        if length not in self._windows:
            self._windows[length] = self.model.window(length)
        return self._windows[length]

    def rentable(self, j: int, slots: Ints, length: int) -> Ints:
        """Whether ``[s, s + length)`` may be rented for each start ``s`` of ``slots``."""
        key = (j, length)
        if key not in self._rentable:
            row = self.rates.unusable[j]
            last = len(row) - 1
            starts = np.arange(last + 1)
            ends = np.minimum(starts + length, last)
            self._rentable[key] = (row[ends] - row[starts] == 0) & (starts + length <= last)
        free: Ints = self._rentable[key][np.minimum(slots, len(self._rentable[key]) - 1)]
        return free & (slots < len(self._rentable[key]))

    # --- reading a layer -------------------------------------------------------------------
    def close(self, layer: int) -> Ints:
        """``[rate, h, d]``: chains closing at slot ``layer + d`` with the job running."""
        self._settle(layer)
        return self._exits(layer, self.model.running)

    def paused(self, layer: int) -> Ints:
        """``[rate, h, d]``: chains closing at slot ``layer + d`` with the job paused."""
        return self._exits(layer, 0)

    def _exits(self, layer: int, status: int) -> Ints:
        hours = self.model.hours
        rows = slice(status * hours, (status + 1) * hours)
        exits: Ints = self.values[:, layer, :, rows, :].min(axis=1)
        return exits

    def _settle(self, layer: int) -> None:
        """Periods that do no work stay in the layer: apply them until nothing changes."""
        for j in range(self.count):
            for _ in range(self.width // max(self.period[j], 1) + 1):
                if not self._extend(j, layer, None, zero_only=True):
                    break

    # --- writing later layers ----------------------------------------------------------------
    def advance(self, layer: int, sources: Sources, terminal: Terminal, resume: bool) -> None:
        for j in range(self.count):
            entries = self._entries(j, layer, sources, resume)
            if entries.min() < FINITE:
                cost = np.minimum(entries + int(self.rates.first_value[j]), INF)
                self._period(j, layer, cost, self.span[j], 0, terminal, minimum=1)
            self._extend(j, layer, terminal)

    def _entries(self, j: int, layer: int, sources: Sources, resume: bool) -> Ints:
        """``[q_in, d]``: a chain of rate ``j`` opening at slot ``layer + d``, continuing the
        job (running; at layer 0 the plan's start, on a slot the job may run) or restarting
        it (paused; the overhead's storage is counted inside the chain)."""
        model = self.model
        entries = np.full((self.size, self.width), INF, dtype=np.int64)
        hours = model.hours
        running = sources.values[self.first_rate + j]
        if layer == 0:
            running = np.where(model.allowed[: self.width], running, INF)
        entries[model.running * hours : (model.running + 1) * hours] = running
        if resume and model.overhead:
            restart = sources.resume[self.first_rate + j]
            back = self.storage * model.overhead
            entries[:hours] = np.where(restart < FINITE, restart - back, INF)
        return entries

    def _extend(
        self, j: int, layer: int, terminal: Terminal | None, *, zero_only: bool = False
    ) -> bool:
        changed = False
        for klass in range(self.rates.class_count):
            nxt = int(self.rates.next_class[j, klass])
            states = self.values[j, layer, klass]
            if nxt < 0 or states.min() >= FINITE:
                continue
            cost = np.minimum(states + int(self.rates.scaled_increment[j, klass]), INF)
            changed |= self._period(
                j, layer, cost, self.period[j], nxt, terminal, zero_only=zero_only
            )
        return changed

    def _period(
        self,
        j: int,
        layer: int,
        cost: Ints,
        length: int,
        klass: int,
        terminal: Terminal | None,
        *,
        minimum: int = 0,
        zero_only: bool = False,
    ) -> bool:
        """States ``cost[q_in, d]`` (the period paid) run one period of ``length`` slots."""
        slots = layer + self.columns
        free = self.rentable(j, slots, length)
        if terminal is not None:
            self._finish(cost, slots, free, length, layer, terminal)
        table = self.window(length)
        if zero_only and not self._has_zero_periods(length):
            return False
        cost = self._undominated(cost)
        reachable = (cost < FINITE) & (free & (slots < len(table)))[None, :]
        sources, columns = np.nonzero(reachable)  # only the states that exist
        if not len(columns):
            return False
        every = table[slots[columns], sources]  # [state, q_out]: the most work, or NEG
        lowest = 0 if zero_only else max(minimum, 1)
        highest = min(0 if zero_only else self.work, self.work - layer - 1)
        state, targets = np.nonzero((every >= lowest) & (every <= highest))
        if not len(state):
            return False
        gains = every[state, targets].astype(np.int64)
        diagonals = columns[state] + length - gains
        inside = diagonals < self.width
        state, targets, gains, diagonals = (
            state[inside],
            targets[inside],
            gains[inside],
            diagonals[inside],
        )
        reached = cost[sources[state], columns[state]] + self.storage * (length - gains)
        flat = self.values[j].reshape(-1)
        index = (
            ((layer + gains) * self.rates.class_count + klass) * self.size + targets
        ) * self.width + diagonals
        if zero_only:
            old = flat[index].copy()
            np.minimum.at(flat, index, reached)
            return bool((flat[index] < old).any())
        np.minimum.at(flat, index, reached)
        return False

    def _undominated(self, cost: Ints) -> Ints:
        """``cost[q, d]`` without the states a state at least as good (``RunModel.better``)
        of the same slot beats at no more cost: the beaten state's moves change no value."""
        hours, statuses = self.model.hours, self.model.statuses
        by_status = cost.reshape(statuses, hours, self.width)
        up_to = np.minimum.accumulate(by_status, axis=1)  # h' ≤ h, per status
        below = np.full_like(up_to, INF)
        below[:, 1:] = up_to[:, :-1]  # h' < h, per status
        rivals = np.empty_like(up_to)
        rivals[0] = np.minimum(below[0], up_to[1])  # paused: paused below, doing work up to h
        ahead = np.full((hours, self.width), INF)  # running with less overhead left, h' ≤ h
        for status in range(1, statuses):
            rivals[status] = np.minimum(below[status], ahead)
            ahead = np.minimum(ahead, up_to[status])
        kept = np.where((rivals <= by_status) & (by_status < FINITE), INF, by_status)
        undominated: Ints = kept.reshape(cost.shape)
        return undominated

    def _has_zero_periods(self, length: int) -> bool:
        """Whether some period of ``length`` can end in a state with no work done in it."""
        if length not in self._zero:
            self._zero[length] = bool((self.window(length) == 0).any())
        return self._zero[length]

    def _finish(
        self, cost: Ints, slots: Ints, free: Ints, length: int, layer: int, terminal: Terminal
    ) -> None:
        """The job completes inside the period: at the earliest finish, if the period lasts."""
        remaining = self.work - layer
        ends = self.finish[slots, :, remaining].T.astype(np.int64)  # [q_in, d]
        ok = (ends < LATE) & (ends <= slots + length) & free & (cost < FINITE)
        if not ok.any():
            return
        values = cost + self.storage * (ends - slots - remaining)
        np.minimum.at(terminal.values, ends[ok] - self.work, values[ok])
