"""Rebuilding contract chains that pause inside their periods (:mod:`comparator.plan.dp.pausing.flex_steps`).

A chain's boundary states are all kept (``values[rate, layer, class, q, d]``), so a chain is
walked back from its end one period at a time: each period either opened the chain (a source
value plus the first span's price reaches the state) or extended it from the boundary one period
earlier, with the most work ``T[s, q_in, q_out]`` of that period. Values are exact integers, so
the equations hold only along optimal paths; the run pattern of each period is then one that
does that most work (:meth:`~comparator.plan.dp.pausing.flex.RunModel.pattern`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal

import numpy as np

from comparator.errors import PlanError
from comparator.plan.dp.pausing.flex_steps import FlexContractSteps
from comparator.plan.dp.problem import Block, ScheduledSegment
from comparator.plan.dp.rates import FINITE

Source = Callable[[int, int, int, int, bool], int | None]  # (layer, d, rate, h, resumed)


@dataclass(frozen=True)
class Opening:
    """Where a chain opened: the source state's layer, diagonal and hours, and how."""

    layer: int
    diagonal: int
    hours: int
    resumed: bool


@dataclass(frozen=True)
class _Period:
    start: int
    length: int
    source: int  # q before the period
    target: int  # q after it, or -1: the job finishes inside it
    work: int = 0  # work still to do when the job finishes inside


