"""The import's extremes plan exactly: a price of 10**12 or with 12 decimal places never
crashes the planner or takes planning down for the other offers (issue 30).

The import accepts prices up to 10**12 with up to 12 decimal places; at 12 places a price of
10**11 is 10**23 ticks, past int64, so the DP sums such ticks in Python integers and keeps
only cents (and remainders below a cent) in int64. A candidate whose amounts over the whole
horizon could pass ``CENT_LIMIT`` cents is left out with kind ``amounts``; the others plan.
"""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path
from typing import Any

import pytest

from comparator.errors import AmountsTooLargeError
from comparator.plan.dp.dp_solver import solve_schedule
from comparator.plan.dp.problem import ContractRate, HourlyRate, ScheduleProblem
from comparator.plan.dp.rates import CENT_LIMIT, HourlyRates, Ties, _split_prefix
from tests.cli.test_plan_cli import plan_in_process

EXTREMES = ["123456789012.123456789012", "999999999999.99"]
PROFILE = """[provider]
id = "faraway"
name = "Faraway GPU"
country = "US"

[[datacenters]]
id = "us-east-1"
name = "Virginia"
country = "US"
"""
HEADER = "provider,region,gpu,cards,billing,price,currency,stock,observed_at\n"
JOB = """name = "extreme"
currency = "CNY"

[workload]
card_hours = 16
gpu = "H100"

[schedule]
earliest_start = 2026-12-01T00:00:00+08:00
deadline = {deadline}
interruptible = true
"""


def cents(amount: Decimal) -> Decimal:
    return amount.quantize(Decimal("0.01"), rounding=ROUND_HALF_UP)


def catalog(cli: Any, tmp_path: Path, rows: list[str]) -> None:
    (tmp_path / "p.toml").write_text(PROFILE, encoding="utf-8")
    (tmp_path / "s.csv").write_text(HEADER + "".join(r + "\n" for r in rows), encoding="utf-8")
    assert cli("init", "--no-demo").code == 0
    imported = cli("import", str(tmp_path / "p.toml"), str(tmp_path / "s.csv"))
    assert imported.code == 0, imported.err


def job(tmp_path: Path, deadline: str = "2026-12-03T00:00:00+08:00") -> Path:
    path = tmp_path / "job.toml"
    path.write_text(JOB.format(deadline=deadline), encoding="utf-8")
    return path


@pytest.mark.parametrize("price", EXTREMES)
@pytest.mark.parametrize("objective", ["cost", "time"])
def test_extreme_prices_plan_exactly_from_the_cli(
    cli: Any, tmp_path: Path, price: str, objective: str
) -> None:
    catalog(
        cli,
        tmp_path,
        [
            f"faraway,us-east-1,H100,8,hourly,{price},CNY,8,2026-11-25",
            f"faraway,us-east-1,H100,1,monthly,{price},CNY,8,2026-11-25",
        ],
    )
    args = ["plan", str(job(tmp_path)), "--json", "--today", "2026-11-29"]
    result = cli(*args, "--objective", objective)
    assert result.code == 0, result.out + result.err
    [plan] = result.json()["plans"]
    best = plan["best"]
    if objective == "cost":  # 16 card-hours: one month of one card, one period at the price
        assert Decimal(best["total_cost"]) == cents(Decimal(price))
        assert [s["billing"] for s in best["segments"]] == ["monthly"] and best["cards"] == 1
    else:  # the 8-card machine finishes 14 hours sooner: 2 h in one line item
        assert Decimal(best["total_cost"]) == cents(2 * Decimal(price))
        assert best["cards"] == 8
    assert plan["excluded"] == []


def two_hours(price: str) -> Decimal:
    """The cheapest 2 h at ``price``: one line item, or (interruptible, no restart overhead)
    two one-hour line items with an idle hour between, each rounded half up on its own."""
    return min(cents(2 * Decimal(price)), 2 * cents(Decimal(price)))


