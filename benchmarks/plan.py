"""Benchmark the planner: one job, a 60-day hourly horizon, time-of-use prices, three contract
types (daily, weekly, monthly) and 200 offers; then HiGHS on the same instance.

    .venv/bin/python benchmarks/plan.py [--seed 1] [--highs-time-limit 60] [--no-highs]
                                        [--max-hours-per-day 8]
                                        [--run-windows "mon-fri 09:00-18:00"]

Prints the planner's wall time (target < 2 s), the number of candidates solved exactly and
pruned by the lower bound, and HiGHS's status, objective, bound and time on the time-indexed
MILP of the same candidates (:mod:`comparator.plan.joint.milp.milp_model`), with the ratio of the two times.
With ``--max-hours-per-day N`` it also plans the job with ``[schedule] max_hours_per_day = N``
(the DP's hours-run-today axis) and prints both CPU times (user + sys), their ratio and the
process's peak RSS after each; ``--run-windows W`` (repeatable) does the same with
``[schedule] run_windows``, and with both flags also both together.
The catalog is synthetic (seeded): 50 (provider, region, GPU) groups × 4 offers of 8-card
nodes — hourly with night / weekend / public-holiday discounts, daily, weekly and monthly.
Prices are whole cents after every time-of-use factor, so both methods price alike.
"""

from __future__ import annotations

import argparse
import random
import resource
import statistics
import sys
import time
from dataclasses import replace
from datetime import date, datetime
from decimal import Decimal
from pathlib import Path
from zoneinfo import ZoneInfo

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from comparator.catalog.models import OfferView
from comparator.domain.job import Job, Requirements, Schedule, Workload
from comparator.domain.money import FxTable
from comparator.plan import plan_job
from comparator.plan.job_plan import PlanContext, prepare
from comparator.plan.joint.milp.milp_model import MilpJob, solve_milp

SHANGHAI = ZoneInfo("Asia/Shanghai")
START = datetime(2026, 9, 1, tzinfo=SHANGHAI)  # the window holds National Day 2026
GPUS = {
    "A100-SXM4-80GB": 88,
    "A800-SXM4-80GB": 84,
    "H800-SXM5-80GB": 150,
    "L40S": 44,
    "RTX4090": 18,
}
TIME_OF_USE = [
    "00:00-08:00*0.5; sat-sun*0.75; holiday*0.5",
    "22:00-08:00*0.5",
    "workday 09:00-18:00*1.25; 00:00-08:00*0.75",
    "sat-sun*0.5",
    "",
]
CONTRACTS = {
    "daily": (24, Decimal("0.80")),
    "weekly": (168, Decimal("0.65")),
    "monthly": (720, Decimal("0.50")),
}


def offer(
    offer_id: int, group: int, gpu: str, billing: str, price: Decimal, time_of_use: str
) -> OfferView:
    return OfferView(
        offer_id=str(offer_id),
        snapshot_id="1",
        provider=f"bench-{group // 2:02d}",
        provider_name=f"Bench {group // 2:02d}",
        region=f"sg-{group % 2}",
        region_name=f"Region {group % 2}",
        country="SG",
        province=None,
        city=None,
        mainland=False,
        gpu=gpu,
        cards=8,
        node_cards=8,
        billing=billing,
        price=price,
        currency="CNY",
        time_of_use=time_of_use,
        stock=None,
        min_units=1,
        interconnect="nvlink",
        network="ib-200g",
        tax_inclusive=True,
        vat_rate=Decimal("0.06"),
        observed_at=START,
        source="benchmark",
    )


CHEAP_CONTRACTS = {  # contracts that pay off even when the job runs a third of their hours
    "daily": (24, Decimal("0.25")),
    "weekly": (168, Decimal("0.20")),
    "monthly": (720, Decimal("0.15")),
}


def catalog(seed: int, contracts: dict[str, tuple[int, Decimal]] = CONTRACTS) -> list[OfferView]:
    """200 offers: 50 groups of hourly (time of use), daily, weekly and monthly."""
    rng = random.Random(seed)
    offers: list[OfferView] = []
    for group in range(50):
        gpu = rng.choice(list(GPUS))
        hourly = Decimal(GPUS[gpu] * rng.randint(85, 125)) / 100 * 4  # whole cents × quarters
        hourly = hourly.quantize(Decimal("0.04"))
        offers.append(offer(len(offers), group, gpu, "hourly", hourly, rng.choice(TIME_OF_USE)))
        for billing, (hours, discount) in contracts.items():
            price = hourly * hours * discount * Decimal(rng.randint(90, 110)) / 100
            offers.append(offer(len(offers), group, gpu, billing, price.quantize(Decimal(1)), ""))
    return offers


def job(card_hours: int) -> Job:
    deadline = datetime(2026, 10, 31, tzinfo=SHANGHAI)  # 60 days
    return Job(
        name="benchmark",
        schedule=Schedule(START, deadline, True, 1),
        workload=Workload(Decimal(card_hours), "A100-SXM4-80GB", 8),
        requirements=Requirements(),
        source="benchmark",
    )


