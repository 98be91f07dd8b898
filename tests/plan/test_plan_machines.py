"""Machine continuity and the tie rule of the exact DP (docs/billing.md).

A machine is one (provider, data centre, GPU, rental unit size): billing changes on one machine
are seamless, a change of machine is a migration (restart overhead; refused to a job that may
not pause). Among plans of equal cost the DP picks the fewest migrations (changes of machine,
after a pause or not; a resume on the same machine is none), then the fewest line items, then
the earliest finish; the brute-force oracle checks all of it.
"""

from __future__ import annotations

import dataclasses
import itertools
import random
from datetime import date, datetime, timedelta
from decimal import Decimal
from zoneinfo import ZoneInfo

import pytest

from comparator.domain.job import Job, Schedule, Workload
from comparator.domain.money import FxTable, round_money
from comparator.domain.offer_view import OfferView
from comparator.domain.profile import ProviderProfile
from comparator.plan import PlanContext, plan_job
from comparator.plan.candidates import PriceBasis
from comparator.plan.dp.dp_solver import ScheduleProfile, solve_schedule
from comparator.plan.dp.problem import (
    ContractRate,
    HourlyRate,
    ScheduledSegment,
    ScheduleProblem,
    ScheduleResult,
)
from comparator.plan.result import PlanResult
from tests.support.factories import make_offer
from tests.support.plan_oracle import brute_force, brute_force_best
from tests.support.plan_validate import (
    ValidationContext,
    validate_plan,
    validate_schedule,
)

D = Decimal
FACTORS = [D("0.2"), D("0.5"), D("1"), D("1"), D("3")]


def _by_finish(profile: ScheduleProfile) -> dict[int, Decimal]:
    best: dict[int, Decimal] = {}
    running: int | None = None
    for diagonal, cents in enumerate(profile.costs_cents):
        if cents is not None:
            running = cents if running is None else min(running, cents)
        if running is not None:
            best[profile.finish_slot(diagonal)] = D(running) / 100
    return best


def migrations(problem: ScheduleProblem, result: ScheduleResult) -> int:
    """Changes of machine between consecutive line items (after a pause or not)."""
    machine = dict(zip(problem.rate_keys, problem.machines, strict=True))
    keys = [machine[s.key] for s in result.segments]
    return sum(1 for a, b in itertools.pairwise(keys) if a != b)


def best_of(problem: ScheduleProblem) -> ScheduleResult | None:
    profile = solve_schedule(problem)
    diagonal = profile.cheapest()
    return None if diagonal is None else profile.schedule(diagonal)


def random_problem(rng: random.Random) -> ScheduleProblem:
    """Small problems with equal prices, several machines, migrations, storage, free trials."""
    deadline = rng.randint(1, 6)
    machines = ["whole", "card", "other"][: rng.randint(1, 3)]
    shared = D(rng.randint(1, 400)) / 100
    rates = []
    for j in range(rng.randint(0, 3)):
        minimum = rng.choice([1, 1, 1, 2])
        price = shared if rng.random() < 0.6 else D(rng.randint(1, 400)) / 100
        flat = rng.random() < 0.6
        costs = tuple(
            price if flat else price * rng.choice(FACTORS) for _ in range(deadline + minimum - 1)
        )
        available = tuple(rng.random() < 0.8 for _ in costs) if rng.random() < 0.2 else None
        rates.append(HourlyRate(f"h{j}", costs, minimum, available, rng.choice(machines)))
    contracts = []
    for j in range(rng.randint(0 if rates else 1, 2)):
        period = rng.choice([1, 2, 3, 24])
        cost = shared * period if rng.random() < 0.5 else D(rng.randint(1, 2000)) / 100
        contracts.append(
            ContractRate(f"c{j}", period, cost, rng.choice([1, 1, 2]), None, rng.choice(machines))
        )
    if rates and rng.random() < 0.3:  # a free trial on the first rate's machine
        first = rates[0]
        zero = (D(0),) * len(first.slot_costs)
        rates.append(
            HourlyRate("trial", zero, 1, first.available, first.machine, rng.randint(1, 3))
        )
    storage = D(rng.randint(1, 80)) / 100 if rng.random() < 0.4 else D(0)
    return ScheduleProblem(
        deadline,
        rng.randint(1, deadline),
        rng.random() < 0.6,
        rng.choice([0, 0, 1, 2]),
        tuple(rates),
        tuple(contracts),
        storage,
    )


