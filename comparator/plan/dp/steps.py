"""Transitions of the dynamic programme (:mod:`comparator.plan.dp.solver`), one family of rates each.

Arrays are indexed by diagonal ``d`` (see :mod:`comparator.plan.dp.solver`); in layer ``w`` diagonal
``d`` is slot ``t = w + d``. Every transition is a few numpy operations on slices.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from comparator.plan.dp.rates import FINITE, INF, ContractRates, Grid, HourlyRates, Ints


@dataclass
class Sources:
    """Where new segments may start in one layer, per rate: without restart overhead (``values``)
    and as a restart that pays it (``resume``: after a pause, or a migration from another
    machine). Restart values already include the tie-breaking restart unit."""

    values: Ints  # [rate, d]
    resume: Ints  # [rate, d]


class Terminal:
    """Cheapest completion per diagonal (finish slot ``W + d``)."""

    def __init__(self, width: int) -> None:
        self.values: Ints = np.full(width, INF)

    def relax(self, where: slice, values: Ints) -> None:
        current = self.values[where]
        np.minimum(current, values, out=current)


class HourlySteps:
    """Open hourly segments: mature ones by start class, young ones by age."""

    def __init__(self, rates: HourlyRates, width: int, overhead: int) -> None:
        self.rates = rates
        self.width = width
        self.overhead = overhead
        self.count = len(rates.rates)
        self.open = Grid((self.count, rates.class_count, width))
        self.minimum = [int(m) for m in rates.min_slots]
        self.trial_slots = [r.trial_slots for r in rates.rates]
        self.trials = [j for j, n in enumerate(self.trial_slots) if n > 0]
        ages = max(self.minimum) - 1
        self.young = Grid((self.count, ages, width)) if ages else None

    def close(self, layer: int) -> Ints:
        """Close every open segment at slot ``layer + d``: ``[rate, d]``."""
        window = slice(layer, layer + self.width)
        if self.rates.class_count == 1:
            values = self.open.values[:, 0] + self.rates.scaled_carry[:, 0, window]
        else:
            values = (self.open.values + self.rates.scaled_carry[:, :, window]).min(axis=1)
        closed: Ints = values + self.rates.scaled_a[:, window]
        return closed

    def advance(self, layer: int, sources: Sources, resume: bool) -> None:
        """Open segments run slot ``layer + d``; new ones start there."""
        if not self.rates.all_free:
            blocked = ~self.rates.free(layer, self.width, 1)
            self.open.values[np.broadcast_to(blocked[:, None, :], self.open.values.shape)] = INF
            if self.young is not None:
                shape = self.young.values.shape
                self.young.values[np.broadcast_to(blocked[:, None, :], shape)] = INF
        for j in self.trials:
            if layer >= self.trial_slots[j]:  # the trial is over: no more slots on it
                self.open.values[j] = INF
        self._age(layer)
        self._start(layer, sources.values[: self.count], 0)
        if resume and self.overhead:
            self._start(layer, sources.resume[: self.count], self.overhead)

    def _mature(self, j: int, starts: Ints, where: slice, values: Ints) -> None:
        if self.rates.class_count == 1:
            self.open.relax_view((j, 0, where), values)
            return
        last = self.rates.start_class.shape[1] - 1
        classes = self.rates.start_class[j, np.clip(starts, 0, last)]
        columns = np.arange(self.width)[where]
        self.open.relax((np.full(len(columns), j), classes, columns), values)

    def _age(self, layer: int) -> None:
        young = self.young
        if young is None:
            return
        columns = np.arange(self.width)
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
        starts = layer + np.arange(count)
        segment = self.rates.ties.segment
        new = values[:, :count] - self.rates.scaled_a[:, layer : layer + count] + segment
        if not self.rates.all_free:
            new = np.where(self.rates.free(layer, count, overhead + 1), new, INF)
        where = slice(overhead, self.width)
        for j, minimum in enumerate(self.minimum):
            if overhead + 1 >= minimum:
                self._mature(j, starts, where, new[j])
            else:
                assert self.young is not None
                self.young.relax_view((j, overhead, where), new[j])

    def finish(self, work: int, terminal: Terminal) -> None:
        """Completions in the last layer: close open segments, padding young ones."""
        terminal.relax(slice(None), self.close(work).min(axis=0))
        if self.young is None:
            return
        for j, minimum in enumerate(self.minimum):
            for age in range(1, minimum):
                self._pad(j, age, work, terminal)

    def _pad(self, j: int, age: int, work: int, terminal: Terminal) -> None:
        assert self.young is not None
        rates, minimum = self.rates, self.minimum[j]
        values = self.young.values[j, age - 1]
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
        self, rates: ContractRates, width: int, work: int, overhead: int, first_rate: int
    ) -> None:
        self.rates = rates
        self.width = width
        self.work = work
        self.overhead = overhead
        self.first_rate = first_rate
        self.count = len(rates.rates)
        self.span = [int(s) for s in rates.span]
        self.period = [int(p) for p in rates.period]
        chaining = [j for j in range(self.count) if self.span[j] < work + overhead]
        self.slot = {j: i for i, j in enumerate(chaining)}
        self.chains = Grid((len(chaining), work, rates.class_count, width))

    def close(self, layer: int) -> Ints:
        values = np.full((self.count, self.width), INF)
        for j, i in self.slot.items():
            values[j] = self.chains.values[i, layer].min(axis=0)
        return values

    def advance(self, layer: int, sources: Sources, terminal: Terminal, resume: bool) -> None:
        for j in range(self.count):
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
        cost = values[:count] + self.rates.first_value[j]
        free = self._free(j, layer, count, self.span[j])
        if free is not None:
            cost = np.where(free, cost, INF)
        where = slice(overhead, self.width)
        if gain >= self.work - layer:
            terminal.relax(where, cost)
        else:
            self.chains.relax_view((self.slot[j], layer + gain, 0, where), cost)

    def _extend(self, j: int, layer: int, terminal: Terminal) -> None:
        i, period = self.slot[j], self.period[j]
        free = self._free(j, layer, self.width, period)
        everything = slice(None)
        for klass in range(self.rates.class_count):
            nxt = int(self.rates.next_class[j, klass])
            values = self.chains.values[i, layer, klass]
            if nxt < 0 or values.min() >= FINITE:
                continue
            cost = values + self.rates.scaled_increment[j, klass]
            if free is not None:
                cost = np.where(free, cost, INF)
            if period >= self.work - layer:
                terminal.relax(everything, cost)
            else:
                self.chains.relax_view((i, layer + period, nxt, everything), cost)
