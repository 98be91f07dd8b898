"""Several jobs on shared stock with jobs the MILP cannot price (migrations, a daily cap) and
free trials it can: the joint plan is never worse than planning the jobs one after another,
every plan is billed by the single-job code, and the bound is honest."""

from __future__ import annotations

import dataclasses
import random
from datetime import datetime, timedelta
from decimal import Decimal
from zoneinfo import ZoneInfo

import pytest

from comparator.domain.job import Job, Requirements, Schedule, Workload
from comparator.domain.money import FxTable
from comparator.domain.offer_view import OfferView
from comparator.plan import PlanContext
from comparator.plan.candidates import PriceBasis
from comparator.plan.job_plan import prepare
from comparator.plan.joint.joint_plan import SharedPlan, plan_jobs
from comparator.plan.joint.stock import Usage, add_usage, cheapest_on, trial_providers, usage_of
from comparator.plan.result import Plan
from tests.support.factories import make_offer
from tests.support.plan_validate import (
    ValidationContext,
    validate_plan,
    validate_shared_stock,
    validate_shared_trials,
)

D = Decimal
SHANGHAI = ZoneInfo("Asia/Shanghai")
START = datetime(2026, 12, 1, tzinfo=SHANGHAI)
NIGHTS = ["00:00-08:00*0.5", "22:00-06:00*0.75", ""]


def context() -> PlanContext:
    return PlanContext(
        today=datetime(2026, 11, 29).date(),
        fx=FxTable({"CNY": D(1)}, datetime(2026, 11, 27).date()),
    )


def random_offers(rng: random.Random) -> list[OfferView]:
    """Two providers, each a whole-node and a per-card hourly offer in one data centre (two
    machines: a job may migrate between them), small stock, night prices, some trials."""
    offers = []
    for p in range(2):
        node = D(rng.randint(1500, 2500)) * D("0.04")  # whole cents after every factor
        card = (node / 8 * D(rng.randint(95, 115)) / 100).quantize(D("0.04"))
        where = {"provider": f"p{p}", "region": f"r{p}", "country": "SG"}
        whole = make_offer(
            f"n{p}",
            "hourly",
            str(node),
            cards=8,
            stock=rng.randint(1, 2),
            time_of_use=rng.choice(NIGHTS),
            **where,
        )
        offers.append(dataclasses.replace(whole, free_trial_hours=rng.choice([0, 2, 4])))
        offers.append(
            make_offer(
                f"c{p}",
                "hourly",
                str(card),
                cards=1,
                stock=rng.choice([8, 16]),
                time_of_use=rng.choice(NIGHTS),
                **where,
            )
        )
    return offers


def random_jobs(rng: random.Random) -> list[Job]:
    jobs = []
    for n in range(rng.randint(2, 3)):
        interruptible = rng.random() < 0.7
        schedule = Schedule(
            START,
            START + timedelta(hours=rng.choice([24, 36])),
            interruptible,
            rng.choice([0, 1]) if interruptible else 0,
            max_hours_per_day=rng.choice([None, 12]),
        )
        jobs.append(
            Job(
                name=f"j{n}",
                schedule=schedule,
                workload=Workload(D(8 * rng.randint(5, 12)), "A100-SXM4-80GB", 8),
                requirements=Requirements(),
                source=f"j{n}.toml",
                use_free_trial=rng.random() < 0.5,
            )
        )
    return jobs


def one_after_another(jobs: list[Job], offers: list[OfferView], order: list[int]) -> int | None:
    """Cents of the jobs planned in ``order``, each by the per-job DP on the stock left and
    without the free trials the jobs before it took (a provider's trial is one job's)."""
    prepared = [prepare(j, offers, {}, context()) for j in jobs]
    used: Usage = {}
    taken: set[str] = set()
    total = 0
    for i in order:
        found = cheapest_on(prepared[i].built.candidates, used, None, taken)
        if found is None:
            return None
        total += int(found[1].cost * 100) + found[0].bill.fixed_cents
        add_usage(used, usage_of(*found))
        taken.update(trial_providers([found]))
    return total