def assert_agrees_with_oracle(problem: ScheduleProblem) -> None:
    """Every finish slot's cost to the cent; the plan chosen is valid, has the oracle's tie
    order (cost, migrations, line items, finish) and no mergeable neighbours."""
    profile = solve_schedule(problem)
    assert _by_finish(profile) == brute_force(problem), problem
    expected = brute_force_best(problem)
    diagonal = profile.cheapest()
    if expected is None:
        assert diagonal is None, problem
        return
    assert diagonal is not None, problem
    result = profile.schedule(diagonal)
    assert validate_schedule(problem, result) == [], problem
    got = (result.cost, migrations(problem, result), len(result.segments), result.finish)
    assert got == expected, problem
    assert_no_mergeable_neighbours(problem, result)


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(6))
def test_the_dp_equals_the_oracle_with_machines_migrations_and_equal_prices(seed: int) -> None:
    """40 instances per seed, 240 in all: every finish slot's cost to the cent (storage of
    paused slots included), and the plan chosen has, among every equal-cost plan the oracle
    enumerates, the fewest migrations, then line items, then earliest finish."""
    rng = random.Random(1300 + seed)
    for _ in range(40):
        assert_agrees_with_oracle(random_problem(rng))


def _merged_cost(
    problem: ScheduleProblem, key: str, start: int, end: int, first_start: int
) -> Decimal | None:
    rate = next((r for r in problem.hourly if r.key == key), None)
    if rate is None or end - start < rate.min_slots:
        return None
    if rate.trial_slots and (end - start > rate.trial_slots or start != first_start):
        return None
    if not all(rate.usable(t) for t in range(start, end)):
        return None
    return round_money(sum((rate.slot_costs[t] for t in range(start, end)), D(0)))


def assert_no_mergeable_neighbours(problem: ScheduleProblem, result: ScheduleResult) -> None:
    """No two neighbouring hourly line items on one machine could be one at the same cost
    (merged into either's rate, together with an adjacent line item of that rate)."""
    machine = dict(zip(problem.rate_keys, problem.machines, strict=True))
    segments: list[ScheduledSegment] = list(result.segments)
    for i, (a, b) in enumerate(itertools.pairwise(segments)):
        if a.end != b.start or b.overhead_slots or machine[a.key] != machine[b.key]:
            continue
        if a.kind != "hourly" or b.kind != "hourly":
            continue
        for key in (a.key, b.key):
            first, last = i, i + 1
            if (
                first > 0
                and segments[first - 1].key == key
                and _joins(*segments[first - 1 : i + 1])
            ):
                first -= 1
            if last + 1 < len(segments) and segments[last + 1].key == key:
                last += _joins(segments[last], segments[last + 1])
            group = segments[first : last + 1]
            merged = _merged_cost(problem, key, group[0].start, group[-1].end, segments[0].start)
            paid = sum((s.cost for s in group), D(0))
            assert merged is None or merged > paid, (problem, result)


def _joins(before: ScheduledSegment, after: ScheduledSegment) -> bool:
    """Whether two line items are back to back without a restart."""
    return before.end == after.start and after.overhead_slots == 0


def test_the_57_hour_case_is_one_line_item() -> None:
    """¥120/h for the whole machine, or 8 × ¥15/h per card: one machine, one line item."""
    whole = HourlyRate("whole", (D(120),) * 80, machine="8-card unit")
    cards = HourlyRate("card", (D(120),) * 80, machine="1-card unit")
    for interruptible in (False, True):
        problem = ScheduleProblem(80, 57, interruptible, 2, (whole, cards))
        result = best_of(problem)
        assert result is not None and result.cost == D("6840.00")
        assert len(result.segments) == 1 and result.finish == 57


def test_an_uninterruptible_job_never_changes_machine() -> None:
    cheap_first = HourlyRate("a", (D(1), D(1), D(9), D(9)), machine="m1")
    cheap_later = HourlyRate("b", (D(9), D(9), D(1), D(1)), machine="m2")
    problem = ScheduleProblem(4, 4, False, 1, (cheap_first, cheap_later))
    result = best_of(problem)
    assert result is not None and result.cost == D("20.00")  # one machine all the way
    assert len(result.segments) == 1


