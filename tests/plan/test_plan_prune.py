"""Pruning never changes the answer: pruned and unpruned planners agree on random catalogs.

docs/planner-pruning.md proves each rule; these properties check them on random catalogs of
mixed GPUs, unit sizes, billing modes, stock, networks and time-of-use rules: the same best
plan and alternatives (to the cent, and the same placements), and the same excluded offers.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from datetime import date, datetime, timedelta
from decimal import Decimal
from zoneinfo import ZoneInfo

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from comparator.domain.job import Job, Requirements, Schedule, Workload
from comparator.domain.money import FxTable
from comparator.domain.offer_view import OfferView
from comparator.domain.profile import ProviderProfile
from comparator.plan import PlanContext, plan_job
from comparator.plan.job_plan import prepare
from comparator.plan.result import PlanResult
from tests.support.factories import make_offer

SHANGHAI = ZoneInfo("Asia/Shanghai")
START = datetime(2026, 12, 1, tzinfo=SHANGHAI)
CONTEXT = PlanContext(today=date(2026, 11, 29), fx=FxTable({"CNY": Decimal(1)}, date(2026, 11, 27)))
GPUS = ["A100-SXM4-80GB", "RTX4090", "L40S"]
BILLINGS = ["hourly", "hourly", "spot", "daily", "weekly"]
RULES = ["", "00:00-08:00*0.5", "sat-sun*0.8", "22:00-08:00*0.6"]

offer_fields = st.tuples(
    st.integers(0, 5),  # provider
    st.integers(0, 1),  # region
    st.sampled_from(GPUS),
    st.sampled_from([1, 1, 2, 8]),  # cards per unit
    st.sampled_from(BILLINGS),
    st.integers(100, 4000),  # price, cents per card-hour of the period
    st.sampled_from([None, None, 1, 2, 4]),  # stock
    st.sampled_from([1, 1, 2, 3]),  # min units
    st.sampled_from(RULES),
    st.sampled_from([None, "ib-200g"]),
)


def catalog(rows: list[tuple[object, ...]]) -> list[OfferView]:
    hours = {"hourly": 1, "spot": 1, "daily": 24, "weekly": 168}
    offers = []
    for i, (p, r, gpu, cards, billing, cents, stock, min_units, rule, network) in enumerate(rows):
        assert isinstance(cents, int) and isinstance(cards, int) and isinstance(billing, str)
        price = Decimal(cents) * cards * hours[billing] / 100
        offers.append(
            make_offer(
                str(i + 1),
                billing,
                str(price),
                provider=f"p{p}",
                region=f"r{r}",
                gpu=str(gpu),
                cards=cards,
                stock=stock,  # type: ignore[arg-type]
                min_units=min_units,  # type: ignore[arg-type]
                time_of_use=str(rule) if billing in ("hourly", "spot") else "",
                network=network,  # type: ignore[arg-type]
                country="SG",
            )
        )
    return offers


def a_job(card_hours: int, days: int, interruptible: bool, objective_budget: int | None) -> Job:
    return Job(
        name="property",
        schedule=Schedule(START, START + timedelta(days=days), interruptible, 1),
        workload=Workload(Decimal(card_hours), "A100-SXM4-80GB", None),
        requirements=Requirements(spot=True),
        max_cost=None if objective_budget is None else Decimal(objective_budget),
        source="property.toml",
    )


def answer(result: PlanResult, dominated: frozenset[str] = frozenset()) -> tuple[object, ...]:
    """What both planners must agree on; offers a machine-mate dominates are never excluded
    by the pruned planner (they are dropped before any candidate), so they are left out."""
    plans = [result.best, *result.alternatives] if result.best else []
    return (
        [(p.provider, p.region, p.gpu, p.cards, p.total_cost, p.finish) for p in plans],
        sorted(
            (e.offer_id, e.kind, e.reasons) for e in result.excluded if e.offer_id not in dominated
        ),
        result.binding,
    )


def dominated_ids(
    job: Job,
    offers: list[OfferView],
    context: PlanContext,
    profiles: Mapping[str, ProviderProfile] | None = None,
) -> frozenset[str]:
    """Every offer a machine-mate dominates (the walk drops them only in groups it reaches)."""
    lazy = prepare(job, offers, profiles or {}, context, prune=True).lazy
    assert lazy is not None
    for group in lazy.groups:
        lazy.undominated(group)
    return frozenset(lazy.dominated)


@pytest.mark.slow
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    rows=st.lists(offer_fields, min_size=1, max_size=40),
    card_hours=st.integers(4, 300),
    days=st.integers(1, 4),
    interruptible=st.booleans(),
    budget=st.sampled_from([None, None, 500, 5000]),
    objective=st.sampled_from(["cost", "cost", "time"]),
    top=st.integers(0, 3),
)
def test_pruned_and_unpruned_planners_agree(
    rows: list[tuple[object, ...]],
    card_hours: int,
    days: int,
    interruptible: bool,
    budget: int | None,
    objective: str,
    top: int,
) -> None:
    offers = catalog(rows)
    job = a_job(card_hours, days, interruptible, budget)
    context = PlanContext(today=CONTEXT.today, fx=CONTEXT.fx, objective=objective, top=top)
    pruned = plan_job(job, offers, {}, context)
    unpruned = plan_job(job, offers, {}, context, prune=False)
    dominated = dominated_ids(job, offers, context)
    assert answer(pruned, dominated) == answer(unpruned, dominated)
    assert pruned.stats["candidates"] <= unpruned.stats["candidates"]


def test_groups_beyond_the_bound_are_never_built() -> None:
    cheap = [make_offer("1", "hourly", "8", provider="cheap", country="SG")]
    dear = [
        make_offer(str(i), "hourly", str(100 + i), provider=f"dear{i}", country="SG")
        for i in range(2, 30)
    ]
    job = a_job(16, 3, True, None)
    context = PlanContext(today=CONTEXT.today, fx=CONTEXT.fx, top=1)
    pruned = plan_job(job, cheap + dear, {}, context)
    unpruned = plan_job(job, cheap + dear, {}, context, prune=False)
    assert answer(pruned) == answer(unpruned)
    assert pruned.stats["counts_not_built"] > 20
    assert pruned.stats["candidates"] < unpruned.stats["candidates"]


def test_an_offer_dearer_by_a_cent_in_every_slot_is_dropped_and_nothing_changes() -> None:
    offers = [
        make_offer("1", "hourly", "10.00", provider="m", country="SG", time_of_use="sat-sun*0.8"),
        make_offer("2", "hourly", "10.02", provider="m", country="SG", time_of_use="sat-sun*0.8"),
        make_offer("3", "hourly", "10.00", provider="m", country="SG"),  # dearer at weekends only
        make_offer("4", "hourly", "10.005", provider="m", country="SG"),  # less than a cent dearer
    ]
    job = a_job(20, 3, True, None)
    pruned = plan_job(job, offers, {}, CONTEXT)
    unpruned = plan_job(job, offers, {}, CONTEXT, prune=False)
    assert dominated_ids(job, offers, CONTEXT) == {"2"}
    assert pruned.stats["dominated_offers"] == 1
    assert answer(pruned) == answer(unpruned)


def model_job(tokens: str, days: int, interruptible: bool) -> Job:
    """A [model] job: its hours come from the estimator, on each group's links (issue 12)."""
    training = {"method": "full", "micro_batch": 1, "seq_len": 512, "tokens": tokens}
    return Job(
        name="property-model",
        schedule=Schedule(START, START + timedelta(days=days), interruptible, 1),
        model={"name": "Llama-2-7b"},
        training=training,
        requirements=Requirements(spot=True, gpus=("A100-SXM4-80GB",)),
        source="property.toml",
    )


