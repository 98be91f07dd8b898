"""The DP as it was before issue #26 (commit 0c1e896), kept as a test-only reference: the
property test and benchmarks/dp_replay.py compare the planner's DP with it.

Exact dynamic programme for one candidate's schedule (see :mod:`comparator.plan.dp.problem`).

States live on a grid of *layers* ``w`` (work slots done) and *diagonals* ``d = t - w`` (slots
not spent on work so far): a job that completes on diagonal ``d`` finishes at slot ``W + d``,
and only ``d ∈ [0, deadline - W]`` can meet the deadline, which bounds every array. Running
keeps ``d``; idling and restart overhead raise it. Per layer and diagonal the programme holds:

* ``F`` — idle (not started, or paused): the next start is a resume and pays the overhead;
* ``R[j]`` — the previous slot ran on rate ``j`` and its segment closed here: another rate of
  the same machine may start without a pause (the same rate may not: that would split one
  segment in two); a rate of another machine only as a migration, which pays the overhead;
* open hourly segments of each hourly rate by *start class*. A segment ``[s, e)`` costs
  ``a[e] - a[s] + θ`` cents, where ``a``/``b`` are quotient and remainder of the rate's exact
  prefix sums (in ticks) by one cent and ``θ ∈ {-1, 0, 1}`` is the half-up rounding carry, which
  depends only on ``b[e]`` and ``b[s]``: grouping open segments by ``b[s]`` makes per-segment
  rounding exact. Segments younger than their minimum length are kept apart by age;
* open contract chains of each contract rate, by the remainder of their exact cost.

With ``max_run_slots_per_day`` every family also has an hours-run-today axis ``h``
(:mod:`comparator.plan.dp.hours`); idle states are kept per machine, so that a resume on
another machine counts as a migration.

Values are exact integer cents (``int64``), scaled to break ties toward the fewest migrations,
then the fewest line items (:class:`~comparator.plan.dp.rates.Ties`); each layer is a handful of numpy operations over
all rates and diagonals at once. With ``keep_trace`` the closed and idle values of every layer
are kept, from which :mod:`comparator.plan.dp.rebuild` rebuilds the optimal plan of any finish
slot.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from comparator.errors import PlanError
from comparator.plan.dp.hours import DailyCap
from comparator.plan.dp.pausing.dominated_contracts import without_dominated_contracts
from comparator.plan.dp.pausing.flex import RunModel
from comparator.plan.dp.pausing.flex_steps import FlexContractSteps
from comparator.plan.dp.problem import ScheduleProblem, ScheduleResult
from comparator.plan.dp.rates import FINITE, INF, ContractRates, HourlyRates, Ints, Ties
from comparator.plan.dp.rebuild import Rebuilder
from tests.support.dp_reference.reference_steps import ContractSteps, HourlySteps, Sources, Terminal


def _others_min(closed: Ints) -> Ints:
    """``[j, ...]``: the minimum over every rate but ``j``: the smaller of the minima of the
    rates before ``j`` and after it."""
    count = closed.shape[0]
    if count == 1:
        return np.full(closed.shape, INF)
    if count == 2:
        return closed[::-1].copy()
    before = closed.copy()  # prefix and suffix minima, rate by rate (few rates: no sort)
    after = closed.copy()
    for j in range(1, count):
        np.minimum(before[j - 1], before[j], out=before[j])
        np.minimum(after[count - j], after[count - j - 1], out=after[count - j - 1])
    others: Ints = np.empty_like(closed)
    others[0] = after[1]
    others[-1] = before[-2]
    np.minimum(before[:-2], after[2:], out=others[1:-1])
    return others


class Machines:
    """Rates grouped by machine: the cheapest closed segment on the same machine (another rate)
    and on any other machine, per rate and diagonal."""

    def __init__(self, machines: tuple[str, ...]) -> None:
        names = sorted(set(machines))
        self.groups = [np.array([j for j, m in enumerate(machines) if m == n]) for n in names]
        self.single = len(self.groups) == 1
        self.of_rate = np.array([names.index(m) for m in machines], dtype=np.int64)

    def same(self, closed: Ints) -> Ints:
        if self.single:
            return _others_min(closed)
        values = np.full(closed.shape, INF)
        for rows in self.groups:
            values[rows] = _others_min(closed[rows])
        return values

    def other(self, closed: Ints) -> Ints:
        values = np.full(closed.shape, INF)
        if self.single:
            return values
        for rows in self.groups:
            rest = np.setdiff1d(np.arange(closed.shape[0]), rows)
            values[rows] = closed[rest].min(axis=0)
        return values

    def idle(self, closed: Ints, pause: Callable[[Ints], Ints]) -> Ints:
        """``[machine, ...]``: paused after a segment closed on each machine."""
        if self.single:
            paused: Ints = pause(closed.min(axis=0))[None]
            return paused
        return np.stack([pause(closed[rows].min(axis=0)) for rows in self.groups])

    def restart(self, idle: Ints, closed: Ints, migration: int) -> Ints:
        """``[rate, ...]``: the cheapest restart of each rate: a resume on its own machine, or a
        migration (after a pause or not) that adds the ``migration`` tie unit."""
        own = idle[self.of_rate]
        if self.single:
            return own
        moved = np.minimum(_others_min(idle)[self.of_rate], self.other(closed))
        restart: Ints = np.minimum(own, np.minimum(moved + migration, INF))
        return restart


class _Layers:
    """One array of every layer's values, filled layer by layer (no copy when rebuilt)."""

    def __init__(self) -> None:
        self.array: Ints = np.empty((0,), dtype=np.int64)
        self.filled = 0

    def keep(self, layer: int, values: Ints, layers: int) -> None:
        if layer == 0:
            self.array = np.empty((layers, *values.shape), dtype=np.int64)
        self.array[layer] = values
        self.filled = layer + 1


