"""The streamed planner on catalogs of two shapes (issue #26): the benchmark's generator
(``benchmarks/scale_catalog.py``) and one of another distribution (``benchmarks/shape_catalog.py``:
other GPU, billing, node-size, province and time-of-use mixes, contracts with minimum periods,
storage prices, providers of unequal size). Every example job must find the unpruned planner's
optimum on both, imported into a real SQLite catalog; and a quote parses the profiles only of
the providers whose offers it reads (issue #29, item 3).
"""

from __future__ import annotations

import dataclasses
import math
import random
import sys
from collections.abc import Callable
from datetime import date, datetime, timedelta
from decimal import Decimal as D
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import numpy as np
import pytest
from sqlalchemy import Engine

import comparator.catalog.queries as catalog_queries
from comparator.catalog.current_offers import current_offers
from comparator.catalog.db import make_engine, upgrade_schema
from comparator.catalog.queries import load_profiles
from comparator.catalog.queries_groups import CatalogGroups
from comparator.config import load_settings
from comparator.domain.job import Job, Requirements, Schedule, Workload, load_job
from comparator.plan import PlanContext, PlanResult, plan_job, screening
from comparator.plan.candidates import CandidateOptions
from comparator.plan.dp.dp_solver import solve_schedule
from comparator.plan.dp.grid import PriceBasis, slot_grid
from comparator.plan.entry import plan_job_read
from comparator.plan.prune.block_floors import SummaryFloors, factor_array, least_block_mean
from comparator.plan.prune.sql_prefilter import job_offer_filter
from comparator.plan.prune.streamed import rule_floors
from comparator.plan.selection import lower_bound_cents
from comparator.refresh.importer import import_files
from comparator.services.planning import context_from_settings
from tests.plan.test_plan_daily_cap import capped_problem
from tests.plan.test_plan_prune import CONTEXT
from tests.plan.test_plan_prune_stream import streamed as stream_planned
from tests.support.factories import make_offer

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks"))
import scale_catalog  # noqa: E402 (benchmarks/ is a folder of scripts)
import shape_catalog  # noqa: E402

EXAMPLES = (
    "lora-7b-guangdong",
    "storage-upload-windows",
    "seeds-13b-full-8xa100",
    "70b-full-multinode",
)
GENERATORS: dict[str, Callable[..., tuple[list[Path], list[Path]]]] = {
    "benchmark": scale_catalog.write_catalog,
    "other shape": shape_catalog.write_catalog,
}
TODAY = date(2026, 11, 29)


def generated(tmp: Path, shape: str, offers: int, providers: int) -> Engine:
    """A SQLite catalog of ``offers`` generated offers of ``shape`` from ``providers``."""
    sheets, profiles = GENERATORS[shape](tmp / "files", offers, providers)
    engine = make_engine(f"sqlite:///{tmp / 'catalog.db'}")
    upgrade_schema(engine)
    zone = load_settings({}).timezone
    import_files(engine, [], profiles, timezone=zone)
    import_files(engine, sheets, [], timezone=zone)
    return engine


def answer(result: PlanResult) -> Any:
    """The best plan and the alternatives shown, to the cent."""
    best = result.best
    if best is None:
        return None
    shown = [(a.provider, a.region, a.gpu, a.total_cost) for a in result.alternatives]
    return (best.provider, best.region, best.gpu, best.cards, best.total_cost, shown)


def same_optimum(engine: Engine, names: tuple[str, ...] = EXAMPLES) -> list[str]:
    """The example jobs streamed from the catalog against the unpruned planner over every
    current offer; returns the jobs that streamed (not fell back)."""
    context = context_from_settings(load_settings({}), today=TODAY)
    offers, profiles = current_offers(engine), load_profiles(engine)
    streamed = []
    for name in names:
        job = load_job(ROOT / "examples" / f"{name}.toml")
        result, read = plan_job_read(job, CatalogGroups(engine), None, context)
        unpruned = plan_job(job, offers, profiles, context, prune=False)
        assert answer(result) == answer(unpruned), (name, answer(result), answer(unpruned))
        if "groups_not_read" in result.stats:
            streamed.append(name)
            assert len(read.offers) < len(offers)
    return streamed


