"""The planner's DP against the DP as it was before issue #26's speed-up (kept unchanged in
``tests.support.dp_reference``): on random problems of every kind — hourly rates with
time-of-use prices, minimum lengths, gaps and free trials, contracts with minimum periods, run
windows, daily caps, storage, several machines, interruptible or not — both keep the same
values in every layer, the same cost for every finish slot and rebuild the same schedule (tie
order included) for every finish slot. And the interruptible bound of rule 2 (one block, or
``W + overhead`` run slots) never exceeds the optimum."""

from __future__ import annotations

import dataclasses
import random
from decimal import Decimal

import numpy as np
import pytest

from comparator.plan import selection
from comparator.plan.dp.dp_solver import ScheduleProfile, solve_schedule
from comparator.plan.dp.problem import ContractRate, HourlyRate, ScheduleProblem
from comparator.plan.selection import lower_bound_cents
from tests.plan.test_plan_daily_cap import random_days
from tests.support.dp_reference.reference_solver import solve_schedule as reference_solve

D = Decimal
FACTORS = [D("0.5"), D("0.7"), D("0.8"), D("1"), D("1.25")]
MACHINES = ("whole", "card", "other")


def _hourly(rng: random.Random, j: int, deadline: int, machines: tuple[str, ...]) -> HourlyRate:
    minimum = rng.choice([1, 1, 1, 2, 3])
    price = D(rng.randint(1, 500)) / rng.choice([100, 1000, 10000])
    day = [rng.choice(FACTORS) for _ in range(rng.choice([1, 6, 24]))]  # a time-of-use cycle
    costs = tuple(price * day[t % len(day)] for t in range(deadline + minimum - 1))
    available = tuple(rng.random() < 0.85 for _ in costs) if rng.random() < 0.2 else None
    return HourlyRate(f"h{j}", costs, minimum, available, rng.choice(machines))


def _contract(rng: random.Random, j: int, machines: tuple[str, ...]) -> ContractRate:
    period = rng.choice([2, 3, 6, 24])
    cost = D(rng.randint(1, 5000)) / rng.choice([100, 1000])
    return ContractRate(f"c{j}", period, cost, rng.choice([1, 1, 2]), None, rng.choice(machines))


def random_problem(rng: random.Random) -> ScheduleProblem:
    """Up to 40 slots, 0–3 hourly rates and 0–2 contracts on 1–3 machines, and at random: a
    free trial, storage, run windows, a daily cap, restart overhead, no pausing."""
    deadline = rng.randint(2, 40)
    machines = MACHINES[: rng.randint(1, 3)]
    rates = [_hourly(rng, j, deadline, machines) for j in range(rng.randint(0, 3))]
    contracts = [_contract(rng, j, machines) for j in range(rng.randint(0 if rates else 1, 2))]
    if rates and rng.random() < 0.2:
        first = rates[0]
        zero = (D(0),) * len(first.slot_costs)
        rates.append(HourlyRate("trial", zero, 1, None, first.machine, rng.randint(1, 4)))
    problem = ScheduleProblem(
        deadline,
        rng.randint(1, max(1, deadline * 2 // 3)),
        rng.random() < 0.7,
        rng.choice([0, 1, 1, 2]),
        tuple(rates),
        tuple(contracts),
        D(rng.randint(1, 80)) / 100 if rng.random() < 0.3 else D(0),
    )
    if rng.random() < 0.25:  # run windows: hourly rates are rentable only inside them
        windows = tuple(rng.random() < 0.7 for _ in range(deadline))
        hourly = tuple(
            dataclasses.replace(
                r, available=tuple(ok and r.usable(t) for t, ok in enumerate(windows))
            )
            for r in problem.hourly
        )
        problem = dataclasses.replace(problem, hourly=hourly, run_allowed=windows)
    if rng.random() < 0.25:
        days = random_days(rng, deadline + 60)
        problem = dataclasses.replace(problem, max_run_slots_per_day=rng.randint(2, 5))
        problem = dataclasses.replace(problem, day_of_slot=days)
    return problem


def _layers(profile: ScheduleProfile) -> list[np.ndarray]:
    return [profile._closed.array, profile._idle.array, profile._paused.array]


def assert_same_as_reference(problem: ScheduleProblem) -> None:
    new, old = solve_schedule(problem), reference_solve(problem)
    assert new.costs_cents == old.costs_cents, problem
    for mine, theirs in zip(_layers(new), _layers(old), strict=True):  # type: ignore[arg-type]
        assert np.array_equal(mine, theirs), problem
    for diagonal, cost in enumerate(new.costs_cents):
        if cost is not None:
            assert new.schedule(diagonal) == old.schedule(diagonal), (problem, diagonal)
    assert new.cheapest() == old.cheapest() and new.fastest() == old.fastest()


@pytest.mark.parametrize("seed", range(2))
def test_the_dp_equals_the_reference_on_random_problems(seed: int) -> None:
    """40 problems per seed, 80 in all (2,000 more in the slow tier)."""
    rng = random.Random(2600 + seed)
    for _ in range(40):
        assert_same_as_reference(random_problem(rng))


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(10))
def test_the_dp_equals_the_reference_on_many_random_problems(seed: int) -> None:
    """200 problems per seed, 2,000 in all."""
    rng = random.Random(2700 + seed)
    for _ in range(200):
        assert_same_as_reference(random_problem(rng))


def test_the_dp_equals_the_reference_on_quote_sized_problems() -> None:
    """Shapes of the README's LoRA quote: a week of hourly slots, two time-of-use prices, a
    daily and a weekly contract on two machines, one slot of overhead per restart."""
    rng = random.Random(26)
    for _ in range(6):
        night = D(rng.randint(300, 900)) / 100
        costs = tuple(night * (2 if 8 <= t % 24 < 22 else 1) for t in range(168))
        hourly = HourlyRate("h", costs, 1, None, "whole")
        daily = ContractRate("d", 24, night * rng.randint(20, 30), 1, None, "whole")
        weekly = ContractRate("w", 168, night * rng.randint(120, 200), 1, None, "card")
        work = rng.randint(10, 60)
        problem = ScheduleProblem(168, work, True, 1, (hourly,), (daily, weekly))
        assert_same_as_reference(problem)


def test_the_interruptible_bound_never_exceeds_the_optimum(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """300 random interruptible problems with restart overhead: the bound (one block of W
    slots, or the W + overhead cheapest) is never above the optimum, never below the bound of
    the W cheapest slots alone, and above it on some."""
    rng = random.Random(2626)
    problems = []
    for _ in range(300):
        problem = random_problem(rng)
        overhead = rng.randint(1, 3)
        problems.append(
            dataclasses.replace(problem, interruptible=True, restart_overhead_slots=overhead)
        )
    bounds = [lower_bound_cents(problem) for problem in problems]
    monkeypatch.setattr(selection, "_one_block_or_restarts", lambda _p, _s, cheapest: cheapest)
    raised = 0
    for problem, bound in zip(problems, bounds, strict=True):
        profile = solve_schedule(problem, keep_trace=False)
        diagonal = profile.cheapest()
        if diagonal is not None:
            assert bound is not None and bound <= profile.cost_cents(diagonal), problem
        cheapest = lower_bound_cents(problem)
        assert (bound is None) == (cheapest is None), problem
        if bound is not None and cheapest is not None:
            assert bound >= cheapest, problem
            raised += bound > cheapest
    assert raised > 20
