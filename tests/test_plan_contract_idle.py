"""Contracts with paid idle hours under run windows and a daily cap (docs/billing.md).

A person may order a monthly contract for a job that runs only mon-fri 09:00-18:00 (or 8 h a
day): the contract is paid for every hour of its period, the job runs in the hours the windows
and the cap allow. The brute-force oracle's :class:`RunRules` enumerates that plan space (any
run pattern inside a paid contract); the DP does not plan it yet (a contract only where the job
can run in every slot of its period). These tests pin the oracle, measure the gap on the hand
case of the issue, and show why "run in every allowed slot of the contract" is not the rule an
exact DP may use.
"""

from __future__ import annotations

import dataclasses
import random
from decimal import Decimal

import pytest
from plan_fixtures import make_offer
from plan_oracle import RunRules, brute_force, brute_force_best

from comparator.plan import plan_job
from comparator.plan.dp.solver import solve_schedule
from comparator.plan.problem import ContractRate, HourlyRate, ScheduleProblem
from tests.test_plan_daily_cap import random_days
from tests.test_plan_machines import _by_finish, random_problem

D = Decimal
DAY = 4  # slots a day in the hand cases
OPEN = (False, True, True, False)  # the run window: slots 1-2 of each day


def _windows(slots: int) -> tuple[bool, ...]:
    return tuple(OPEN[t % DAY] for t in range(slots))


def monthly_vs_hourly(contract_price: Decimal) -> tuple[ScheduleProblem, ScheduleProblem]:
    """The issue's example, small: a 12-slot "month" at ``contract_price`` a slot against hourly
    at 15 a slot, a job of 4 slots allowed to run 2 slots a day (3 days of 4 slots).

    Returns the problem as the DP sees it today (the windows make every slot outside them
    unrentable, contracts included) and as a person may order it (the contract may lie over
    closed hours; the windows only limit where the job runs, :class:`RunRules`)."""
    slots = 12
    windows = _windows(slots)
    hourly = HourlyRate("hourly", (D(15),) * slots, 1, windows, "m")
    monthly = ContractRate("monthly", 12, contract_price * 12, 1, None, "m")
    orderable = ScheduleProblem(slots, 4, True, 0, (hourly,), (monthly,))
    today = dataclasses.replace(
        orderable, contracts=(dataclasses.replace(monthly, available=windows),)
    )
    return today, orderable


def test_a_cheap_monthly_contract_beats_hourly_under_run_windows() -> None:
    """¥3 a slot for 12 paid slots (36) against 4 run slots at ¥15 (60): the contract wins, its
    job runs 4 of its 12 paid slots (two days of the window)."""
    today, orderable = monthly_vs_hourly(D(3))
    rules = RunRules(_windows(12))
    assert brute_force_best(orderable, rules) == (D("36.00"), 0, 1, 7)  # runs slots 1, 2, 5, 6
    assert brute_force_best(today) == (D("60.00"), 0, 2, 7)  # hourly only, two line items


def test_a_dearer_monthly_contract_does_not_beat_hourly() -> None:
    """¥8 a slot: 96 for the month against 60 hourly; both plan spaces agree on hourly."""
    today, orderable = monthly_vs_hourly(D(8))
    rules = RunRules(_windows(12))
    assert brute_force_best(orderable, rules) == brute_force_best(today) == (D("60.00"), 0, 2, 7)
    assert _by_finish(solve_schedule(today)) == brute_force(orderable, rules)


@pytest.mark.xfail(strict=True, reason="the DP plans no contract over closed hours yet (#13)")
def test_the_dp_finds_the_cheap_monthly_contract() -> None:
    today, orderable = monthly_vs_hourly(D(3))
    assert _by_finish(solve_schedule(today)) == brute_force(orderable, RunRules(_windows(12)))


def test_running_every_allowed_slot_of_a_contract_is_not_always_best() -> None:
    """Days of 8 slots, the window open in slot 1 and slots 3-7, a cap of 4 run slots a day
    and a restart overhead of 1: a contract of two days that runs in every allowed slot does
    3 + 2 = 5 slots of work (slot 1, a restart at 3, then 4-5 until the cap); skipping slot 1
    does 4 + 3 = 7 (3-6 on day one; a restart at 11, then 12-14). So the optimum may leave
    allowed paid slots unrun, and an exact DP needs more than the greedy rule."""
    allowed = tuple(t % 8 in (1, 3, 4, 5, 6, 7) for t in range(16))
    contract = ContractRate("two-days", 16, D(10), 1, None, "m")
    days = tuple(t // 8 for t in range(17))
    problem = ScheduleProblem(16, 7, True, 1, (), (contract,), D(0), 4, days)
    assert _greedy_work(allowed, days, cap=4, overhead=1) == 5
    assert brute_force_best(problem, RunRules(allowed)) == (D("10.00"), 0, 1, 15)
    assert brute_force_best(dataclasses.replace(problem, work_slots=8), RunRules(allowed)) is None


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


def _window_problem(rng: random.Random) -> tuple[ScheduleProblem, ScheduleProblem, RunRules]:
    """A random problem with a random run window: as the DP sees it, and as it may be ordered."""
    problem = random_problem(rng)
    allowed = tuple(rng.random() < 0.7 for _ in range(problem.deadline_slot + 30))
    if rng.random() < 0.5:  # contracts cheap enough to pay idle hours
        cheap = tuple(
            dataclasses.replace(c, cost=max(D("0.01"), (c.cost * D("0.3")).quantize(D("0.01"))))
            for c in problem.contracts
        )
        problem = dataclasses.replace(problem, contracts=cheap)
    if rng.random() < 0.5:
        cap, days = rng.randint(1, 4), random_days(rng, problem.deadline_slot + 3)
        problem = dataclasses.replace(problem, max_run_slots_per_day=cap, day_of_slot=days)

    def masked(rate: HourlyRate | ContractRate) -> tuple[bool, ...]:
        return tuple(ok and rate.usable(t) for t, ok in enumerate(allowed))

    today = dataclasses.replace(
        problem,
        hourly=tuple(dataclasses.replace(r, available=masked(r)) for r in problem.hourly),
        contracts=tuple(dataclasses.replace(c, available=masked(c)) for c in problem.contracts),
    )
    orderable = dataclasses.replace(today, contracts=problem.contracts)
    return today, orderable, RunRules(allowed)


@pytest.mark.parametrize("seed", range(4))
def test_the_dp_never_beats_the_plans_a_person_can_order(seed: int) -> None:
    """50 instances per seed with run windows (and half of them a cap): the DP's plan space is
    inside the orderable one, so at every finish slot the oracle is at most the DP, and the DP
    equals the oracle of its own model; without windows or cap the two oracles agree."""
    rng = random.Random(1700 + seed)
    for _ in range(50):
        today, orderable, rules = _window_problem(rng)
        dp = _by_finish(solve_schedule(today))
        assert dp == brute_force(today), today
        wider = brute_force(orderable, rules)
        assert all(wider[f] <= cost for f, cost in dp.items()), orderable
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
    from tests.htmltree import parse_html
    from tests.test_plan_machines import CONTEXT, SG, _job
    from tests.test_report_html import DATA

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