def test_same_machine_billing_changes_are_seamless() -> None:
    hourly = HourlyRate("h", (D(1), D(1), D(9), D(9)), machine="m")
    daily = ContractRate("day", 2, D(3), machine="m")
    problem = ScheduleProblem(4, 4, False, 3, (hourly,), (daily,))
    result = best_of(problem)
    assert result is not None and result.cost == D("5.00")
    assert [(s.key, s.overhead_slots) for s in result.segments] == [("h", 0), ("day", 0)]


def test_a_migration_pays_the_restart_overhead() -> None:
    a = HourlyRate("a", (D(1), D(1), D(9), D(9), D(9)), machine="m1")
    b = HourlyRate("b", (D(9), D(9), D(1), D(1), D(1)), machine="m2")
    problem = ScheduleProblem(5, 4, True, 1, (a, b))
    result = best_of(problem)
    assert result is not None and result.cost == D("5.00")
    assert [(s.key, s.start, s.run_end, s.overhead_slots) for s in result.segments] == [
        ("a", 0, 2, 0),
        ("b", 2, 5, 1),
    ]
    assert migrations(problem, result) == 1


def test_ties_count_migrations_not_resumes_on_the_same_machine() -> None:
    """¥3 either way: one move to machine m2 (2 line items, done at slot 3) or two pauses on
    m1 (3 line items, done at slot 5). The fewest migrations come first."""
    a = HourlyRate("a", (D(1), D(9), D(1), D(9), D(1)), machine="m1")
    b = HourlyRate("b", (D(9), D(1), D(1), D(9), D(9)), machine="m2")
    problem = ScheduleProblem(5, 3, True, 0, (a, b))
    result = best_of(problem)
    assert result is not None and result.cost == D("3.00")
    assert migrations(problem, result) == 0
    assert [(s.key, s.start) for s in result.segments] == [("a", 0), ("a", 2), ("a", 4)]
    assert brute_force_best(problem) == (D("3.00"), 0, 3, 5)


# --- the planner end to end ----------------------------------------------------------------
SG = {"country": "SG", "provider": "sg", "region": "sg-1"}
START = datetime(2026, 12, 1, tzinfo=ZoneInfo("Asia/Shanghai"))
CONTEXT = PlanContext(today=date(2026, 11, 29), fx=FxTable({"CNY": D(1)}, date(2026, 11, 27)))


def _job(hours: int, interruptible: bool, overhead: int = 2) -> Job:
    schedule = Schedule(START, START + timedelta(days=4), interruptible, overhead)
    workload = Workload(D(hours * 8), "A100-SXM4-80GB", 8)
    return Job(name="t", schedule=schedule, workload=workload, source="t.toml")


def _check(the_job: Job, offers: list[OfferView], result: PlanResult) -> None:
    check = ValidationContext(
        the_job,
        {o.offer_id: o for o in offers},
        PriceBasis("CNY", CONTEXT.fx),
        CONTEXT.multi_node_efficiency,
    )
    for plan in ([result.best] if result.best else []) + result.alternatives:
        assert validate_plan(plan, check) == []


@pytest.mark.parametrize("interruptible", [False, True])
def test_57_hours_on_a_whole_machine_or_per_card_at_one_price_is_one_line_item(
    interruptible: bool,
) -> None:
    offers = [
        make_offer("whole", "hourly", "120", cards=8, **SG),  # type: ignore[arg-type]
        make_offer("card", "hourly", "15", cards=1, **SG),  # type: ignore[arg-type]
    ]
    the_job = _job(57, interruptible)
    result = plan_job(the_job, offers, {}, CONTEXT)
    _check(the_job, offers, result)
    assert result.best is not None and result.best.total_cost == D("6840.00")
    assert len(result.best.segments) == 1


