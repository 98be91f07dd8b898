"""Helpers for planner tests: offers and candidates built in memory."""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal
from zoneinfo import ZoneInfo

from comparator.domain.billing import PERIOD_HOURS
from comparator.domain.offer_view import OfferView
from comparator.plan.candidates import Candidate, GpuWork, SlotGrid
from comparator.plan.dp.problem import ScheduleProblem
from tests.support.factories import offer_view

SHANGHAI = ZoneInfo("Asia/Shanghai")
START = datetime(2026, 12, 1, tzinfo=SHANGHAI)


def make_offer(
    offer_id: str,
    billing: str = "hourly",
    price: str = "10",
    *,
    provider: str = "p",
    region: str = "r",
    gpu: str = "A100-SXM4-80GB",
    cards: int = 1,
    node_cards: int = 8,
    stock: int | None = None,
    min_units: int = 1,
    time_of_use: str = "",
    network: str | None = "ib-200g",
    currency: str = "CNY",
    tax_inclusive: bool = True,
    province: str | None = "广东",
    country: str = "CN",
) -> OfferView:
    mainland = country == "CN"
    return offer_view(
        offer_id=offer_id,
        provider=provider,
        provider_name=provider,
        region=region,
        region_name=region,
        country=country,
        province=province if mainland else None,
        city=None,
        mainland=mainland,
        gpu=gpu,
        cards=cards,
        node_cards=node_cards,
        billing=billing,
        price=Decimal(price),
        currency=currency,
        time_of_use=time_of_use,
        stock=stock,
        min_units=min_units,
        network=network,
        tax_inclusive=tax_inclusive,
        observed_at=START,
        source="test",
    )


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
