"""The exact dynamic programme: hand-checked cases, brute force, monotonicity, validation."""

from __future__ import annotations

import dataclasses
import random
from decimal import Decimal

import pytest

from comparator.plan.dp.dp_solver import ScheduleProfile, solve_schedule
from comparator.plan.dp.problem import ContractRate, HourlyRate, ScheduleProblem, ScheduleResult
from tests.support.plan_oracle import brute_force
from tests.support.plan_validate import validate_schedule

D = Decimal


def hourly(key: str, *costs: str, minimum: int = 1) -> HourlyRate:
    return HourlyRate(key, tuple(D(c) for c in costs), minimum)


def cheapest(problem: ScheduleProblem) -> ScheduleResult | None:
    profile = solve_schedule(problem)
    diagonal = profile.cheapest()
    if diagonal is None:
        return None
    result = profile.schedule(diagonal)
    assert validate_schedule(problem, result) == []
    return result


def by_finish(profile: ScheduleProfile) -> dict[int, Decimal]:
    """Cheapest cost of finishing by each slot (running minimum over finish slots)."""
    best: dict[int, Decimal] = {}
    running: int | None = None
    for diagonal, cents in enumerate(profile.costs_cents):
        if cents is not None:
            running = cents if running is None else min(running, cents)
        if running is not None:
            best[profile.finish_slot(diagonal)] = D(running) / 100
    return best


# --- hand-checked cases ----------------------------------------------------------------------
def test_one_segment_is_rounded_once_not_per_slot() -> None:
    problem = ScheduleProblem(3, 3, False, 0, (hourly("h", "0.333", "0.333", "0.333"),))
    result = cheapest(problem)
    assert result is not None and result.cost == D("1.00")  # 0.999 → 1.00, not 3 × 0.33


def test_pausing_splits_line_items_and_each_rounds_on_its_own() -> None:
    costs = ["0.334", "9", "0.334", "9", "0.334"]
    problem = ScheduleProblem(5, 3, True, 0, (hourly("h", *costs),))
    result = cheapest(problem)
    assert result is not None
    assert [(s.start, s.end, s.cost) for s in result.segments] == [
        (0, 1, D("0.33")),
        (2, 3, D("0.33")),
        (4, 5, D("0.33")),
    ]
    assert result.cost == D("0.99") and result.finish == 5


def test_a_short_last_segment_is_padded_to_its_minimum() -> None:
    problem = ScheduleProblem(2, 1, True, 0, (hourly("h", "1", "2", "4", minimum=3),))
    result = cheapest(problem)
    assert result is not None
    assert [(s.start, s.end, s.run_end) for s in result.segments] == [(0, 3, 1)]
    assert result.cost == D("7.00") and result.finish == 1  # paid past the deadline


def test_a_contract_may_run_past_the_deadline_and_still_win() -> None:
    problem = ScheduleProblem(
        12, 10, False, 0, (hourly("h", *["10"] * 12),), (ContractRate("daily", 24, D("99.99")),)
    )
    result = cheapest(problem)
    assert result is not None and result.cost == D("99.99")
    (segment,) = result.segments
    assert (segment.key, segment.start, segment.end, segment.run_end) == ("daily", 0, 24, 10)


def test_hourly_and_contracts_mix_and_chain() -> None:
    # 30 h of work: a 24 h contract (50.00) plus 6 cheap hourly slots beats two contracts.
    costs = ["3"] * 24 + ["1"] * 6 + ["3"] * 18
    problem = ScheduleProblem(
        48, 30, False, 0, (hourly("h", *costs),), (ContractRate("daily", 24, D("50")),)
    )
    result = cheapest(problem)
    assert result is not None and result.cost == D("56.00")
    assert [(s.key, s.start, s.end) for s in result.segments] == [("daily", 0, 24), ("h", 24, 30)]


def test_chained_contracts_are_one_line_item() -> None:
    problem = ScheduleProblem(3, 3, False, 0, (), (ContractRate("c", 1, D("0.005")),))
    result = cheapest(problem)
    assert result is not None
    assert [(s.periods, s.cost) for s in result.segments] == [(3, D("0.02"))]  # 0.015 → 0.02