@pytest.mark.parametrize("price", EXTREMES)
def test_extreme_prices_plan_validated_and_quoted(cli: Any, tmp_path: Path, price: str) -> None:
    catalog(cli, tmp_path, [f"faraway,us-east-1,H100,8,hourly,{price},CNY,8,2026-11-25"])
    url = f"sqlite:///{tmp_path / 'catalog.db'}"  # the catalog of the cli fixture
    result, problems = plan_in_process(url, job(tmp_path))
    assert problems == []
    assert result.best is not None and result.best.total_cost == two_hours(price)
    quoted = cli("quote", str(job(tmp_path)), "--today", "2026-11-29", "--json")
    assert quoted.code == 0, quoted.out + quoted.err


def test_amounts_past_the_exact_range_leave_out_that_offer_only(cli: Any, tmp_path: Path) -> None:
    catalog(
        cli,
        tmp_path,
        [
            "faraway,us-east-1,H100,8,hourly,999999999999.99,CNY,8,2026-11-25",
            "faraway,us-east-1,A100,8,hourly,3.10,CNY,8,2026-11-25",
        ],
    )
    long_job = job(tmp_path, deadline="2027-12-01T00:00:00+08:00")  # 8,760 h × 10**12
    result = cli("--lang", "en", "plan", str(long_job), "--json", "--today", "2026-11-29")
    assert result.code == 0, result.out + result.err
    [plan] = result.json()["plans"]
    assert plan["best"]["gpu"].startswith("A100")
    [excluded] = plan["excluded"]
    assert excluded["kind"] == "amounts" and excluded["reasons"][0].startswith("amounts: ")


def test_an_offer_alone_past_the_range_is_a_plain_no_plan(cli: Any, tmp_path: Path) -> None:
    catalog(cli, tmp_path, ["faraway,us-east-1,H100,8,hourly,999999999999.99,CNY,8,2026-11-25"])
    long_job = job(tmp_path, deadline="2027-12-01T00:00:00+08:00")
    for objective in ("cost", "time"):
        args = ["plan", str(long_job), "--today", "2026-11-29", "--objective", objective]
        result = cli("--lang", "en", *args)
        words = " ".join((result.out + result.err).split())
        assert result.code == 4 and "unexpected" not in words, words
        assert "No feasible plan (amounts)" in words and "computes exactly" in words


def test_ticks_past_int64_are_summed_exactly() -> None:
    price = Decimal("123456789012.123456789012")
    ticks = [int(price.scaleb(12))] * 5 + [0, 7]
    whole, parts = _split_prefix(ticks, 10**10)
    sums = [sum(ticks[:n]) for n in range(len(ticks) + 1)]
    assert whole.tolist() == [s // 10**10 for s in sums]
    assert parts.tolist() == [s % 10**10 for s in sums]
    small = [3, 5, 9]
    assert [x.tolist() for x in _split_prefix(small, 4)] == [[0, 0, 2, 4], [0, 3, 0, 1]]


def test_every_segment_of_an_extreme_rate_costs_its_exact_rounded_sum() -> None:
    prices = (Decimal("123456789012.123456789012"), Decimal("0.000000000001"))
    costs = tuple(prices[t % 2] for t in range(12))
    rates = HourlyRates((HourlyRate("x", costs),), deadline=10, overhead=0)
    cent = int(rates.cent[0])
    for start in range(10):
        for end in range(start + 1, 11):
            exact = sum(costs[start:end], Decimal(0))
            got = (
                int(rates.a[0, end] - rates.a[0, start])
                + (cent // 2 + int(rates.b[0, end]) - int(rates.b[0, start])) // cent
            )
            assert Decimal(got) / 100 == cents(exact)


def test_a_problem_past_the_limit_is_refused_by_name_not_overflowed() -> None:
    price = Decimal(10**12)
    problem = ScheduleProblem(
        deadline_slot=6000,
        work_slots=2,
        interruptible=True,
        restart_overhead_slots=0,
        hourly=(HourlyRate("h", (price,) * 6001),),
    )
    assert int(price * 100) * 6001 >= CENT_LIMIT
    with pytest.raises(AmountsTooLargeError, match="computes exactly"):
        Ties.for_problem(problem)
    contract = ContractRate("c", period_slots=720, cost=Decimal(10**12) * 10**4)
    with pytest.raises(AmountsTooLargeError):
        solve_schedule(
            ScheduleProblem(
                deadline_slot=48,
                work_slots=2,
                interruptible=True,
                restart_overhead_slots=0,
                contracts=(contract,),
            )
        )
