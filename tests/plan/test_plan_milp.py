"""HiGHS: the MILP agrees with the DP to the cent, and shares stock between jobs."""

from __future__ import annotations

import random
from datetime import datetime
from decimal import Decimal
from zoneinfo import ZoneInfo

import pytest

from comparator.domain.job import Job, Requirements, Schedule, Workload
from comparator.domain.money import FxTable
from comparator.plan import PlanContext, plan_job
from comparator.plan.candidates import PriceBasis
from comparator.plan.dp.dp_solver import solve_schedule
from comparator.plan.dp.problem import ContractRate, HourlyRate, ScheduleProblem
from comparator.plan.joint.joint_plan import plan_jobs
from comparator.plan.joint.milp.milp_model import MilpJob, solve_milp
from tests.support.factories import make_offer
from tests.support.plan_fixtures import candidate_for
from tests.support.plan_validate import (
    ValidationContext,
    validate_plan,
    validate_schedule,
    validate_shared_stock,
    validate_shared_trials,
)

D = Decimal
SHANGHAI = ZoneInfo("Asia/Shanghai")
QUARTERS = [D("0.5"), D("0.75"), D("1"), D("1.25")]


def medium_problem(rng: random.Random) -> ScheduleProblem:
    """Whole-cent prices (multiples of 0.04 × quarter factors), 24–72 slots."""
    deadline = rng.randint(24, 72)
    rates = []
    for j in range(rng.randint(1, 2)):
        minimum = rng.choice([1, 1, 2, 3])
        price = D(rng.randint(100, 2000)) / 100 * 4
        day = [rng.choice(QUARTERS) for _ in range(24)]
        rates.append(
            HourlyRate(
                f"h{j}", tuple(price * day[t % 24] for t in range(deadline + minimum)), minimum
            )
        )
    contracts = tuple(
        ContractRate(
            f"c{j}",
            rng.choice([6, 12, 24]),
            D(rng.randint(2000, 20000)) / 100,
            rng.choice([1, 1, 2]),
        )
        for j in range(rng.randint(0, 2))
    )
    interruptible = rng.random() < 0.7
    work = rng.randint(4, deadline // 2)
    overhead = rng.choice([0, 1, 2]) if interruptible else 0
    storage = D(rng.randint(1, 300)) / 100 if rng.random() < 0.5 else D(0)  # the data disk
    return ScheduleProblem(
        deadline, work, interruptible, overhead, tuple(rates), contracts, storage
    )


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(4))
def test_highs_proves_the_dp_optimum_on_medium_instances(seed: int) -> None:
    """6 instances per seed, 24 in all (half with a storage charge over the rental window,
    paused slots included): proven optimal, equal to the DP to the cent."""
    rng = random.Random(1000 + seed)
    for _ in range(6):
        problem = medium_problem(rng)
        profile = solve_schedule(problem)
        diagonal = profile.cheapest()
        outcome = solve_milp([MilpJob("job", [candidate_for(problem)])], {}, time_limit_s=60)
        assert outcome.proven and outcome.status == "Optimal" and outcome.whole_cents
        if diagonal is None:
            assert outcome.objective_cents is None
            continue
        assert outcome.objective_cents == pytest.approx(profile.cost_cents(diagonal), abs=1e-6)
        found = outcome.schedules[0]
        assert found is not None
        assert found[1].cost == D(profile.cost_cents(diagonal)) / 100
        assert validate_schedule(problem, found[1]) == []
        assert validate_schedule(problem, profile.schedule(diagonal)) == []