def test_min_periods_of_a_contract_chain() -> None:
    problem = ScheduleProblem(10, 3, False, 0, (), (ContractRate("c", 2, D("5"), 3),))
    result = cheapest(problem)
    assert result is not None and result.segments[0].periods == 3 and result.cost == D("15.00")


def test_restart_overhead_decides_whether_a_pause_pays() -> None:
    costs = ["1", "1", "1", "9", "9", "1", "1", "1", "1"]
    short = cheapest(ScheduleProblem(9, 5, True, 1, (hourly("h", *costs),)))
    assert short is not None and short.cost == D("6.00") and short.finish == 8
    assert [(s.start, s.run_end, s.overhead_slots) for s in short.segments] == [
        (0, 3, 0),
        (5, 8, 1),
    ]
    long = cheapest(ScheduleProblem(9, 5, True, 3, (hourly("h", *costs),)))
    assert long is not None and long.cost == D("13.00")
    assert [(s.start, s.run_end, s.overhead_slots) for s in long.segments] == [(4, 9, 0)]


def test_a_job_that_may_not_pause_runs_in_one_block() -> None:
    costs = ["1", "9", "1", "1"]
    paused = cheapest(ScheduleProblem(4, 2, True, 0, (hourly("h", *costs),)))
    block = cheapest(ScheduleProblem(4, 2, False, 0, (hourly("h", *costs),)))
    assert paused is not None and paused.cost == D("2.00")
    assert block is not None and block.cost == D("2.00") and block.start == 2


def test_switching_rates_is_not_a_pause() -> None:
    problem = ScheduleProblem(
        4, 4, False, 3, (hourly("a", "1", "1", "9", "9"), hourly("b", "9", "9", "1", "1"))
    )
    result = cheapest(problem)
    assert result is not None and result.cost == D("4.00")
    assert [(s.key, s.overhead_slots) for s in result.segments] == [("a", 0), ("b", 0)]


def test_unavailable_slots_are_never_rented() -> None:
    rate = HourlyRate("h", (D(1),) * 6, 1, (True, False, True, True, False, True))
    result = cheapest(ScheduleProblem(6, 2, False, 0, (rate,)))
    assert result is not None and [(s.start, s.end) for s in result.segments] == [(2, 4)]
    assert cheapest(ScheduleProblem(6, 3, False, 0, (rate,))) is None


def test_infeasible_when_the_window_is_too_short() -> None:
    assert cheapest(ScheduleProblem(3, 4, True, 0, (hourly("h", "1", "1", "1"),))) is None
    blocked = HourlyRate("h", (D(1),) * 4, 1, (True, False, True, False))
    assert cheapest(ScheduleProblem(4, 2, False, 0, (blocked,))) is None


def test_earliest_finish_breaks_cost_ties() -> None:
    problem = ScheduleProblem(6, 2, True, 0, (hourly("h", *["2"] * 6),))
    result = cheapest(problem)
    assert result is not None and result.finish == 2


def test_fastest_within_a_budget() -> None:
    costs = ["5", "5", "1", "1"]
    profile = solve_schedule(ScheduleProblem(4, 2, True, 0, (hourly("h", *costs),)))
    assert profile.fastest() == 0 and profile.cost_cents(0) == 1000
    budget_diagonal = profile.fastest(budget_cents=600)
    assert budget_diagonal is not None and profile.finish_slot(budget_diagonal) == 3
    assert profile.cost_cents(budget_diagonal) == 600
    assert profile.cheapest(budget_cents=100) is None


# --- brute force -----------------------------------------------------------------------------
FACTORS = [D("0.5"), D("0.7"), D("0.8"), D("1"), D("1.25")]


