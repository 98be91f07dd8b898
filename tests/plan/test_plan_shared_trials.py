"""A provider gives its free trial once per account: across the jobs of one joint plan
(``suanli plan a.toml b.toml``) its trial hours are used by one job at most, in the MILP (and so
its bound), in the jobs planned one after another, in the jobs' own optima and in the final
plan's validation (docs/billing.md, "Free trial hours")."""

from __future__ import annotations

import dataclasses
import itertools
import random
from datetime import datetime, timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import pytest

from comparator.domain.job import Job, Requirements, Schedule, Workload
from comparator.domain.money import FxTable
from comparator.domain.offer_view import OfferView
from comparator.plan import PlanContext, plan_job
from comparator.plan.dp.dp_solver import solve_schedule
from comparator.plan.dp.grid import PriceBasis
from comparator.plan.dp.problem import HourlyRate, ScheduleProblem
from comparator.plan.job_plan import prepare
from comparator.plan.joint.joint_plan import SharedPlan, plan_jobs
from comparator.plan.joint.joint_search import Best
from comparator.plan.joint.milp.milp_model import MilpJob, solve_milp
from comparator.plan.joint.stock import cheapest_on, trials_once
from comparator.plan.result import Plan
from tests.support.factories import make_offer
from tests.support.plan_fixtures import candidate_for
from tests.support.plan_validate import (
    ValidationContext,
    validate_plan,
    validate_shared_stock,
    validate_shared_trials,
)

D = Decimal
SHANGHAI = ZoneInfo("Asia/Shanghai")
START = datetime(2026, 12, 1, tzinfo=SHANGHAI)


def context() -> PlanContext:
    return PlanContext(
        today=datetime(2026, 11, 29).date(),
        fx=FxTable({"CNY": D(1)}, datetime(2026, 11, 27).date()),
    )


def node(
    offer_id: str, provider: str, price: str, trial_hours: int, stock: int | None = None
) -> OfferView:
    """A whole 8-card node of ``provider`` at ``price`` an hour with ``trial_hours`` free."""
    offer = make_offer(
        offer_id,
        "hourly",
        price,
        provider=provider,
        region=f"{provider}-1",
        cards=8,
        stock=stock,
        country="SG",
    )
    return dataclasses.replace(offer, free_trial_hours=trial_hours)


def job(name: str, hours: int = 10, *, window_h: int = 24, cap_h: int | None = None) -> Job:
    """A ``hours``-hour job of 8 cards that may not pause, allowed free trials."""
    return Job(
        name=name,
        schedule=Schedule(START, START + timedelta(hours=window_h), False, max_hours_per_day=cap_h),
        workload=Workload(D(8 * hours), "A100-SXM4-80GB", 8),
        requirements=Requirements(),
        source=f"{name}.toml",
        use_free_trial=True,
    )


def checked(shared: SharedPlan, jobs: list[Job], offers: list[OfferView]) -> list[Plan]:
    """Each plan valid by the single-job bill code, the stock kept, no provider's trial used
    twice, the total the sum of the plans, the bound below it and optimal only when proven."""
    by_id = {o.offer_id: o for o in offers}
    plans = [r.best for r in shared.results]
    placed = [p for p in plans if p is not None]
    assert len(placed) == len(jobs)
    for the_job, plan in zip(jobs, placed, strict=True):
        check = ValidationContext(
            the_job, by_id, PriceBasis("CNY", context().fx), context().multi_node_efficiency
        )
        assert validate_plan(plan, check) == []
    assert validate_shared_stock(placed, by_id) == []
    assert validate_shared_trials(placed, by_id) == []
    assert shared.total_cost == sum(p.total_cost for p in placed)
    assert shared.lower_bound is not None and shared.lower_bound <= shared.total_cost
    assert not shared.optimal or shared.lower_bound == shared.total_cost
    return placed


def test_a_joint_plan_with_one_providers_trial_twice_is_rejected() -> None:
    """Each job alone opens on p's trial: put side by side, the validator names the provider
    and both plans, and the search's own check (``Best``) refuses the pair; p's trial and q's
    in two plans are fine."""
    offers = [node("p-node", "p", "80", 4), node("q-node", "q", "90", 2)]
    by_id = {o.offer_id: o for o in offers}
    alone = [plan_job(job(name), offers, {}, context()).best for name in ("a", "b")]
    assert all(p is not None and p.segments[0].free_trial for p in alone)
    twice = [p for p in alone if p is not None]
    assert validate_shared_trials(twice, by_id) == ["provider p: free trial used by plans 0, 1"]
    on_q = plan_job(job("c"), offers[1:], {}, context()).best
    assert on_q is not None and on_q.segments[0].free_trial
    assert validate_shared_trials([twice[0], on_q], by_id) == []
    found = [
        cheapest_on(prepare(job(n), offers, {}, context()).built.candidates, {}, None)
        for n in ("a", "b")
    ]
    schedules = {k: f for k, f in enumerate(found) if f is not None}
    assert len(schedules) == 2 and not trials_once(schedules.values())
    best = Best([0, 1], {})
    assert not best.offer(schedules, "repair") and best.schedules is None
    without = cheapest_on(
        prepare(job("b"), offers, {}, context()).built.candidates, {}, None, {"p"}
    )
    assert without is not None and without[0].provider == "q"  # q's trial: ¥720 < ¥800 paid
    assert best.offer({0: schedules[0], 1: without}, "repair") and best.cents == 48000 + 72000


