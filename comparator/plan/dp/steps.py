"""Transitions of the dynamic programme (:mod:`comparator.plan.dp.dp_solver`), one family of rates each.

Arrays are indexed by hours run today ``h`` and diagonal ``d`` (the last two axes; see
:mod:`comparator.plan.dp.dp_solver` and :mod:`comparator.plan.dp.hours`); in layer ``w`` diagonal
``d`` is slot ``t = w + d``. Every transition is a few numpy operations on slices.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from comparator.plan.dp.hours import DailyCap
from comparator.plan.dp.rates import FINITE, INF, ContractRates, Grid, HourlyRates, Ints


@dataclass
class Sources:
    """Where new segments may start in one layer, per rate: without restart overhead (``values``)
    and as a restart that pays it (``resume``: after a pause, or a migration from another
    machine). Restart values already include the tie-breaking restart unit."""

    values: Ints  # [rate, h, d]
    resume: Ints  # [rate, h, d]
    seamless: bool = True  # False: every ``values`` is INF (nothing to start from)


class Terminal:
    """Cheapest completion per diagonal (finish slot ``W + d``)."""

    def __init__(self, width: int) -> None:
        self.values: Ints = np.full(width, INF)

    def relax(self, where: slice, values: Ints) -> None:
        current = self.values[where]
        np.minimum(current, values, out=current)


class HourlySteps:
    """Open hourly segments: mature ones by start class, young ones by age."""

    def __init__(self, rates: HourlyRates, width: int, overhead: int, cap: DailyCap) -> None:
        self.rates = rates
        self.width = width
        self.overhead = overhead
        self.cap = cap
        self.count = len(rates.rates)
        self.open = Grid((self.count, rates.class_count, cap.size, width))
        self.minimum = [int(m) for m in rates.min_slots]
        self.trial_slots = [r.trial_slots for r in rates.rates]
        self.trials = [j for j, n in enumerate(self.trial_slots) if n > 0]
        ages = max(self.minimum) - 1
        self.young = Grid((self.count, ages, cap.size, width)) if ages else None
        self.paid: Ints = rates.scaled_a - rates.ties.segment  # a new segment's tie unit
        self.columns = np.arange(width)
        self.rows = np.arange(self.count)[:, None]
        # a segment that ran ``overhead + 1`` slots: whether every rate's is mature
        self.all_mature = {n: all(n + 1 >= m for m in self.minimum) for n in {0, overhead}}
        if rates.class_count == 1:  # the cents and the carry of closing at each slot, at once
            self.closing: Ints = rates.scaled_a + rates.scaled_carry[:, 0]

    def close(self, layer: int) -> Ints:
        """Close every open segment at slot ``layer + d``: ``[rate, h, d]``."""
        window = slice(layer, layer + self.width)
        if self.rates.class_count == 1:
            closed: Ints = self.open.values[:, 0] + self.closing[:, None, window]
            return closed
        carry = self.rates.scaled_carry[:, :, None, window]
        values = (self.open.values + carry).min(axis=1)
        closed = values + self.rates.scaled_a[:, None, window]
        return closed

    def advance(self, layer: int, sources: Sources, resume: bool) -> None:
        """Open segments run slot ``layer + d``; new ones start there."""
        if not self.rates.all_free:
            blocked = ~self.rates.free(layer, self.width, 1)[:, None, None, :]
            self.open.values[np.broadcast_to(blocked, self.open.values.shape)] = INF
            if self.young is not None:
                self.young.values[np.broadcast_to(blocked, self.young.values.shape)] = INF
        for j in self.trials:
            if layer >= self.trial_slots[j]:  # the trial is over: no more slots on it
                self.open.values[j] = INF
        if self.cap.active:  # open segments run slot ``layer + d``
            self.open.values = self.cap.run_from(self.open.values, layer, 1)
            if self.young is not None:
                self.young.values = self.cap.run_from(self.young.values, layer, 1)
        self._age(layer)
        if sources.seamless:
            self._start(layer, sources.values[: self.count], 0)
        if resume and self.overhead:
            self._start(layer, sources.resume[: self.count], self.overhead)

    def _mature(self, j: int, starts: Ints, where: slice, values: Ints) -> None:
        """Open segments of rate ``j`` (``values[h, column]``) by their start class."""
        if self.rates.class_count == 1:
            self.open.relax_view((j, 0, slice(None), where), values)
            return
        last = self.rates.start_class.shape[1] - 1
        classes = self.rates.start_class[j, np.clip(starts, 0, last)]
        columns = self.columns[where]
        index = (np.full(len(columns), j), classes, slice(None), columns)
        self.open.relax(index, values.T)

    def _mature_all(self, first: int, where: slice, values: Ints) -> None:
        """Every rate's open segments started at slots ``first + c`` (``values[rate, h, c]``,
        columns ``where``; the starts lie before the deadline) by their start class."""
        if self.rates.class_count == 1:
            self.open.relax_view((slice(None), 0, slice(None), where), values)
            return
        count = values.shape[-1]
        classes = self.rates.start_class[:, first : first + count]
        index = (self.rows, classes, slice(None), self.columns[where][None, :])
        self.open.relax(index, values.transpose(0, 2, 1))

    def _age(self, layer: int) -> None:
        young = self.young
        if young is None:
            return
        columns = self.columns
        for j, minimum in enumerate(self.minimum):
            if minimum < 2:
                continue
            age = minimum - 1
            self._mature(j, layer + columns - age, slice(None), young.values[j, age - 1].copy())
            young.values[j, 1:age] = young.values[j, : age - 1].copy()
            young.values[j, 0] = INF

    def _start(self, layer: int, values: Ints, overhead: int) -> None:
        """Segments starting at slot ``layer + d`` run ``overhead + 1`` slots first."""
        count = self.width - overhead
        if count <= 0:
            return
        paid = self.paid[:, None, layer : layer + count]
        new = values[:, :, :count] - paid
        if not self.rates.all_free:
            new = np.where(self.rates.free(layer, count, overhead + 1)[:, None, :], new, INF)
        if self.cap.active:
            new = self.cap.run_from(new, layer, overhead + 1)
        where = slice(overhead, self.width)
        if self.all_mature[overhead]:
            self._mature_all(layer, where, new)
            return
        starts = layer + np.arange(count)
        for j, minimum in enumerate(self.minimum):
            if overhead + 1 >= minimum:
                self._mature(j, starts, where, new[j])
            else:
                assert self.young is not None
                self.young.relax_view((j, overhead, slice(None), where), new[j])

    def finish(self, work: int, terminal: Terminal) -> None:
        """Completions in the last layer: close open segments, padding young ones."""
        terminal.relax(slice(None), self.cap.least(self.close(work)).min(axis=0))
        if self.young is None:
            return
        for j, minimum in enumerate(self.minimum):
            for age in range(1, minimum):
                self._pad(j, age, work, terminal)

    def _pad(self, j: int, age: int, work: int, terminal: Terminal) -> None:
        assert self.young is not None
        rates, minimum = self.rates, self.minimum[j]
        values = self.cap.least(self.young.values[j, age - 1])  # padding runs no slot
        starts = np.maximum(work + np.arange(self.width) - age, 0)
        ends = starts + minimum
        cent = int(rates.cent[j])
        carry = (cent // 2 + rates.b[j, ends] - rates.b[j, starts]) // cent
        cost = values + rates.scaled_a[j, ends] + carry * rates.ties.scale
        ok = values < FINITE
        if not rates.all_free:
            ok &= rates.free(work, self.width, minimum - age)[j]
        terminal.relax(slice(None), np.where(ok, cost, INF))


class ContractSteps:
    """Open contract chains of each contract rate, by the remainder of their exact cost."""

    def __init__(
        self,
        rates: ContractRates,
        width: int,
        work: int,
        overhead: int,
        first_rate: int,
        cap: DailyCap,
    ) -> None:
        self.rates = rates
        self.cap = cap
        self.width = width
        self.work = work
        self.overhead = overhead
        self.first_rate = first_rate
        self.count = len(rates.rates)
        self.span = [int(s) for s in rates.span]
        self.period = [int(p) for p in rates.period]
        chaining = [j for j in range(self.count) if self.span[j] < work + overhead]
        self.slot = {j: i for i, j in enumerate(chaining)}
        self.chains = Grid((len(chaining), work, rates.class_count, cap.size, width))
        self.rentable = [j for j in range(self.count) if self._ever_free(j)]
        self.first = [int(v) for v in rates.first_value]  # a new chain's first periods

    def _ever_free(self, j: int) -> bool:
        """Whether some start slot before the deadline can rent the rate's first span (run
        windows may allow none: then the rate never starts, and skipping it changes no value)."""
        if self.rates.all_free:
            return True
        starts = self.width + self.work - 1  # slots 0 … deadline − 1 (no work starts later)
        row, span = self.rates.unusable[j], self.span[j]
        return bool(((row[span : span + starts] - row[:starts]) == 0).any())

    def close(self, layer: int) -> Ints:
        if len(self.slot) == self.count:  # every rate chains, in order
            closed: Ints = self.chains.values[:, layer].min(axis=1)
            return closed
        values = np.full((self.count, self.cap.size, self.width), INF)
        for j, i in self.slot.items():
            values[j] = self.chains.values[i, layer].min(axis=0)
        return values

    def advance(self, layer: int, sources: Sources, terminal: Terminal, resume: bool) -> None:
        for j in self.rentable:
            if sources.seamless:
                self._start(j, layer, sources.values[self.first_rate + j], 0, terminal)
            if resume and self.overhead:
                self._start(j, layer, sources.resume[self.first_rate + j], self.overhead, terminal)
            if j in self.slot:
                self._extend(j, layer, terminal)

    def _free(self, j: int, first: int, count: int, length: int) -> Ints | None:
        if self.rates.all_free:
            return None
        row = self.rates.unusable[j]
        free: Ints = (
            row[first + length : first + length + count] - row[first : first + count]
        ) == 0
        return free

    def _start(self, j: int, layer: int, values: Ints, overhead: int, terminal: Terminal) -> None:
        gain = self.span[j] - overhead
        count = self.width - overhead
        if gain <= 0 or count <= 0:
            return
        cap = self.cap
        if gain >= self.work - layer and not cap.active and self.rates.all_free:
            # the last chain, every slot rentable, no cap: straight to the finish
            ends = terminal.values[overhead:]
            np.minimum(ends, values[0, :count] + self.first[j], out=ends)
            return
        cost = values[:, :count] + self.first[j]
        free = self._free(j, layer, count, self.span[j])
        if free is not None:
            cost = np.where(free, cost, INF)
        where = slice(overhead, self.width)
        if gain >= self.work - layer:  # the last chain: runs only until the work is done
            if cap.active:
                cost = cap.run_from(cost, layer, overhead + self.work - layer)
            terminal.relax(where, cap.least(cost))
        else:
            if cap.active:
                cost = cap.run_from(cost, layer, self.span[j])
            self.chains.relax_view((self.slot[j], layer + gain, 0, slice(None), where), cost)

    def _extend(self, j: int, layer: int, terminal: Terminal) -> None:
        i, period = self.slot[j], self.period[j]
        free = self._free(j, layer, self.width, period)
        everything = slice(None)
        last = period >= self.work - layer
        for klass in range(self.rates.class_count):
            nxt = int(self.rates.next_class[j, klass])
            values = self.chains.values[i, layer, klass]
            if nxt < 0 or values.min() >= FINITE:
                continue
            cost = values + self.rates.scaled_increment[j, klass]
            if free is not None:
                cost = np.where(free, cost, INF)
            if self.cap.active:
                cost = self.cap.run_from(cost, layer, self.work - layer if last else period)
            if last:
                terminal.relax(everything, self.cap.least(cost))
            else:
                self.chains.relax_view((i, layer + period, nxt, everything, everything), cost)
