"""The stretch bound of an interruptible job with restart overhead (docs/planner-pruning.md,
"Fifth round: growth"): a floor on the run slots of any plan of ``b`` blocks that reach the
cheap stretches of the slot prices, tested only before a candidate is solved.

It is never above the relaxed optimum (brute force over every set of run slots), never above
the DP's optimum of random problems, above the former bound on many, and the planner that
skips candidates by it finds the plans, alternatives and exclusions of the planner that
solves them (``choose`` without the test)."""

from __future__ import annotations

import dataclasses
import itertools
import math
import random
from collections.abc import Callable
from decimal import Decimal
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from comparator.domain.offer_view import OfferView
from comparator.plan import PlanContext, plan_job, selection
from comparator.plan.dp.dp_solver import solve_schedule
from comparator.plan.dp.problem import ContractRate, HourlyRate, ScheduleProblem
from comparator.plan.prune.stretch_bound import least_over_blocks
from comparator.plan.selection import block_lengths_cents, lower_bound_cents, stretch_bound_cents
from tests.plan.test_plan_dp_reference import random_problem
from tests.plan.test_plan_prune import (
    CONTEXT,
    a_job,
    answer,
    catalog,
    dominated_ids,
    offer_fields,
)
from tests.support.factories import make_offer

D = Decimal


def nights(slots: int = 168, night: float = 0.5) -> np.ndarray:
    """A week of slots from midnight: ``night`` from 00:00 to 08:00, 1 otherwise."""
    return np.array([night if t % 24 < 8 else 1.0 for t in range(slots)])


def test_a_night_rate_and_one_slot_of_overhead_give_the_cheapest_schedules() -> None:
    """The README's LoRA job on one card (52 work slots) runs 7 night blocks of 8 slots, 6
    restarts, and 2 more slots by day: 30; on two cards (26) 4 night blocks: 14.5. The W
    cheapest slots said 26 and 13, the W + 1 cheapest 26.5 and 13.5."""
    assert least_over_blocks(nights(), 52, 1) == 30.0
    assert least_over_blocks(nights(), 26, 1) == 14.5
    assert least_over_blocks(nights(), 8, 1) == 4.0  # one night holds it: no restart
    assert least_over_blocks(np.full(24, math.inf), 3, 1) is None


def relaxed_optimum(prices: list[float], work: int, overhead: int) -> float:
    """The least sum of ``prices`` over any set of run slots whose maximal runs (the blocks)
    do ``work`` slots of work, every block after the first losing ``overhead``."""
    best = math.inf
    for chosen in itertools.product((False, True), repeat=len(prices)):
        runs = [t for t, on in enumerate(chosen) if on]
        if not runs or any(math.isinf(prices[t]) for t in runs):
            continue
        blocks = 1 + sum(1 for a, b in itertools.pairwise(runs) if b > a + 1)
        if len(runs) - overhead * (blocks - 1) >= work:
            best = min(best, sum(prices[t] for t in runs))
    return best


def test_the_floor_never_exceeds_the_relaxed_optimum() -> None:
    """400 random price curves of up to 11 slots (levels, closed slots), works and overheads."""
    rng = random.Random(2605)
    raised = 0
    for _ in range(400):
        slots = rng.randint(1, 11)
        levels = [rng.choice([0.5, 1.0, 1.5]) for _ in range(3)]
        prices = [math.inf if rng.random() < 0.15 else rng.choice(levels) for _ in range(slots)]
        work, overhead = rng.randint(1, slots), rng.randint(1, 3)
        floor = least_over_blocks(np.array(prices), work, overhead)
        best = relaxed_optimum(prices, work, overhead)
        if floor is not None:
            assert floor <= best + 1e-9, (prices, work, overhead, floor, best)
        finite = sorted(p for p in prices if math.isfinite(p))
        raised += floor is not None and floor > sum(finite[:work]) + 1e-9
    assert raised > 40