def test_two_jobs_share_one_providers_trial_once_and_the_bound_proves_it() -> None:
    """One provider, one node at ¥80/h with 4 trial hours, unlimited stock; two 10-hour jobs
    that both may use trials. Alone each costs (10 − 4) × 80 = ¥480; before this rule the joint
    plan was 2 × 480 = ¥960 (the trial twice), "proven" by the jobs' own optima. By hand: one
    job takes the trial (¥480), the other pays all its 10 hours (¥800): ¥1280, and the MILP's
    trial row (one start per provider over all jobs) proves it (bound ¥1280, not ¥960)."""
    offers = [node("p-node", "p", "80", 4)]
    jobs = [job("a"), job("b")]
    shared = plan_jobs(jobs, offers, {}, context(), time_limit_s=30)
    placed = checked(shared, jobs, offers)
    assert shared.total_cost == D("1280.00")
    trial_users = [p for p in placed if any(s.free_trial for s in p.segments)]
    assert len(trial_users) == 1 and trial_users[0].total_cost == D("480.00")
    other = next(p for p in placed if p is not trial_users[0])
    assert other.total_cost == D("800.00") and sum(s.cost for s in other.segments) == D("800.00")
    assert shared.optimal and shared.lower_bound == D("1280.00") and shared.gap == 0
    assert shared.method != "independent"


def test_the_second_job_takes_another_providers_trial_when_that_is_cheaper() -> None:
    """p: ¥80/h with 4 trial hours, q: ¥90/h with 2. Both 10-hour jobs prefer p's trial (¥480
    against q's (10 − 2) × 90 = ¥720). The joint options by hand: p-trial + p paid ¥480 + ¥800
    = ¥1280, p-trial + q-trial ¥480 + ¥720 = ¥1200, q-trial + q paid ¥720 + ¥900 = ¥1620, no
    trial at all ¥1600: the optimum is ¥1200, one job on each provider's trial."""
    offers = [node("p-node", "p", "80", 4), node("q-node", "q", "90", 2)]
    jobs = [job("a"), job("b")]
    shared = plan_jobs(jobs, offers, {}, context(), time_limit_s=30)
    placed = checked(shared, jobs, offers)
    assert shared.total_cost == D("1200.00") and shared.optimal
    assert sorted(p.provider for p in placed) == ["p", "q"]
    assert all(p.segments[0].free_trial for p in placed)


def test_a_capped_job_planned_by_the_dp_does_not_reuse_the_trial_the_milp_gave() -> None:
    """A daily cap sends job "capped" to the per-job DP (``dp_fallback``) while "plain" is in
    the MILP; both would open on p's 4 trial hours. p's node has stock 1 and the jobs 24 hours:
    they cannot both run at once, so the search goes past the jobs' own optima. Whichever job
    takes the trial, the other pays its hours: ¥480 + ¥800 by hand, with q (¥100/h, no trial)
    dearer for either job."""
    offers = [node("p-node", "p", "80", 4, stock=1), node("q-node", "q", "100", 0)]
    jobs = [job("plain"), job("capped", cap_h=12)]
    shared = plan_jobs(jobs, offers, {}, context(), time_limit_s=30)
    assert shared.dp_fallback == {"capped": ["max_hours_per_day"]}
    placed = checked(shared, jobs, offers)
    assert shared.total_cost == D("1280.00")
    assert sum(any(s.free_trial for s in p.segments) for p in placed) == 1


