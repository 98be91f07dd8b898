"""``[schedule] max_hours_per_day``: the DP's hours-run-today dimension (docs/billing.md).

At most that many run hours (restart overhead included) in each day of the job's time zone;
the count resets at local midnight. The brute-force oracle enumerates every plan of small
instances with random day lengths and caps and agrees with the DP to the cent; the validator
checks the cap on every plan.
"""

from __future__ import annotations

import dataclasses
import random
from collections import Counter
from datetime import date, datetime, timedelta
from decimal import Decimal
from zoneinfo import ZoneInfo

import numpy as np
import pytest

from comparator.domain.job import Job, Schedule, Workload
from comparator.domain.money import FxTable
from comparator.errors import JobFileError
from comparator.plan import PlanContext, plan_job
from comparator.plan.candidates import PriceBasis
from comparator.plan.dp.dp_solver import solve_schedule
from comparator.plan.dp.problem import HourlyRate, ScheduleProblem
from comparator.plan.selection import _fewest_run_slots, lower_bound_cents
from tests.plan.test_plan_machines import (
    _by_finish,
    assert_agrees_with_oracle,
    best_of,
    random_problem,
)
from tests.support.factories import make_offer
from tests.support.plan_validate import ValidationContext, validate_plan, validate_schedule

D = Decimal


def random_days(rng: random.Random, slots: int) -> tuple[int, ...]:
    """Short days (2–5 slots, the first one partial) so that small instances cross midnight."""
    days: list[int] = []
    day = 0
    length = rng.randint(1, 5)
    while len(days) < slots:
        days += [day] * length
        day += rng.choice([1, 1, 2])
        length = rng.randint(2, 5)
    return tuple(days[:slots])


def capped_problem(rng: random.Random) -> ScheduleProblem:
    problem = random_problem(rng)
    days = random_days(rng, problem.deadline_slot + 3)
    return dataclasses.replace(problem, max_run_slots_per_day=rng.randint(1, 4), day_of_slot=days)


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(6))
def test_the_capped_dp_equals_the_oracle(seed: int) -> None:
    """40 capped instances per seed, 240 in all: every finish slot's cost to the cent, the tie
    order of the plan chosen, the cap and no mergeable neighbours."""
    rng = random.Random(1500 + seed)
    for _ in range(40):
        assert_agrees_with_oracle(capped_problem(rng))


