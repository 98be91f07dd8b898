"""Contracts with paid idle hours under run windows and a daily cap (docs/billing.md).

A person may order a monthly contract for a job that runs only mon-fri 09:00-18:00 (or 8 h a
day): the contract is paid for every hour of its period, the job runs in the hours the windows
and the cap allow. The brute-force oracle enumerates that plan space (any run pattern inside a
paid contract, :class:`RunRules`); the DP plans it exactly (:mod:`comparator.plan.dp.pausing.flex`).
These tests compare the two on the issue's hand case, on a case where running every allowed
slot is not the best pattern, and on 240 random instances.
"""

from __future__ import annotations

import dataclasses
import random
from datetime import timedelta
from decimal import Decimal
from zoneinfo import ZoneInfo

import pytest

from comparator.plan import plan_job
from comparator.plan.dp.dp_solver import solve_schedule
from comparator.plan.dp.pausing.dominated_contracts import without_dominated_contracts
from comparator.plan.dp.problem import ContractRate, HourlyRate, ScheduleProblem
from tests.plan.test_plan_daily_cap import random_days
from tests.plan.test_plan_machines import (
    _by_finish,
    assert_agrees_with_oracle,
    best_of,
    random_problem,
)
from tests.support.factories import make_offer
from tests.support.plan_oracle import RunRules, brute_force, brute_force_best
from tests.support.plan_validate import validate_schedule

D = Decimal
DAY = 4  # slots a day in the hand cases
OPEN = (False, True, True, False)  # the run window: slots 1-2 of each day


def _windows(slots: int) -> tuple[bool, ...]:
    return tuple(OPEN[t % DAY] for t in range(slots))


def monthly_vs_hourly(contract_price: Decimal) -> ScheduleProblem:
    """The issue's example, small: a 12-slot "month" at ``contract_price`` a slot against hourly
    at 15 a slot, a job of 4 slots allowed to run 2 slots a day (3 days of 4 slots). Hourly
    slots are rentable only inside the window; the contract lies over closed hours too."""
    slots = 12
    windows = _windows(slots)
    hourly = HourlyRate("hourly", (D(15),) * slots, 1, windows, "m")
    monthly = ContractRate("monthly", 12, contract_price * 12, 1, None, "m")
    return ScheduleProblem(slots, 4, True, 0, (hourly,), (monthly,), run_allowed=windows)


def test_a_cheap_monthly_contract_beats_hourly_under_run_windows() -> None:
    """¥3 a slot for 12 paid slots (36) against 4 run slots at ¥15 (60): the contract wins, its
    job runs 4 of its 12 paid slots (two days of the window), in two run blocks."""
    problem = monthly_vs_hourly(D(3))
    assert brute_force_best(problem) == (D("36.00"), 0, 1, 7)  # runs slots 1, 2, 5, 6
    result = best_of(problem)
    assert result is not None and validate_schedule(problem, result) == []
    (segment,) = result.segments
    assert (segment.key, segment.start, segment.end, result.cost) == ("monthly", 1, 13, D(36))
    assert segment.run_blocks == ((1, 3, 0), (5, 7, 0))
    assert _by_finish(solve_schedule(problem)) == brute_force(problem)


def test_a_dearer_monthly_contract_does_not_beat_hourly() -> None:
    """¥8 a slot: 96 for the month against 60 hourly; DP and oracle agree on hourly."""
    problem = monthly_vs_hourly(D(8))
    assert brute_force_best(problem) == (D("60.00"), 0, 2, 7)
    assert_agrees_with_oracle(problem)


