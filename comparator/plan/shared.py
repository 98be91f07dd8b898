"""Several jobs sharing the stock of the same offers (``suanli plan A.toml B.toml …``).

1. Each job alone: the exact DP gives its best candidates. Their sum is a lower bound on
   any joint plan; if the jobs' best plans fit the stock together, they are optimal.
2. Otherwise a repair: jobs planned one after another (the dearest first), each on what the
   previous ones left, slot by slot — a feasible joint plan.
3. A MILP (:mod:`comparator.plan.milp.model`, HiGHS) over each job's best few candidates, warm-started
   from the repair, under a time limit.

The reported gap compares the best joint plan found with a proven lower bound: the larger of
the jobs' independent optima and the smaller of the MILP's dual bound (over the candidates it
saw) and, for each job, the bound of its remaining candidates plus the other jobs' optima.
A plan is called optimal only when that gap is below one cent and every price is whole cents.
"""

from __future__ import annotations

import dataclasses
import math
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from comparator.domain.job import Job
from comparator.domain.money import money_str
from comparator.domain.offer_view import OfferView
from comparator.domain.profile import ProviderProfile
from comparator.plan.candidates import Candidate
from comparator.plan.context import PlanContext
from comparator.plan.dp.solver import solve_schedule
from comparator.plan.milp.model import MilpJob, MilpOutcome, solve_milp
from comparator.plan.planning import Prepared, finish, prepare
from comparator.plan.problem import ContractRate, HourlyRate, ScheduleResult
from comparator.plan.result import PlanResult
from comparator.plan.solve import (
    Evaluated,
    PlanOptions,
    Selection,
    choose,
    solved_schedule,
    to_plan,
)

MILP_CANDIDATES = 3
Usage = dict[tuple[str, int], int]  # (offer id, clock hour) → units rented


@dataclass
class SharedPlan:
    results: list[PlanResult]
    optimal: bool
    gap: float
    method: str
    total_cost: Decimal
    lower_bound: Decimal | None
    seconds: float
    milp_status: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "plans": [r.to_json() for r in self.results],
            "optimal": self.optimal,
            "gap": self.gap,
            "method": self.method,
            "total_cost": money_str(self.total_cost),
            "lower_bound": None if self.lower_bound is None else money_str(self.lower_bound),
            "seconds": round(self.seconds, 3),
            "milp_status": self.milp_status,
        }


