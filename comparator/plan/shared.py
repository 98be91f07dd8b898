"""Several jobs sharing the stock of the same offers (``suanli plan A.toml B.toml …``).

1. Each job alone: the exact DP gives its best candidates. Their sum is a lower bound on
   any joint plan; if the jobs' best plans fit the stock together, they are optimal.
2. Otherwise a repair: jobs planned one after another (the dearest first), each on what the
   previous ones left, slot by slot — a feasible joint plan.
3. A MILP (:mod:`comparator.plan.milp.model`, HiGHS) over each job's best few candidates, warm-started
   from the repair, under a time limit. It models the whole bill (storage over the rental
   window, upload, egress) but not free trials, migrations or a daily cap: a job that could use
   one of them (``dp_fallback`` in the JSON, with the reasons) is planned instead by the exact
   per-job DP on the stock the MILP's jobs leave, the dearest first.

Every plan, however found, is priced by the same bill code as a single job's (``to_plan``), so
the total is the sum of the plans' line items and bill lines.

The reported gap compares the best joint plan found with a proven lower bound: the larger of
the jobs' independent optima and the smaller of the MILP's dual bound (over the candidates it
saw) and, for each job, the bound of its remaining candidates plus the other jobs' optima.
With fallback jobs the bound is the MILP's jobs' bound plus the fallback jobs' own optima. A
plan is called optimal only when that gap is below one cent and every price is whole cents.
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
from comparator.plan.milp.model import MilpJob, MilpOutcome, solve_milp
from comparator.plan.planning import Prepared, finish, prepare
from comparator.plan.problem import ScheduleResult
from comparator.plan.result import PlanResult
from comparator.plan.solve import (
    Evaluated,
    PlanOptions,
    Selection,
    choose,
    solved_schedule,
    to_plan,
)
from comparator.plan.stock import Usage, add_usage, by_machine, cheapest_on, fits, usage_of

MILP_CANDIDATES = 3
Schedules = dict[int, tuple[Candidate, ScheduleResult]]


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
    dp_fallback: dict[str, list[str]] = dataclasses.field(default_factory=dict)

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
            "dp_fallback": self.dp_fallback,
        }


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
        found = cheapest_on(state.prepared.built.candidates, used, state.budget_cents)
        if found is None:
            return None
        chosen[i] = found
        add_usage(used, usage_of(*found))
    return [chosen[i] for i in range(len(states))] if fits(stock, used) else None


def dp_only(state: _JobState) -> list[str]:
    """Why the MILP cannot price a job exactly (empty: it can): a free trial it may open with,
    a daily cap, or migrations between the machines of an interruptible job."""
    job, candidates = state.prepared.job, [e.candidate for e in state.top]
    reasons = []
    if any(c.trials for c in candidates):
        reasons.append("free trial")
    if job.schedule.max_hours_per_day is not None:
        reasons.append("max_hours_per_day")
    if job.schedule.interruptible and any(len(set(c.problem.machines)) > 1 for c in candidates):
        reasons.append("migrations")
    return reasons


def _after(
    planned: Schedules, states: Mapping[int, _JobState], stock: Mapping[str, int]
) -> Schedules | None:
    """``planned`` plus each job of ``states`` by the DP on the stock left, the dearest first."""
    used = _usage_all(list(planned.values()))
    chosen = dict(planned)
    for i in sorted(states, key=lambda i: -states[i].best_cents):
        found = cheapest_on(states[i].prepared.built.candidates, used, states[i].budget_cents)
        if found is None:
            return None
        chosen[i] = found
        add_usage(used, usage_of(*found))
    return chosen if fits(stock, used) else None


def _usage_all(schedules: Sequence[tuple[Candidate, ScheduleResult]]) -> Usage:
    used: Usage = {}
    for candidate, schedule in schedules:
        add_usage(used, usage_of(candidate, schedule))
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
    prepared = [prepare(job, offers, profiles, context) for job in jobs]
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
        {prepared[i].job.name: why for i, why in shared.fallback.items()},
    )


@dataclass
class _Shared:
    schedules: dict[int, tuple[Candidate, ScheduleResult]]
    optimal: bool
    gap: float
    method: str
    lower_bound: Decimal | None
    milp_status: str | None = None
    fallback: dict[int, list[str]] = dataclasses.field(default_factory=dict)


def _solve(states: dict[int, _JobState], stock: Mapping[str, int], time_limit_s: float) -> _Shared:
    if not states:
        return _Shared({}, True, 0.0, "none", None)
    alone = {i: (s.top[0].candidate, solved_schedule(s.top[0])) for i, s in states.items()}
    bound = float(sum(s.best_cents for s in states.values()))
    if fits(stock, _usage_all(list(alone.values()))):
        return _Shared(alone, True, 0.0, "independent", Decimal(int(bound)) / 100)
    ordered = list(states)
    found = _repair([states[i] for i in ordered], stock)
    repaired = None if found is None else dict(zip(ordered, found, strict=True))
    fallback = {i: why for i in ordered if (why := dp_only(states[i]))}
    modelled = [i for i in ordered if i not in fallback]
    joint, outcome = None, None
    if modelled:
        warm = None if repaired is None else [repaired[i] for i in modelled]
        milp = _milp([states[i] for i in modelled], stock, warm, time_limit_s)
        outcome = milp.outcome
        complete = milp.schedules_if_complete()
        if complete is not None:
            rest = {i: states[i] for i in fallback}
            joint = _after(dict(zip(modelled, complete, strict=True)), rest, stock)
    options = [
        r for r in (repaired, joint) if r is not None and fits(stock, _usage_all([*r.values()]))
    ]
    if not options:
        raise_infeasible(states)
    best = min(options, key=lambda r: _cents(list(r.values())))
    lower = _lower_bound([states[i] for i in modelled], outcome) if modelled else 0.0
    lower += sum(states[i].best_cents for i in fallback)
    upper = _cents(list(best.values()))
    gap = max(0.0, (upper - math.ceil(lower - 1e-6)) / upper) if upper else 0.0
    optimal = gap == 0.0 and (outcome.whole_cents if outcome is not None else not modelled)
    method = "milp" if best is joint else "repair"
    return _Shared(
        best,
        optimal,
        gap,
        method,
        Decimal(math.ceil(lower - 1e-6)) / 100,
        outcome.status if outcome is not None else None,
        fallback,
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
