"""Contracts an hourly rate of the same machine always beats, dropped before the programme.

Under run windows or a daily cap a contract period holds at most ``M`` run slots (the slots of
any ``period`` consecutive ones the job may run in and the contract may be rented in, at most
``cap`` for each day they touch). A chain of ``k`` periods costs at least ``k · cost − ½`` cent
and runs at most ``k · M`` slots; an hourly rate of the same machine, rentable in every such
slot, with no minimum length and no trial, runs the same slots in the same blocks (seamless on
one machine, so every restart, pause and storage slot stays where it was) for at most
``k · M · (p + ½ cent)`` with ``p`` its dearest slot price there. So when ``cost > M · (p + 1
cent)`` every plan with the contract has a strictly cheaper one without it: the optimum never
uses it, and the flexible chains (:mod:`comparator.plan.dp.pausing.flex_steps`), the dearest part of
a capped plan, skip it. Without windows and cap nothing is dropped.
"""

from __future__ import annotations

import dataclasses
from decimal import Decimal

import numpy as np
from numpy.typing import NDArray

from comparator.plan.dp.problem import ContractRate, HourlyRate, ScheduleProblem

CENT = Decimal("0.01")


def without_dominated_contracts(problem: ScheduleProblem) -> ScheduleProblem:
    if not problem.flexible:
        return problem
    kept = tuple(c for c in problem.contracts if not _beaten(problem, c))
    if len(kept) == len(problem.contracts):
        return problem
    return dataclasses.replace(problem, contracts=kept)


def _beaten(problem: ScheduleProblem, contract: ContractRate) -> bool:
    runs = _run_slots(problem, contract)
    if not runs.any():
        return False
    cap = problem.max_run_slots_per_day
    days = np.array(problem.day_indices(len(runs)), dtype=np.int64) if cap else None
    most = most_runs_per_period(runs, contract.period_slots, cap, days)
    for rate in problem.hourly:
        dearest = _dearest_price(rate, runs, contract.machine)
        if dearest is not None and contract.cost > most * (dearest + CENT):
            return True
    return False


def _run_slots(problem: ScheduleProblem, contract: ContractRate) -> NDArray[np.bool_]:
    """The slots before the deadline where the job may run inside ``contract``."""
    slots = problem.deadline_slot
    return np.array([problem.may_run(t) and contract.usable(t) for t in range(slots)], dtype=bool)


def _dearest_price(rate: HourlyRate, runs: NDArray[np.bool_], machine: str) -> Decimal | None:
    """The dearest slot price of ``rate`` over ``runs``, if it can stand in for a contract
    there: the same machine, rentable in every such slot, no minimum, not a trial."""
    if rate.machine != machine or rate.min_slots != 1 or rate.trial_slots:
        return None
    slots = np.nonzero(runs)[0]
    if not all(rate.usable(int(t)) for t in slots):
        return None
    return max(rate.slot_costs[int(t)] for t in slots)


def most_runs_per_period(
    usable: NDArray[np.bool_], period: int, cap: int, days: NDArray[np.int64] | None
) -> int:
    """The most run slots one contract period can hold: the ``usable`` slots of any
    ``period`` consecutive slots before the deadline, and under a daily cap (``days``: the day
    number of each slot) at most ``cap`` for each day the span touches. A paid period the run
    windows or the cap leave idle still costs its price, so each of its run slots costs at
    least ``cost / this`` (also the bound's divisor, :func:`comparator.plan.selection.lower_bound_cents`)."""
    slots = len(usable)
    if not slots:
        return 0
    starts = np.arange(slots)
    ends = np.minimum(starts + period, slots)
    counts = np.concatenate(([0], np.cumsum(usable)))
    most = counts[ends] - counts[starts]
    if days is not None:
        touched = days[ends - 1] - days[starts] + 1
        most = np.minimum(most, cap * touched)
    return int(min(period, most.max()))
