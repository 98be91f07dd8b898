"""Benchmark the shared plan of several jobs whose stock binds, with jobs the MILP cannot price
exactly (a daily cap, migrations between a per-card and a whole-node machine) and free trials
(each provider's to one job of the plan).

    .venv/bin/python benchmarks/shared_plan.py [--instances 40] [--seed 1] [--time-limit 20]

Per seeded random instance (2–4 jobs of 8 cards, 24–48 h horizons, two providers with a
whole-node and a per-card hourly offer each, night discounts, small stock, some free trials)
it plans the jobs together (``plan_jobs``) and, as a reference, plans them one after another in
every order (the exact per-job DP on the stock and trials the previous ones leave, all n!
orders): the best ordering is a feasible joint plan, so ``total − best ordering`` shows how
poor the plan is, and ``best ordering − bound`` bounds how weak the lower bound can be. It
prints one line per instance, then the distribution of the reported gap, how often the plan
lost to an ordering, the fallback jobs, and the CPU time (user + sys) of ``plan_jobs`` against
the orderings'.
"""

from __future__ import annotations

import argparse
import itertools
import random
import resource
import statistics
import sys
from datetime import date, datetime, timedelta
from decimal import Decimal
from pathlib import Path
from zoneinfo import ZoneInfo

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from comparator.domain.job import Job, Requirements, Schedule, Workload
from comparator.domain.money import FxTable
from comparator.domain.offer_view import OfferView
from comparator.errors import PlanError
from comparator.plan.context import PlanContext
from comparator.plan.job_plan import prepare
from comparator.plan.joint.joint_plan import plan_jobs
from comparator.plan.joint.stock import Usage, add_usage, cheapest_on, trial_providers, usage_of

SHANGHAI = ZoneInfo("Asia/Shanghai")
START = datetime(2026, 12, 1, tzinfo=SHANGHAI)
NIGHTS = ["00:00-08:00*0.5", "22:00-06:00*0.75", ""]


def _offer(
    oid: str, provider: str, cards: int, price: Decimal, stock: int, **more: object
) -> OfferView:
    fields: dict[str, object] = {
        "offer_id": oid,
        "snapshot_id": "1",
        "provider": provider,
        "provider_name": provider,
        "region": f"{provider}-1",
        "region_name": f"{provider}-1",
        "country": "SG",
        "province": None,
        "city": None,
        "mainland": False,
        "gpu": "A100-SXM4-80GB",
        "cards": cards,
        "node_cards": 8,
        "billing": "hourly",
        "price": price,
        "currency": "CNY",
        "time_of_use": "",
        "stock": stock,
        "min_units": 1,
        "interconnect": "nvlink",
        "network": "ib-200g",
        "tax_inclusive": True,
        "vat_rate": Decimal("0.06"),
        "observed_at": START,
        "source": "benchmark",
    }
    fields.update(more)
    return OfferView(**fields)  # type: ignore[arg-type]


def offers_for(rng: random.Random) -> list[OfferView]:
    """Two providers, each a whole-node and a per-card hourly offer (two machines)."""
    offers = []
    for p in range(2):
        node = Decimal(rng.randint(1500, 2500)) * Decimal("0.04")  # whole cents × quarters
        card = (node / 8 * Decimal(rng.randint(95, 115)) / 100).quantize(Decimal("0.04"))
        trial = rng.choice([0, 0, 2, 4])
        night = rng.choice(NIGHTS)
        offers.append(
            _offer(
                f"n{p}",
                f"p{p}",
                8,
                node,
                rng.randint(1, 2),
                time_of_use=night,
                free_trial_hours=trial,
            )
        )
        offers.append(
            _offer(
                f"c{p}", f"p{p}", 1, card, 8 * rng.randint(0, 1) + 8, time_of_use=rng.choice(NIGHTS)
            )
        )
    return offers


