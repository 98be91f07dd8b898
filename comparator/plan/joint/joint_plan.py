"""Several jobs sharing the stock of the same offers (``suanli plan A.toml B.toml …``).

1. Each job alone: the exact DP gives its best candidates. Their sum is a lower bound on
   any joint plan; if the jobs' best plans fit the stock together and no provider's free
   trial is in two of them (a provider gives its trial once per account), they are optimal.
2. Otherwise the jobs one after another by the exact DP on what the previous ones left (stock
   and free trials): the dearest first, in the given order, and in every order up to three
   jobs (else each job first): feasible joint plans, and the MILP's warm start. Once a plan
   is known, a candidate whose own optimum cannot bring the total below it is not solved
   again.
3. A MILP (:mod:`comparator.plan.joint.milp.milp_model`, HiGHS) over each job's best few candidates,
   under a time limit. It models the whole bill (storage over the rental window, upload,
   egress) and free trials (each provider's once over all jobs), but not migrations or a
   daily cap: a job that could use one of them (``dp_fallback`` in the JSON, with the
   reasons) enters this MILP *relaxed* (all its machines at once with seamless switches, no
   cap), which keeps its dual bound a lower bound on every joint plan. The MILP's plans of
   the other jobs are kept and the fallback jobs are planned by the exact per-job DP on the
   stock they leave, in every order (up to three jobs; else each one first).
4. With fallback jobs, an alternation (:func:`comparator.plan.joint.joint_search.alternate`): the
   fallback jobs first on the full stock, then the MILP of the others on what they hold; and
   from the best plan, the MILP of the modelled jobs with the fallback jobs' stock fixed, then
   the fallback jobs again on what is left, while the total falls.
5. Ties toward what a person orders (:func:`comparator.plan.joint.joint_search.polish`): each job
   and each pair of jobs planned again by the DP on the stock the others hold, kept when as
   cheap with fewer line items.

Every plan, however found, is priced by the same bill code as a single job's (``to_plan``), so
the total is the sum of the plans' line items and bill lines; the best joint plan is never
dearer than the sequential plans of step 2.

The reported gap compares the best joint plan found with a proven lower bound: the larger of
the jobs' independent optima (each provider's free trial counted once when two of them open on
it, :mod:`comparator.plan.joint.trials`) and the smaller of the MILP's dual bound (over the
candidates it saw, the fallback jobs relaxed) and, for each job, the bound of its remaining
candidates plus the other jobs' optima. A plan is called optimal only when that gap is below
one cent and every price is whole cents.
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
from comparator.domain.offer_filter import FilteredOffers
from comparator.domain.offer_view import OfferView
from comparator.domain.profile import ProviderProfile
from comparator.plan.candidates import Candidate
from comparator.plan.context import PlanContext
from comparator.plan.dated_plan import solved_schedule, to_plan
from comparator.plan.dp.problem import ScheduleResult
from comparator.plan.job_plan import finish, prepare
from comparator.plan.joint.joint_search import (
    Best,
    JobState,
    alternate,
    dearest_first,
    dp_only,
    orders,
    polish,
    run_milp,
    sequential,
    usage_all,
)
from comparator.plan.joint.milp.milp_model import MilpOutcome
from comparator.plan.joint.stock import fits, trials_once
from comparator.plan.joint.trials import trial_bound
from comparator.plan.result import PlanResult
from comparator.plan.selection import PlanOptions, choose

MILP_CANDIDATES = 3
RELAXED_SHARE = 0.6  # of the time limit for the first MILP when jobs fall back


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


def _lower_bound(states: Sequence[JobState], milp: MilpOutcome | None, floor: float) -> float:
    """The larger of ``floor`` (the jobs' own optima, or their trial bound) and the smaller of
    the MILP's bound and each job's candidates outside it."""
    if milp is None:
        return floor
    total = sum(s.best_cents for s in states)
    outside = min((s.outside_bound() + total - s.best_cents for s in states), default=math.inf)
    inside = milp.bound_cents if milp.bound_cents is not None else -math.inf
    return max(floor, min(inside, outside))


def plan_jobs(
    jobs: Sequence[Job],
    offers: Sequence[OfferView],
    profiles: Mapping[str, ProviderProfile],
    context: PlanContext,
    *,
    time_limit_s: float = 30.0,
    per_job: Sequence[tuple[Sequence[OfferView], Sequence[FilteredOffers]]] | None = None,
) -> SharedPlan:
    """Plan ``jobs`` together under the offers' stock; see the module docstring.

    ``per_job``: each job's own offers and what its filter left out (the offers a source
    loaded for it), instead of ``offers`` for every job; ``offers`` then holds them all."""
    started = time.perf_counter()
    loaded = per_job if per_job is not None else [(offers, ())] * len(jobs)
    prepared = [
        prepare(job, job_offers, profiles, context, filtered=filtered)
        for job, (job_offers, filtered) in zip(jobs, loaded, strict=True)
    ]
    states: list[tuple[int, JobState]] = []
    results: list[PlanResult | None] = [None] * len(jobs)
    for index, p in enumerate(prepared):
        options = PlanOptions("cost", p.job.max_cost, MILP_CANDIDATES - 1)
        selection = choose(p.built.candidates, options, by_candidate=True)
        ranked = ([selection.best] if selection.best else []) + selection.alternatives
        if not ranked:
            results[index] = finish(p, selection, None, [])
            continue
        states.append((index, JobState(p, selection, ranked)))
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


def _solve(states: dict[int, JobState], stock: Mapping[str, int], time_limit_s: float) -> _Shared:
    if not states:
        return _Shared({}, True, 0.0, "none", None)
    alone = {i: (s.top[0].candidate, solved_schedule(s.top[0])) for i, s in states.items()}
    bound = float(sum(s.best_cents for s in states.values()))
    if fits(stock, usage_all(alone.values())) and trials_once(alone.values()):
        return _Shared(alone, True, 0.0, "independent", Decimal(int(bound)) / 100)
    if not trials_once(alone.values()):  # each provider's trial to one job: a higher bound
        bound = trial_bound(states)
    deadline = time.perf_counter() + time_limit_s
    ordered = list(states)
    fallback = {i: why for i in ordered if (why := dp_only(states[i]))}
    modelled = [i for i in ordered if i not in fallback]
    best = Best(ordered, stock)
    for order in [dearest_first(ordered, states), ordered, *orders(ordered, states)]:
        best.offer(sequential({}, order, states, best.cents), "repair")
        if best.cents <= bound:  # the jobs' own optima: proven without the MILP
            return _result(best, states, bound, None, fallback)
    share = RELAXED_SHARE if fallback and modelled else 1.0
    relaxed = run_milp(
        states,
        ordered,
        set(fallback),
        stock,
        used={},
        warm=best.schedules,
        time_limit_s=share * time_limit_s,
    )
    outcome = relaxed.outcome
    lower = _lower_bound(list(states.values()), outcome, bound)
    base = relaxed.complete(modelled)
    if base is not None:
        for order in orders(fallback, states) if fallback else [[]]:
            best.offer(sequential(base, order, states, best.cents), "milp")
    if fallback and modelled and best.cents > math.ceil(lower - 1e-6):
        alternate(best, states, (modelled, list(fallback)), deadline, math.ceil(lower - 1e-6))
    return _result(best, states, lower, outcome, fallback)


def _result(
    best: Best,
    states: Mapping[int, JobState],
    lower: float,
    outcome: MilpOutcome | None,
    fallback: dict[int, list[str]],
) -> _Shared:
    """The best plan with ties broken, its bound and gap; optimal only when proven (to the
    cent: the bound is the DP's exact optima, or the MILP's over whole-cent prices)."""
    if best.schedules is None:
        raise_infeasible(states)
    polish(best, states)
    assert best.schedules is not None
    floor = math.ceil(lower - 1e-6)
    upper = best.cents
    gap = max(0.0, (upper - floor) / upper) if upper else 0.0
    return _Shared(
        best.schedules,
        gap == 0.0 and (outcome is None or outcome.whole_cents),
        gap,
        best.method,
        Decimal(floor) / 100,
        None if outcome is None else outcome.status,
        fallback,
    )


def raise_infeasible(states: Mapping[int, JobState]) -> None:
    from comparator.errors import PlanError

    names = ", ".join(s.prepared.job.name for s in states.values())
    alone = [(s.top[0].candidate, solved_schedule(s.top[0])) for s in states.values()]
    if not trials_once(alone):
        raise PlanError(
            "jobs {names} cannot all be placed: each fits alone, but several open on one "
            "provider's free trial, which goes to one of them only (one account); without it, "
            "or with the stock they share, a job misses its budget or deadline. Plan them "
            "separately, raise a budget, move a deadline, or find more stock",
            names=names,
        )
    raise PlanError(
        "jobs {names} cannot all be placed with the stock available: each fits "
        "alone, but not together before their deadlines. Plan them separately, move "
        "a deadline, or find more stock",
        names=names,
    )
