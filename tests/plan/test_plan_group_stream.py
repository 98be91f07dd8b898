"""The catalog orders the groups, the planner keys only the head (docs/planner-pruning.md,
rule 5, Claim C).

The catalog's temporary table of summaries answers as the in-memory stream does (the same
shapes, providers, groups and a nondecreasing order, across page boundaries) on SQLite and
PostgreSQL; no group's key is below the frontier of its place in the stream; and the streamed
planner, keying a few groups at a time from pages of two ranks, finds the unpruned optimum.
"""

from __future__ import annotations

import dataclasses
from decimal import Decimal

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import Connection, Engine

import comparator.catalog.group_stream as sql_stream
import comparator.plan.prune.group_order as group_order
from comparator.catalog.current_offers import job_offers
from comparator.catalog.queries import load_profiles
from comparator.catalog.queries_groups import CatalogGroups
from comparator.config import load_settings
from comparator.domain.group_list import ListStream
from comparator.domain.job import Job, load_job
from comparator.domain.offer_filter import OfferFilter
from comparator.domain.offer_source import GroupPricing, OrderedGroup
from comparator.plan import plan_job
from comparator.plan.candidates import CandidateBuilder, CandidateSet
from comparator.plan.dp.grid import PRICE_PLACES, PriceBasis
from comparator.plan.job_plan import candidate_options
from comparator.plan.prune.group_order import frontier, shape_orders, window_slots
from comparator.plan.prune.sql_prefilter import job_offer_filter
from comparator.plan.prune.streamed import (
    SummaryKeyer,
    _by_group,
    contract_runs,
    most_runs,
    rule_floors,
)
from comparator.plan.work import work_table
from comparator.services.planning import context_from_settings, plan_for_job
from tests.catalog.test_scale_queries import demo_engine  # noqa: F401 (a fixture: both databases)
from tests.plan.test_plan_prune import CONTEXT, a_job, answer, catalog, offer_fields
from tests.plan.test_plan_prune_stream import summaries_of

EXAMPLES = ["lora-7b-guangdong", "storage-upload-windows", "70b-full-multinode"]
HALF = float(PRICE_PLACES) / 2


def group_pricing(source: CatalogGroups, job: Job, wanted: OfferFilter) -> GroupPricing:
    """The job's group pricing as a streamed plan prices it: the catalog's time-of-use rules
    of ``wanted`` as floors over the job's window, at the tests' exchange rates."""
    s = job.schedule
    factors = rule_floors(source.rules(wanted), s.earliest_start, s.deadline, s.run_windows)
    return GroupPricing(job.currency, CONTEXT.fx, factors, most_runs(job), contract_runs(job))


def _canonical(groups: list[OrderedGroup]) -> dict[str, tuple[int, float]]:
    """Each group (its parts, by first offer id) with its order value."""
    return {repr(sorted((tuple(p) for p in g.parts), key=lambda p: p[7])): g.order for g in groups}