def with_trial(problem: ScheduleProblem, rng: random.Random) -> ScheduleProblem:
    """``problem`` plus a free trial of its first hourly rate (cost 0, same machine)."""
    import dataclasses

    base = problem.hourly[0]
    trial = HourlyRate(
        f"{base.key}~trial", (D(0),) * len(base.slot_costs), 1, trial_slots=rng.randint(1, 8)
    )
    return dataclasses.replace(problem, hourly=(*problem.hourly, trial))


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(3))
def test_highs_prices_a_free_trial_as_the_dp_does(seed: int) -> None:
    """The MILP models a free trial exactly (a zero-cost rate that opens the plan, at most
    ``trial_slots`` long, once): 6 random instances per seed, equal to the DP to the cent, the
    trial only as the first segment."""
    rng = random.Random(2000 + seed)
    for _ in range(6):
        problem = with_trial(medium_problem(rng), rng)
        profile = solve_schedule(problem)
        diagonal = profile.cheapest()
        outcome = solve_milp([MilpJob("job", [candidate_for(problem)])], {}, time_limit_s=60)
        assert outcome.proven and diagonal is not None
        assert outcome.objective_cents == pytest.approx(profile.cost_cents(diagonal), abs=1e-6)
        found = outcome.schedules[0]
        assert found is not None and found[1].cost == D(profile.cost_cents(diagonal)) / 100
        assert validate_schedule(problem, found[1]) == []
        trial = problem.hourly[-1]
        used = [k for k, s in enumerate(found[1].segments) if s.key == trial.key]
        assert used in ([], [0])
        assert all(found[1].segments[k].periods <= trial.trial_slots for k in used)


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(2))
def test_the_relaxed_milp_never_prices_a_migrating_or_capped_job_above_the_dp(seed: int) -> None:
    """The bound of the shared plan sees a fallback job relaxed: all machines of a candidate
    at once (a migration costs no overhead) and no daily cap. That must be a relaxation: on
    random interruptible jobs with rates on two machines and a cap, the MILP's optimum is
    never above the exact DP's (below it in about half the instances, equal in the rest)."""
    import dataclasses

    rng = random.Random(3000 + seed)
    for _ in range(6):
        problem = medium_problem(rng)
        rates = tuple(
            dataclasses.replace(r, machine=f"m{j % 2}") for j, r in enumerate(problem.hourly)
        )
        contracts = tuple(
            dataclasses.replace(c, machine=rng.choice(["m0", "m1"])) for c in problem.contracts
        )
        problem = dataclasses.replace(
            problem,
            hourly=rates,
            contracts=contracts,
            interruptible=True,
            restart_overhead_slots=rng.choice([1, 2]),
            max_run_slots_per_day=rng.choice([0, 8, 12]),
        )
        profile = solve_schedule(problem)
        diagonal = profile.cheapest()
        outcome = solve_milp([MilpJob("job", [candidate_for(problem)])], {}, time_limit_s=60)
        assert outcome.proven
        if diagonal is None:
            continue
        assert outcome.objective_cents is not None
        assert outcome.objective_cents <= profile.cost_cents(diagonal) + 1e-6


def test_a_time_limited_answer_is_never_called_optimal() -> None:
    rng = random.Random(7)
    problems = [medium_problem(rng) for _ in range(3)]
    jobs = [MilpJob(f"j{i}", [candidate_for(p)]) for i, p in enumerate(problems)]
    outcome = solve_milp(jobs, {}, time_limit_s=1e-4)
    assert outcome.status != "Optimal" and not outcome.proven


# --- several jobs sharing stock ----------------------------------------------------------------
def job(name: str, cards: int = 16) -> Job:
    start = datetime(2026, 12, 1, tzinfo=SHANGHAI)
    return Job(
        name=name,
        schedule=Schedule(start, datetime(2026, 12, 2, tzinfo=SHANGHAI), True),
        workload=Workload(D(160), "A100-SXM4-80GB", cards),
        requirements=Requirements(),
        source=f"{name}.toml",
    )


def context() -> PlanContext:
    return PlanContext(
        today=datetime(2026, 11, 29).date(),
        fx=FxTable({"CNY": D(1), "USD": D("7.12")}, datetime(2026, 11, 27).date()),
    )


def shared_offers() -> list:
    night = "00:00-08:00*0.5"
    return [
        make_offer(
            "cheap",
            "hourly",
            "80",
            cards=8,
            stock=3,
            time_of_use=night,
            country="SG",
            provider="sg",
            region="sg-1",
        ),
        make_offer(
            "dear", "hourly", "100", cards=8, stock=4, country="SG", provider="sg2", region="sg-2"
        ),
    ]


def test_jobs_that_fit_together_keep_their_independent_optima() -> None:
    offers = shared_offers()
    alone = plan_job(job("a", cards=8), offers, {}, context())
    shared = plan_jobs([job("a", cards=8), job("b", cards=8)], offers, {}, context())
    assert shared.optimal and shared.gap == 0 and shared.method == "independent"
    assert alone.best is not None
    assert [r.best.total_cost for r in shared.results if r.best] == [alone.best.total_cost] * 2
    plans = [r.best for r in shared.results if r.best]
    assert validate_shared_stock(plans, {o.offer_id: o for o in offers}) == []


def test_jobs_competing_for_stock_are_planned_jointly_and_proven() -> None:
    offers = shared_offers()
    alone = plan_job(job("a"), offers, {}, context())
    assert alone.best is not None and alone.best.provider == "sg"
    shared = plan_jobs([job("a"), job("b")], offers, {}, context(), time_limit_s=60)
    plans = [r.best for r in shared.results]
    assert all(p is not None for p in plans)
    both = [p for p in plans if p is not None]
    by_id = {o.offer_id: o for o in offers}
    assert validate_shared_stock(both, by_id) == []
    for the_job, plan in zip((job("a"), job("b")), both, strict=True):
        check = ValidationContext(
            the_job, by_id, PriceBasis("CNY", context().fx), context().multi_node_efficiency
        )
        assert validate_plan(plan, check) == []
    assert shared.total_cost > 2 * alone.best.total_cost  # the stock binds
    assert shared.optimal and shared.gap == 0
    assert shared.lower_bound == shared.total_cost
    document = shared.to_json()
    assert set(document) >= {"plans", "optimal", "gap"}
    assert document["plans"][0]["best"]["total_cost"] == f"{both[0].total_cost:.2f}"