class FlexRebuild:
    def __init__(self, steps: FlexContractSteps, source: Source, keys: tuple[str, ...]) -> None:
        self.steps = steps
        self.model = steps.model
        self.source = source
        self.keys = keys
        self.work = steps.work

    # --- ends --------------------------------------------------------------------------------
    def closed(
        self, j: int, layer: int, diagonal: int, hours: int, status: int, value: int
    ) -> tuple[ScheduledSegment, Opening] | None:
        """The chain of contract ``j`` closing at slot ``layer + diagonal`` (running or paused,
        ``hours`` run that day) with ``value``."""
        q = self.model.state(status, hours)
        states = self.steps.values[j, layer, :, q, diagonal]
        for klass in np.nonzero(states == value)[0]:
            walked = self._walk(j, layer, int(klass), q, diagonal, value)
            if walked is not None:
                return self._segment(j, *walked)
        return None

    def terminal(
        self, j: int, diagonal: int, value: int
    ) -> tuple[ScheduledSegment, Opening] | None:
        """The chain of contract ``j`` inside which the job finishes at ``work + diagonal``."""
        finish = self.work + diagonal
        for layer in range(self.work):
            found = self._finished_from_boundary(j, layer, finish, value)
            if found is None:
                found = self._finished_from_opening(j, layer, finish, value)
            if found is not None:
                return found
        return None

    def _finished_from_boundary(
        self, j: int, layer: int, finish: int, value: int
    ) -> tuple[ScheduledSegment, Opening] | None:
        steps, rates = self.steps, self.steps.rates
        period, remaining = steps.period[j], self.work - layer
        slots = layer + steps.columns
        ends = steps.finish[slots, :, remaining].T.astype(np.int64)  # [q, d]
        storage = steps.storage * (finish - slots - remaining)
        free = steps.rentable(j, slots, period)
        for klass in range(rates.class_count):
            if int(rates.next_class[j, klass]) < 0:
                continue
            paid = steps.values[j, layer, klass] + int(rates.scaled_increment[j, klass])
            hits = (ends == finish) & (ends <= slots + period) & free & (paid + storage == value)
            for q, d in np.argwhere(hits & (steps.values[j, layer, klass] < FINITE)):
                last = _Period(layer + int(d), period, int(q), -1, remaining)
                state = steps.values[j, layer, klass, q, d]
                walked = self._walk(j, layer, klass, int(q), int(d), int(state), [last])
                if walked is not None:
                    return self._segment(j, *walked)
        return None

    def _finished_from_opening(
        self, j: int, layer: int, finish: int, value: int
    ) -> tuple[ScheduledSegment, Opening] | None:
        steps = self.steps
        span, remaining = steps.span[j], self.work - layer
        first = max(0, finish - span, layer)
        slots = np.arange(first, min(finish - remaining, layer + steps.width - 1) + 1)
        if not len(slots):
            return None
        ends = steps.finish[slots, :, remaining].T.astype(np.int64)
        free = steps.rentable(j, slots, span)
        for q, k in np.argwhere((ends == finish) & free):
            start = int(slots[k])
            before = value - self._opening_cents(j) - steps.storage * (finish - start - remaining)
            opening = self._opening_source(j, layer, start - layer, int(q), before, start)
            if opening is not None:
                last = _Period(start, span, int(q), -1, remaining)
                return self._segment(j, [last], opening)
        return None

    # --- walking back ------------------------------------------------------------------------
    def _walk(
        self,
        j: int,
        layer: int,
        klass: int,
        q: int,
        diagonal: int,
        value: int,
        periods: list[_Period] | None = None,
    ) -> tuple[list[_Period], Opening] | None:
        """The periods from the chain's opening to the boundary state, and its opening."""
        periods = list(periods or [])
        steps = self.steps
        while True:
            end = layer + diagonal
            if klass == 0:
                opened = self._opened(j, layer, q, diagonal, value)
                if opened is not None:
                    source, opening = opened
                    periods.append(_Period(end - steps.span[j], steps.span[j], source, q))
                    periods.reverse()
                    return periods, opening
            earlier = self._extended(j, layer, klass, q, diagonal, value)
            if earlier is None:
                return None
            layer, klass, source, diagonal, value = earlier
            periods.append(_Period(end - steps.period[j], steps.period[j], source, q))
            q = source

    def _opened(
        self, j: int, layer: int, q: int, diagonal: int, value: int
    ) -> tuple[int, Opening] | None:
        steps = self.steps
        span = steps.span[j]
        start = layer + diagonal - span
        table = steps.window(span)
        if start < 0 or start >= len(table) or not steps.rentable(j, np.array([start]), span)[0]:
            return None
        for source in range(self.model.size):
            gain = int(table[start, source, q])
            if gain < 1 or gain > layer or diagonal - span + gain < 0:
                continue
            before = value - self._opening_cents(j) - steps.storage * (span - gain)
            opening = self._opening_source(
                j, layer - gain, diagonal - span + gain, source, before, start
            )
            if opening is not None:
                return source, opening
        return None

    def _opening_source(
        self, j: int, layer: int, diagonal: int, q: int, value: int, start: int
    ) -> Opening | None:
        """The source state a chain opening at ``start`` from state ``q`` came from."""
        model = self.model
        status, hours = divmod(q, model.hours)
        if status > 1 or diagonal < 0 or diagonal >= self.steps.width:
            return None
        resumed = status == 0
        if layer == 0 and (resumed or not model.allowed[start]):
            return None
        if resumed and not (layer > 0 and model.overhead):
            return None
        found = self.source(layer, diagonal, self.steps.first_rate + j, hours, resumed)
        if found is None:
            return None
        if resumed:
            found -= self.steps.storage * model.overhead
        return Opening(layer, diagonal, hours, resumed) if found == value else None

    def _extended(
        self, j: int, layer: int, klass: int, q: int, diagonal: int, value: int
    ) -> tuple[int, int, int, int, int] | None:
        steps, rates = self.steps, self.steps.rates
        period = steps.period[j]
        start = layer + diagonal - period
        table = steps.window(period)
        if start < 0 or start >= len(table) or not steps.rentable(j, np.array([start]), period)[0]:
            return None
        for before_class in np.nonzero(rates.next_class[j] == klass)[0]:
            paid = int(rates.scaled_increment[j, before_class])
            for source in range(self.model.size):
                gain = int(table[start, source, q])
                earlier, column = layer - gain, diagonal - period + gain
                if gain < 0 or earlier < 0 or column < 0:
                    continue
                before = value - paid - steps.storage * (period - gain)
                if int(steps.values[j, earlier, before_class, source, column]) == before:
                    return earlier, int(before_class), source, column, before
        return None

    # --- the line item -------------------------------------------------------------------------
    def _opening_cents(self, j: int) -> int:
        return int(self.steps.rates.first_value[j])

    def _segment(
        self, j: int, periods: list[_Period], opening: Opening
    ) -> tuple[ScheduledSegment, Opening]:
        model, rates = self.model, self.steps.rates
        ran: list[bool] = []
        for p in periods:
            if p.target < 0:
                ran += model.finish_pattern(self.steps.finish, p.start, p.source, p.work)
            else:
                ran += model.pattern(p.start, p.length, p.source, p.target)
        start = periods[0].start
        blocks = _blocks(start, ran, opening.resumed, model.overhead)
        if not blocks:
            raise PlanError("internal error: a rebuilt contract runs no slot")
        count = int(rates.min_periods[j]) + len(periods) - 1
        cent = rates.cent[j]
        cents = (count * rates.cost_ticks[j] + cent // 2) // cent
        segment = ScheduledSegment(
            self.keys[j],
            "contract",
            start,
            periods[-1].start + periods[-1].length,
            count,
            blocks[-1][1],
            blocks[0][2],
            Decimal(int(cents)) / 100,
            tuple(blocks),
        )
        return segment, opening


def _blocks(start: int, ran: list[bool], resumed: bool, overhead: int) -> list[Block]:
    """Run blocks of a pattern from ``start``: the first continues the job unless it resumed
    or the pattern begins paused; every later one restarts."""
    blocks: list[Block] = []
    slot = start
    for flag, group in _runs(ran):
        if flag:
            continues = not blocks and slot == start and not resumed
            blocks.append((slot, slot + group, 0 if continues else overhead))
        slot += group
    return blocks


def _runs(flags: list[bool]) -> list[tuple[bool, int]]:
    runs: list[tuple[bool, int]] = []
    for flag in flags:
        if runs and runs[-1][0] == flag:
            runs[-1] = (flag, runs[-1][1] + 1)
        else:
            runs.append((flag, 1))
    return runs