def test_running_every_allowed_slot_of_a_contract_is_not_always_best() -> None:
    """Days of 8 slots, the window open in slot 1 and slots 3-7, a cap of 4 run slots a day
    and a restart overhead of 1: a contract of two days that runs in every allowed slot does
    3 + 2 = 5 slots of work (slot 1, a restart at 3, then 4-5 until the cap); skipping slot 1
    does 4 + 3 = 7 (3-6 on day one; a restart at 11, then 12-14). The DP finds the 7."""
    allowed = tuple(t % 8 in (1, 3, 4, 5, 6, 7) for t in range(16))
    contract = ContractRate("two-days", 16, D(10), 1, None, "m")
    days = tuple(t // 8 for t in range(17))
    problem = ScheduleProblem(16, 7, True, 1, (), (contract,), D(0), 4, days, allowed)
    assert _greedy_work(allowed, days, cap=4, overhead=1) == 5
    assert brute_force_best(problem) == (D("10.00"), 0, 1, 15)
    assert brute_force_best(dataclasses.replace(problem, work_slots=8)) is None
    result = best_of(problem)
    assert result is not None and validate_schedule(problem, result) == []
    assert result.segments[0].run_blocks == ((3, 7, 0), (11, 15, 1))
    assert best_of(dataclasses.replace(problem, work_slots=8)) is None


def _greedy_work(allowed: tuple[bool, ...], days: tuple[int, ...], cap: int, overhead: int) -> int:
    """Work done running in every allowed slot within the cap, a restart after each gap."""
    work, today, running, started = 0, 0, False, False
    for t, ok in enumerate(allowed):
        if t and days[t] != days[t - 1]:
            today = 0
        if not ok or today >= cap:
            running = False
            continue
        today += 1
        if not running and started:
            work -= overhead  # the restart's first slots redo work (blocks ≥ overhead here)
        work += 1
        running = started = True
    return work


def window_problem(rng: random.Random) -> ScheduleProblem:
    """A random problem with a random run window (hourly rates rentable only inside it), half
    of them with contracts cheap enough to pay idle hours, half of them capped."""
    problem = random_problem(rng)
    allowed = tuple(rng.random() < 0.7 for _ in range(problem.deadline_slot))
    if rng.random() < 0.5:
        cheap = tuple(
            dataclasses.replace(c, cost=max(D("0.01"), (c.cost * D("0.3")).quantize(D("0.01"))))
            for c in problem.contracts
        )
        problem = dataclasses.replace(problem, contracts=cheap)
    if rng.random() < 0.5:
        cap, days = rng.randint(1, 4), random_days(rng, problem.deadline_slot + 3)
        problem = dataclasses.replace(problem, max_run_slots_per_day=cap, day_of_slot=days)

    def masked(rate: HourlyRate) -> tuple[bool, ...]:
        return tuple(ok and rate.usable(t) for t, ok in enumerate(allowed))

    hourly = tuple(dataclasses.replace(r, available=masked(r)) for r in problem.hourly)
    return dataclasses.replace(problem, hourly=hourly, run_allowed=allowed)


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(6))
def test_the_dp_equals_the_oracle_over_contracts_that_pause(seed: int) -> None:
    """40 instances per seed, 240 in all, with run windows (half of them capped, half with
    cheap contracts): every finish slot's cost to the cent, and the plan chosen is valid with
    the oracle's tie order (cost, migrations, line items, finish)."""
    rng = random.Random(1700 + seed)
    for _ in range(40):
        assert_agrees_with_oracle(window_problem(rng))


@pytest.mark.slow
def test_a_contract_dropped_as_beaten_changes_no_optimum() -> None:
    """:mod:`comparator.plan.dp.pausing.dominated_contracts` drops a contract only when an hourly rate of its
    machine beats every use of it: the oracle's cheapest plan per finish slot is the same with
    and without the dropped contracts, on every random instance where one is dropped."""
    rng = random.Random(1800)
    dropped = 0
    for _ in range(150):
        problem = window_problem(rng)
        pruned = without_dominated_contracts(problem)
        if pruned is not problem:
            dropped += 1
            assert brute_force(pruned) == brute_force(problem), problem
    assert dropped >= 20


@pytest.mark.slow
def test_without_windows_or_cap_the_plan_spaces_agree() -> None:
    """With no window and no cap a contract runs in every paid slot (the greedy rule of
    docs/billing.md): the oracle's wider space adds nothing."""
    rng = random.Random(1717)
    for _ in range(40):
        plain = random_problem(rng)
        assert brute_force(plain, RunRules()) == brute_force(plain), plain


# --- a contract's run hours against its paid hours, end to end ------------------------------
def test_a_contract_shows_its_run_hours_against_its_paid_hours() -> None:
    """A 3-hour job on a daily contract pays 24 h and runs 3: the plan says so in its JSON
    (``paid_hours``), its text table and the quote, and the oversized flag reads the run hours."""
    import json

    from rich.console import Console

    from comparator.cli.plan_cmd import _segment_table
    from comparator.report import render as report
    from tests.plan.test_plan_machines import CONTEXT, SG, _job
    from tests.report.test_report_html import DATA
    from tests.support.htmltree import parse_html

    hourly = make_offer("hour", "hourly", "120", cards=8, **SG)  # type: ignore[arg-type]
    daily = make_offer("day", "daily", "50", cards=8, **SG)  # type: ignore[arg-type]
    plan = plan_job(_job(3, False), [hourly, daily], {}, CONTEXT).best
    assert plan is not None and plan.oversized_contract
    (segment,) = plan.segments
    assert (segment.billing, segment.run_hours, segment.paid_hours) == ("daily", 3, 24)
    assert segment.to_json()["paid_hours"] == 24 and segment.to_json()["run_hours"] == 3
    for lang, words in (("en", "runs 3/24 h"), ("zh-CN", "运行 3/24 小时")):
        console = Console(width=200, record=True)
        console.print(_segment_table(plan, lang))
        assert words in console.export_text()
    document = json.loads((DATA / "quote_document.json").read_text(encoding="utf-8"))
    document["plan"]["best"]["segments"][0].update(run_hours=3, paid_hours=24)
    for lang, words in (("en", "run/paid 3/24 h"), ("zh-CN", "运行/付费 3/24 h")):
        root = parse_html(report.render_html(document, lang=lang))
        found = [e.text().strip() for e in root.iter() if "run-of-paid" in e.attrs.get("class", "")]
        assert found == [words]
    document["plan"]["best"]["segments"][0].update(run_hours=24, paid_hours=24)
    assert "run-of-paid" not in report.render_html(document, lang="en")


