"""The data bill in every pruning bound (docs/planner-pruning.md, rule 6).

A job with ``[data]`` pays its data centre's storage for every run slot (and every paused one)
and the upload's storage and the egress whatever the schedule; the group, count, summary and
candidate bounds add the part every plan must pay. These properties would fail if a bound
counted more than that: on random catalogs whose data centres state storage prices the pruned
and streamed planners equal the unpruned one to the cent, every key in the walk's chain is
below the next and below the candidate's optimum, and random schedule problems with storage
are never bounded above their optimum.
"""

from __future__ import annotations

import dataclasses
import random
from decimal import Decimal

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from comparator.domain.billing import HOURLY_MODES
from comparator.domain.job import DataNeeds, Job
from comparator.domain.profile import DataCenter, ProviderProfile
from comparator.domain.storage import StorageTerms
from comparator.plan import PlanContext, plan_job
from comparator.plan.dp.dp_solver import solve_schedule
from comparator.plan.dp.problem import ContractRate, HourlyRate
from comparator.plan.job_plan import prepare
from comparator.plan.prune.block_floors import SummaryFloors
from comparator.plan.prune.bounds import (
    FIRST,
    count_key,
    floors_of,
    group_key,
    group_runs,
    lengths_envelope,
)
from comparator.plan.prune.pruning import READ_BATCH, kept_counts
from comparator.plan.prune.streamed import (
    contract_runs,
    most_runs,
    rule_floors,
    summary_entries,
)
from comparator.plan.selection import (
    PlanOptions,
    _evaluate,
    _usable,
    candidate_bound_cents,
    lower_bound_cents,
)
from comparator.plan.work import work_table
from tests.plan.test_plan_daily_cap import capped_problem
from tests.plan.test_plan_prune import CONTEXT, a_job, answer, catalog, dominated_ids, offer_fields
from tests.plan.test_plan_prune_stream import agree, streamed, summaries_of

D = Decimal
terms_fields = st.tuples(
    st.sampled_from([None, "0.05", "0.36", "3.6", "36"]),  # CNY per GB-month
    st.sampled_from([0, 0, 100]),  # free GB
    st.sampled_from([None, "1", "10"]),  # upload Gbit/s
    st.sampled_from([None, "0.5"]),  # egress CNY per GB
)
data_fields = st.tuples(st.sampled_from([0, 200, 2000]), st.sampled_from([0, 40]))
WINDOWS = st.sampled_from(
    [(), ("mon-fri 09:00-18:00",), ("06:00-12:00",), ("20:00-02:00", "sat-sun")]
)


def profiles(terms: list[tuple[object, ...]], providers: int = 6) -> dict[str, ProviderProfile]:
    """The random catalogs' providers p0…p5, data centres r0 and r1 with these terms (cycled)."""
    out = {}
    for p in range(providers):
        centres = []
        for r in range(2):
            month, free, gbps, egress = terms[(2 * p + r) % len(terms)]
            storage = StorageTerms(
                price_gb_month=None if month is None else D(str(month)),
                free_gb=D(str(free)),
                upload_gbps=None if gbps is None else D(str(gbps)),
                egress_price_gb=None if egress is None else D(str(egress)),
            )
            centres.append(DataCenter(f"r{r}", f"R{r}", "SG", storage=storage))
        out[f"p{p}"] = ProviderProfile(
            id=f"p{p}", name=f"P{p}", country="SG", datacenters=(*centres,)
        )
    return out


def data_job(
    card_hours: int,
    days: int,
    interruptible: bool,
    data: tuple[int, int],
    windows: tuple[str, ...] = (),
    cap: int | None = None,
) -> Job:
    job = a_job(card_hours, days, interruptible, None)
    schedule = dataclasses.replace(job.schedule, run_windows=windows, max_hours_per_day=cap)
    return dataclasses.replace(job, data=DataNeeds(D(data[0]), D(data[1])), schedule=schedule)