def test_jobs_with_data_sharing_stock_keep_their_whole_bill() -> None:
    import dataclasses

    from comparator.domain.job import DataNeeds
    from comparator.domain.profile import DataCenter, ProviderProfile
    from comparator.domain.storage import StorageTerms

    terms = StorageTerms(price_gb_day=D("0.024"), upload_gbps=D(10), egress_price_gb=D("0.1"))
    profiles = {
        pid: ProviderProfile(
            id=pid, name=pid, country="SG", datacenters=(DataCenter(dc, dc, "SG", storage=terms),)
        )
        for pid, dc in (("sg", "sg-1"), ("sg2", "sg-2"))
    }
    data = DataNeeds(D(1000), D(100))
    jobs = [dataclasses.replace(job(n), data=data) for n in ("a", "b")]
    offers = shared_offers()
    shared = plan_jobs(jobs, offers, profiles, context(), time_limit_s=60)
    by_id = {o.offer_id: o for o in offers}
    plans = [r.best for r in shared.results]
    assert all(p is not None for p in plans)
    for the_job, plan in zip(jobs, plans, strict=True):
        assert plan is not None and [b.kind for b in plan.bill] == ["upload", "storage", "egress"]
        check = ValidationContext(
            the_job, by_id, PriceBasis("CNY", context().fx), context().multi_node_efficiency
        )
        assert validate_plan(plan, check) == []
    assert shared.total_cost == sum(p.total_cost for p in plans if p is not None)


def test_a_trial_job_and_a_capped_job_share_stock_at_the_proven_optimum() -> None:
    """Three 12-hour jobs of 2 nodes; "cheap" (3 nodes, ¥80/h, ¥40 at night, a 2-hour trial)
    fits one job at a time. The MILP prices the trial exactly; the daily cap is its one fallback
    (``dp_fallback``, planned by the per-job DP on the stock the others leave).

    Measured before the trial was modelled: 5600.00 against a bound of 3680.00 (a 34 % gap),
    the trial job on "dear". By hand the optimum is 5280.00: the trial job on "cheap" 12:00–24:00
    (its trial saves 2 × ¥160), the plain job on "cheap" 00:00–12:00, the capped job on "dear"
    (¥2400); the plan now reaches it and the bound proves it, in the fewest line items (the
    MILP's equal-cost answer interleaved the two jobs on "cheap"). Every plan is billed by the
    single-job code (the validator recomputes it) and the total is the sum of its lines."""
    import dataclasses

    offers = shared_offers()
    offers[0] = dataclasses.replace(offers[0], free_trial_hours=2)
    trial = dataclasses.replace(job("a"), use_free_trial=True)
    capped = job("b")
    capped = dataclasses.replace(
        capped, schedule=dataclasses.replace(capped.schedule, max_hours_per_day=14)
    )
    plain = job("c")
    shared = plan_jobs([trial, capped, plain], offers, {}, context(), time_limit_s=60)
    assert shared.dp_fallback == {"b": ["max_hours_per_day"]}
    assert shared.to_json()["dp_fallback"] == shared.dp_fallback
    plans = [r.best for r in shared.results]
    by_id = {o.offer_id: o for o in offers}
    for the_job, plan in zip((trial, capped, plain), plans, strict=True):
        assert plan is not None
        check = ValidationContext(
            the_job, by_id, PriceBasis("CNY", context().fx), context().multi_node_efficiency
        )
        assert validate_plan(plan, check) == []
        lines = sum((s.cost for s in plan.segments), D(0)) + sum((b.cost for b in plan.bill), D(0))
        assert plan.total_cost == lines
    both = [p for p in plans if p is not None]
    assert validate_shared_stock(both, by_id) == []
    assert validate_shared_trials(both, by_id) == []
    assert shared.total_cost == sum(p.total_cost for p in both)
    assert shared.total_cost < D("5600.00")  # the old fallback's plan
    assert shared.total_cost == D("5280.00") and both[0].segments[0].free_trial
    assert [len(p.segments) for p in both] == [2, 1, 1]  # trial + the rest, no interleaving
    assert shared.optimal and shared.gap == 0 and shared.lower_bound == shared.total_cost
    assert shared.to_json()["gap"] == 0


def test_the_shared_plan_text_names_the_jobs_planned_by_the_dp(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from comparator.cli.plan_cmd import _print_shared

    monkeypatch.setenv("COLUMNS", "300")
    _print_shared(False, 0.0123, "en", {"a": ["migrations"]})
    out = capsys.readouterr().out
    assert "a: the MILP does not model migrations; planned by the exact per-job DP" in out
    assert "not proven optimal, gap 1.23%" in out