class ScheduleProfile:
    """The solved programme: the cheapest cost for every finish slot, and the plans behind it."""

    def __init__(self, problem: ScheduleProblem, *, keep_trace: bool = True) -> None:
        self.problem = problem
        self.work = problem.work_slots
        self.width = problem.deadline_slot - problem.work_slots + 1
        self.trace = keep_trace
        self.hourly_count = len(problem.hourly)
        self.rate_count = self.hourly_count + len(problem.contracts)
        self.overhead = problem.restart_overhead_slots if problem.interruptible else 0
        self.ties = Ties.for_problem(problem)
        self.storage = problem.storage_cents * self.ties.scale  # per paused/overhead slot
        self.fixed_cents = problem.storage_cents * problem.work_slots  # storage of work slots
        self.machines = Machines(problem.machines)
        self.machine_count = len(self.machines.groups) if problem.machines else 1
        self.trials = np.array(
            [j for j, r in enumerate(problem.hourly) if r.trial_slots > 0], dtype=np.int64
        )
        self._closed = _Layers()
        self._idle = _Layers()
        self._paused = _Layers()  # chains closing paused, one diagonal early (flexible)
        self._contract_steps: ContractSteps | FlexContractSteps | None = None
        self.hourly: HourlyRates | None = None
        self.contracts: ContractRates | None = None
        self.terminal = Terminal(max(self.width, 0))
        self.cap = DailyCap(problem, self._horizon())
        if self.width > 0 and self.rate_count:
            deadline = problem.deadline_slot
            if problem.hourly:
                self.hourly = HourlyRates(problem.hourly, deadline, self.overhead, self.ties)
            if problem.contracts:
                self.contracts = ContractRates(problem.contracts, deadline, self.ties)
            self._run()

    def _horizon(self) -> int:
        """The last slot a run may reach (a contract chain started at the deadline)."""
        spans = [c.period_slots * (c.min_periods + 1) for c in self.problem.contracts]
        return self.problem.deadline_slot + max(spans, default=0) + self.overhead + 2

    # --- results -------------------------------------------------------------------------
    @property
    def costs_cents(self) -> list[int | None]:
        """Cheapest cost (cents) of finishing at slot ``work + d``, for each ``d``."""
        return [
            self.ties.cents(int(c)) + self.fixed_cents if c < FINITE else None
            for c in self.terminal.values
        ]

    def finish_slot(self, diagonal: int) -> int:
        return self.work + diagonal

    def cheapest(self, budget_cents: int | None = None) -> int | None:
        """Diagonal of the cheapest plan (ties: earliest finish), or None when none fits."""
        costs = self.terminal.values
        if not len(costs) or costs.min() >= FINITE:
            return None
        best = int(costs.argmin())  # the first minimum: the earliest finish
        if budget_cents is not None and self.cost_cents(best) > budget_cents:
            return None
        return best

    def fastest(self, budget_cents: int | None = None) -> int | None:
        """Diagonal of the earliest finish within the budget (its cheapest plan)."""
        if budget_cents is not None and budget_cents < self.fixed_cents:
            return None
        limit = (
            FINITE
            if budget_cents is None
            else (budget_cents - self.fixed_cents + 1) * self.ties.scale
        )
        hits = np.nonzero(self.terminal.values < limit)[0]
        return int(hits[0]) if len(hits) else None

    def cost_cents(self, diagonal: int) -> int:
        return self.ties.cents(int(self.terminal.values[diagonal])) + self.fixed_cents

    def schedule(self, diagonal: int) -> ScheduleResult:
        """The optimal plan finishing at slot ``work + diagonal`` (needs ``keep_trace``)."""
        if not self.trace:
            raise PlanError("this profile was solved without keeping its layers")
        if self.terminal.values[diagonal] >= FINITE:
            raise PlanError("no plan finishes at slot {work}", work=self.work + diagonal)
        rebuilder = Rebuilder(
            self.problem,
            self.hourly,
            self.contracts,
            self._closed.array,
            self._idle.array,
            self.terminal.values,
            self.ties,
            self.cap,
            self._contract_steps if isinstance(self._contract_steps, FlexContractSteps) else None,
            self._paused.array if self._paused.filled else None,
        )
        rebuilder.storage = self.storage
        return rebuilder.schedule(diagonal)

    # --- the programme -------------------------------------------------------------------
    def _run(self) -> None:
        cap = self.cap
        self._hourly_steps = (
            HourlySteps(self.hourly, self.width, self.overhead, cap)
            if self.hourly is not None
            else None
        )
        if self.contracts is not None and self.problem.flexible:
            self._contract_steps = FlexContractSteps(
                self.contracts,
                RunModel(self.problem),
                self.width,
                self.work,
                self.storage,
                self.hourly_count,
            )
        elif self.contracts is not None:
            self._contract_steps = ContractSteps(
                self.contracts, self.width, self.work, self.overhead, self.hourly_count, cap
            )
        self._nothing = np.full((self.hourly_count, cap.size, self.width), INF)
        for layer in range(self.work):
            self._layer(layer)
        if self._hourly_steps is not None:
            self._hourly_steps.finish(self.work, self.terminal)

    def _layer(self, layer: int) -> None:
        closed = self._close_all(layer)
        paused = self._paused_exits(layer)
        idle = self._idle_states(layer, closed if paused is None else np.minimum(closed, paused))
        if self.trace:
            self._closed.keep(layer, closed, self.work)
            self._idle.keep(layer, idle, self.work)
            if paused is not None:
                self._paused.keep(layer, paused, self.work)
        sources = self._sources(layer, closed, idle)
        resume = layer > 0 and self.problem.interruptible
        if self._hourly_steps is not None:
            self._hourly_steps.advance(layer, sources, resume)
        if self._contract_steps is not None:
            self._contract_steps.advance(layer, sources, self.terminal, resume)

    def _close_all(self, layer: int) -> Ints:
        parts: list[Ints] = []
        if self._hourly_steps is not None:
            parts.append(self._hourly_steps.close(layer) if layer else self._nothing)
        if self._contract_steps is not None:
            parts.append(self._contract_steps.close(layer))
        closed: Ints = np.minimum(np.concatenate(parts), INF)
        return closed

    def _paused_exits(self, layer: int) -> Ints | None:
        """``[rate, h, e]``: a chain that closed paused at diagonal ``e + 1``, less one slot's
        storage, so that pausing from it (:meth:`_idle_states`) counts that slot again."""
        steps = self._contract_steps
        if not isinstance(steps, FlexContractSteps) or not self.problem.interruptible:
            return None
        exits = steps.paused(layer)
        shifted = np.full((self.rate_count, *exits.shape[1:]), INF)
        shifted[self.hourly_count :, :, :-1] = np.where(
            exits[:, :, 1:] < FINITE, exits[:, :, 1:] - self.storage, INF
        )
        return shifted

    def _idle_states(self, layer: int, closed: Ints) -> Ints:
        """``[machine, h, d]``: not started (layer 0), or paused after a segment closed on that
        machine at an earlier diagonal (each paused slot pays storage)."""
        shape = (self.machine_count, self.cap.size, self.width)
        if layer == 0:
            idle = np.full(shape, INF)
            idle[:, 0] = 0
            return idle
        if not (self.problem.interruptible and self.width > 1):
            return np.full(shape, INF)
        return self.machines.idle(closed, lambda c: self.cap.pause(c, layer, self.storage))

    def _sources(self, layer: int, closed: Ints, idle: Ints) -> Sources:
        """Per rate: the cheapest closed segment of another rate of its machine (seamless), and
        the cheapest restart: a resume after a pause, or a migration from another machine."""
        values = self.machines.same(closed)
        resume = np.full(values.shape, INF)
        if layer == 0:
            return Sources(np.minimum(values, idle[self.machines.of_rate]), resume)
        if self.problem.interruptible:
            restart = self.machines.restart(idle, closed, self.ties.restart)
            restart = np.minimum(restart + self.storage * self.overhead, INF)
            if self.overhead == 0:
                values = np.minimum(values, restart)
            else:
                resume = restart
        values[self.trials] = INF  # a free trial only opens the plan
        resume[self.trials] = INF
        return Sources(values, resume)


def solve_schedule(problem: ScheduleProblem, *, keep_trace: bool = True) -> ScheduleProfile:
    """Solve one candidate's schedule exactly; see :class:`ScheduleProfile` (contracts an
    hourly rate always beats are dropped first: :mod:`comparator.plan.dp.pausing.dominated_contracts`)."""
    return ScheduleProfile(without_dominated_contracts(problem), keep_trace=keep_trace)
