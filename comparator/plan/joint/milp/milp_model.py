"""Time-indexed MILP of one or several jobs over their candidates, solved with HiGHS.

Used where the exact dynamic programme cannot go: several jobs competing for the stock of the
same offers. Per job and candidate (slot ``t`` of the candidate's grid, ``D`` its deadline):

* ``z`` — the job uses this candidate (exactly one per job);
* ``r[t]`` run in slot t, ``u[t]`` a run block starts at t (``u[t] ≥ r[t] − r[t−1]``);
* hourly rate ``j``: ``x[j,t]`` paid slot (``t < D + min − 1``: padding may pass the deadline),
  ``s[j,t] ≥ x[j,t] − x[j,t−1]`` a segment start, which keeps the next ``min − 1`` slots paid;
* contract rate ``j``: ``y[j,t]`` a period starting at t, ``c[j,t] ≥ y[j,t] − y[j,t−P]`` a chain
  start, which keeps the next ``min − 1`` periods;
* ``r[t] ≤ Σ x[·,t] + Σ y[·,τ]`` over periods covering t; work
  ``Σ r − overhead·(Σ u − z) ≥ W·z``; one block when the job may not pause;
* per offer with stock, per clock hour: ``Σ units × paid ≤ stock`` over all jobs;
* the data bill: ``z`` costs the candidate's fixed data cents (upload-time storage, egress);
  with a storage charge, ``b[t] ≥ b[t−1], b[t] ≥ r[t]`` (started), ``e[t] ≥ e[t+1], e[t] ≥
  r[t]`` (not yet finished) and ``a[t] ≥ b[t] + e[t] − 1`` costs the charge per slot: exactly
  the slots from the first run slot to the finish, paused slots included, as the DP bills.

* a free trial rate ``k`` (cost 0): ``x[k,t] ≤ r[t]``, at most ``trial_slots`` slots, one
  segment start per plan over all trials, and none after a run slot (``s[k,t] + b[t−1] ≤ 1``
  with ``b`` the started indicator above): the trial opens the plan, as in the DP; per
  provider, one segment start over all jobs' trials (none if a job outside took it).

Migrations and a daily cap are not modelled: the MILP plans each machine of a job that may
migrate alone and ignores a cap, so a job that could use either is planned by the exact per-job
DP instead, and the MILP sees it *relaxed* (all machines with seamless switches, no cap) only
to bound the joint cost (:mod:`comparator.plan.joint.joint_plan`).

The objective is the exact sum of slot and period prices and the data bill in cents. When every price is a whole
number of cents that sum is the billed cost; otherwise per-segment rounding (< ½ cent a segment)
is not modelled, and the caller must not claim optimality to the cent.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

import numpy as np

from comparator.plan.candidates import Candidate
from comparator.plan.dp.problem import ScheduleResult
from comparator.plan.joint.milp.extract import canonical_schedule
from comparator.plan.joint.milp.lp import INF, Model, new_highs


@dataclass
class _Columns:
    """Variable indices of one (job, candidate)."""

    choose: int
    run: list[int]
    start: list[int]
    hourly: dict[int, dict[int, int]] = field(default_factory=dict)  # rate → slot → var
    periods: dict[int, dict[int, int]] = field(default_factory=dict)  # rate → start → var
    active: dict[int, dict[int, int]] = field(default_factory=dict)  # rate → slot → var
    storage: list[int] = field(default_factory=list)  # a[t]: the data disk is billed in slot t
    started: list[int] = field(default_factory=list)  # b[t]: a run slot at or before t
    running: list[int] = field(default_factory=list)  # e[t]: not yet finished
    opens: dict[tuple[int, int], int] = field(default_factory=dict)  # (rate, slot) → segment start


@dataclass(frozen=True)
class MilpJob:
    """One job's candidates for the MILP, and its budget in cents."""

    name: str
    candidates: Sequence[Candidate]
    budget_cents: int | None = None


@dataclass
class MilpOutcome:
    schedules: list[tuple[Candidate, ScheduleResult] | None]
    objective_cents: float | None
    bound_cents: float | None
    proven: bool
    status: str
    seconds: float
    whole_cents: bool


def _cents(value: Decimal) -> float:
    return float(value * 100)


def _whole_cents(candidates: Sequence[Candidate]) -> bool:
    def whole(v: Decimal) -> bool:
        return (v * 100) == (v * 100).to_integral_value()

    return all(whole(c.cost) for cand in candidates for c in cand.problem.contracts) and all(
        whole(v) for cand in candidates for r in cand.problem.hourly for v in r.slot_costs
    )