def random_problem(rng: random.Random) -> ScheduleProblem:
    deadline = rng.randint(1, 6)
    rates = []
    for j in range(rng.randint(0, 2)):
        minimum = rng.choice([1, 1, 2, 3])
        price = D(rng.randint(1, 500)) / 100 * rng.choice([1, 1, 2, 3])
        costs = tuple(price * rng.choice(FACTORS) for _ in range(deadline + minimum - 1))
        available = tuple(rng.random() < 0.8 for _ in costs) if rng.random() < 0.2 else None
        rates.append(HourlyRate(f"h{j}", costs, minimum, available))
    contracts = []
    for j in range(rng.randint(0 if rates else 1, 2)):
        cost = D(rng.randint(1, 2000)) / rng.choice([100, 1000])
        contracts.append(
            ContractRate(f"c{j}", rng.choice([1, 2, 3, 4, 24]), cost, rng.choice([1, 1, 2]))
        )
    interruptible = rng.random() < 0.7
    return ScheduleProblem(
        deadline,
        rng.randint(1, deadline),
        interruptible,
        rng.choice([0, 0, 1, 2]),
        tuple(rates),
        tuple(contracts),
    )


@pytest.mark.parametrize("seed", range(6))
def test_the_optimiser_equals_brute_force_on_random_small_instances(seed: int) -> None:
    """40 instances per seed, 240 in all: every finish slot's cheapest cost, to the cent."""
    rng = random.Random(seed)
    for _ in range(40):
        problem = random_problem(rng)
        profile = solve_schedule(problem)
        assert by_finish(profile) == brute_force(problem), problem
        for diagonal, cents in enumerate(profile.costs_cents):
            if cents is not None:
                assert validate_schedule(problem, profile.schedule(diagonal)) == [], problem


# --- monotonicity ----------------------------------------------------------------------------
def medium_problem(rng: random.Random, extra: int) -> ScheduleProblem:
    deadline = rng.randint(24, 72)
    rates = []
    for j in range(rng.randint(1, 2)):
        minimum = rng.choice([1, 2])
        price = D(rng.randint(100, 3000)) / 100
        day = [rng.choice(FACTORS) for _ in range(24)]
        costs = tuple(price * day[t % 24] for t in range(deadline + extra + minimum))
        rates.append(HourlyRate(f"h{j}", costs, minimum))
    contracts = tuple(
        ContractRate(f"c{j}", rng.choice([6, 24]), D(rng.randint(500, 20000)) / 100)
        for j in range(rng.randint(0, 2))
    )
    interruptible = rng.random() < 0.7
    return ScheduleProblem(
        deadline,
        rng.randint(2, deadline // 2),
        interruptible,
        rng.choice([0, 1]),
        tuple(rates),
        contracts,
    )


def best_cents(problem: ScheduleProblem) -> int | None:
    profile = solve_schedule(problem, keep_trace=False)
    diagonal = profile.cheapest()
    return None if diagonal is None else profile.cost_cents(diagonal)


@pytest.mark.parametrize("seed", range(3))
def test_a_later_deadline_never_raises_the_cost(seed: int) -> None:
    rng = random.Random(100 + seed)
    for _ in range(10):
        problem = medium_problem(rng, extra=24)
        costs = [
            best_cents(dataclasses.replace(problem, deadline_slot=problem.deadline_slot + k))
            for k in (0, 1, 5, 24)
        ]
        found = [c for c in costs if c is not None]
        assert found == sorted(found, reverse=True), costs
        assert all(c is not None for c in costs[costs.index(found[0]) :]) if found else True


@pytest.mark.parametrize("seed", range(3))
def test_a_lower_price_never_raises_the_cost(seed: int) -> None:
    rng = random.Random(200 + seed)
    for _ in range(10):
        problem = medium_problem(rng, extra=0)
        before = best_cents(problem)
        rate = problem.hourly[0]
        slot = rng.randrange(len(rate.slot_costs))
        cheaper_costs = list(rate.slot_costs)
        cheaper_costs[slot] = cheaper_costs[slot] * D("0.5")
        cheaper = dataclasses.replace(
            problem,
            hourly=(
                dataclasses.replace(rate, slot_costs=tuple(cheaper_costs)),
                *problem.hourly[1:],
            ),
        )
        everything = dataclasses.replace(
            problem,
            hourly=tuple(
                dataclasses.replace(r, slot_costs=tuple(c * D("0.9") for c in r.slot_costs))
                for r in problem.hourly
            ),
        )
        for lowered in (cheaper, everything):
            after = best_cents(lowered)
            assert before is None or (after is not None and after <= before)