@pytest.mark.parametrize("shape", sorted(GENERATORS))
def test_every_example_finds_the_unpruned_optimum_on_small_catalogs(
    tmp_path: Path, shape: str
) -> None:
    """Fast tier: 300 offers from 15 providers of each shape, the README's job."""
    engine = generated(tmp_path, shape, 300, 15)
    assert same_optimum(engine, ("lora-7b-guangdong",))


@pytest.mark.slow
@pytest.mark.parametrize("shape", sorted(GENERATORS))
def test_every_example_finds_the_unpruned_optimum_at_10k(tmp_path: Path, shape: str) -> None:
    """The full run's version: 10,000 offers from 200 providers of each shape."""
    engine = generated(tmp_path, shape, 10_000, 200)
    assert len(same_optimum(engine)) >= 3


@pytest.mark.slow
@pytest.mark.long
@pytest.mark.parametrize("shape", sorted(GENERATORS))
def test_every_example_finds_the_unpruned_optimum_at_100k(tmp_path: Path, shape: str) -> None:
    """100,000 offers from 1,000 providers of each shape (issue #26: the same optimum as the
    unpruned planner on both catalogs at 100k)."""
    engine = generated(tmp_path, shape, 100_000, 1_000)
    assert len(same_optimum(engine)) >= 3  # the 13B job may fall back: it then reads all


