"""The exact planner for one job: every candidate solved by the dynamic programme, pruned only by
a proven lower bound (pure: no database).

For each candidate placement (:mod:`comparator.plan.candidates`) the dynamic programme of
:mod:`comparator.plan.dp.dp_solver` gives the cheapest cost of finishing at every slot. The objective
picks one plan per candidate — ``cost``: the cheapest within the budget, ties to the earlier
finish; ``time``: the earliest finish within the budget, ties to the cheaper — and the best
candidate of each (provider, GPU) pair is reported, best pair first.

A candidate is skipped without solving only when a lower bound (:func:`candidate_bound_cents`,
docs/planner-pruning.md) proves it cannot be the best of its pair nor among the pairs shown,
with a finish no earlier than ``W`` hours after slot 0.
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from decimal import Decimal
from typing import Any

import numpy as np
from numpy.typing import NDArray

from comparator.errors import AmountsTooLargeError, Msg
from comparator.plan.candidates import Candidate
from comparator.plan.dp.dp_solver import ScheduleProfile, solve_schedule
from comparator.plan.dp.pausing.dominated_contracts import most_runs_per_period
from comparator.plan.dp.problem import ContractRate, HourlyRate, ScheduleProblem, ScheduleResult
from comparator.plan.dp.slot_prices import float_costs
from comparator.plan.prune.block_lengths import least_over_lengths
from comparator.plan.prune.stretch_bound import least_over_blocks

OBJECTIVES = ("cost", "time")
Key = tuple[Any, ...]


@dataclass(frozen=True)
class PlanOptions:
    objective: str = "cost"
    budget: Decimal | None = None
    top: int = 5

    @property
    def budget_cents(self) -> int | None:
        return None if self.budget is None else int((self.budget * 100).to_integral_value())


@dataclass
class Evaluated:
    """One solved candidate: the plan the objective picks, and diagnostics."""

    candidate: Candidate
    diagonal: int | None
    cost_cents: int | None
    cheapest_cents: int | None
    finish: datetime | None
    profile: ScheduleProfile | None = field(default=None, repr=False)
    schedule: ScheduleResult | None = field(default=None, repr=False)  # rebuilt, profile freed
    refused: Msg | None = None  # why it was not solved (amounts beyond the exact range)

    def release(self) -> None:
        """Keep the rebuilt schedule instead of the solved layers: a problem whose contracts
        may pause keeps every chain state (tens of MiB), and several shown plans add up."""
        if self.profile is not None and self.diagonal is not None:
            self.schedule = self.profile.schedule(self.diagonal)
        self.profile = None

    def key(self, objective: str) -> Key:
        assert self.cost_cents is not None and self.finish is not None
        if objective == "time":
            return (self.finish, self.cost_cents)
        return (self.cost_cents, self.finish)


@dataclass
class Selection:
    best: Evaluated | None = None
    alternatives: list[Evaluated] = field(default_factory=list)
    evaluated: list[Evaluated] = field(default_factory=list)
    skipped: list[Candidate] = field(default_factory=list)
    bounds: dict[int, int | None] = field(default_factory=dict)  # id(candidate) → lower bound

    @property
    def pruned(self) -> int:
        return len(self.skipped)

    @property
    def meets_deadline(self) -> list[Evaluated]:
        return [e for e in self.evaluated if e.cheapest_cents is not None]


def _usable(rate: HourlyRate | ContractRate, slots: int) -> NDArray[np.bool_]:
    """``rate.usable(t)`` for every slot ``t < slots``, vectorised."""
    out = np.ones(slots, dtype=bool)
    if isinstance(rate, HourlyRate):
        out[len(rate.slot_costs) :] = False
    if rate.available is not None:
        known = min(slots, len(rate.available))
        out[:known] &= np.fromiter(rate.available[:known], dtype=bool, count=known)
    return out


def lower_bound_cents(problem: ScheduleProblem) -> int | None:
    """A proven lower bound on the cost of any optimal schedule of ``problem`` (None: none).

    An optimal plan runs ``R ≤ W + overhead·(W − 1)`` slots (each block gains work). Each run
    slot costs at least the cheapest of: an hourly rate's slot price, or a contract's price per
    run slot, which is at least ``max(cost / M, min_periods · cost / R)`` with ``M ≤ period``
    the most run slots one period can hold (its usable slots, the daily cap). So the ``W``
    cheapest such slot prices bound the cost, less half a cent for each of ≤ R segments.
    Run slots lie inside the run windows, so only their prices count (a contract over closed
    hours pays them too, which only raises its price per run slot). Under a daily cap at most
    ``cap`` run slots lie in one day: the ``W`` cheapest of each day's
    ``cap`` cheapest slots bound it then. Where run windows or the cap keep every run block to
    at most ``L`` slots, an interruptible job needs ``b ≥ 1 + ⌈(W − L) / (L − overhead)⌉``
    blocks and so runs at least ``W + overhead·(b − 1)`` slots, all of them paid: the bound
    takes that many. A job that may not pause (without a cap) runs one block of ``W``
    consecutive slots: the least sum of ``W`` consecutive slot prices bounds it. One that may
    pause with overhead ``o > 0`` runs one such block or at least ``W + o`` slots: the smaller
    of the two sums bounds it (:func:`_one_block_or_restarts`). The data disk
    is billed for every one of those run slots (storage runs from the first run slot to the
    finish, paused hours included): ``storage_cents`` each.
    """
    slots, work = problem.deadline_slot, problem.work_slots
    if work > slots:
        return None
    overhead = problem.restart_overhead_slots if problem.interruptible else 0
    runs = min(slots, work + overhead * (work - 1))
    days = _days(problem, slots)  # computed once: the cap's tests below all need them
    per_slot = _per_slot(problem, runs, days)
    needed = _fewest_run_slots(problem, np.isfinite(per_slot), overhead, days)
    least = None
    if not problem.interruptible and not problem.max_run_slots_per_day:
        least = _least_block(per_slot, work)  # one uninterrupted block of ``work`` slots
    if least is None:  # pausing allowed, or no such block (then nothing runs: any bound holds)
        capped = _within_daily_cap(problem, per_slot, days)
        least = _least_slots(capped, needed)
        if least is not None and needed == work and overhead:
            least = _one_block_or_restarts(problem, per_slot, least)
    if least is None or needed is None:
        return None
    return _cents(least, runs) + problem.storage_cents * needed


def _cents(least: float, runs: int) -> int:
    """A float sum of slot prices as a bound in cents: its float error and the rounding of up
    to ``runs`` segments (half a cent each, at most) taken off."""
    return int(np.floor(least * 100 * (1 - 1e-9))) - (runs + 1) // 2


def _per_slot(
    problem: ScheduleProblem, runs: int, days: NDArray[np.int64] | None
) -> NDArray[np.float64]:
    """The least price of any rate in each run slot (``inf`` where the job cannot run): an
    hourly rate's slot price, a contract's price per run slot."""
    slots = problem.deadline_slot
    per_slot = np.full(slots, np.inf)
    for rate in problem.hourly:
        costs = np.full(slots, np.inf)
        known = min(slots, len(rate.slot_costs))
        costs[:known] = float_costs(rate.slot_costs)[:known]
        np.minimum(per_slot, np.where(_usable(rate, slots), costs, np.inf), out=per_slot)
    runnable = _may_run(problem, slots)
    for contract in problem.contracts:
        cost, usable = float(contract.cost), _usable(contract, slots) & runnable
        most = most_runs_per_period(
            usable, contract.period_slots, problem.max_run_slots_per_day, days
        )
        if not most:
            continue
        per_run_slot = max(cost / most, contract.min_periods * cost / runs)
        np.minimum(per_slot, np.where(usable, per_run_slot, np.inf), out=per_slot)
    per_slot[~runnable] = np.inf  # the job runs only inside its windows
    return per_slot


def _least_slots(per_slot: NDArray[np.float64], needed: int | None) -> float | None:
    """The sum of the ``needed`` cheapest slot prices (None: fewer finite ones)."""
    if needed is None or len(per_slot) < needed:
        return None
    cheapest = np.partition(per_slot, needed - 1)[:needed]
    return float(cheapest.sum()) if np.isfinite(cheapest).all() else None


def _one_block_or_restarts(
    problem: ScheduleProblem, per_slot: NDArray[np.float64], cheapest: float
) -> float:
    """An interruptible job with restart overhead ``o`` runs either one block of ``W``
    consecutive slots (:func:`_least_block`), or more blocks and then at least ``W + o`` run
    slots (a restart's overhead slots are run slots, all paid): the least of the two bounds
    it, never below the ``W`` cheapest (``cheapest``, kept where neither exists: no plan)."""
    work = problem.work_slots
    block = _least_block(per_slot, work)
    restarted = _least_slots(
        _within_daily_cap(problem, per_slot), work + problem.restart_overhead_slots
    )
    bounds = [b for b in (block, restarted) if b is not None]
    return max(cheapest, min(bounds)) if bounds else cheapest


def _least_block(per_slot: NDArray[np.float64], work: int) -> float | None:
    """The least sum of slot prices over ``work`` consecutive slots (None: no such run of
    finite prices). A job that may not pause runs in one block of ``work`` slots, each paid at
    no less than its slot's price, so this bounds it — above the ``work`` cheapest slots
    wherever prices vary over the day (time-of-use rules, contracts' closed hours)."""
    if work < 1 or len(per_slot) < work:
        return None
    sums = np.lib.stride_tricks.sliding_window_view(per_slot, work).sum(axis=1)
    least = float(sums.min())
    return least if math.isfinite(least) else None


def stretch_bound_cents(problem: ScheduleProblem) -> int | None:
    """A bound for an interruptible job with restart overhead from the stretches of its cheap
    slots (:mod:`~comparator.plan.prune.stretch_bound`; :func:`_restart_bound`). Tested only
    before a solve, never to order: not monotone in the prices (planner-pruning.md, round 6)."""
    return _restart_bound(problem, lambda p, w, o, _r: least_over_blocks(p, w, o))


def block_lengths_cents(problem: ScheduleProblem) -> int | None:
    """As :func:`stretch_bound_cents`, from blocks of each length (monotone in the prices:
    every key takes it; :mod:`~comparator.plan.prune.block_lengths`)."""
    return _restart_bound(problem, least_over_lengths)


def _restart_bound(
    problem: ScheduleProblem, least_of: Callable[[NDArray[np.float64], int, int, int], float | None]
) -> int | None:
    """``least_of(per_slot, W, overhead, R)`` in cents with the storage of the fewest run slots
    (:func:`lower_bound_cents`'s terms); None without overhead or a floor."""
    overhead, work = problem.restart_overhead_slots, problem.work_slots
    if not (problem.interruptible and overhead) or work > problem.deadline_slot:
        return None
    runs = min(problem.deadline_slot, work + overhead * (work - 1))
    days = _days(problem, problem.deadline_slot)
    per_slot = _per_slot(problem, runs, days)
    needed = _fewest_run_slots(problem, np.isfinite(per_slot), overhead, days)
    least = least_of(per_slot, work, overhead, runs)
    if least is None or needed is None:
        return None
    return _cents(least, runs) + problem.storage_cents * needed


def candidate_bound_cents(candidate: Candidate) -> int | None:
    """The bound both walks key a built candidate by: :func:`lower_bound_cents` of its problem
    (None: no plan, ``bounds.may_not_fit``), or :func:`block_lengths_cents` where larger, plus
    its data bill's fixed part (upload storage, egress), which every plan pays."""
    bound = lower_bound_cents(candidate.problem)
    if bound is None:
        return None
    blocks = block_lengths_cents(candidate.problem)
    if blocks is not None and blocks > bound:
        bound = blocks
    return bound + candidate.bill.fixed_cents


def _may_run(problem: ScheduleProblem, slots: int) -> NDArray[np.bool_]:
    """The slots before the deadline inside the job's run windows (a contract may span the
    others, but the job does not run there)."""
    allowed = problem.run_allowed
    runnable = np.ones(slots, dtype=bool)
    if allowed is not None:
        known = min(slots, len(allowed))
        runnable[:known] = np.fromiter(allowed[:known], dtype=bool, count=known)
        runnable[known:] = False
    return runnable


def _days(problem: ScheduleProblem, slots: int) -> NDArray[np.int64] | None:
    """The local day of every slot under a daily cap (None without one)."""
    if not problem.max_run_slots_per_day:
        return None
    return np.array(problem.day_indices(slots), dtype=np.int64)


def _fewest_run_slots(
    problem: ScheduleProblem,
    runnable: NDArray[np.bool_],
    overhead: int,
    days: NDArray[np.int64] | None = None,
) -> int | None:
    """The fewest run slots (overhead included) any plan needs; None when none can do the work.

    A run block lies in one stretch of consecutive runnable slots and runs at most ``cap`` slots
    of each day it touches, so no block is longer than ``L``, the largest such sum over the
    stretches. The first block does at most ``L`` slots of work, each later one ``L − overhead``.
    ``days``: each slot's day under the cap (:func:`_days`; computed when not given)."""
    work = problem.work_slots
    if not overhead:
        return work
    breaks = np.concatenate(([True], runnable[1:] != runnable[:-1]))
    stretch = np.cumsum(breaks)[runnable]
    if not len(stretch):
        return None
    cap = problem.max_run_slots_per_day
    if cap:
        days = _days(problem, len(runnable)) if days is None else days
        assert days is not None
        longest = _longest_capped_block(stretch, days[runnable], cap)
    else:
        longest = int(np.bincount(stretch).max())
    if work <= longest:
        return work
    if longest <= overhead:
        return None
    blocks = 1 + -(-(work - longest) // (longest - overhead))
    return work + overhead * (blocks - 1)


def _longest_capped_block(stretch: NDArray[Any], days: NDArray[np.int64], cap: int) -> int:
    """The largest, over the stretches, of the sum over the days a stretch touches of
    ``min(its slots that day, cap)``. ``stretch`` and ``days`` (one entry per runnable slot,
    in slot order) never decrease, so each (stretch, day) pair is one run of equal entries."""
    starts = np.flatnonzero(
        np.concatenate(([True], (stretch[1:] != stretch[:-1]) | (days[1:] != days[:-1])))
    )
    portions = np.diff(np.append(starts, len(stretch)))
    return int(np.bincount(stretch[starts], weights=np.minimum(portions, cap)).max())


def _within_daily_cap(
    problem: ScheduleProblem,
    per_slot: NDArray[np.float64],
    days: NDArray[np.int64] | None = None,
) -> NDArray[np.float64]:
    """The slot prices of each day's ``cap`` cheapest slots (all slots without a cap): any
    capped plan's run slots are at most ``cap`` a day, so their prices sum to at least the
    ``W`` cheapest of these (a partition matroid: the greedy choice is the cheapest).
    ``days``: each slot's day under the cap (:func:`_days`; computed when not given)."""
    cap = problem.max_run_slots_per_day
    if not cap:
        return per_slot
    days = _days(problem, len(per_slot)) if days is None else days
    assert days is not None
    order = np.lexsort((per_slot, days))  # by day, then price
    ordered_days = days[order]
    first = np.searchsorted(ordered_days, ordered_days, side="left")
    rank = np.arange(len(order)) - first  # position among its day's slots, cheapest first
    kept: NDArray[np.float64] = per_slot[order][rank < cap]
    return kept


def _lower_key(candidate: Candidate, bound: int, objective: str) -> Key:
    earliest = candidate.grid.at(candidate.run_hours)
    return (earliest, bound) if objective == "time" else (bound, earliest)


def _evaluate(candidate: Candidate, options: PlanOptions) -> Evaluated:
    """The candidate's plan for the objective; costs include its fixed data bill."""
    try:
        profile = solve_schedule(candidate.problem, keep_trace=True)
    except AmountsTooLargeError as exc:  # left out with its reason; the others are planned
        return Evaluated(candidate, None, None, None, None, refused=exc.msg)
    fixed = candidate.bill.fixed_cents
    budget = None if options.budget_cents is None else options.budget_cents - fixed
    cheapest = profile.cheapest()
    chosen = profile.fastest(budget) if options.objective == "time" else profile.cheapest(budget)
    cheapest_cents = profile.cost_cents(cheapest) + fixed if cheapest is not None else None
    if chosen is None:
        return Evaluated(candidate, None, None, cheapest_cents, None)
    finish = candidate.grid.at(profile.finish_slot(chosen))
    cost = profile.cost_cents(chosen) + fixed
    return Evaluated(candidate, chosen, cost, cheapest_cents, finish, profile)


class _Ranking:
    """Best evaluated candidate per group (a (provider, GPU) pair, or each candidate alone),
    kept ranked as they come: by key, ties in the order the groups were first ranked (a
    stable sort of ``best_by_pair``'s values), so that a walk solving thousands of
    candidates does not sort every group's best after each one."""

    def __init__(self, options: PlanOptions, by_candidate: bool = False) -> None:
        self.options = options
        self.by_candidate = by_candidate
        self.best_by_pair: dict[object, Evaluated] = {}
        self._seq: dict[object, int] = {}  # group → when it was first ranked
        self._sorted: list[tuple[Key, int, Evaluated]] = []  # (key, seq) unique

    def group(self, candidate: Candidate) -> object:
        return id(candidate) if self.by_candidate else candidate.pair

    def add(self, evaluated: Evaluated) -> None:
        if evaluated.cost_cents is None:
            return
        pair = self.group(evaluated.candidate)
        current = self.best_by_pair.get(pair)
        objective = self.options.objective
        key = evaluated.key(objective)
        if current is not None and not key < current.key(objective):
            return  # nothing ranked changes
        before = [e for *_, e in self._sorted[: self.options.top + 1]]
        if current is None:
            seq = self._seq[pair] = len(self._seq)
        else:
            seq = self._seq[pair]
            del self._sorted[bisect.bisect_left(self._sorted, (current.key(objective), seq))]
        self.best_by_pair[pair] = evaluated
        bisect.insort(self._sorted, (key, seq, evaluated))
        self._keep_profiles([e for e in (*before, evaluated) if e is not current])

    def _keep_profiles(self, touched: Sequence[Evaluated]) -> None:
        """Only the plans that may be shown keep their solved layers (memory): of the ranked
        plans, only those ``touched`` (shown before, or new) may have left the shown ones."""
        shown = [e for *_, e in self._sorted[: self.options.top + 1]]
        ids = {id(e) for e in shown}
        for evaluated in touched:
            if id(evaluated) not in ids:
                evaluated.profile = None
        for evaluated in shown:
            if evaluated.profile is not None and evaluated.candidate.problem.flexible:
                evaluated.release()

    def ranked(self) -> list[Evaluated]:
        return [e for *_, e in self._sorted]

    def shown_key(self) -> Key | None:
        """The key of the last plan shown (the ``top + 1``-th ranked), once there is one."""
        shown = self.options.top + 1
        return self._sorted[shown - 1][0] if len(self._sorted) >= shown else None

    def reserve(self, candidate: Candidate, bound: int) -> None:
        """A candidate skipped by :func:`stretch_hopeless` keeps its pair's place among equal
        keys, as solving it would have (its plan ranked, if one fits the budget)."""
        budget = self.options.budget_cents
        pair = self.group(candidate)
        if pair not in self._seq and (budget is None or bound <= budget):
            self._seq[pair] = len(self._seq)

    def hopeless(self, candidate: Candidate, lower: Key) -> bool:
        """True when the bound proves ``candidate`` neither its pair's best nor shown."""
        objective = self.options.objective
        current = self.best_by_pair.get(self.group(candidate))
        if current is not None and lower > current.key(objective):
            return True
        shown = self.options.top + 1
        return len(self._sorted) >= shown and lower > self._sorted[shown - 1][0]


def stretch_hopeless(
    ranking: _Ranking,
    candidate: Candidate,
    lower: Key,
    hopeless: Callable[[Candidate, Key], bool] | None = None,
) -> bool:
    """Whether :func:`stretch_bound_cents` proves a candidate that its key did not prove
    hopeless so (the ``cost`` objective; ``hopeless``: the walk's test of a key, default
    ``ranking.hopeless``); then its pair keeps its place (:meth:`_Ranking.reserve`)."""
    if ranking.options.objective != "cost":
        return False
    bound = stretch_bound_cents(candidate.problem)
    if bound is None:
        return False
    bound += candidate.bill.fixed_cents
    if bound <= lower[0]:
        return False
    test = hopeless or ranking.hopeless
    if not test(candidate, (bound, *lower[1:])):
        return False
    ranking.reserve(candidate, bound)
    return True


def choose(
    candidates: Sequence[Candidate], options: PlanOptions, *, by_candidate: bool = False
) -> Selection:
    """Solve candidates in order of their lower bounds, skipping the provably hopeless.

    The best of each (provider, GPU) pair is ranked, or, with ``by_candidate``, the best
    ``options.top + 1`` candidates whatever their pair.
    """
    bounded = []
    selection = Selection()
    for candidate in candidates:
        bound = candidate_bound_cents(candidate)
        selection.bounds[id(candidate)] = bound
        if bound is None:
            selection.evaluated.append(Evaluated(candidate, None, None, None, None))
            continue
        bounded.append((_lower_key(candidate, bound, options.objective), candidate))
    bounded.sort(key=lambda item: item[0])
    ranking = _Ranking(options, by_candidate)
    for lower, candidate in bounded:
        if ranking.hopeless(candidate, lower) or stretch_hopeless(ranking, candidate, lower):
            selection.skipped.append(candidate)
            continue
        evaluated = _evaluate(candidate, options)
        ranking.add(evaluated)
        if ranking.best_by_pair.get(ranking.group(candidate)) is not evaluated:
            evaluated.profile = None
        selection.evaluated.append(evaluated)
    ranked = ranking.ranked()
    if ranked:
        selection.best = ranked[0]
        selection.alternatives = ranked[1 : 1 + options.top]
    return selection