def test_the_milp_proves_a_joint_plan_where_the_stock_binds_and_trials_collide() -> None:
    """p: two nodes at ¥80/h with 4 trial hours; q: one node at ¥90/h; x: ¥120/h, any stock.
    Three 10-hour jobs due in 12 hours: no node runs two of them, so p takes two (one on the
    trial: ¥480 + ¥800) and q the third (¥900): ¥2180 by hand. Stock relaxed, the trial bound
    is ¥480 + 2 × ¥800 = ¥2080, so the MILP must prove the rest; without its row per provider
    over all jobs' trial starts its bound is ¥480 + ¥480 + ¥900 = ¥1860 (both p jobs on the
    trial) and the plan is not proven."""
    offers = [
        node("p-node", "p", "80", 4, stock=2),
        node("q-node", "q", "90", 0, stock=1),
        node("x-node", "x", "120", 0),
    ]
    jobs = [job(name, window_h=12) for name in ("a", "b", "c")]
    shared = plan_jobs(jobs, offers, {}, context(), time_limit_s=30)
    placed = checked(shared, jobs, offers)
    assert shared.total_cost == D("2180.00")
    assert sorted(p.provider for p in placed) == ["p", "p", "q"]
    assert sum(any(s.free_trial for s in p.segments) for p in placed) == 1
    assert shared.milp_status == "Optimal"
    assert shared.optimal and shared.lower_bound == D("2180.00")


def test_jobs_that_each_fit_only_on_the_same_trial_fail_with_that_reason() -> None:
    """A ¥500 budget each: alone a job costs ¥480 on p's 4 trial hours, without them ¥800.
    Only one job gets the trial, so the pair cannot be placed, and the error says why (in
    both languages) instead of blaming stock and deadlines."""
    from comparator.errors import PlanError
    from comparator.i18n import render

    offers = [node("p-node", "p", "80", 4)]
    jobs = [dataclasses.replace(job(name), max_cost=D(500)) for name in ("a", "b")]
    with pytest.raises(PlanError) as raised:
        plan_jobs(jobs, offers, {}, context(), time_limit_s=10)
    assert "free trial, which goes to one of them only" in render(raised.value.msg, "en")
    assert "免费试用" in render(raised.value.msg, "zh")


def brute_force_cents(jobs: list[Job], offers: list[OfferView]) -> int | None:
    """The cheapest joint plan on unlimited stock, by hand: every way of giving each provider's
    trial to one job at most (or none), each job then alone by the exact DP with only the
    trial it was given (the jobs share nothing else)."""
    candidates = [prepare(j, offers, {}, context()).built.candidates for j in jobs]
    providers = sorted({o.provider for o in offers if o.free_trial_hours})
    best = None
    for given in itertools.product([None, *providers], repeat=len(jobs)):
        chosen = [p for p in given if p is not None]
        if len(chosen) != len(set(chosen)):
            continue
        total = 0
        for found_in, provider in zip(candidates, given, strict=True):
            taken = [p for p in providers if p != provider]
            found = cheapest_on(found_in, {}, None, taken)
            if found is None:
                break
            total += int(found[1].cost * 100) + found[0].bill.fixed_cents
        else:
            best = total if best is None else min(best, total)
    return best


def random_instance(rng: random.Random) -> tuple[list[OfferView], list[Job]]:
    """2–3 providers (one node each, trials of 2–6 h, whole-cent prices), 2–3 jobs of 6–12
    hours in 24 or 36 hours, some interruptible, some capped, all allowed trials."""
    offers = [
        node(f"n{p}", f"p{p}", str(D(rng.randint(1800, 2200)) * D("0.04")), rng.choice([2, 4, 6]))
        for p in range(rng.randint(2, 3))
    ]
    jobs = []
    for n in range(rng.randint(2, 3)):
        interruptible = rng.random() < 0.5
        base = job(f"j{n}", rng.randint(6, 12), window_h=rng.choice([24, 36]))
        schedule = dataclasses.replace(
            base.schedule,
            interruptible=interruptible,
            restart_overhead_hours=rng.choice([0, 1]) if interruptible else 0,
            max_hours_per_day=rng.choice([None, None, 12]),
        )
        jobs.append(dataclasses.replace(base, schedule=schedule))
    return offers, jobs


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(3))
def test_the_joint_plan_matches_a_brute_force_over_who_gets_each_trial(seed: int) -> None:
    """4 random instances per seed (unlimited stock): the joint plan is the brute force's, to
    the cent, and proven: the trial bound (each provider's trial counted once,
    :mod:`comparator.plan.joint.trials`) meets it. Before the rule the plan was the jobs' own
    optima, every job on the best trial, cheaper than any plan a renter could order."""
    rng = random.Random(700 + seed)
    for _ in range(4):
        offers, jobs = random_instance(rng)
        expected = brute_force_cents(jobs, offers)
        assert expected is not None
        shared = plan_jobs(jobs, offers, {}, context(), time_limit_s=10)
        checked(shared, jobs, offers)
        total = int(shared.total_cost * 100)
        assert shared.lower_bound is not None and int(shared.lower_bound * 100) <= expected
        assert total == expected and shared.optimal