def test_a_provider_that_does_not_convert_billing_migrates_to_change_it() -> None:
    # hourly for the first hours, then a cheap daily contract: seamless only if it converts
    offers = [
        make_offer("hour", "hourly", "10", cards=8, **SG),  # type: ignore[arg-type]
        make_offer("day", "daily", "100", cards=8, **SG),  # type: ignore[arg-type]
    ]
    the_job = _job(30, False)
    converting = plan_job(the_job, offers, {}, CONTEXT)
    assert converting.best is not None
    assert [s.offer_id for s in converting.best.segments] == ["day", "hour"]
    assert converting.best.total_cost == D("160.00")
    profile = ProviderProfile(id="sg", name="SG", country="SG", converts_billing=False)
    fixed = plan_job(the_job, offers, {"sg": profile}, CONTEXT)
    assert fixed.best is not None and len(fixed.best.segments) == 1
    assert fixed.best.total_cost == D("200.00")  # two days, no change of billing in place


def test_run_windows_keep_every_run_hour_inside_them() -> None:
    offers = [make_offer("h", "hourly", "10", cards=8, **SG)]  # type: ignore[arg-type]
    the_job = _job(20, True, overhead=0)
    windows = dataclasses.replace(the_job.schedule, run_windows=("mon-fri 09:00-18:00",))
    the_job = dataclasses.replace(the_job, schedule=windows)
    result = plan_job(the_job, offers, {}, CONTEXT)
    _check(the_job, offers, result)
    assert result.best is not None and result.best.total_cost == D("200.00")
    for start, end in result.best.run_blocks:
        local = start.astimezone(ZoneInfo("Asia/Shanghai"))
        assert local.weekday() < 5 and local.hour >= 9 and end <= local.replace(hour=18)
    assert len(result.best.run_blocks) == 3  # 9 + 9 + 2 hours on Tue, Wed, Thu


def test_run_windows_use_the_time_of_use_grammar() -> None:
    from comparator.domain.job import parse_job
    from comparator.errors import JobFileError

    base = {
        "workload": {"card_hours": 8, "gpu": "A100"},
        "schedule": {"earliest_start": START, "deadline": START + timedelta(days=1)},
    }
    good = {**base, "schedule": {**base["schedule"], "run_windows": ["mon-fri 09:00-18:00"]}}
    assert parse_job(good, "j.toml").schedule.run_windows == ("mon-fri 09:00-18:00",)
    bad = {**base, "schedule": {**base["schedule"], "run_windows": ["someday 09:00-18:00"]}}
    with pytest.raises(JobFileError, match=r"schedule\.run_windows"):
        parse_job(bad, "j.toml")


# --- alternatives that help a decision -------------------------------------------------------
def test_alternatives_show_their_billing_mix_start_and_finish() -> None:
    from comparator.plan.explain.mix import mix_text

    week = make_offer("week", "weekly", "1000", cards=8, **SG)  # type: ignore[arg-type]
    hour = make_offer("hour", "hourly", "10", cards=8, **SG)  # type: ignore[arg-type]
    the_job = dataclasses.replace(
        _job(180, False),
        schedule=Schedule(START, START + timedelta(days=8), False, 0),
    )
    result = plan_job(the_job, [week, hour], {}, CONTEXT)
    assert result.best is not None
    assert mix_text(result.best, "zh") == "包周 ×1 + 按量 12 h"
    assert mix_text(result.best, "en") == "weekly ×1 + hourly 12 h"
    document = result.best.to_json()
    assert document["billing_mix"] == [
        {"billing": "weekly", "count": 1},
        {"billing": "hourly", "count": 12},
    ]
    assert document["oversized_contract"] is False


def test_a_yearly_contract_for_57_hours_is_no_alternative_but_flagged_when_cheapest() -> None:
    hourly = make_offer("hour", "hourly", "120", cards=8, **SG)  # type: ignore[arg-type]
    yearly = make_offer(
        "year", "yearly", "500000", cards=8, provider="other", region="o-1", country="SG"
    )
    result = plan_job(_job(57, False), [hourly, yearly], {}, CONTEXT)
    assert result.best is not None and result.best.segments[0].offer_id == "hour"
    assert result.alternatives == []  # the ¥500,000 contract is not shown
    daily = make_offer("day", "daily", "50", cards=8, **SG)  # type: ignore[arg-type]
    short = plan_job(_job(3, False), [hourly, daily], {}, CONTEXT)
    assert short.best is not None and short.best.segments[0].offer_id == "day"
    assert short.best.oversized_contract and short.best.to_json()["oversized_contract"]