@pytest.mark.slow
def test_the_catalog_stream_answers_as_the_list(
    demo_engine: Engine,  # noqa: F811
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Both databases, pages of 2 ranks (every group crosses a page boundary or shares a
    page with its parts' other ranks): the same shapes, providers, group count and groups
    as the in-memory stream over the catalog's own summaries, in nondecreasing order; also
    when every shape of a machine has one link key (its raw groups are one group)."""
    monkeypatch.setattr(sql_stream, "FIRST_PAGE", 2)
    source, context = CatalogGroups(demo_engine), CONTEXT
    for name in EXAMPLES:
        job = load_job(f"examples/{name}.toml")
        wanted = job_offer_filter(job)
        pricing = group_pricing(source, job, wanted)
        memory = ListStream(source.summaries(wanted, pricing).groups)
        sql = source.group_stream(wanted, pricing)
        try:
            assert set(sql.shapes()) == set(memory.shapes()), name
            assert sql.providers() == memory.providers()
            options = candidate_options(job, context, {})
            table = work_table(job, {s.gpu for s in memory.shapes()})
            order = shape_orders(memory.shapes(), table, options)
            merged = {shape: o._replace(link="one") for shape, o in order.items()}
            for least, links in ((1.0, order), (0.5, order), (1.0, merged)):
                count, got = sql.ordered(links, least, HALF)
                mine_count, mine = memory.ordered(links, least, HALF)
                got_list, mine_list = list(got), list(mine)
                assert count == mine_count == len(got_list), name
                assert [g.order for g in got_list] == sorted(g.order for g in got_list)
                got_groups, mine_groups = _canonical(got_list), _canonical(mine_list)
                assert got_groups.keys() == mine_groups.keys()
                for key, (stage, value) in got_groups.items():
                    assert (stage, value) == (
                        mine_groups[key][0],
                        pytest.approx(mine_groups[key][1]),
                    )
                sql.close()  # the shapes table is filled once per ordering
                sql = source.group_stream(wanted, pricing)
        finally:
            sql.close()


def _temporary_tables(conn: Connection) -> set[str]:
    """The temporary tables ``conn`` sees."""
    if conn.dialect.name == "sqlite":
        query = "SELECT name FROM sqlite_temp_master WHERE type = 'table'"
    else:
        query = "SELECT tablename FROM pg_tables WHERE left(schemaname, 7) = 'pg_temp'"
    return {str(name) for name in conn.exec_driver_sql(query).scalars()}


def test_a_closed_stream_leaves_no_temporary_table(demo_engine: Engine) -> None:  # noqa: F811
    """Closing a stream gives its connection back to the pool without the group and shape
    tables (dropped on PostgreSQL; on SQLite the connection is closed instead), and the next
    stream builds them again."""
    source = CatalogGroups(demo_engine)
    job = load_job("examples/lora-7b-guangdong.toml")
    wanted = job_offer_filter(job)
    pricing = group_pricing(source, job, wanted)
    tables = {sql_stream.GROUPS.name, sql_stream.SHAPES.name}
    for _ in range(2):
        stream = source.group_stream(wanted, pricing)
        try:
            assert stream.shapes()
            assert tables <= _temporary_tables(stream.conn)
        finally:
            stream.close()
        assert stream.conn.closed
        with demo_engine.connect() as conn:
            assert not tables & _temporary_tables(conn)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    rows=st.lists(offer_fields, min_size=1, max_size=30),
    card_hours=st.integers(4, 300),
    days=st.integers(1, 4),
    discount=st.sampled_from([None, "0.5", "0.93", "1"]),
)
def test_no_group_key_is_below_its_frontier(
    rows: list[tuple[object, ...]], card_hours: int, days: int, discount: str | None
) -> None:
    """Claim C: each group's unread key is at least the frontier of its place in the stream
    (and the frontier only grows along it), whatever the providers' discounts."""
    offers = catalog(rows)
    job = a_job(card_hours, days, True, None)
    s = job.schedule
    factors = rule_floors(sorted({o.time_of_use for o in offers}), s.earliest_start, s.deadline)
    stream = ListStream(summaries_of(offers, factors, most_runs(job), contract_runs(job)))
    disc = {} if discount is None else {o.provider: Decimal(discount) for o in offers[::2]}
    basis = PriceBasis(job.currency, CONTEXT.fx, disc)
    options = candidate_options(job, CONTEXT, {})
    options = dataclasses.replace(options, prices=basis)
    builder = CandidateBuilder(options, CandidateSet())
    table = work_table(job, {s.gpu for s in stream.shapes()})
    least = float(min([*disc.values(), Decimal(1)]))
    count, ordered = stream.ordered(shape_orders(stream.shapes(), table, options), least, HALF)
    keyer = SummaryKeyer(table, builder, basis, "cost")
    half_slots = (window_slots(options) + 1) // 2
    edges, keyed = [], 0
    for g in ordered:
        edge = frontier(g.order, half_slots)
        edges.append(edge)
        for key, parts in _by_group(g.parts).items():
            entry = keyer.entry(key, parts)
            assert entry is not None
            assert not entry[0] < edge, (entry[0], edge)
            keyed += 1
    assert edges == sorted(edges)
    assert count == keyed


@pytest.mark.slow
def test_small_pages_and_batches_find_the_unpruned_optimum(
    demo_engine: Engine,  # noqa: F811
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Both databases: the example jobs planned through the catalog's stream with pages of 2
    ranks and 3 groups keyed at a time (ties and FIRST groups across batches) equal the
    unpruned planner, at top 0 and the default."""
    monkeypatch.setattr(sql_stream, "FIRST_PAGE", 2)
    monkeypatch.setattr(group_order, "FETCH_GROUPS", 3)
    settings_ = load_settings({})
    for name in EXAMPLES:
        job = load_job(f"examples/{name}.toml")
        offers = job_offers(demo_engine, job_offer_filter(job))
        profiles = load_profiles(demo_engine, {o.provider for o in offers})
        for top in (0, 5):
            context = context_from_settings(settings_, top=top, today=CONTEXT.today)
            result, _ = plan_for_job(demo_engine, job, context)
            unpruned = plan_job(job, offers, profiles, context, prune=False)
            assert answer(result)[0] == answer(unpruned)[0], name
            assert result.assumptions["discounts"] == unpruned.assumptions["discounts"]
