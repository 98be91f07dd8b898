"""Rebuilding the optimal plan from the values the dynamic programme kept (no pointers).

The programme keeps, per layer ``w``, the values ``closed[w, j, d]`` (a segment of rate ``j``
closed at slot ``w + d``) and ``idle[w, d]``. Walking back from a completion, each segment is
found by trying every start it may have had and keeping one whose source value plus the
segment's exact cost equals the value reached: values are exact integers, so the equation
holds only along optimal paths. The same rules as the forward pass apply (a rate never starts
right where its own segment closed; only a rate of the same machine starts seamlessly; a resume
or a migration pays the overhead; slots must be rentable). Values carry the tie-breaking parts
of :class:`~comparator.plan.dp.rates.Ties`; line items are priced in plain cents.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

import numpy as np

from comparator.errors import PlanError
from comparator.plan.dp.rates import FINITE, INF, ContractRates, HourlyRates, Ints, Ties
from comparator.plan.problem import ScheduledSegment, ScheduleProblem, ScheduleResult


@dataclass(frozen=True)
class _Source:
    """Where a segment started: layer, diagonal, the rate it started, and whether it resumed."""

    layer: int
    diagonal: int
    rate: int
    resumed: bool


class Rebuilder:
    def __init__(
        self,
        problem: ScheduleProblem,
        hourly: HourlyRates | None,
        contracts: ContractRates | None,
        closed: list[Ints],
        idle: list[Ints],
        terminal: Ints,
        ties: Ties,
    ) -> None:
        self.problem = problem
        self.ties = ties
        machines = problem.machines
        self.same = np.array([[a == b for b in machines] for a in machines], dtype=bool)
        np.fill_diagonal(self.same, False)
        self.other = np.array([[a != b for b in machines] for a in machines], dtype=bool)
        self.seamless_restart = problem.interruptible and self.overhead_of(problem) == 0
        self.storage = 0  # scaled storage per paused or overhead slot (set by the profile)
        self.hourly, self.contracts = hourly, contracts
        self.closed = np.stack(closed)  # [layer, rate, d]
        self.idle = np.stack(idle)  # [layer, d]
        self.terminal = terminal
        self.work = problem.work_slots
        self.hourly_count = len(problem.hourly)
        self.overhead = problem.restart_overhead_slots if problem.interruptible else 0

    @staticmethod
    def overhead_of(problem: ScheduleProblem) -> int:
        return problem.restart_overhead_slots if problem.interruptible else 0

    # --- sources -------------------------------------------------------------------------------
    def _among(self, layers: Ints, diagonal: int, mask: Ints) -> Ints:
        """Cheapest closed segment among the rates of ``mask`` at (layers, diagonal)."""
        if not mask.any():
            return np.full(len(layers), INF)
        values: Ints = self.closed[layers][:, mask, diagonal].min(axis=1)
        return values

    def _restart_source(self, layers: Ints, diagonal: int, rate: int) -> Ints:
        """Value a restart of ``rate`` (after a pause, or a migration) starts from."""
        others = self._among(layers, diagonal, self.other[rate])
        values = np.minimum(self.idle[layers, diagonal], others)
        extra = self.ties.restart + self.storage * self.overhead
        restart: Ints = np.where(layers > 0, np.minimum(values + extra, INF), INF)
        return restart

    def _plain_source(self, layers: Ints, diagonal: int, rate: int) -> Ints:
        """Value a segment of ``rate`` may start from at (layers, diagonal) without overhead."""
        values = self._among(layers, diagonal, self.same[rate])
        first = layers == 0
        values[first] = np.minimum(values[first], self.idle[0, diagonal])
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
        cents = (periods * rates.cost_ticks[c] + cent // 2) // cent
        row = rates.unusable[c]
        ends = np.minimum(starts + periods * int(rates.period[c]), len(row) - 1)
        free = (row[ends] - row[starts]) == 0
        return cents, free

    # --- one segment ---------------------------------------------------------------------------
    def _match(
        self, rate: int, end_layer: int, diagonal: int, run_end: int, value: int, final: bool
    ) -> tuple[ScheduledSegment, _Source] | None:
        for resumed in (False, True):
            found = self._match_kind(rate, end_layer, diagonal, run_end, value, final, resumed)
            if found is not None:
                return found
        return None

    def _match_kind(
        self,
        rate: int,
        end_layer: int,
        diagonal: int,
        run_end: int,
        value: int,
        final: bool,
        resumed: bool,
    ) -> tuple[ScheduledSegment, _Source] | None:
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
        hits = np.nonzero(free & (sources < FINITE) & (sources + scaled == value))[0]
        if not len(hits):
            return None
        k = int(hits[0])
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
        return segment, _Source(int(layers[k]), start_diagonal, rate, resumed)

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
    def _closed_node(self, source: _Source, value: int) -> tuple[int, int, int, int]:
        """(layer, diagonal, rate, closed value) of the closed segment a start came from."""
        layer, diagonal = source.layer, source.diagonal
        row = self.closed[layer, :, diagonal]
        if not source.resumed:
            for rate in np.nonzero(self.same[source.rate] & (row == value))[0]:
                return layer, diagonal, int(rate), value
        if not (source.resumed or self.seamless_restart):
            raise PlanError("internal error: no closed segment leads to this start")
        overhead = self.overhead if source.resumed else 0
        before = value - self.ties.restart - self.storage * overhead  # a migration, or a pause
        for rate in np.nonzero(self.other[source.rate] & (row == before))[0]:
            return layer, diagonal, int(rate), before
        for earlier in range(diagonal - 1, -1, -1):
            paused = before - self.storage * (diagonal - earlier)
            hits = np.nonzero(self.closed[layer, :, earlier] == paused)[0]
            if len(hits):
                return layer, earlier, int(hits[0]), paused
        raise PlanError("internal error: no closed segment leads to this start")

    def _source_value(self, source: _Source) -> int:
        layers = np.array([source.layer])
        if source.resumed:
            return int(self._restart_source(layers, source.diagonal, source.rate)[0])
        return int(self._plain_source(layers, source.diagonal, source.rate)[0])

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
            layer, closed_diagonal, rate, value = self._closed_node(source, value)
            found_next = self._match(
                rate, layer, closed_diagonal, layer + closed_diagonal, value, final=False
            )
            if found_next is None:
                raise PlanError("internal error: a closed segment has no start")
            found = found_next
        segments.reverse()
        storage = Decimal(self.problem.storage_cents * (finish - segments[0].start)) / 100
        total = Decimal(cost + self.problem.storage_cents * self.work) / 100
        if sum(s.cost for s in segments) + storage != total:
            raise PlanError("internal error: the rebuilt plan does not add up to its cost")
        return ScheduleResult(total, finish, tuple(segments), storage)

    def _first_match(
        self, diagonal: int, finish: int, cost: int
    ) -> tuple[ScheduledSegment, _Source]:
        for rate in range(len(self.problem.rate_keys)):
            found = self._match(rate, self.work, diagonal, finish, cost, final=True)
            if found is not None:
                return found
        raise PlanError("internal error: no plan rebuilt for finish slot {finish}", finish=finish)