def trial_problem(rng: random.Random) -> ScheduleProblem:
    """One hourly rate at whole-cent prices and its free trial (same machine), 24–48 slots."""
    deadline = rng.randint(24, 48)
    price = D(rng.randint(100, 2000)) / 100 * 4
    costs = tuple(price * rng.choice([D("0.5"), D(1)]) for _ in range(deadline))
    trial = HourlyRate("h~trial", (D(0),) * deadline, 1, trial_slots=rng.randint(2, 8))
    return ScheduleProblem(
        deadline, rng.randint(4, deadline // 2), True, 0, (HourlyRate("h", costs, 1), trial)
    )


def dp_cents(problem: ScheduleProblem, trial: bool) -> int:
    if not trial:
        problem = dataclasses.replace(problem, hourly=problem.hourly[:1])
    profile = solve_schedule(problem, keep_trace=False)
    diagonal = profile.cheapest()
    assert diagonal is not None
    return profile.cost_cents(diagonal)


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(2))
def test_the_milp_gives_one_providers_trial_to_one_job(seed: int) -> None:
    """Two jobs, each a candidate of provider p with a trial: the MILP's optimum is the better
    of the two ways to give the trial (by the DP, to the cent), never the sum of both trials;
    with the trial taken by a job outside, neither gets it; its bound never exceeds its cost."""
    rng = random.Random(900 + seed)
    for _ in range(3):
        problems = [trial_problem(rng), trial_problem(rng)]
        jobs = [MilpJob(f"j{k}", [candidate_for(p, provider="p")]) for k, p in enumerate(problems)]
        one, two = (dp_cents(p, True) for p in problems)
        one_plain, two_plain = (dp_cents(p, False) for p in problems)
        for taken, expected in (
            (frozenset(), min(one + two_plain, one_plain + two)),
            (frozenset({"p"}), one_plain + two_plain),
        ):
            outcome = solve_milp(jobs, {}, time_limit_s=60, taken=taken)
            assert outcome.proven and outcome.objective_cents == pytest.approx(expected, abs=1e-6)
            assert outcome.bound_cents is not None and outcome.objective_cents is not None
            assert outcome.bound_cents <= outcome.objective_cents + 1e-6
            trials = [
                s
                for found in outcome.schedules
                if found is not None
                for s in found[1].segments
                if s.key == "h~trial"
            ]
            assert len(trials) <= (0 if taken else 1)


TRIAL_SHEET = (
    "服务商,机房,卡型,卡数,单机卡数,计费方式,单价,币种,库存,免费试用,卡间互联,节点网络,报价日期,来源\n"
    "demo-nanshan,gd-sz-1,A100 80G,8,8,按量,80,CNY,,4,nvlink,,2026-11-25T10:00:00+08:00,trial\n"
)
TRIAL_JOB = """
name = "{name}"
[workload]
card_hours = 80
gpu = "A100-80G"
cards = 8
[schedule]
earliest_start = 2026-12-01T00:00:00+08:00
deadline = 2026-12-02T00:00:00+08:00
[requirements]
provinces = ["广东"]
gpus = ["A100-80G"]
[budget]
use_free_trial = true
"""


def test_plan_of_two_job_files_gives_the_trial_to_one_of_them(
    cli: Any, demo_db_url: str, tmp_path: Path
) -> None:
    """`suanli plan a.toml b.toml --json` on the demo catalog plus demo-nanshan's ¥80/h A100
    node with 4 free trial hours (免费试用): alone each 10-hour job opens on that trial (¥480).
    Together one does; the other then takes the cheapest plan without it, demo-zhujiang's
    A100 node at ¥57.20/h (¥572, below nanshan's ¥800 paid): ¥1052, proven. Without the rule
    it was ¥960, the trial twice."""
    sheet = tmp_path / "trial.csv"
    sheet.write_text(TRIAL_SHEET, encoding="utf-8")
    imported = cli("import", "--replace", str(sheet), db=demo_db_url, lang="en")
    assert imported.code == 0, imported.err
    files = []
    for name in ("a", "b"):
        files.append(tmp_path / f"{name}.toml")
        files[-1].write_text(TRIAL_JOB.format(name=name), encoding="utf-8")
    args = ("plan", *map(str, files), "--today", "2026-12-01", "--json")
    result = cli(*args, db=demo_db_url, lang="en")
    assert result.code == 0, result.err
    shared = result.json()
    bests = [plan["best"] for plan in shared["plans"]]
    trials = [[s["free_trial"] for s in best["segments"]] for best in bests]
    assert sorted(trials) == [[False], [True, False]]
    placed = sorted((best["provider"], D(best["total_cost"])) for best in bests)
    assert placed == [("demo-nanshan", D("480.00")), ("demo-zhujiang", D("572.00"))]
    assert D(shared["total_cost"]) == D("1052.00") and shared["optimal"] is True