def _hour(candidate: Candidate, slot: int) -> int:
    return int(candidate.grid.at(slot).timestamp() // 3600)


def usage_of(candidate: Candidate, schedule: ScheduleResult) -> Usage:
    used: Usage = {}
    for segment in schedule.segments:
        if candidate.offers[segment.key].stock is None:
            continue
        for slot in range(segment.start, segment.end):
            key = (segment.key, _hour(candidate, slot))
            used[key] = used.get(key, 0) + candidate.units[segment.key]
    return used


def _without_trials(prepared: Prepared) -> Prepared:
    """Jobs sharing stock are planned without free trials (the MILP does not model them)."""
    for i, candidate in enumerate(prepared.built.candidates):
        if candidate.trials:
            problem = candidate.problem
            hourly = tuple(r for r in problem.hourly if not r.trial_slots)
            prepared.built.candidates[i] = dataclasses.replace(
                candidate, problem=dataclasses.replace(problem, hourly=hourly), trials={}
            )
    return prepared


def by_machine(candidate: Candidate) -> list[Candidate]:
    """The candidate once per machine: the MILP does not model migrations, so it plans each
    machine alone (a change of machine is never seamless, docs/billing.md)."""
    problem = candidate.problem
    machines = sorted(set(problem.machines))
    if len(machines) == 1:
        return [candidate]
    parts = []
    for machine in machines:
        hourly = tuple(r for r in problem.hourly if r.machine == machine)
        contracts = tuple(c for c in problem.contracts if c.machine == machine)
        part = dataclasses.replace(problem, hourly=hourly, contracts=contracts)
        parts.append(dataclasses.replace(candidate, problem=part))
    return parts


def _add(total: Usage, more: Usage) -> None:
    for key, units in more.items():
        total[key] = total.get(key, 0) + units


def _fits(stock: Mapping[str, int], used: Usage) -> bool:
    return all(units <= stock[offer_id] for (offer_id, _), units in used.items())


def _restricted(candidate: Candidate, used: Usage) -> Candidate:
    """``candidate`` with each rate usable only in slots where enough stock is left."""

    def free(offer_id: str, slots: int) -> tuple[bool, ...] | None:
        offer = candidate.offers[offer_id]
        if offer.stock is None:
            return None
        need = candidate.units[offer_id]
        return tuple(
            used.get((offer_id, _hour(candidate, t)), 0) + need <= offer.stock for t in range(slots)
        )

    def both(rate: HourlyRate | ContractRate, slots: int) -> tuple[bool, ...] | None:
        """Stock left, and the rate's own availability (the upload, run windows)."""
        stock = free(candidate.trials.get(rate.key, rate.key), slots)
        if stock is None or rate.available is None:
            return stock if stock is not None else rate.available
        return tuple(ok and rate.usable(t) for t, ok in enumerate(stock))

    problem = candidate.problem
    hourly = tuple(
        dataclasses.replace(r, available=both(r, len(r.slot_costs))) for r in problem.hourly
    )
    contracts = tuple(
        dataclasses.replace(
            c, available=both(c, problem.deadline_slot + c.period_slots * c.min_periods)
        )
        for c in problem.contracts
    )
    return dataclasses.replace(
        candidate, problem=dataclasses.replace(problem, hourly=hourly, contracts=contracts)
    )


def _cheapest_on(
    candidates: Sequence[Candidate], used: Usage, budget_cents: int | None
) -> tuple[Candidate, ScheduleResult] | None:
    """The cheapest schedule of any candidate on the stock ``used`` leaves (original candidate
    returned: the schedule is valid for it)."""
    best: tuple[int, Candidate, Candidate, int] | None = None
    for candidate in candidates:
        restricted = _restricted(candidate, used)
        profile = solve_schedule(restricted.problem, keep_trace=False)
        diagonal = profile.cheapest(budget_cents)
        if diagonal is not None and (best is None or profile.cost_cents(diagonal) < best[0]):
            best = (profile.cost_cents(diagonal), candidate, restricted, diagonal)
    if best is None:
        return None
    _, candidate, restricted, diagonal = best
    return candidate, solve_schedule(restricted.problem).schedule(diagonal)


@dataclass
class _JobState:
    prepared: Prepared
    selection: Selection
    top: list[Evaluated]

    @property
    def budget_cents(self) -> int | None:
        cost = self.prepared.job.max_cost
        return None if cost is None else int(cost * 100)

    @property
    def best_cents(self) -> int:
        cost = self.top[0].cost_cents
        assert cost is not None
        return cost

    def outside_bound(self) -> float:
        """Lower bound of every candidate the MILP does not see."""
        inside = {id(e.candidate) for e in self.top}
        bounds = [
            e.cost_cents
            for e in self.selection.evaluated
            if id(e.candidate) not in inside and e.cost_cents is not None
        ]
        bounds += [
            b for c in self.selection.skipped if (b := self.selection.bounds.get(id(c))) is not None
        ]
        return float(min(bounds)) if bounds else math.inf


def _repair(
    states: Sequence[_JobState], stock: Mapping[str, int]
) -> list[tuple[Candidate, ScheduleResult]] | None:
    used: Usage = {}
    chosen: dict[int, tuple[Candidate, ScheduleResult]] = {}
    order = sorted(range(len(states)), key=lambda i: -states[i].best_cents)
    for i in order:
        state = states[i]
        found = _cheapest_on(state.prepared.built.candidates, used, state.budget_cents)
        if found is None:
            return None
        chosen[i] = found
        _add(used, usage_of(*found))
    return [chosen[i] for i in range(len(states))] if _fits(stock, used) else None


def _usage_all(schedules: Sequence[tuple[Candidate, ScheduleResult]]) -> Usage:
    used: Usage = {}
    for candidate, schedule in schedules:
        _add(used, usage_of(candidate, schedule))
    return used


def _cents(schedules: Sequence[tuple[Candidate, ScheduleResult]]) -> int:
    return sum(int(s.cost * 100) + c.bill.fixed_cents for c, s in schedules)


def _lower_bound(states: Sequence[_JobState], milp: MilpOutcome | None) -> float:
    independent = float(sum(s.best_cents for s in states))
    if milp is None:
        return independent
    total = sum(s.best_cents for s in states)
    outside = min((s.outside_bound() + total - s.best_cents for s in states), default=math.inf)
    inside = milp.bound_cents if milp.bound_cents is not None else -math.inf
    return max(independent, min(inside, outside))


def plan_jobs(
    jobs: Sequence[Job],
    offers: Sequence[OfferView],
    profiles: Mapping[str, ProviderProfile],
    context: PlanContext,
    *,
    time_limit_s: float = 30.0,
) -> SharedPlan:
    """Plan ``jobs`` together under the offers' stock; see the module docstring."""
    started = time.perf_counter()
    prepared = [_without_trials(prepare(job, offers, profiles, context)) for job in jobs]
    states: list[tuple[int, _JobState]] = []
    results: list[PlanResult | None] = [None] * len(jobs)
    for index, p in enumerate(prepared):
        options = PlanOptions("cost", p.job.max_cost, MILP_CANDIDATES - 1)
        selection = choose(p.built.candidates, options, by_candidate=True)
        ranked = ([selection.best] if selection.best else []) + selection.alternatives
        if not ranked:
            results[index] = finish(p, selection, None, [])
            continue
        states.append((index, _JobState(p, selection, ranked)))
    stock = {o.offer_id: o.stock for o in offers if o.stock is not None}
    shared = _solve(dict(states), stock, time_limit_s)
    plans: list[PlanResult] = []
    for index, p in enumerate(prepared):
        result = results[index]
        if result is None:
            state = dict(states)[index]
            candidate, schedule = shared.schedules[index]
            plan = to_plan(candidate, schedule, p.job.currency)
            result = finish(p, state.selection, plan, [], optimal=shared.optimal)
        plans.append(result)
    total = sum((r.best.total_cost for r in plans if r.best), Decimal(0))
    return SharedPlan(
        plans,
        shared.optimal,
        shared.gap,
        shared.method,
        total,
        shared.lower_bound,
        time.perf_counter() - started,
        shared.milp_status,
    )


@dataclass
class _Shared:
    schedules: dict[int, tuple[Candidate, ScheduleResult]]
    optimal: bool
    gap: float
    method: str
    lower_bound: Decimal | None
    milp_status: str | None = None


def _solve(states: dict[int, _JobState], stock: Mapping[str, int], time_limit_s: float) -> _Shared:
    if not states:
        return _Shared({}, True, 0.0, "none", None)
    alone = {i: (s.top[0].candidate, solved_schedule(s.top[0])) for i, s in states.items()}
    used: Usage = {}
    for candidate, schedule in alone.values():
        _add(used, usage_of(candidate, schedule))
    bound = float(sum(s.best_cents for s in states.values()))
    if _fits(stock, used):
        return _Shared(alone, True, 0.0, "independent", Decimal(int(bound)) / 100)
    ordered = list(states)
    repaired = _repair([states[i] for i in ordered], stock)
    milp = _milp([states[i] for i in ordered], stock, repaired, time_limit_s)
    options = [
        r
        for r in (repaired, milp.schedules_if_complete())
        if r is not None and _fits(stock, _usage_all(r))
    ]
    if not options:
        raise_infeasible(states)
    best = min(options, key=_cents)
    lower = _lower_bound([states[i] for i in ordered], milp.outcome)
    upper = _cents(best)
    gap = max(0.0, (upper - math.ceil(lower - 1e-6)) / upper) if upper else 0.0
    optimal = gap == 0.0 and milp.outcome is not None and milp.outcome.whole_cents
    method = "milp" if milp.schedules_if_complete() is best else "repair"
    return _Shared(
        dict(zip(ordered, best, strict=True)),
        optimal,
        gap,
        method,
        Decimal(math.ceil(lower - 1e-6)) / 100,
        milp.outcome.status,
    )


@dataclass
class _MilpRun:
    outcome: MilpOutcome

    def schedules_if_complete(self) -> list[tuple[Candidate, ScheduleResult]] | None:
        found = self.outcome.schedules
        if any(s is None for s in found):
            return None
        return [s for s in found if s is not None]


def _milp(
    states: Sequence[_JobState],
    stock: Mapping[str, int],
    repaired: list[tuple[Candidate, ScheduleResult]] | None,
    time_limit_s: float,
) -> _MilpRun:
    jobs, warm = [], []
    for index, state in enumerate(states):
        candidates = [part for e in state.top for part in by_machine(e.candidate)]
        start: tuple[int, ScheduleResult] | None = None
        if repaired is not None:
            candidate, schedule = repaired[index]
            keys = {s.key for s in schedule.segments}
            for part in by_machine(candidate):
                if keys <= set(part.problem.rate_keys):
                    candidates.append(part)
                    start = (len(candidates) - 1, schedule)
        jobs.append(MilpJob(state.prepared.job.name, candidates, state.budget_cents))
        warm.append(start)
    outcome = solve_milp(
        jobs, stock, time_limit_s=time_limit_s, warm=warm if repaired is not None else None
    )
    return _MilpRun(outcome)


def raise_infeasible(states: Mapping[int, _JobState]) -> None:
    from comparator.errors import PlanError

    names = ", ".join(s.prepared.job.name for s in states.values())
    raise PlanError(
        "jobs {names} cannot all be placed with the stock available: each fits "
        "alone, but not together before their deadlines. Plan them separately, move "
        "a deadline, or find more stock",
        names=names,
    )
