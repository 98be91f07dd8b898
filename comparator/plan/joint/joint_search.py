"""The search behind a shared plan (:mod:`comparator.plan.joint.joint_plan`): jobs planned one after
another by the exact per-job DP on the stock the others hold, in several orders; the MILP over
the jobs it prices exactly (and the others relaxed, for the bound); and the alternation of the
two for the jobs the MILP cannot price (``dp_fallback``), kept while the total falls.

Every joint plan found is feasible (each schedule valid for its candidate, the stock respected
in every clock hour, each provider's free trial used by one job at most: a job planned after
one that took a provider's trial is planned without it); :class:`Best` keeps the cheapest in
whole cents.
"""

from __future__ import annotations

import functools
import itertools
import math
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from comparator.plan.candidates import Candidate
from comparator.plan.dp.problem import ScheduleResult
from comparator.plan.job_plan import Prepared
from comparator.plan.joint.milp.milp_model import MilpJob, MilpOutcome, solve_milp
from comparator.plan.joint.stock import (
    Usage,
    add_usage,
    by_machine,
    cheapest_on,
    fits,
    trial_providers,
    trials_once,
    usage_of,
)
from comparator.plan.selection import Evaluated, Selection

Schedules = dict[int, tuple[Candidate, ScheduleResult]]
ALL_ORDERS_UP_TO = 3  # fallback jobs: every order up to 3! = 6, else each one first
ROUNDS = 4  # alternations of the MILP and the fallback DP at most


@dataclass
class JobState:
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

    @functools.cached_property
    def floors(self) -> dict[int, float]:
        """id(candidate) → a lower bound of its cost on any stock: its optimum alone (inf
        when it has none) or the bound it was skipped by."""
        floors = {
            id(e.candidate): math.inf if e.cost_cents is None else float(e.cost_cents)
            for e in self.selection.evaluated
        }
        for candidate in self.selection.skipped:
            bound = self.selection.bounds.get(id(candidate))
            floors[id(candidate)] = 0.0 if bound is None else float(bound)
        return floors

    def candidates_below(self, limit: float) -> list[Candidate]:
        candidates = self.prepared.built.candidates
        if limit == math.inf:
            return list(candidates)
        return [c for c in candidates if self.floors.get(id(c), 0.0) < limit]


def dp_only(state: JobState) -> list[str]:
    """Why the MILP cannot price a job exactly (empty: it can): a daily cap, contracts under
    run windows (the job pauses inside them), or migrations between the machines of an
    interruptible job. (A free trial it models exactly.)"""
    job, candidates = state.prepared.job, [e.candidate for e in state.top]
    reasons = []
    if job.schedule.max_hours_per_day is not None:
        reasons.append("max_hours_per_day")
    if job.schedule.run_windows and any(c.problem.contracts for c in candidates):
        reasons.append("run_windows")  # contracts that pause inside: the DP's run patterns
    if job.schedule.interruptible and any(len(set(c.problem.machines)) > 1 for c in candidates):
        reasons.append("migrations")
    return reasons


def usage_all(schedules: Iterable[tuple[Candidate, ScheduleResult]]) -> Usage:
    used: Usage = {}
    for candidate, schedule in schedules:
        add_usage(used, usage_of(candidate, schedule))
    return used


def cents(schedules: Iterable[tuple[Candidate, ScheduleResult]]) -> int:
    return sum(int(s.cost * 100) + c.bill.fixed_cents for c, s in schedules)