@pytest.mark.slow
def test_a_quote_parses_only_the_profiles_of_providers_it_reads(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The 70B example on a catalog of many providers: a whole profile is built (from its
    record, or parsed) once per provider whose offers the walk read, not once per provider of
    the job's GPUs."""
    engine = generated(tmp_path, "other shape", 4_000, 1_000)
    parsed: list[str] = []
    parse, from_record = catalog_queries.parse_profile, catalog_queries.profile_from_record

    def counted(data: Any, source: str) -> Any:
        parsed.append(source)
        return parse(data, source)

    def counted_record(record: Any) -> Any:
        if (profile := from_record(record)) is not None:
            parsed.append(profile.id)
        return profile

    monkeypatch.setattr(catalog_queries, "parse_profile", counted)
    monkeypatch.setattr(catalog_queries, "profile_from_record", counted_record)
    context = context_from_settings(load_settings({}), today=TODAY)
    job = load_job(ROOT / "examples" / "70b-full-multinode.toml")
    source = CatalogGroups(engine)
    result, read = plan_job_read(job, source, None, context)
    assert result.best is not None and "groups_not_read" in result.stats
    providers_read = {o.provider for o in read.offers}
    assert len(parsed) == len(set(parsed)) == len(providers_read)
    assert set(read.profiles) == providers_read
    summarised = {o.provider for o in source.offers(job_offer_filter(job))}
    assert len(providers_read) * 3 < len(summarised)


def test_a_job_that_may_not_pause_is_bounded_by_its_cheapest_block() -> None:
    """400 random schedule problems that may not pause (hourly rates with time-of-use prices,
    contracts, windows): the bound over one block of W consecutive slots never exceeds the
    optimum and is at least the bound of the W cheapest slots."""
    rng = random.Random(2629)
    raised = 0
    for _ in range(400):
        problem = dataclasses.replace(
            capped_problem(rng), interruptible=False, max_run_slots_per_day=0
        )
        if rng.random() < 0.5:
            problem = dataclasses.replace(problem, storage_per_slot=D(rng.randint(0, 300)) / 100)
        profile = solve_schedule(problem, keep_trace=False)
        diagonal = profile.cheapest()
        bound = lower_bound_cents(problem)
        loose = lower_bound_cents(dataclasses.replace(problem, interruptible=True))
        if diagonal is not None:
            assert bound is not None and bound <= profile.cost_cents(diagonal), problem
        if bound is not None and loose is not None:
            assert bound >= loose
            raised += bound > loose
    assert raised > 20


def test_the_least_block_mean_is_the_least_mean_of_any_long_block() -> None:
    """500 random price rows with closed slots (inf): the least mean over blocks of at least
    ``fewest`` consecutive open slots is the brute-force one (only ``fewest`` to
    ``2·fewest − 1`` slots are read), None exactly when no such block exists."""
    rng = random.Random(2026)
    for _ in range(500):
        slots, fewest = rng.randint(1, 60), rng.randint(1, 30)
        row = [
            math.inf if rng.random() < 0.15 else rng.choice([0.4, 0.5, 1.0, 1.3]) * 7
            for _ in range(slots)
        ]
        brute = min(
            (
                sum(row[i:j]) / (j - i)
                for i in range(slots)
                for j in range(i + fewest, slots + 1)
                if all(math.isfinite(v) for v in row[i:j])
            ),
            default=None,
        )
        got = least_block_mean(np.array(row), fewest)
        assert (got is None) == (brute is None)
        if got is not None and brute is not None:
            assert got == pytest.approx(brute, rel=1e-12)


RULES = (
    "",
    "00:00-08:00*0.5",
    "22:00-08:00*0.6",
    "sat-sun*0.8",
    "23:00-07:00*0.4",
    "09:00-18:00*1.3",
    "12:00-14:00*0.9",
)
ZONES = ("Asia/Shanghai", "Asia/Kolkata", "Asia/Kathmandu", "UTC", "America/New_York")
WINDOWS = ((), ("mon-fri 09:00-18:00",), ("20:00-02:00", "sat-sun"))


def block_options(start: datetime, days: int, windows: tuple[str, ...]) -> CandidateOptions:
    prices = PriceBasis("CNY", context_from_settings(load_settings({}), today=TODAY).fx)
    end = start + timedelta(days=days)
    return CandidateOptions(start, end, False, 0, None, prices, run_windows=windows)


def test_the_summaries_block_floor_never_exceeds_an_uninterrupted_blocks_mean() -> None:
    """300 random sets of rules, windows, run windows, zones and block lengths: the summaries'
    least mean of ``min(cap, ψ)`` over the widened window (read in one zone; ``ψ`` the least
    factor over its floor of the rules between the set's least and greatest) never exceeds the
    mean of ``min(cap, f_r/m_r)`` for the cheapest rule of the set, slot by slot, over any
    block of at least ``fewest`` consecutive allowed slots of a provider's own grid in a zone
    without daylight saving; a zone that changes its offset in the window gets none."""
    rng = random.Random(613)
    checked = unsteady = 0
    for _ in range(300):
        start = datetime(2027, 3, 8, tzinfo=ZoneInfo("Asia/Shanghai")) + timedelta(
            hours=rng.randint(-24 * 100, 24 * 10)
        )
        days, windows = rng.randint(1, 5), rng.choice(WINDOWS)
        rules = sorted(set(rng.sample(RULES, rng.randint(1, 3))))
        options = block_options(start, days, windows)
        floored = rule_floors(sorted(RULES), start, options.deadline, windows)
        floors = SummaryFloors(options, most_runs_of(options), floored)
        span = (rules[0], rules[-1])
        curve = floors.curve(span)
        if curve is None:
            continue
        fewest = rng.randint(1, 24 * days)
        cap = rng.choice([math.inf, curve.most * rng.random() * 1.2])
        mean = floors.capped_mean(span, fewest, cap, curve)
        zone = ZoneInfo(rng.choice(ZONES))
        grid = slot_grid(start, options.deadline, zone)
        if not floors.steady_zone(zone):  # its offset changes in the widened window
            wide = slot_grid(start - timedelta(days=1), options.deadline + timedelta(days=1), zone)
            assert len({wide.at(t).utcoffset() for t in range(wide.deadline_slot)}) > 1
            unsteady += 1
            continue
        own = [factor_array(r, grid, windows) for r in rules]
        if mean is None or any(f is None for f in own):
            continue
        cheapest = np.min([f / floored[r] for f, r in zip(own, rules, strict=True)], axis=0)
        capped = np.minimum(cheapest, cap)
        for i in range(len(capped)):
            for j in range(i + fewest, len(capped) + 1):
                if np.isfinite(capped[i:j]).all():
                    assert mean <= capped[i:j].mean() * (1 + 1e-12)
                    checked += 1
    assert checked > 1000 and unsteady > 0


def most_runs_of(options: CandidateOptions) -> int:
    return math.ceil((options.deadline - options.earliest).total_seconds() / 3600) + 2


def test_offers_of_one_machine_with_two_rules_are_floored_by_their_cheapest_slots() -> None:
    """A weekend job that may not pause on one machine with a night rule and a weekend rule:
    the DP switches between them without a pause (nights on one, days on the other), so the
    optimum is below each offer's own least block mean; the streamed and pruned planners
    still find it (the floors take the cheaper offer slot by slot, and a summary of two rules
    gets no block floor)."""
    saturday = datetime(2026, 12, 5, tzinfo=ZoneInfo("Asia/Shanghai"))
    offers = [
        make_offer("1", "hourly", "10", provider="m", country="SG", time_of_use="00:00-08:00*0.5"),
        make_offer("2", "hourly", "10", provider="m", country="SG", time_of_use="sat-sun*0.7"),
        make_offer("3", "hourly", "9", provider="n", country="SG", region="s"),
    ]
    job = Job(
        name="weekend",
        schedule=Schedule(saturday, saturday + timedelta(days=2), False, 0),
        workload=Workload(D(48), "A100-SXM4-80GB", 1),
        requirements=Requirements(spot=True),
        source="weekend.toml",
    )
    context = PlanContext(today=TODAY, fx=CONTEXT.fx, top=1)
    unpruned = plan_job(job, offers, {}, context, prune=False)
    assert unpruned.best is not None and unpruned.best.total_cost == D("304.00")
    each_own_mean = min(10 * (16 * 0.5 + 32) / 48, 10 * 0.7) * 48  # 336: not a floor
    assert each_own_mean > 304
    pruned = plan_job(job, offers, {}, context)
    got = stream_planned(job, offers, context)
    assert got is not None
    for result in (pruned, got[0]):
        assert answer(result) == answer(unpruned)


@pytest.mark.slow
def test_each_provider_checked_once_reports_what_checking_every_batch_did(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The 13B job streamed from 4,000 offers of 150 providers, whose offers are read over
    several batches: checking each provider once for the walk gives the same compliance
    reports, warnings and exclusions as checking every batch afresh."""
    engine = generated(tmp_path, "other shape", 4_000, 150)
    context = context_from_settings(load_settings({}), today=TODAY)
    job = load_job(ROOT / "examples" / "seeds-13b-full-8xa100.toml")
    batches: list[set[str]] = []
    source = CatalogGroups(engine)
    read = source.read

    def recorded(wanted: Any, groups: Any) -> Any:
        offers = read(wanted, groups)
        batches.append({o.provider for o in offers})
        return offers

    monkeypatch.setattr(source, "read", recorded)
    once, _ = plan_job_read(job, source, None, context)
    assert "groups_not_read" in once.stats
    seen = [p for batch in batches for p in batch]
    assert len(seen) > len(set(seen))  # some provider's offers came in several batches
    compliant = screening.OfferScreen.compliant
    monkeypatch.setattr(
        screening.OfferScreen,
        "compliant",
        lambda self, offers, profiles, known=None: compliant(self, offers, profiles),
    )
    every, _ = plan_job_read(job, source, None, context)
    assert answer(once) == answer(every)
    assert once.compliance == every.compliance and once.warnings == every.warnings
    assert once.excluded == every.excluded