@pytest.mark.slow
@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    rows=st.lists(offer_fields, min_size=1, max_size=30),
    terms=st.lists(terms_fields, min_size=1, max_size=4),
    data=data_fields,
    card_hours=st.integers(4, 200),
    days=st.integers(1, 4),
    interruptible=st.booleans(),
    top=st.integers(0, 3),
    windows=WINDOWS,
    cap=st.sampled_from([None, None, 6]),
)
def test_pruned_streamed_and_unpruned_agree_with_a_data_bill(
    rows: list[tuple[object, ...]],
    terms: list[tuple[object, ...]],
    data: tuple[int, int],
    card_hours: int,
    days: int,
    interruptible: bool,
    top: int,
    windows: tuple[str, ...],
    cap: int | None,
) -> None:
    """And under run windows and a daily cap: the floors read only the slots they allow."""
    offers, known = catalog(rows), profiles(terms)
    job = data_job(card_hours, days, interruptible, data, windows, cap)
    context = PlanContext(today=CONTEXT.today, fx=CONTEXT.fx, top=top)
    unpruned = plan_job(job, offers, known, context, prune=False)
    pruned = plan_job(job, offers, known, context)
    dominated = dominated_ids(job, offers, context, known)
    assert answer(pruned, dominated) == answer(unpruned, dominated)
    got = streamed(job, offers, context, known)
    if got is None:
        assert unpruned.best is None
        return
    agree(got[0], got[1], unpruned, dominated)


_A100_AT_100 = (0, 0, "A100-SXM4-80GB", 1, "hourly", 100, None, 1, "", None)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    rows=st.lists(offer_fields, min_size=1, max_size=20),
    terms=st.lists(terms_fields, min_size=1, max_size=4),
    data=data_fields,
    card_hours=st.integers(4, 200),
    days=st.integers(1, 3),
    interruptible=st.booleans(),
    windows=WINDOWS,
    cap=st.sampled_from([None, None, 6]),
)
@example(
    rows=[*[_A100_AT_100] * 3, (*_A100_AT_100[:8], "00:00-08:00*0.5", None)],
    terms=[(None, 0, None, None)],
    data=(0, 0),
    card_hours=19,
    days=3,
    interruptible=False,
    windows=("06:00-12:00",),
    cap=None,
)
def test_every_key_of_the_walk_is_below_the_next_and_below_the_optimum(
    rows: list[tuple[object, ...]],
    terms: list[tuple[object, ...]],
    data: tuple[int, int],
    card_hours: int,
    days: int,
    interruptible: bool,
    windows: tuple[str, ...],
    cap: int | None,
) -> None:
    """summary key ≤ group key ≤ the walk's count key ≤ candidate bound ≤ candidate optimum,
    each with the data centre's bill (rule 2's Claim 1, rule 5's Claim A, rule 6; a job that
    may not pause floored by its least block mean); a count is keyed FIRST exactly when its
    candidate has no bound (its work cannot fit the rentable slots).

    A candidate with a bound but no schedule at all (the example: 3 cards need an unbroken
    7-hour block, the window opens 6 hours a day) may be bounded below its group's key: any
    figure bounds a cost that does not exist, and the walk pops it next and drops it. Its
    count key stays below its bound. (Found by 320 examples a run; every feasible candidate
    of 3,000 kept the whole chain.)"""
    offers, known = catalog(rows), profiles(terms)
    job = data_job(card_hours, days, interruptible, data, windows, cap)
    lazy = prepare(job, offers, known, CONTEXT, prune=True).lazy
    assert lazy is not None
    builder, options = lazy.builder, lazy.builder.options
    rules = sorted({o.time_of_use for o in offers if o.billing in HOURLY_MODES})
    factors = rule_floors(rules, job.schedule.earliest_start, job.schedule.deadline, windows)
    table = work_table(job, {o.gpu for o in offers})
    unread = {
        entry[4][0]: entry[0]
        for entry in summary_entries(
            summaries_of(offers, factors, most_runs(job), contract_runs(job)),
            table,
            builder,
            options.prices,
            "cost",
            SummaryFloors(options, most_runs(job), factors),
        )
    }
    for g in lazy.groups:
        bill = builder.bill(g.key)
        floors = floors_of(g, options)
        group = group_key(g, floors, options, "cost", bill)
        assert unread[g.key] <= group
        lengths = lengths_envelope(g, options, group_runs(g, options))
        for cards in kept_counts(g, options):
            count = count_key(g, floors, cards, options, "cost", bill, lengths)
            candidate = builder.candidate(g.key, g.offers, g.prices, g.work, cards, g.grid)
            assert count is not None and candidate is not None
            bound = candidate_bound_cents(candidate)
            assert (count == FIRST) == (bound is None)  # FIRST: exactly the unbounded counts
            if bound is None:
                continue
            pushed = max(count, group)  # the walk's count key (the block floor may be above)
            solved = _evaluate(candidate, PlanOptions())
            assert count[1] <= bound
            if solved.cheapest_cents is not None:  # a count with no schedule has no chain:
                assert pushed[1] <= bound <= solved.cheapest_cents  # see the docstring