def sequential(
    planned: Schedules,
    order: Sequence[int],
    states: Mapping[int, JobState],
    ceiling: float = math.inf,
) -> Schedules | None:
    """``planned`` plus each job of ``order`` in turn by the DP on the stock left, without the
    free trials the jobs before it took. Only candidates that could still bring the total below
    ``ceiling`` (cents) are solved: a candidate's floor plus what is planned plus the later
    jobs' own optima (None: no plan in this order beats the ceiling)."""
    used = usage_all(planned.values())
    taken = set(trial_providers(planned.values()))
    chosen = dict(planned)
    for k, i in enumerate(order):
        later = sum(states[j].best_cents for j in order[k + 1 :])
        limit = ceiling - cents(chosen.values()) - later
        candidates = states[i].candidates_below(limit)
        budget = states[i].budget_cents
        found = cheapest_on(candidates, used, budget, taken) if candidates else None
        if found is None:
            return None
        chosen[i] = found
        add_usage(used, usage_of(*found))
        taken.update(trial_providers([found]))
    return chosen


def dearest_first(jobs: Iterable[int], states: Mapping[int, JobState]) -> list[int]:
    return sorted(jobs, key=lambda i: -states[i].best_cents)


def orders(jobs: Iterable[int], states: Mapping[int, JobState]) -> list[list[int]]:
    """The orders tried for the fallback jobs: the dearest first, then every other order (up
    to three jobs) or each job first with the rest dearest first."""
    first = dearest_first(jobs, states)
    if len(first) <= ALL_ORDERS_UP_TO:
        return [list(p) for p in itertools.permutations(first)]
    return [first] + [[j] + [i for i in first if i != j] for j in first[1:]]


class Best:
    """The cheapest complete joint plan offered so far that respects the stock and uses each
    provider's free trial once at most."""

    def __init__(self, jobs: Sequence[int], stock: Mapping[str, int]) -> None:
        self.jobs, self.stock = set(jobs), stock
        self.schedules: Schedules | None = None
        self.cents = math.inf
        self.method = "repair"

    def tie(self, found: Schedules | None) -> None:
        """Keep ``found`` if it costs no more and has fewer line items (what a person would
        order: the MILP breaks no ties between jobs, so two may interleave on one offer)."""
        if found is None or self.schedules is None or set(found) != self.jobs:
            return
        if cents(found.values()) > self.cents or _items(found) >= _items(self.schedules):
            return
        if self.feasible(found):
            self.schedules, self.cents = found, cents(found.values())

    def offer(self, found: Schedules | None, method: str) -> bool:
        if found is None or set(found) != self.jobs:
            return False
        total = cents(found.values())
        if total >= self.cents or not self.feasible(found):
            return False
        self.schedules, self.cents, self.method = found, total, method
        return True

    def feasible(self, found: Schedules) -> bool:
        return fits(self.stock, usage_all(found.values())) and trials_once(found.values())


@dataclass
class MilpRun:
    outcome: MilpOutcome
    jobs: list[int]

    def complete(self, which: Iterable[int]) -> Schedules | None:
        """The MILP's schedules of the jobs ``which`` (None unless each has one)."""
        found = dict(zip(self.jobs, self.outcome.schedules, strict=True))
        chosen = {i: found[i] for i in which}
        if any(s is None for s in chosen.values()):
            return None
        return {i: s for i, s in chosen.items() if s is not None}


def run_milp(
    states: Mapping[int, JobState],
    jobs: Sequence[int],
    relaxed: set[int],
    stock: Mapping[str, int],
    *,
    used: Usage,
    warm: Schedules | None,
    time_limit_s: float,
    taken: Iterable[str] = (),
) -> MilpRun:
    """The MILP over ``jobs`` within the stock ``used`` leaves, without the free trials of the
    providers ``taken`` (by jobs outside it). A job of ``relaxed`` is seen with all machines of
    each candidate at once and without its cap: a relaxation (a migration costs no overhead,
    every capped plan is an uncapped one), so the dual bound stays a lower bound; its schedule
    is not used as a plan."""
    milp_jobs, starts = [], []
    for i in jobs:
        state = states[i]
        split = i not in relaxed
        candidates = [p for e in state.top for p in (by_machine if split else _whole)(e.candidate)]
        start = None if warm is None else _warm_start(candidates, warm[i], split)
        milp_jobs.append(MilpJob(state.prepared.job.name, candidates, state.budget_cents))
        starts.append(start)
    outcome = solve_milp(
        milp_jobs,
        stock,
        time_limit_s=max(time_limit_s, 0.1),
        warm=None if warm is None else starts,
        used=used,
        taken=frozenset(taken),
        log=any(states[i].prepared.context.solver_log for i in jobs),
    )
    return MilpRun(outcome, list(jobs))