def check_honest(shared: SharedPlan, jobs: list[Job], offers: list[OfferView]) -> list[Plan]:
    """Each plan valid by the single-job bill code, the stock kept hour by hour, the total the
    sum of the plans and of their lines, the bound below it, optimal only when proven."""
    by_id = {o.offer_id: o for o in offers}
    plans = [r.best for r in shared.results]
    assert all(p is not None for p in plans)
    placed = [p for p in plans if p is not None]
    for the_job, plan in zip(jobs, placed, strict=True):
        check = ValidationContext(
            the_job, by_id, PriceBasis("CNY", context().fx), context().multi_node_efficiency
        )
        assert validate_plan(plan, check) == []
        lines = sum((s.cost for s in plan.segments), D(0)) + sum((b.cost for b in plan.bill), D(0))
        assert plan.total_cost == lines
    assert validate_shared_stock(placed, by_id) == []
    assert validate_shared_trials(placed, by_id) == []
    assert shared.total_cost == sum(p.total_cost for p in placed)
    assert shared.lower_bound is not None and shared.lower_bound <= shared.total_cost
    assert not shared.optimal or shared.lower_bound == shared.total_cost
    expected_gap = (shared.total_cost - shared.lower_bound) / shared.total_cost
    assert shared.gap == pytest.approx(float(expected_gap), abs=1e-9)
    return placed


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(3))
def test_the_shared_plan_is_never_worse_than_the_jobs_one_after_another(seed: int) -> None:
    """5 random instances per seed whose jobs each fit alone: the joint plan costs at most the
    sequential plan in the old fallback's order (dearest first) and in the given order."""
    rng = random.Random(500 + seed)
    checked = 0
    while checked < 5:
        offers, jobs = random_offers(rng), random_jobs(rng)
        alone = [one_after_another([j], offers, [0]) for j in jobs]
        if any(a is None for a in alone):
            continue  # a job that cannot be placed even alone
        dearest = sorted(range(len(jobs)), key=lambda i: -(alone[i] or 0))
        shared = plan_jobs(jobs, offers, {}, context(), time_limit_s=5)
        check_honest(shared, jobs, offers)
        total = int(shared.total_cost * 100)
        for order in (dearest, list(range(len(jobs)))):
            sequential = one_after_another(jobs, offers, order)
            assert sequential is None or total <= sequential
        checked += 1


def test_a_job_that_may_migrate_falls_back_and_is_named() -> None:
    """A per-card and a whole-node offer of one data centre are two machines: an
    interruptible job could migrate, which the MILP does not price, so it is planned by the DP
    on the stock the other job leaves and named; both plans stay valid and the bound honest."""
    where = {"provider": "p", "region": "r", "country": "SG"}
    offers = [
        make_offer("node", "hourly", "80", cards=8, stock=1, time_of_use=NIGHTS[0], **where),
        make_offer("card", "hourly", "11", cards=1, stock=8, **where),
    ]
    schedule = Schedule(START, START + timedelta(hours=24), True, 1)
    jobs = [
        Job(
            name=name,
            schedule=dataclasses.replace(schedule, interruptible=name == "moves"),
            workload=Workload(D(8 * 10), "A100-SXM4-80GB", 8),
            requirements=Requirements(),
            source=f"{name}.toml",
        )
        for name in ("moves", "stays")
    ]
    shared = plan_jobs(jobs, offers, {}, context(), time_limit_s=10)
    assert shared.dp_fallback == {"moves": ["migrations"]}
    check_honest(shared, jobs, offers)
    assert shared.to_json()["dp_fallback"] == {"moves": ["migrations"]}


def test_jobs_that_meet_their_own_optima_one_after_another_need_no_milp() -> None:
    """One node at a flat price, two 10-hour jobs in 24 hours: alone each takes the first ten
    hours (the earliest finish), together they cannot, but one after the other they cost the
    same. That is the bound: proven optimal without HiGHS (``milp_status`` None)."""
    where = {"provider": "p", "region": "r", "country": "SG"}
    offers = [make_offer("node", "hourly", "80", cards=8, stock=1, **where)]
    schedule = Schedule(START, START + timedelta(hours=24), False)
    jobs = [
        Job(
            name=name,
            schedule=schedule,
            workload=Workload(D(8 * 10), "A100-SXM4-80GB", 8),
            requirements=Requirements(),
            source=f"{name}.toml",
        )
        for name in ("a", "b")
    ]
    shared = plan_jobs(jobs, offers, {}, context(), time_limit_s=10)
    placed = check_honest(shared, jobs, offers)
    assert shared.method == "repair" and shared.milp_status is None
    assert shared.optimal and shared.total_cost == 2 * D(800)
    assert sorted(p.segments[0].start.hour for p in placed) == [0, 10]