def test_storage_bounds_random_problems_from_below() -> None:
    """600 random schedule problems, every one with storage (capped, windowed or plain): the
    bound, storage included, never exceeds the optimum."""
    rng = random.Random(1506)
    for index in range(600):
        problem = capped_problem(rng)
        if index % 2:
            problem = dataclasses.replace(problem, max_run_slots_per_day=0)
        storage = D(rng.randint(1, 500)) / 100
        windows = tuple(rng.random() < 0.7 for _ in range(problem.deadline_slot + 30))
        hourly = tuple(
            dataclasses.replace(
                r, available=tuple(a and r.usable(t) for t, a in enumerate(windows))
            )
            for r in problem.hourly
        )
        contracts = tuple(
            dataclasses.replace(c, available=windows[: problem.deadline_slot])
            for c in problem.contracts
        )
        if index % 3:  # run windows on every rate: contracts pay for idle closed slots
            problem = dataclasses.replace(problem, hourly=hourly, contracts=contracts)
        problem = dataclasses.replace(problem, storage_per_slot=storage)
        profile = solve_schedule(problem, keep_trace=False)
        diagonal = profile.cheapest()
        bound = lower_bound_cents(problem)
        if diagonal is not None:
            assert bound is not None and bound <= profile.cost_cents(diagonal), problem
            plain = lower_bound_cents(dataclasses.replace(problem, storage_per_slot=D(0)))
            assert plain is not None
            assert bound - plain >= problem.storage_cents * problem.work_slots


def test_a_dear_disk_leaves_groups_with_cheap_cards_unread() -> None:
    """40 providers with cheaper cards than the best plan's, each on a data centre whose disk
    costs ¥100 an hour for the 2 TB: their keys, with the storage every plan there pays, sit
    above the best plan's cost, so only the first batch is read (without the data bill in the
    keys every one of them came before the best plan's group: all were read)."""
    cheap_disk = (0, 0, "A100-SXM4-80GB", 1, "hourly", 900, None, 1, "", None)
    dear_disk = [(p, 1, "A100-SXM4-80GB", 1, "hourly", 700, None, 1, "", None) for p in range(40)]
    offers = catalog([cheap_disk, *dear_disk])
    free = ("0.01", 0, "10", None)
    dear = ("36", 0, "10", None)  # 2000 GB × ¥36 / 720 h = ¥100 an hour
    known = profiles([free, dear], providers=40)
    job = data_job(16, 3, True, (2000, 0))
    context = PlanContext(today=CONTEXT.today, fx=CONTEXT.fx, top=0)
    unpruned = plan_job(job, offers, known, context, prune=False)
    got = streamed(job, offers, context, known)
    assert got is not None and unpruned.best is not None
    result, read = got
    agree(result, read, unpruned, frozenset())
    assert (unpruned.best.provider, unpruned.best.region) == ("p0", "r0")
    assert result.stats["groups_not_read"] == 40 - (READ_BATCH - 1)


def test_the_vectorised_usable_mask_is_the_rates_own() -> None:
    """``solve._usable`` (numpy) says what ``rate.usable(t)`` says, slot by slot, for hourly
    rates shorter or longer than the window and masks of any length."""
    rng = random.Random(77)
    for _ in range(300):
        problem = capped_problem(rng)
        rates: list[HourlyRate | ContractRate] = [*problem.hourly, *problem.contracts]
        for rate in rates:
            mask = tuple(rng.random() < 0.5 for _ in range(rng.randint(0, 12)))
            for available in (rate.available, mask):
                changed = dataclasses.replace(rate, available=available)
                for slots in (0, 1, 5, 12):
                    expected = [changed.usable(t) for t in range(slots)]
                    assert _usable(changed, slots).tolist() == expected
