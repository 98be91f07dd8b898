"""The block-length floor of an interruptible job with restart overhead (docs/planner-pruning.md,
"Sixth round: growth"): ``b`` blocks of ``N_b = W + o·(b − 1)`` run slots in all pay at least
``b·ȟ(N_b / b)``, ``ȟ`` the convex envelope of the least sums over blocks of each length.

It is never above the relaxed optimum (brute force), never above the DP's optimum, never grows
when the prices fall (which rule 2's Claim 1 needs: the groups' and summaries' curves lie below
their candidates'), and keys the walk so that a night-rated catalog leaves its one-card groups
unread for the answer the unpruned planner finds."""

from __future__ import annotations

import dataclasses
import math
import random

import numpy as np
import pytest

from comparator.plan import PlanContext, plan_job
from comparator.plan.prune.block_floors import SummaryFloors
from comparator.plan.prune.block_lengths import envelope, least_over_lengths, least_sums
from comparator.plan.prune.pruning import READ_BATCH
from comparator.plan.selection import block_lengths_cents
from tests.plan.test_plan_prune import CONTEXT, a_job, answer
from tests.plan.test_plan_prune_stream import streamed
from tests.plan.test_plan_stretch_bound import (
    night_problem,
    night_rated_catalog,
    nights,
    relaxed_optimum,
)


def runs(work: int, overhead: int, slots: int) -> int:
    """``lower_bound_cents``'s ``R``: no block of an optimal plan is longer."""
    return min(slots, work + overhead * (work - 1))


def test_a_night_rate_and_one_slot_of_overhead() -> None:
    """The README's LoRA job on one card (52 work slots, 8 night slots at half price a night):
    8 blocks of 7.375 slots, 29.5 (the stretch bound says 30, the W + 1 cheapest 26.5); on
    two cards 14.5; one night holds 8 slots: 4."""
    week = nights()
    assert least_over_lengths(week, 52, 1, runs(52, 1, 168)) == 29.5
    assert least_over_lengths(week, 26, 1, runs(26, 1, 168)) == 14.5
    assert least_over_lengths(week, 8, 1, runs(8, 1, 168)) == 4.0
    assert least_over_lengths(np.full(24, math.inf), 3, 1, 5) is None


def random_curve(rng: random.Random, slots: int) -> np.ndarray:
    levels = [rng.choice([0.0, 0.5, 1.0, 1.5, 2.0]) for _ in range(3)]
    return np.array([math.inf if rng.random() < 0.15 else rng.choice(levels) for _ in range(slots)])


def test_the_least_sums_and_their_envelope() -> None:
    """``h`` against brute force; the envelope is convex and never above ``h``."""
    rng = random.Random(2606)
    for _ in range(400):
        prices = random_curve(rng, rng.randint(1, 30))
        longest = rng.randint(1, len(prices))
        h = least_sums(prices, longest)
        for length in range(1, longest + 1):
            sums = [prices[t : t + length].sum() for t in range(len(prices) - length + 1)]
            assert math.isclose(h[length - 1], min(sums), abs_tol=1e-9) or (
                math.isinf(h[length - 1]) and math.isinf(min(sums))
            )
        hull = envelope(prices, longest)
        for length in range(1, longest + 1):
            if math.isfinite(h[length - 1]):
                assert np.interp(length, hull.lengths, hull.sums) <= h[length - 1] + 1e-9
        slopes = np.diff(hull.sums) / np.diff(hull.lengths)
        assert (np.diff(slopes) >= -1e-9).all()


def test_the_floor_never_exceeds_the_relaxed_optimum() -> None:
    """400 random price curves of up to 11 slots (levels, free and closed slots)."""
    rng = random.Random(2607)
    raised = 0
    for _ in range(400):
        prices = random_curve(rng, rng.randint(1, 11)).tolist()
        work, overhead = rng.randint(1, len(prices)), rng.randint(1, 3)
        longest = runs(work, overhead, len(prices))
        floor = least_over_lengths(np.array(prices), work, overhead, longest)
        best = relaxed_optimum(prices, work, overhead)
        if floor is not None:
            assert floor <= best + 1e-9, (prices, work, overhead, floor, best)
        finite = sorted(p for p in prices if math.isfinite(p))
        raised += floor is not None and floor > sum(finite[:work]) + 1e-9
    assert raised > 30


def test_the_floor_never_grows_when_prices_fall() -> None:
    """Lower prices slot by slot (closed slots opened too), longer blocks allowed: a floor no
    larger (what lets a group's curve key its candidates, rule 2's Claim 1)."""
    rng = random.Random(2608)
    for _ in range(1000):
        slots = rng.randint(1, 40)
        prices = random_curve(rng, slots)
        lower = np.array(
            [
                rng.choice([0.0, 0.5, 1.0]) if math.isinf(p) and rng.random() < 0.3 else p
                for p in prices
            ]
        )
        lower = np.where(np.isfinite(lower), lower * np.array([rng.random() for _ in lower]), lower)
        work, overhead = rng.randint(1, slots), rng.randint(1, 4)
        longest = runs(work, overhead, slots)
        floor = least_over_lengths(prices, work, overhead, longest)
        below = least_over_lengths(lower, work, overhead, longest + rng.randint(0, 5))
        if floor is not None:
            assert below is not None and below <= floor * (1 + 1e-12) + 1e-12
            tripled = least_over_lengths(3 * prices, work, overhead, longest)
            assert tripled is not None and math.isclose(tripled, 3 * floor, rel_tol=1e-12)


def test_jobs_that_may_not_pause_or_restart_for_free_get_no_block_length_bound() -> None:
    problem = night_problem(random.Random(1))
    assert block_lengths_cents(dataclasses.replace(problem, restart_overhead_slots=0)) is None
    assert block_lengths_cents(dataclasses.replace(problem, interruptible=False)) is None


def test_a_night_rated_catalog_leaves_its_one_card_groups_unread() -> None:
    """Three providers renting 8-card machines (60.00 for the job's 5 night hours) and forty
    renting single-card machines (40 work slots; their W + 1 cheapest slots 60.37 less the
    rounding margin, not above the third plan's 60.00; 6 blocks at least 22.5 night-price
    units, 66.26): the summaries' keys now hold the block-length floor, so the walk reads no
    group past its first batch, and finds what the unpruned planner finds; without it, it
    reads all 43."""
    offers = night_rated_catalog(40, node_cards=1, network=None)
    job = a_job(40, 7, True, None)
    context = PlanContext(today=CONTEXT.today, fx=CONTEXT.fx, top=2)
    unpruned = plan_job(job, offers, {}, context, prune=False)
    got = streamed(job, offers, context)
    assert got is not None
    result, read = got
    assert answer(result) == answer(unpruned)
    assert [p.total_cost for p in (result.best, *result.alternatives)] == [60, 60, 60]
    assert len({o.provider for o in read}) <= READ_BATCH  # the first batch of groups only
    assert result.stats["solved"] == 3
    with pytest.MonkeyPatch.context() as patch:  # without the floor in the summaries' keys
        patch.setattr(SummaryFloors, "lengths", lambda *_args: 0.0)
        got = streamed(job, offers, context)
    assert got is not None and answer(got[0]) == answer(unpruned)
    assert len({o.provider for o in got[1]}) == 43