def test_a_monthly_contract_paused_outside_office_hours_is_planned() -> None:
    """The issue's case end to end: 8 cards, hourly at ¥15 a card-hour against a monthly
    contract at ¥3 a card-hour (720 h paid), a 200-hour job allowed mon-fri 09:00-18:00. Hourly
    alone costs at least 200 × 8 × 15 = ¥24,000; the month (¥17,280) holds about 200 run hours
    of its 720: the plan orders it, pauses it at night and at weekends, and says so."""
    from comparator.domain.job import Job, Schedule, Workload
    from comparator.plan.dp.grid import PriceBasis
    from comparator.plan.explain.timeline import PAID_IDLE, RUN_CONTRACT, timeline_lines
    from tests.plan.test_plan_machines import CONTEXT, SG, START
    from tests.support.plan_validate import ValidationContext, validate_plan

    hourly = make_offer("hour", "hourly", "120", cards=8, **SG)  # type: ignore[arg-type]
    monthly = make_offer("month", "monthly", "17280", cards=8, **SG)  # type: ignore[arg-type]
    schedule = Schedule(
        START, START + timedelta(days=45), True, 1, run_windows=("mon-fri 09:00-18:00",)
    )
    job = Job(
        name="office",
        schedule=schedule,
        workload=Workload(D(1600), "A100-SXM4-80GB", 8),
        source="t.toml",
    )
    plan = plan_job(job, [hourly, monthly], {}, CONTEXT).best
    assert plan is not None and plan.total_cost < D(24000)
    (segment,) = [s for s in plan.segments if s.offer_id == "month"]
    assert (segment.cost, segment.paid_hours) == (D(17280), 720)
    assert len(segment.run_blocks) > 20  # a block each working day, paused in between
    check = ValidationContext(
        job, {o.offer_id: o for o in (hourly, monthly)}, PriceBasis("CNY", CONTEXT.fx), 0.9
    )
    assert validate_plan(plan, check) == []
    blocks = segment.to_json()["run_blocks"]
    assert sum(b["hours"] for b in blocks) == segment.run_hours
    assert sum(b["overhead_hours"] for b in blocks) == len(blocks)  # each block restarts
    assert plan.run_hours == plan.work_hours + plan.overhead_hours
    marks = "".join(timeline_lines(plan, ZoneInfo("Asia/Singapore"), lang="en")[1:-1])
    assert RUN_CONTRACT in marks and PAID_IDLE in marks


@pytest.mark.slow
def test_several_jobs_under_run_windows_with_contracts_are_planned_by_the_dp() -> None:
    """Two office-hours jobs sharing one monthly contract's stock of 1: the MILP does not model
    a contract that pauses inside, so the windowed jobs are named in ``dp_fallback`` and
    planned by the exact DP; both plans stay valid, the stock kept, the bound honest."""
    from comparator.domain.job import Job, Requirements, Schedule, Workload
    from comparator.plan.joint.joint_plan import plan_jobs
    from tests.plan.test_plan_machines import SG, START
    from tests.plan.test_plan_shared import check_honest, context

    offers = [
        make_offer("hour", "hourly", "120", cards=8, **SG),  # type: ignore[arg-type]
        make_offer("month", "monthly", "17280", cards=8, stock=1, **SG),  # type: ignore[arg-type]
    ]
    windows = ("mon-fri 09:00-18:00",)
    schedule = Schedule(START, START + timedelta(days=45), True, 1, run_windows=windows)
    jobs = [
        Job(
            name=name,
            schedule=schedule,
            workload=Workload(D(8 * 150), "A100-SXM4-80GB", 8),
            requirements=Requirements(),
            source=f"{name}.toml",
        )
        for name in ("a", "b")
    ]
    shared = plan_jobs(jobs, offers, {}, context(), time_limit_s=10)
    assert shared.dp_fallback == {"a": ["run_windows"], "b": ["run_windows"]}
    plans = check_honest(shared, jobs, offers)
    months = [s for p in plans for s in p.segments if s.offer_id == "month"]
    assert len(months) == 1 and len(months[0].run_blocks) > 10  # one job gets the month