def jobs_for(rng: random.Random) -> list[Job]:
    jobs = []
    for n in range(rng.randint(2, 4)):
        hours = rng.randint(6, 16)
        interruptible = rng.random() < 0.7
        schedule = Schedule(
            START,
            START + timedelta(hours=rng.choice([24, 36, 48])),
            interruptible,
            rng.choice([0, 1]) if interruptible else 0,
            max_hours_per_day=rng.choice([None, None, 12]),
        )
        jobs.append(
            Job(
                name=f"j{n}",
                schedule=schedule,
                workload=Workload(Decimal(hours * 8), "A100-SXM4-80GB", 8),
                requirements=Requirements(),
                source=f"j{n}.toml",
                use_free_trial=rng.random() < 0.5,
            )
        )
    return jobs


def context() -> PlanContext:
    return PlanContext(
        today=date(2026, 11, 29), fx=FxTable({"CNY": Decimal(1)}, date(2026, 11, 27))
    )


def best_ordering(jobs: list[Job], offers: list[OfferView]) -> int | None:
    """The cheapest of the n! sequential plans (cents), None when no order places them all;
    each job without the free trials the jobs before it took (a provider's trial is one job's)."""
    prepared = [prepare(j, offers, {}, context()) for j in jobs]
    placeable = [i for i, p in enumerate(prepared) if cheapest_on(p.built.candidates, {}, None)]
    best = None
    for order in itertools.permutations(placeable):
        used: Usage = {}
        taken: set[str] = set()
        cents = 0
        for i in order:
            found = cheapest_on(prepared[i].built.candidates, used, None, taken)
            if found is None:
                break
            cents += int(found[1].cost * 100) + found[0].bill.fixed_cents
            add_usage(used, usage_of(*found))
            taken.update(trial_providers([found]))
        else:
            best = cents if best is None else min(best, cents)
    return best


def _cpu_s() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--instances", type=int, default=40)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--time-limit", type=float, default=20.0)
    args = parser.parse_args()
    gaps, losses, slack, fallbacks = [], 0, [], 0
    shared_cpu = order_cpu = 0.0
    for k in range(args.instances):
        rng = random.Random(args.seed * 10_000 + k)
        offers, jobs = offers_for(rng), jobs_for(rng)
        before = _cpu_s()
        try:
            shared = plan_jobs(jobs, offers, {}, context(), time_limit_s=args.time_limit)
        except PlanError as error:  # an instance whose jobs cannot all be placed
            print(f"#{k:02d} {len(jobs)} jobs: {type(error).__name__}")
            continue
        middle = _cpu_s()
        reference = best_ordering(jobs, offers)
        order_cpu += _cpu_s() - middle
        shared_cpu += middle - before
        total = int(shared.total_cost * 100)
        bound = int((shared.lower_bound or 0) * 100)
        gaps.append(shared.gap)
        fallbacks += len(shared.dp_fallback)
        if reference is not None and total > reference:
            losses += 1
        if reference is not None and reference:
            slack.append((reference - bound) / reference)
        ref = "—" if reference is None else f"{reference / 100:.2f}"
        print(
            f"#{k:02d} {len(jobs)} jobs, fallback {sorted(shared.dp_fallback)}: total "
            f"{total / 100:.2f}, best ordering {ref}, bound {bound / 100:.2f}, gap "
            f"{shared.gap:.2%}, {shared.method}{' optimal' if shared.optimal else ''}, "
            f"CPU {middle - before:.2f} s"
        )
    if not gaps:
        return
    quantiles = statistics.quantiles(gaps, n=10) if len(gaps) > 1 else gaps * 9
    print(
        f"\n{len(gaps)} instances, {fallbacks} fallback jobs; reported gap: median "
        f"{statistics.median(gaps):.2%}, p90 {quantiles[8]:.2%}, max {max(gaps):.2%}; "
        f"proven optimal {sum(g == 0 for g in gaps)}"
    )
    print(f"plans dearer than the best ordering: {losses}")
    if slack:
        print(
            "room between the best ordering and the bound: median "
            f"{statistics.median(slack):.2%}, max {max(slack):.2%}"
        )
    print(f"CPU (user+sys): plan_jobs {shared_cpu:.2f} s, all orderings {order_cpu:.2f} s")


if __name__ == "__main__":
    main()