def night_problem(rng: random.Random) -> ScheduleProblem:
    """One to three days of hourly rates with a cheaper stretch each, maybe a contract,
    storage, run windows; interruptible with one to three slots of overhead."""
    slots = rng.choice([24, 48, 72])
    rates = []
    for j in range(rng.randint(1, 3)):
        price = D(rng.randint(100, 900)) / 100
        start, end = sorted(rng.sample(range(24), 2))
        factor = rng.choice([D("0.5"), D("0.6"), D("0.8")])
        costs = tuple(price * (factor if start <= t % 24 < end else 1) for t in range(slots + 2))
        available = tuple(rng.random() < 0.9 for _ in costs) if rng.random() < 0.3 else None
        rates.append(HourlyRate(f"h{j}", costs, rng.choice([1, 1, 2]), available, "m"))
    contracts = ()
    if rng.random() < 0.5:
        cost = D(rng.randint(500, 9000)) / 100
        contracts = (ContractRate("c", rng.choice([6, 24]), cost, rng.choice([1, 2]), None, "m"),)
    storage = D(rng.randint(1, 80)) / 100 if rng.random() < 0.3 else D(0)
    work, overhead = rng.randint(2, slots // 2), rng.randint(1, 3)
    problem = ScheduleProblem(slots, work, True, overhead, tuple(rates), contracts, storage)
    if rng.random() < 0.2:
        windows = tuple(rng.random() < 0.8 for _ in range(slots))
        hourly = tuple(
            dataclasses.replace(
                r, available=tuple(w and r.usable(t) for t, w in enumerate(windows))
            )
            for r in rates
        )
        problem = dataclasses.replace(problem, hourly=hourly, run_allowed=windows)
    return problem


@pytest.mark.parametrize(
    ("bound_cents", "seed"), [(stretch_bound_cents, 2626), (block_lengths_cents, 2609)]
)
def test_the_bound_never_exceeds_the_dp_optimum(
    bound_cents: Callable[[ScheduleProblem], int | None], seed: int
) -> None:
    """300 random problems of the DP's reference test (restart overhead 1–3; contracts, trials,
    run windows, daily caps, storage, several machines) and 200 with cheap stretches: the
    stretch bound and the block-length floor are never above the cheapest schedule, and above
    the former bound on many."""
    rng = random.Random(seed)
    problems = [
        dataclasses.replace(
            random_problem(rng), interruptible=True, restart_overhead_slots=rng.randint(1, 3)
        )
        for _ in range(300)
    ]
    problems += [night_problem(rng) for _ in range(200)]
    raised = 0
    for problem in problems:
        bound, former = bound_cents(problem), lower_bound_cents(problem)
        profile = solve_schedule(problem, keep_trace=False)
        diagonal = profile.cheapest()
        if diagonal is not None and bound is not None:
            assert bound <= profile.cost_cents(diagonal), problem
        raised += bound is not None and former is not None and bound > former
    assert raised > 25


def test_jobs_that_may_not_pause_or_restart_for_free_get_no_stretch_bound() -> None:
    costs = tuple(D(1) for _ in range(24))
    problem = ScheduleProblem(24, 5, True, 0, (HourlyRate("h", costs, 1, None, "m"),), ())
    assert stretch_bound_cents(problem) is None
    assert stretch_bound_cents(dataclasses.replace(problem, interruptible=False)) is None


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    rows=st.lists(offer_fields, min_size=1, max_size=30),
    card_hours=st.integers(4, 200),
    days=st.integers(1, 4),
    budget=st.sampled_from([None, None, 500, 5000]),
    top=st.integers(0, 3),
)
def test_skipping_by_the_bound_finds_what_solving_finds(
    rows: list[tuple[object, ...]], card_hours: int, days: int, budget: int | None, top: int
) -> None:
    """Random catalogs (night and weekend rules, contracts, stock, networks), an
    interruptible job with an hour of overhead: the walk, which skips candidates the stretch
    bound proves hopeless, against ``choose`` solving every candidate its key does not skip."""
    offers = catalog(rows)
    job = a_job(card_hours, days, True, budget)
    context = PlanContext(today=CONTEXT.today, fx=CONTEXT.fx, top=top)
    pruned = plan_job(job, offers, {}, context)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(selection, "stretch_hopeless", lambda *_args, **_kw: False)
        solved = plan_job(job, offers, {}, context, prune=False)
    dominated = dominated_ids(job, offers, context)
    assert answer(pruned, dominated) == answer(solved, dominated)
    assert pruned.stats["solved"] <= solved.stats["solved"]


def night_rated_catalog(one_card_providers: int, **one_card: Any) -> list[OfferView]:
    """Three providers renting 8-card machines (24.00 an hour, half price 00:00-08:00) and
    ``one_card_providers`` renting one card only (2.945 an hour, the same night rate;
    ``one_card``: more of their fields)."""
    night = "00:00-08:00*0.5"
    offers = [
        make_offer(
            str(p + 1), "hourly", "24", provider=f"p{p}", cards=8, time_of_use=night, country="SG"
        )
        for p in range(3)
    ]
    return offers + [
        make_offer(
            str(p + 1),
            "hourly",
            "2.945",
            provider=f"p{p}",
            stock=1,
            time_of_use=night,
            country="SG",
            **one_card,
        )
        for p in range(3, 3 + one_card_providers)
    ]


def test_a_night_rated_catalog_solves_fewer_candidates_for_the_same_answer() -> None:
    """Three providers renting 8-card machines (24.00 an hour, 12.00 at night: 60.00 for the
    job's 5 night hours) and three renting one card only (2.945 an hour): a week holds the
    card's 40 work slots in its 56 night slots, so its key (41 of them, 60.37 less the
    rounding margin) is not above the third plan's 60.00, yet 6 blocks cost 66.26. The stretch
    bound skips those candidates instead of solving them, and the answer is the same."""
    offers = night_rated_catalog(3)
    job = a_job(40, 7, True, None)
    context = PlanContext(today=CONTEXT.today, fx=CONTEXT.fx, top=2)
    pruned = plan_job(job, offers, {}, context)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(selection, "stretch_hopeless", lambda *_args, **_kw: False)
        patch.setattr(selection, "block_lengths_cents", lambda *_args, **_kw: None)
        solved = plan_job(job, offers, {}, context, prune=False)
    assert answer(pruned) == answer(solved)
    assert [p.total_cost for p in (pruned.best, *pruned.alternatives)] == [60, 60, 60]
    assert (pruned.stats["solved"], solved.stats["solved"]) == (3, 6)
