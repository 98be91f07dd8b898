"""Rebuilding the optimal plan from the values the dynamic programme kept (no pointers).

The programme keeps, per layer ``w``, the values ``closed[w, j, h, d]`` (a segment of rate ``j``
closed at slot ``w + d`` with ``h`` hours run that day) and ``idle[w, m, h, d]`` (paused after
machine ``m``). Walking back from a completion, each segment is
found by trying every start it may have had and keeping one whose source value plus the
segment's exact cost equals the value reached: values are exact integers, so the equation
holds only along optimal paths. The same rules as the forward pass apply (a rate never starts
right where its own segment closed; only a rate of the same machine starts seamlessly; a resume
or a migration pays the overhead, a migration also its tie unit; slots must be rentable; the
daily cap of :mod:`comparator.plan.dp.hours`). Values carry the tie-breaking parts
of :class:`~comparator.plan.dp.rates.Ties`; line items are priced in plain cents.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

import numpy as np

from comparator.errors import PlanError
from comparator.plan.dp.hours import DailyCap
from comparator.plan.dp.pausing.flex_rebuild import FlexRebuild, Opening
from comparator.plan.dp.pausing.flex_steps import FlexContractSteps
from comparator.plan.dp.problem import ScheduledSegment, ScheduleProblem, ScheduleResult
from comparator.plan.dp.rates import FINITE, INF, ContractRates, HourlyRates, Ints, Ties


@dataclass(frozen=True)
class _Source:
    """Where a segment started: layer, diagonal, the rate it started, whether it resumed, and
    the hours run that day before it."""

    layer: int
    diagonal: int
    rate: int
    resumed: bool
    hours: int = 0


@dataclass(frozen=True)
class _Node:
    """A segment's end the walk reached: closed at slot ``layer + diagonal`` with ``hours`` run
    that day and ``value``; ``running`` False: a flexible chain that closed with the job
    paused."""

    layer: int
    diagonal: int
    rate: int
    hours: int
    value: int
    running: bool = True


class Rebuilder:
    def __init__(
        self,
        problem: ScheduleProblem,
        hourly: HourlyRates | None,
        contracts: ContractRates | None,
        closed: Ints,
        idle: Ints,
        terminal: Ints,
        ties: Ties,
        cap: DailyCap,
        flex: FlexContractSteps | None = None,
        paused: Ints | None = None,
    ) -> None:
        self.problem = problem
        self.ties = ties
        self.cap = cap
        machines = problem.machines
        names = sorted(set(machines))
        self.machine_of = [names.index(m) for m in machines]
        self.same = np.array([[a == b for b in machines] for a in machines], dtype=bool)
        np.fill_diagonal(self.same, False)
        self.other = np.array([[a != b for b in machines] for a in machines], dtype=bool)
        self.seamless_restart = problem.interruptible and self.overhead_of(problem) == 0
        self.storage = 0  # scaled storage per paused or overhead slot (set by the profile)
        self.hourly, self.contracts = hourly, contracts
        self.closed = closed  # [layer, rate, h, d]
        self.idle = idle  # [layer, machine, h, d]
        self.terminal = terminal
        self.work = problem.work_slots
        self.hourly_count = len(problem.hourly)
        self.overhead = problem.restart_overhead_slots if problem.interruptible else 0
        self.flex = (
            FlexRebuild(flex, self._source_at, tuple(c.key for c in problem.contracts))
            if flex is not None
            else None
        )
        self.paused = paused  # [layer, rate, h, d], one early (flexible chains only)

    @staticmethod
    def overhead_of(problem: ScheduleProblem) -> int:
        return problem.restart_overhead_slots if problem.interruptible else 0

    # --- sources: values[layer, h] -------------------------------------------------------------
    def _among(self, layers: Ints, diagonal: int, mask: Ints) -> Ints:
        """Cheapest closed segment among the rates of ``mask`` at (layers, diagonal)."""
        if not mask.any():
            return np.full((len(layers), self.cap.size), INF)
        values: Ints = self.closed[layers, :, :, diagonal][:, mask].min(axis=1)
        return values

    def _restart_source(self, layers: Ints, diagonal: int, rate: int) -> Ints:
        """Value a restart of ``rate`` (a resume after a pause, or a migration) starts from."""
        idle = self.idle[layers, :, :, diagonal]  # [layer, machine, h]
        machine = self.machine_of[rate]
        own = idle[:, machine]
        moved = self._among(layers, diagonal, self.other[rate])
        if idle.shape[1] > 1:
            elsewhere = np.delete(idle, machine, axis=1).min(axis=1)
            moved = np.minimum(moved, elsewhere)
        values = np.minimum(own, np.minimum(moved + self.ties.restart, INF))
        values = np.minimum(values + self.storage * self.overhead, INF)
        restart: Ints = np.where((layers > 0)[:, None], values, INF)
        return restart

    def _source_at(
        self, layer: int, diagonal: int, rate: int, hours: int, resumed: bool
    ) -> int | None:
        layers = np.array([layer])
        values = (
            self._restart_source(layers, diagonal, rate)
            if resumed
            else self._plain_source(layers, diagonal, rate)
        )
        value = int(values[0, hours])
        return value if value < FINITE else None

    def _plain_source(self, layers: Ints, diagonal: int, rate: int) -> Ints:
        """Value a segment of ``rate`` may start from at (layers, diagonal) without overhead."""
        values = self._among(layers, diagonal, self.same[rate])
        first = layers == 0
        start = self.idle[0, self.machine_of[rate], :, diagonal]
        values[first] = np.minimum(values[first], start)
        if self.seamless_restart:
            values = np.minimum(values, self._restart_source(layers, diagonal, rate))
        return values

    # --- segment costs -------------------------------------------------------------------------
    def _hourly_cents(self, j: int, starts: Ints, ends: Ints) -> tuple[Ints, Ints]:
        """(cents, rentable) of hourly segments [starts, ends) of rate ``j``."""
        assert self.hourly is not None
        h = self.hourly
        cent = int(h.cent[j])
        cents = h.a[j, ends] - h.a[j, starts] + (cent // 2 + h.b[j, ends] - h.b[j, starts]) // cent
        free = (h.unusable[j, ends] - h.unusable[j, starts]) == 0
        return cents, free

    def _chain_cents(self, c: int, periods: Ints, starts: Ints) -> tuple[Ints, Ints]:
        assert self.contracts is not None
        rates = self.contracts
        cent = rates.cent[c]
        whole, part = divmod(rates.cost_ticks[c], cent)  # ticks may pass int64; cents do not
        cents = periods * whole + (periods * part + cent // 2) // cent
        row = rates.unusable[c]
        ends = np.minimum(starts + periods * int(rates.period[c]), len(row) - 1)
        free = (row[ends] - row[starts]) == 0
        return cents, free

    # --- one segment ---------------------------------------------------------------------------
    def _match(
        self,
        rate: int,
        end_layer: int,
        diagonal: int,
        run_end: int,
        value: int,
        hours: int | None,
    ) -> tuple[ScheduledSegment, _Source] | None:
        """The segment of ``rate`` that ends its run at ``run_end`` reaching ``value`` with
        ``hours`` run that day (None: the plan's last segment)."""
        for resumed in (False, True):
            found = self._match_kind(rate, end_layer, diagonal, run_end, value, hours, resumed)
            if found is not None:
                return found
        return None

    def _reached(self, sources: Ints, starts: Ints, runs: Ints, hours: int | None) -> Ints:
        """Per start: the source value after running ``runs`` slots, at ``hours`` run that day
        (any, for the last segment)."""
        ran = self.cap.run(sources.T, starts, runs)
        reached: Ints = ran.min(axis=0) if hours is None else ran[hours]
        return reached

    def _source_hours(self, sources: Ints, start: int, runs: int, hours: int | None) -> int:
        """The hours run that day at the source from which the segment reaches its end."""
        target = self._reached(sources[None, :], np.array([start]), np.array([runs]), hours)[0]
        for h in range(self.cap.size):
            single = np.full((1, self.cap.size), INF)
            single[0, h] = sources[h]
            if (
                single[0, h] < FINITE
                and self._reached(single, np.array([start]), np.array([runs]), hours)[0] == target
            ):
                return h
        raise PlanError("internal error: no hours run today lead to this segment")

    def _match_kind(
        self,
        rate: int,
        end_layer: int,
        diagonal: int,
        run_end: int,
        value: int,
        hours: int | None,
        resumed: bool,
    ) -> tuple[ScheduledSegment, _Source] | None:
        final = hours is None
        overhead = self.overhead if resumed else 0
        if resumed and (overhead == 0 or diagonal < overhead):
            return None
        runs = np.arange(overhead + 1, end_layer + overhead + 1)  # run slots incl. overhead
        layers = end_layer - runs + overhead
        if resumed:
            keep = layers > 0
            runs, layers = runs[keep], layers[keep]
        start_diagonal = diagonal - overhead
        starts = run_end - runs
        sources = (
            self._restart_source(layers, start_diagonal, rate)
            if resumed
            else self._plain_source(layers, start_diagonal, rate)
        )
        if rate < self.hourly_count:
            cost, free, ends, periods = self._hourly_options(rate, starts, run_end, final)
            trial = self.problem.hourly[rate].trial_slots
            if trial:  # only the plan's first segment, at most ``trial`` slots
                free &= (layers == 0) & (runs <= trial) & (not resumed)
        else:
            cost, free, ends, periods = self._chain_options(rate, starts, run_end, final, resumed)
        scaled = cost * self.ties.scale + self.ties.segment
        reached = self._reached(sources, starts, runs, hours)
        hits = np.nonzero(free & (reached < FINITE) & (reached + scaled == value))[0]
        if not len(hits):
            return None
        k = int(hits[0])
        source_hours = self._source_hours(sources[k], int(starts[k]), int(runs[k]), hours)
        start = int(starts[k])
        kind = "hourly" if rate < self.hourly_count else "contract"
        key = self.problem.rate_keys[rate]
        segment = ScheduledSegment(
            key,
            kind,
            start,
            int(ends[k]),
            int(periods[k]),
            run_end,
            overhead,
            Decimal(int(cost[k])) / 100,
        )
        return segment, _Source(int(layers[k]), start_diagonal, rate, resumed, source_hours)

    def _hourly_options(
        self, j: int, starts: Ints, run_end: int, final: bool
    ) -> tuple[Ints, Ints, Ints, Ints]:
        assert self.hourly is not None
        minimum = int(self.hourly.min_slots[j])
        ends = np.maximum(run_end, starts + minimum) if final else np.full(len(starts), run_end)
        cents, free = self._hourly_cents(j, starts, ends)
        if not final:
            free &= (run_end - starts) >= minimum
        return cents, free, ends, ends - starts

    def _chain_options(
        self, rate: int, starts: Ints, run_end: int, final: bool, resumed: bool
    ) -> tuple[Ints, Ints, Ints, Ints]:
        assert self.contracts is not None
        c = rate - self.hourly_count
        period = int(self.contracts.period[c])
        minimum = int(self.contracts.min_periods[c])
        covered = run_end - starts
        periods = np.maximum(minimum, -(-covered // period))
        cents, free = self._chain_cents(c, periods, starts)
        if resumed and minimum * period <= self.overhead:
            free &= False
        if not final:
            free &= (covered % period == 0) & (covered // period >= minimum)
        return cents, free, starts + periods * period, periods

    # --- the walk ------------------------------------------------------------------------------
    def _closed_node(self, source: _Source, value: int) -> _Node:
        """The segment a start came from: closed running, or (a flexible chain) paused."""
        layer, diagonal, hours = source.layer, source.diagonal, source.hours
        row = self.closed[layer, :, hours, diagonal]
        if not source.resumed:
            for rate in np.nonzero(self.same[source.rate] & (row == value))[0]:
                return _Node(layer, diagonal, int(rate), hours, value)
        if not (source.resumed or self.seamless_restart):
            raise PlanError("internal error: no closed segment leads to this start")
        overhead = self.overhead if source.resumed else 0
        before = value - self.storage * overhead
        migrated = before - self.ties.restart
        for rate in np.nonzero(self.other[source.rate] & (row == migrated))[0]:
            return _Node(layer, diagonal, int(rate), hours, migrated)
        own = self.machine_of[source.rate]
        for machine, paused in sorted(
            enumerate(self.idle[layer, :, hours, diagonal]), key=lambda m: m[0] != own
        ):
            expected = before if machine == own else migrated
            if paused == expected:
                return self._paused_from(layer, diagonal, hours, machine, expected)
        raise PlanError("internal error: no closed segment leads to this start")

    def _paused_from(
        self, layer: int, diagonal: int, hours: int, machine: int, value: int
    ) -> _Node:
        """The segment closed on ``machine`` that a pause reaching ``value`` started after (or
        the chain that closed paused, its value kept one diagonal early: see the solver)."""
        rates = np.array([m == machine for m in self.machine_of], dtype=bool)
        day = self.cap.day_of(layer + diagonal)
        for earlier in range(diagonal - 1, -1, -1):
            paused = value - self.storage * (diagonal - earlier)
            same_day = self.cap.day_of(layer + earlier) == day
            if same_day or hours == 0:
                rows = [hours] if same_day else range(self.cap.size)
                for h in rows:
                    hits = np.nonzero(rates & (self.closed[layer, :, h, earlier] == paused))[0]
                    if len(hits):
                        return _Node(layer, earlier, int(hits[0]), h, paused)
                    if self.paused is None:
                        continue
                    hits = np.nonzero(rates & (self.paused[layer, :, h, earlier] == paused))[0]
                    if len(hits):
                        chain = paused + self.storage
                        return _Node(layer, earlier + 1, int(hits[0]), h, chain, running=False)
        raise PlanError("internal error: no closed segment leads to this pause")

    def _source_value(self, source: _Source) -> int:
        layers = np.array([source.layer])
        if source.resumed:
            values = self._restart_source(layers, source.diagonal, source.rate)
        else:
            values = self._plain_source(layers, source.diagonal, source.rate)
        return int(values[0, source.hours])

    def schedule(self, diagonal: int) -> ScheduleResult:
        cost = self.ties.cents(int(self.terminal[diagonal]))
        finish = self.work + diagonal
        segments: list[ScheduledSegment] = []
        found = self._first_match(diagonal, finish, int(self.terminal[diagonal]))
        while True:
            segment, source = found
            segments.append(segment)
            value = self._source_value(source)
            if source.layer == 0:
                break
            found_next = self._segment_before(self._closed_node(source, value))
            if found_next is None:
                raise PlanError("internal error: a closed segment has no start")
            found = found_next
        segments.reverse()
        storage = Decimal(self.problem.storage_cents * (finish - segments[0].run_start)) / 100
        total = Decimal(cost + self.problem.storage_cents * self.work) / 100
        if sum(s.cost for s in segments) + storage != total:
            raise PlanError("internal error: the rebuilt plan does not add up to its cost")
        return ScheduleResult(total, finish, tuple(segments), storage)

    def _segment_before(self, node: _Node) -> tuple[ScheduledSegment, _Source] | None:
        if self.flex is not None and node.rate >= self.hourly_count:
            status = 1 if node.running else 0
            chain = self.flex.closed(
                node.rate - self.hourly_count,
                node.layer,
                node.diagonal,
                node.hours,
                status,
                node.value,
            )
            return None if chain is None else self._from_opening(node.rate, *chain)
        end = node.layer + node.diagonal
        return self._match(node.rate, node.layer, node.diagonal, end, node.value, node.hours)

    @staticmethod
    def _from_opening(
        rate: int, segment: ScheduledSegment, opening: Opening
    ) -> tuple[ScheduledSegment, _Source]:
        source = _Source(opening.layer, opening.diagonal, rate, opening.resumed, opening.hours)
        return segment, source

    def _first_match(
        self, diagonal: int, finish: int, cost: int
    ) -> tuple[ScheduledSegment, _Source]:
        for rate in range(len(self.problem.rate_keys)):
            if self.flex is not None and rate >= self.hourly_count:
                chain = self.flex.terminal(rate - self.hourly_count, diagonal, cost)
                found = None if chain is None else self._from_opening(rate, *chain)
            else:
                found = self._match(rate, self.work, diagonal, finish, cost, None)
            if found is not None:
                return found
        raise PlanError("internal error: no plan rebuilt for finish slot {finish}", finish=finish)