def _cpu_s() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def constrained_run(
    the_job: Job, offers: list[OfferView], context: PlanContext, cap: int | None, windows: list[str]
) -> None:
    """The same job without and with a daily cap and/or run windows: CPU seconds, the ratio to
    the unconstrained run measured in the same process, peak RSS."""
    variants = [("no cap", the_job.schedule)]
    if cap:
        variants.append(
            (f"max_hours_per_day = {cap}", replace(the_job.schedule, max_hours_per_day=cap))
        )
    if windows:
        windowed = replace(the_job.schedule, run_windows=tuple(windows))
        variants.append((f"run_windows = {windows}", windowed))
        if cap:
            variants.append(("both", replace(windowed, max_hours_per_day=cap)))
    figures = []
    for label, schedule in variants:
        before = _cpu_s()
        result = plan_job(replace(the_job, schedule=schedule), offers, {}, context)
        cpu = _cpu_s() - before
        rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        best = result.best
        found = f"{best.total_cost} CNY, finish {best.finish:%m-%d %H:%M}" if best else "none"
        print(f"{label}: CPU {cpu:.3f} s, peak RSS {rss:.0f} MiB so far — {found}")
        figures.append(cpu)
    for (label, _), cpu in zip(variants[1:], figures[1:], strict=True):
        print(f"ratio {label} / no cap CPU: {cpu / figures[0]:.1f}×")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--card-hours", type=int, default=1600)
    parser.add_argument("--highs-time-limit", type=float, default=60.0)
    parser.add_argument("--repeat", type=int, default=3, help="planner runs (median shown)")
    parser.add_argument("--no-highs", action="store_true")
    parser.add_argument("--max-hours-per-day", type=int, default=None)
    parser.add_argument(
        "--run-windows", action="append", default=[], help='e.g. "mon-fri 09:00-18:00"'
    )
    parser.add_argument(
        "--cheap-contracts",
        action="store_true",
        help="daily/weekly/monthly at 25/20/15 %% of the hourly price (they pay off paused)",
    )
    args = parser.parse_args()
    offers = catalog(args.seed, CHEAP_CONTRACTS if args.cheap_contracts else CONTRACTS)
    context = PlanContext(
        today=date(2026, 8, 30), fx=FxTable({"CNY": Decimal(1)}, date(2026, 8, 30))
    )
    the_job = job(args.card_hours)
    plan_job(the_job, offers[:4], {}, context)  # warm the imports and caches once
    times = []
    for _ in range(max(1, args.repeat)):
        started = time.perf_counter()
        result = plan_job(the_job, offers, {}, context)
        times.append(time.perf_counter() - started)
    planner_s = statistics.median(times)
    best = result.best
    assert best is not None
    print(
        f"offers: {len(offers)}; horizon: 60 days ({60 * 24} hourly slots); "
        f"work: {best.work_hours} h on {best.cards} × {best.gpu}"
    )
    print(
        f"planner (exact DP): {planner_s:.3f} s median of {len(times)} "
        f"(min {min(times):.3f} s, target < 2 s) — best {best.total_cost} CNY "
        f"({best.provider}/{best.region}, {len(best.segments)} segments), "
        f"candidates {result.stats['candidates']}, solved {result.stats['solved']}, "
        f"pruned by the bound {result.stats['pruned']}"
    )
    if args.max_hours_per_day or args.run_windows:
        constrained_run(the_job, offers, context, args.max_hours_per_day, args.run_windows)
    if args.no_highs:
        return
    candidates = prepare(the_job, offers, {}, context).built.candidates
    started = time.perf_counter()
    outcome = solve_milp(
        [MilpJob("benchmark", candidates)], {}, time_limit_s=args.highs_time_limit, threads=1
    )
    highs_s = time.perf_counter() - started
    optimum = float(best.total_cost) * 100
    if outcome.objective_cents is None:
        objective = "no solution found"
    else:
        excess = (outcome.objective_cents - optimum) / optimum
        objective = f"{outcome.objective_cents / 100:.2f} CNY ({excess:+.1%} vs the DP optimum)"
    bound = "none" if outcome.bound_cents is None else f"{outcome.bound_cents / 100:.2f} CNY"
    print(
        f"HiGHS (time-indexed MILP, same {len(candidates)} candidates, 1 thread): "
        f"{highs_s:.1f} s (model building included; solver {outcome.seconds:.1f} s, limit "
        f"{args.highs_time_limit:g} s), status {outcome.status}, best found {objective}, "
        f"proven bound {bound}"
    )
    proven = "" if outcome.proven else " (HiGHS stopped at its time limit without a proof)"
    print(f"ratio HiGHS / planner: {highs_s / planner_s:.0f}×{proven}")


if __name__ == "__main__":
    main()