def test_a_cap_spreads_the_work_over_days_and_resets_at_midnight() -> None:
    """6 slots a day, cap 2: 5 slots of work take 3 days; the cheap slots 4–5 of each day."""
    prices = [D(5), D(5), D(5), D(5), D(1), D(1)] * 3
    days = tuple(t // 6 for t in range(18))
    rate = HourlyRate("h", tuple(prices))
    problem = ScheduleProblem(18, 5, True, 0, (rate,), (), D(0), 2, days)
    result = best_of(problem)
    assert result is not None and result.cost == D("5.00")
    ran = Counter(days[t] for s in result.segments for t in range(s.start, s.run_end))
    assert max(ran.values()) == 2 and result.finish == 17
    assert validate_schedule(problem, result) == []
    broken = dataclasses.replace(problem, max_run_slots_per_day=1)
    assert validate_schedule(broken, result) != []  # the validator checks the cap


def test_the_restart_overhead_counts_toward_the_cap() -> None:
    """Days of 4 slots, cap 3, overhead 1: one block runs 3 + 3 slots across midnight, then a
    restart on day 2 spends its first slot on the overhead, so 7 slots of work end at slot 10
    (9 if the overhead did not count)."""
    rate = HourlyRate("h", (D(1),) * 12)
    days = tuple(t // 4 for t in range(12))
    problem = ScheduleProblem(12, 7, True, 1, (rate,), (), D(0), 3, days)
    result = best_of(problem)
    assert result is not None and result.cost == D("8.00")
    assert [(s.start, s.run_end, s.overhead_slots) for s in result.segments] == [
        (1, 7, 0),
        (8, 10, 1),
    ]
    assert solve_schedule(dataclasses.replace(problem, deadline_slot=9)).cheapest() is None


def test_the_lower_bound_knows_the_cap() -> None:
    """Six slots of ¥1 on day one, ¥9 after, 2 slots a day, 5 of work: no plan runs more than 2
    of the cheap slots, so the bound is 1 + 1 + 9 + 9 + 9 (not 5 × 1), and it is the optimum."""
    prices = [D(1)] * 6 + [D(9)] * 12
    days = tuple(t // 6 for t in range(18))
    problem = ScheduleProblem(18, 5, True, 0, (HourlyRate("h", tuple(prices)),), (), D(0), 2, days)
    result = best_of(problem)
    assert result is not None and result.cost == D("29.00")
    bound = lower_bound_cents(problem)
    assert bound is not None and 2800 <= bound <= 2900
    uncapped = lower_bound_cents(dataclasses.replace(problem, max_run_slots_per_day=0))
    assert uncapped is not None and uncapped <= 500


def test_the_restarts_that_short_windows_force_are_in_the_bound() -> None:
    """Windows of 3 slots a day (of 6), overhead 1, 7 slots of work: blocks of at most 3 slots,
    so 1 + ⌈4 / 2⌉ = 3 blocks and 9 paid run slots at ¥1 at least (the optimum)."""
    windows = tuple(t % 6 < 3 for t in range(24))
    rate = HourlyRate("h", (D(1),) * 24, 1, windows)
    problem = ScheduleProblem(24, 7, True, 1, (rate,))
    result = best_of(problem)
    assert result is not None and result.cost == D("9.00")
    bound = lower_bound_cents(problem)
    assert bound is not None and 890 <= bound <= 900
    assert lower_bound_cents(dataclasses.replace(problem, work_slots=13)) is None  # 4 days only
    capped = dataclasses.replace(
        problem, max_run_slots_per_day=2, day_of_slot=tuple(t // 6 for t in range(24))
    )
    assert best_of(capped) is None and lower_bound_cents(capped) is None  # 2 + 1 + 1 + 1 < 7


def _longest_block_by_hand(runnable: list[bool], days: list[int], cap: int) -> int:
    """Per stretch of consecutive runnable slots, the sum over its days of min(slots, cap)."""
    longest, stretch = 0, []
    for t, run in enumerate([*runnable, False]):
        if run:
            stretch.append(days[t])
        elif stretch:
            longest = max(longest, sum(min(n, cap) for n in Counter(stretch).values()))
            stretch = []
    return longest


def test_the_longest_capped_block_is_counted_by_stretch_and_day() -> None:
    """The fewest run slots under a cap and windows (``_fewest_run_slots``): the longest block
    counted with runs of equal (stretch, day) pairs equals counting each stretch by hand."""
    rng = random.Random(1700)
    for _ in range(400):
        slots = rng.randint(1, 60)
        runnable = [rng.random() < 0.7 for _ in range(slots)]
        days = list(random_days(rng, slots))
        cap, overhead = rng.randint(1, 6), rng.randint(1, 3)
        rate = HourlyRate("h", (D(1),) * slots, 1, tuple(runnable))
        problem = ScheduleProblem(
            slots, rng.randint(1, slots), True, overhead, (rate,), (), D(0), cap, tuple(days)
        )
        mask = np.array(runnable, dtype=bool)
        got = _fewest_run_slots(problem, mask, overhead, np.array(days, dtype=np.int64))
        longest = _longest_block_by_hand(runnable, days, cap)
        work = problem.work_slots
        if not any(runnable) or (work > longest and longest <= overhead):
            assert got is None
        elif work <= longest:
            assert got == work
        else:
            blocks = 1 + -(-(work - longest) // (longest - overhead))
            assert got == work + overhead * (blocks - 1)


def _windowed(rng: random.Random, problem: ScheduleProblem) -> ScheduleProblem:
    allowed = tuple(rng.random() < 0.6 for _ in range(problem.deadline_slot + 30))
    hourly = tuple(
        dataclasses.replace(r, available=tuple(a and r.usable(t) for t, a in enumerate(allowed)))
        for r in problem.hourly
    )
    return dataclasses.replace(problem, hourly=hourly)


def test_the_capped_lower_bound_never_exceeds_the_optimum() -> None:
    rng = random.Random(1600)
    for index in range(300):
        problem = capped_problem(rng)
        if index % 3 == 1:
            problem = _windowed(rng, problem)
        elif index % 3 == 2:
            problem = _windowed(rng, dataclasses.replace(problem, max_run_slots_per_day=0))
        profile = solve_schedule(problem, keep_trace=False)
        diagonal = profile.cheapest()
        bound = lower_bound_cents(problem)
        if diagonal is not None:
            assert bound is not None and bound <= profile.cost_cents(diagonal), problem


def test_without_a_cap_nothing_changes() -> None:
    rng = random.Random(7)
    for _ in range(20):
        problem = random_problem(rng)
        loose = dataclasses.replace(
            problem, max_run_slots_per_day=24, day_of_slot=tuple(t // 24 for t in range(30))
        )
        assert _by_finish(solve_schedule(loose)) == _by_finish(solve_schedule(problem))


# --- the job file and the planner end to end -------------------------------------------------
SHANGHAI = ZoneInfo("Asia/Shanghai")
START = datetime(2026, 12, 7, tzinfo=SHANGHAI)  # a Monday
CONTEXT = PlanContext(today=date(2026, 12, 1), fx=FxTable({"CNY": D(1)}, date(2026, 11, 27)))


def _job(hours: int, cap: int | None, windows: tuple[str, ...] = ()) -> Job:
    schedule = Schedule(START, START + timedelta(days=10), True, 1, windows, cap)
    workload = Workload(D(hours * 8), "A100-SXM4-80GB", 8)
    return Job(name="t", schedule=schedule, workload=workload, source="t.toml")


def test_max_hours_per_day_with_run_windows_plans_and_validates() -> None:
    offers = [make_offer("h", "hourly", "100", cards=8, country="SG", provider="sg", region="sg-1")]
    the_job = _job(20, 8, ("mon-fri 09:00-18:00",))
    result = plan_job(the_job, offers, {}, CONTEXT)
    assert result.best is not None
    plan = result.best
    by_day = Counter(
        (s.start + timedelta(hours=i)).astimezone(SHANGHAI).date()
        for s in plan.segments
        for i in range(s.run_hours)
    )
    assert max(by_day.values()) <= 8 and len(by_day) == 3  # 20 h + 2 restarts: 8 + 8 + 6
    check = ValidationContext(the_job, {"h": offers[0]}, PriceBasis("CNY", CONTEXT.fx), D("0.9"))
    assert validate_plan(plan, check) == []
    loose = dataclasses.replace(
        the_job, schedule=dataclasses.replace(the_job.schedule, max_hours_per_day=9)
    )
    looser = plan_job(loose, offers, {}, CONTEXT)
    assert looser.best is not None and looser.best.finish <= plan.finish
    assert validate_plan(looser.best, check) != []  # 9 h days break the 8 h cap


def test_max_hours_per_day_is_read_from_the_job_file() -> None:
    from comparator.domain.job import parse_job

    base = {
        "name": "j",
        "schedule": {
            "earliest_start": "2026-12-07T00:00:00+08:00",
            "deadline": "2026-12-17T00:00:00+08:00",
            "interruptible": True,
        },
        "workload": {"card_hours": 80, "gpu": "A100-SXM4-80GB"},
    }
    good = {**base, "schedule": {**base["schedule"], "max_hours_per_day": 8}}
    assert parse_job(good, "j.toml").schedule.max_hours_per_day == 8
    assert parse_job(base, "j.toml").schedule.max_hours_per_day is None
    for bad in (0, 25, "8", 7.5):
        data = {**base, "schedule": {**base["schedule"], "max_hours_per_day": bad}}
        with pytest.raises(JobFileError, match=r"schedule\.max_hours_per_day"):
            parse_job(data, "j.toml")


def test_a_cap_that_cannot_fit_before_the_deadline_is_named() -> None:
    offers = [make_offer("h", "hourly", "100", cards=8, country="SG", provider="sg", region="sg-1")]
    short = _job(20, 1)
    short = dataclasses.replace(
        short, schedule=dataclasses.replace(short.schedule, deadline=START + timedelta(days=5))
    )
    result = plan_job(short, offers, {}, CONTEXT)
    assert result.best is None and result.binding == "deadline"
    assert result.message is not None and "max_hours_per_day = 1" in str(result.message)


def test_the_quote_names_the_run_windows_and_the_daily_cap() -> None:
    import json

    from comparator.quote.document import job_section
    from comparator.report import render as report
    from tests.report.test_report_html import DATA
    from tests.support.htmltree import parse_html

    document = json.loads((DATA / "quote_document.json").read_text(encoding="utf-8"))
    document["job"] = {**document["job"], **job_section(_job(20, 8, ("mon-fri 09:00-18:00",)))}
    assert document["job"]["max_hours_per_day"] == 8
    for lang, words in (("en", "At most a day"), ("zh-CN", "每天最多运行")):
        html = report.render_html(document, lang=lang)
        root = parse_html(html)
        found = {
            c: e.text().strip()
            for e in root.iter()
            for c in e.attrs.get("class", "").split()
            if c in {"run-windows", "max-hours-per-day"}
        }
        assert found == {"run-windows": "mon-fri 09:00-18:00", "max-hours-per-day": "8 h"}
        assert words in html
    document["job"]["max_hours_per_day"] = None
    assert "max-hours-per-day" not in report.render_html(document, lang="en")