def _whole(candidate: Candidate) -> list[Candidate]:
    return [candidate]


def _warm_start(
    candidates: list[Candidate], found: tuple[Candidate, ScheduleResult], split: bool
) -> tuple[int, ScheduleResult] | None:
    """Index of the candidate (appended when missing) that holds ``found``'s schedule."""
    candidate, schedule = found
    keys = {s.key for s in schedule.segments}
    for part in by_machine(candidate) if split else [candidate]:
        if keys <= set(part.problem.rate_keys):
            seen = [k for k, c in enumerate(candidates) if c is part]
            if not seen:
                candidates.append(part)
            return (seen or [len(candidates) - 1])[0], schedule
    return None


def alternate(
    best: Best,
    states: Mapping[int, JobState],
    jobs: tuple[Sequence[int], Sequence[int]],
    deadline: float,
    target: int,
) -> None:
    """Fallback jobs first (their best order on the full stock), then the MILP on what they
    hold; the MILP of the modelled jobs alone on the full stock, then the fallback jobs; then,
    from the best plan, the MILP of the modelled jobs on the stock the fallback
    jobs hold and the fallback jobs again in every order, while the total falls."""
    fallback = jobs[1]
    first = [s for order in orders(fallback, states) if (s := sequential({}, order, states))]
    for held in ([min(first, key=_total)] if first else []) + [{}]:
        if best.cents > target:
            _milp_then_dp(best, states, jobs, (held, None), deadline)
    for _ in range(ROUNDS):
        if best.schedules is None or best.cents <= target or time.perf_counter() > deadline:
            return
        held = {i: best.schedules[i] for i in fallback}
        if not _milp_then_dp(best, states, jobs, (held, best.schedules), deadline):
            return


def polish(best: Best, states: Mapping[int, JobState]) -> None:
    """Each job, then each pair of jobs (both orders), planned again by the DP on the stock
    the others hold; a plan as cheap with fewer line items is kept (:meth:`Best.tie`)."""
    if best.schedules is None:
        return
    jobs = sorted(best.schedules)
    groups = [[i] for i in jobs] + [list(p) for p in itertools.permutations(jobs, 2)]
    for group in groups:
        assert best.schedules is not None
        others = {k: s for k, s in best.schedules.items() if k not in group}
        best.tie(sequential(others, group, states, best.cents + 1))


def _items(schedules: Schedules) -> int:
    return sum(len(s.segments) for _, s in schedules.values())


def _total(schedules: Schedules) -> int:
    return cents(schedules.values())


def _milp_then_dp(
    best: Best,
    states: Mapping[int, JobState],
    jobs: tuple[Sequence[int], Sequence[int]],
    plans: tuple[Schedules, Schedules | None],
    deadline: float,
) -> bool:
    """The MILP of the modelled jobs on the stock ``held`` (fallback jobs' plans) leaves, warm
    from ``warm``; then the fallback jobs again, every order, on what the MILP's plans leave."""
    (modelled, fallback), (held, warm) = jobs, plans
    run = run_milp(
        states,
        modelled,
        set(),
        best.stock,
        used=usage_all(held.values()),
        warm=warm,
        time_limit_s=deadline - time.perf_counter(),
        taken=trial_providers(held.values()),
    )
    found = run.complete(modelled)
    if found is None:
        return False
    gained = best.offer({**held, **found}, "milp")
    for order in orders(fallback, states):
        gained |= best.offer(sequential(found, order, states, best.cents), "milp")
    return gained