class _Builder:
    def __init__(self) -> None:
        self.model = Model()
        self.usage: dict[tuple[str, int], list[tuple[int, float]]] = {}
        self.trials: dict[str, list[int]] = {}  # provider → its trials' segment starts

    def candidate(self, cand: Candidate) -> _Columns:
        problem = cand.problem
        deadline, work = problem.deadline_slot, problem.work_slots
        overhead = problem.restart_overhead_slots if problem.interruptible else 0
        model = self.model
        cols = _Columns(
            model.var(float(cand.bill.fixed_cents)),
            [model.var() for _ in range(deadline)],
            [model.var() for _ in range(deadline)],
        )
        for j, rate in enumerate(problem.hourly):
            cols.hourly[j] = self._hourly(cand, cols, j, rate, deadline)
        for j, contract in enumerate(problem.contracts):
            cols.periods[j], cols.active[j] = self._contract(cand, contract, deadline)
        for t in range(deadline):
            previous = [(cols.run[t - 1], -1.0)] if t else []
            model.row([(cols.run[t], 1.0), *previous, (cols.start[t], -1.0)], -INF, 0)
            cover = [(cols.run[t], 1.0)]
            cover += [(slots[t], -1.0) for slots in cols.hourly.values() if t in slots]
            cover += [(active[t], -1.0) for active in cols.active.values() if t in active]
            model.row(cover, -INF, 0)
            if not problem.may_run(t):  # outside the run windows: paid contract hours idle
                model.row([(cols.run[t], 1.0)], -INF, 0)
        terms = [(v, 1.0) for v in cols.run] + [(v, -float(overhead)) for v in cols.start]
        model.row([*terms, (cols.choose, float(overhead - work))], 0, INF)
        if not problem.interruptible:
            model.row([(v, 1.0) for v in cols.start] + [(cols.choose, -1.0)], -INF, 0)
        if problem.storage_cents:
            self._storage(cols, float(problem.storage_cents))
        if any(r.trial_slots for r in problem.hourly):
            self._trials(cand, cols)
        return cols

    def _started(self, cols: _Columns) -> list[int]:
        """``b[t] ≥ r[τ]`` for every τ ≤ t (``b`` is only bounded below: whatever needs it
        to be 0 before the first run slot keeps it there)."""
        if not cols.started:
            model = self.model
            cols.started = [model.var() for _ in cols.run]
            for t, b in enumerate(cols.started):
                model.row([(b, 1.0), (cols.run[t], -1.0)], 0, INF)
                if t:
                    model.row([(b, 1.0), (cols.started[t - 1], -1.0)], 0, INF)
        return cols.started

    def _trials(self, cand: Candidate, cols: _Columns) -> None:
        """A free trial opens the plan (the DP's rule): its slots are run slots in one
        segment that starts at the first run slot, at most ``trial_slots`` long, and a plan
        has at most one trial. Its slots cost 0 and use its offer's stock (``_use``)."""
        model, started, opens = self.model, self._started(cols), []
        for j, rate in enumerate(cand.problem.hourly):
            if not rate.trial_slots:
                continue
            slots = cols.hourly[j]
            model.row([(v, 1.0) for v in slots.values()], -INF, rate.trial_slots)
            for t, var in slots.items():
                model.row([(var, 1.0), (cols.run[t], -1.0)], -INF, 0)
                start = cols.opens[(j, t)] = model.var()
                before = [(slots[t - 1], -1.0)] if t - 1 in slots else []
                model.row([(var, 1.0), *before, (start, -1.0)], -INF, 0)
                if t:
                    model.row([(start, 1.0), (started[t - 1], 1.0)], -INF, 1)
                opens.append(start)
                provider = cand.offers[cand.trials.get(rate.key, rate.key)].provider
                self.trials.setdefault(provider, []).append(start)
        model.row([(v, 1.0) for v in opens], -INF, 1)

    def _storage(self, cols: _Columns, cents: float) -> None:
        """``a[t] = 1`` exactly from the first run slot to the last (minimising)."""
        model, run = self.model, cols.run
        count = len(run)
        started = self._started(cols)
        running = [model.var() for _ in range(count)]
        billed = [model.var(cents) for _ in range(count)]
        for t in range(count):
            model.row([(running[t], 1.0), (run[t], -1.0)], 0, INF)
            if t:
                model.row([(running[t - 1], 1.0), (running[t], -1.0)], 0, INF)
            terms = [(billed[t], 1.0), (started[t], -1.0), (running[t], -1.0)]
            model.row(terms, -1, INF)
        cols.storage, cols.running = billed, running

    def _hourly(
        self, cand: Candidate, cols: _Columns, j: int, rate: Any, deadline: int
    ) -> dict[int, int]:
        model, opens = self.model, cols.opens
        slots = {
            t: model.var(_cents(rate.slot_costs[t]))
            for t in range(min(deadline + rate.min_slots - 1, len(rate.slot_costs)))
            if rate.usable(t)
        }
        for t, var in slots.items():
            self._use(cand, rate.key, t, var)
            if rate.min_slots < 2:
                continue
            start = opens[(j, t)] = model.var()
            before = [(slots[t - 1], 1.0)] if t - 1 in slots else []
            model.row([(var, 1.0), *[(i, -v) for i, v in before], (start, -1.0)], -INF, 0)
            for k in range(1, rate.min_slots):
                later = slots.get(t + k)
                model.row([(start, 1.0)] + ([(later, -1.0)] if later is not None else []), -INF, 0)
        return slots

    def _contract(
        self, cand: Candidate, contract: Any, deadline: int
    ) -> tuple[dict[int, int], dict[int, int]]:
        """Period starts, and per slot whether a period is running (at most one at a time:
        ``active[t] = active[t−1] + y[t] − y[t−P]``)."""
        model, period = self.model, contract.period_slots
        last = deadline + (contract.min_periods - 1) * period
        starts = {
            t: model.var(_cents(contract.cost))
            for t in range(last)
            if all(contract.usable(s) for s in range(t, t + period))
        }
        active = {t: model.var() for t in range(last + period - 1)}
        for t, var in active.items():
            terms = [(var, 1.0)] + ([(active[t - 1], -1.0)] if t else [])
            terms += [(starts[t], -1.0)] if t in starts else []
            terms += [(starts[t - period], 1.0)] if t - period in starts else []
            model.row(terms, 0, 0)
            self._use(cand, contract.key, t, var)
        for t, var in starts.items():
            if contract.min_periods < 2:
                continue
            chain = model.var()
            before = starts.get(t - period)
            terms = [(var, 1.0), (chain, -1.0)] + ([(before, -1.0)] if before is not None else [])
            model.row(terms, -INF, 0)
            for k in range(1, contract.min_periods):
                later = starts.get(t + k * period)
                model.row([(chain, 1.0)] + ([(later, -1.0)] if later is not None else []), -INF, 0)
        return starts, active

    def _use(self, cand: Candidate, key: str, slot: int, var: int) -> None:
        offer_id = cand.trials.get(key, key)  # a free trial uses its offer's stock
        if cand.offers[offer_id].stock is None:
            return
        hour = int(cand.grid.at(slot).timestamp() // 3600)
        self.usage.setdefault((offer_id, hour), []).append((var, cand.units[offer_id]))

    def stock_rows(self, stock: Mapping[str, int], used: Mapping[tuple[str, int], int]) -> None:
        """Per offer and clock hour: the jobs' units within the stock ``used`` leaves."""
        for (offer_id, hour), terms in self.usage.items():
            left = stock[offer_id] - used.get((offer_id, hour), 0)
            if sum(units for _, units in terms) > left:
                self.model.row([(v, float(u)) for v, u in terms], -INF, left)

    def trial_rows(self, taken: frozenset[str]) -> None:
        """A provider's free trial opens one job's plan at most (none when ``taken``)."""
        for provider, starts in self.trials.items():
            self.model.row([(v, 1.0) for v in starts], -INF, 0 if provider in taken else 1)


def _warm_values(
    columns: list[list[_Columns]],
    jobs: Sequence[MilpJob],
    count: int,
    warm: Sequence[tuple[int, ScheduleResult] | None],
) -> list[float] | None:
    values = [0.0] * count
    for job_cols, job, start in zip(columns, jobs, warm, strict=True):
        if start is None:
            return None
        index, schedule = start
        cols, cand = job_cols[index], job.candidates[index]
        values[cols.choose] = 1.0
        rates = {r.key: j for j, r in enumerate(cand.problem.hourly)}
        chains = {c.key: j for j, c in enumerate(cand.problem.contracts)}
        first, finish = schedule.start, schedule.finish
        for t, b in enumerate(cols.started):
            values[b] = float(t >= first)
        for t, (e, a) in enumerate(zip(cols.running, cols.storage, strict=True)):
            values[e], values[a] = float(t < finish), float(first <= t < finish)
        previous_end = None
        for seg in schedule.segments:
            for block_start, block_end, _ in seg.run_blocks:
                for t in range(block_start, block_end):
                    values[cols.run[t]] = 1.0
                if block_start != previous_end:
                    values[cols.start[block_start]] = 1.0
                previous_end = block_end
            if seg.key in rates:
                j = rates[seg.key]
                if (j, seg.start) in cols.opens:
                    values[cols.opens[(j, seg.start)]] = 1.0
                for t in range(seg.start, seg.end):
                    values[cols.hourly[j][t]] = 1.0
            else:
                period = cand.problem.contracts[chains[seg.key]].period_slots
                j = chains[seg.key]
                for k in range(seg.periods):
                    values[cols.periods[j][seg.start + k * period]] = 1.0
                for t in range(seg.start, seg.end):
                    values[cols.active[j][t]] = 1.0
    return values


def solve_milp(
    jobs: Sequence[MilpJob],
    stock: Mapping[str, int],
    *,
    time_limit_s: float = 30.0,
    warm: Sequence[tuple[int, ScheduleResult] | None] | None = None,
    threads: int = 1,
    used: Mapping[tuple[str, int], int] | None = None,
    taken: frozenset[str] = frozenset(),
    log: bool = False,
) -> MilpOutcome:
    """Solve the shared-stock MILP; ``warm`` gives each job's (candidate index, schedule),
    ``used`` the units per (offer, clock hour) and ``taken`` the providers' free trials that
    other jobs already hold; ``log``: HiGHS's log on the console."""
    builder = _Builder()
    columns = [[builder.candidate(c) for c in job.candidates] for job in jobs]
    for job, job_cols in zip(jobs, columns, strict=True):
        builder.model.row([(c.choose, 1.0) for c in job_cols], 1, 1)
        if job.budget_cents is not None:
            costed = [v for cols in job_cols for v in (*_paid(cols), *cols.storage, cols.choose)]
            terms = [(v, builder.model.cost[v]) for v in costed]
            builder.model.row(terms, -INF, job.budget_cents)
    builder.stock_rows(stock, used or {})
    builder.trial_rows(taken)
    import highspy

    highs = new_highs(
        log=log, time_limit=float(time_limit_s), mip_rel_gap=0.0, mip_abs_gap=1e-6, threads=threads
    )
    highs.passModel(builder.model.lp())
    values = _warm_values(columns, jobs, len(builder.model.cost), warm) if warm else None
    if values is not None:
        solution = highspy.HighsSolution()
        solution.col_value = values
        solution.value_valid = True
        highs.setSolution(solution)
    highs.run()
    return _outcome(highs, jobs, columns)


def _paid(cols: _Columns) -> list[int]:
    return [v for slots in cols.hourly.values() for v in slots.values()] + [
        v for starts in cols.periods.values() for v in starts.values()
    ]


def _outcome(highs: Any, jobs: Sequence[MilpJob], columns: list[list[_Columns]]) -> MilpOutcome:
    status = highs.modelStatusToString(highs.getModelStatus())
    info = highs.getInfo()
    seconds = float(highs.getRunTime())
    whole = _whole_cents([c for job in jobs for c in job.candidates])
    solved = highs.getSolution()
    has_solution = bool(solved.value_valid) and info.primal_solution_status == 2
    schedules: list[tuple[Candidate, ScheduleResult] | None] = []
    if has_solution:
        values = np.array(solved.col_value)
        for job, job_cols in zip(jobs, columns, strict=True):
            schedules.append(_extract(job, job_cols, values))
    else:
        schedules = [None] * len(jobs)
    objective = float(info.objective_function_value) if has_solution else None
    bound = float(info.mip_dual_bound) if np.isfinite(info.mip_dual_bound) else None
    return MilpOutcome(schedules, objective, bound, status == "Optimal", status, seconds, whole)


def _extract(
    job: MilpJob, job_cols: list[_Columns], values: Any
) -> tuple[Candidate, ScheduleResult] | None:
    chosen = [i for i, cols in enumerate(job_cols) if values[cols.choose] > 0.5]
    if len(chosen) != 1:
        return None
    cand, cols = job.candidates[chosen[0]], job_cols[chosen[0]]
    paid = _paid_items(cand, cols, values)
    schedule = canonical_schedule(cand, paid)
    return (cand, schedule) if schedule is not None else None


def _paid_items(cand: Candidate, cols: _Columns, values: Any) -> list[tuple[int, int, str, int]]:
    """(start, end, offer id, periods) of every paid hourly slot and contract period."""
    items = []
    for j, slots in cols.hourly.items():
        key = cand.problem.hourly[j].key
        items += [(t, t + 1, key, 1) for t, v in slots.items() if values[v] > 0.5]
    for j, starts in cols.periods.items():
        contract = cand.problem.contracts[j]
        items += [
            (t, t + contract.period_slots, contract.key, 1)
            for t, v in starts.items()
            if values[v] > 0.5
        ]
    return sorted(items)