linked_fields = st.tuples(
    st.integers(0, 2),  # provider
    st.sampled_from([1, 8]),  # cards per unit
    st.sampled_from(BILLINGS),
    st.integers(500, 3000),  # cents per card-hour
    st.sampled_from([None, 2, 16]),  # stock
    st.sampled_from([None, "ib-200g", "4×200G IB", "8x200G IB", "eth-25g"]),
    st.sampled_from(["nvlink", "nvlink", "PCIe"]),
)


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    rows=st.lists(linked_fields, min_size=1, max_size=12),
    tokens=st.sampled_from(["200M", "1B", "3B"]),
    days=st.integers(1, 6),
    interruptible=st.booleans(),
)
def test_pruned_and_unpruned_agree_when_links_change_the_hours(
    rows: list[tuple[object, ...]], tokens: str, days: int, interruptible: bool
) -> None:
    hours = {"hourly": 1, "spot": 1, "daily": 24, "weekly": 168}
    offers = []
    for i, (p, cards, billing, cents, stock, network, interconnect) in enumerate(rows):
        assert isinstance(cents, int) and isinstance(cards, int) and isinstance(billing, str)
        offer = make_offer(
            str(i + 1),
            billing,
            str(Decimal(cents) * cards * hours[billing] / 100),
            provider=f"p{p}",
            cards=cards,
            stock=stock,  # type: ignore[arg-type]
            network=network,  # type: ignore[arg-type]
            country="SG",
        )
        offers.append(dataclasses.replace(offer, interconnect=str(interconnect)))
    job = model_job(tokens, days, interruptible)
    pruned = plan_job(job, offers, {}, CONTEXT)
    unpruned = plan_job(job, offers, {}, CONTEXT, prune=False)
    dominated = dominated_ids(job, offers, CONTEXT)
    assert answer(pruned, dominated) == answer(unpruned, dominated)
