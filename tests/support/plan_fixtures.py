"""Helpers for planner tests: offers and candidates built in memory."""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal

from comparator.domain.billing import PERIOD_HOURS
from comparator.plan.candidates import Candidate, GpuWork, SlotGrid
from comparator.plan.dp.problem import ScheduleProblem
from tests.support.factories import SHANGHAI, START, make_offer


def candidate_for(
    problem: ScheduleProblem,
    *,
    stock: dict[str, int] | None = None,
    start: datetime = START,
    provider: str = "p",
) -> Candidate:
    """A candidate around ``problem``: one in-memory offer per rate (1 unit each)."""
    stock = stock or {}
    offers = {}
    for rate in problem.hourly:
        offers[rate.key] = make_offer(
            rate.key, "hourly", stock=stock.get(rate.key), provider=provider
        )
    for contract in problem.contracts:
        billing = next((b for b, h in PERIOD_HOURS.items() if h == contract.period_slots), "daily")
        offers[contract.key] = make_offer(
            contract.key, billing, stock=stock.get(contract.key), provider=provider
        )
    grid = SlotGrid(start, problem.deadline_slot, SHANGHAI)
    work = GpuWork("A100-SXM4-80GB", Decimal(problem.work_slots))
    return Candidate(
        provider,
        "r",
        "A100-SXM4-80GB",
        1,
        8,
        work,
        grid,
        problem,
        offers,
        {k: 1 for k in offers},
        {k: Decimal(1) for k in offers},
    )
