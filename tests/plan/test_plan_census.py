"""The census: one scan finds what the group table needs first (docs/planner-pruning.md,
"Fourth round").

Before the group table, the catalog scans the job's offers (and its places' others) once for
the time-of-use rules the floors read, how many offers stand in the places (rule 1's count) and
the offers the card floors leave out (rule 8's counts, by why). On SQLite and PostgreSQL, on a
demo catalog with offers short of stock or without a network, the group stream's factors,
counts and summaries are those the separate questions give, and those of the in-memory list.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from sqlalchemy import Engine

from comparator.catalog.queries_groups import CatalogGroups
from comparator.domain.job import load_job
from comparator.domain.offer_filter import OfferFilter
from comparator.domain.offer_list import OfferList
from comparator.domain.offer_source import GroupPricing
from comparator.plan.prune.sql_prefilter import job_card_floors, job_offer_filter
from comparator.plan.prune.streamed import contract_runs, most_runs, rule_floors
from tests.catalog.test_scale_queries import demo_engine  # noqa: F401 (a fixture: both databases)
from tests.plan.test_plan_card_floors import _job, _short_of_stock_and_network
from tests.plan.test_plan_prune import CONTEXT

JOBS = [
    "lora-7b-guangdong",
    "seeds-13b-full-8xa100",
    "70b-full-multinode",
    "70b-in-guangdong",
    "storage-upload-windows",
]


@pytest.mark.slow
@pytest.mark.postgres
@pytest.mark.parametrize("name", JOBS)
def test_the_census_answers_as_the_separate_questions(
    demo_engine: Engine,  # noqa: F811
    name: str,
    tmp_path: Path,
) -> None:
    """The rules (of the job's hourly offers, unfit ones included) as ``rules`` gives them,
    the places' offers as ``count``, rule 8's counts as the list's (the census's, or the
    group table's where it groups them apart); a stream given the census is the stream
    that asks for it."""
    _short_of_stock_and_network(demo_engine)
    job = load_job(f"examples/{name}.toml") if name != "70b-in-guangdong" else _job(name, tmp_path)
    catalog = CatalogGroups(demo_engine)
    memory = OfferList(catalog.offers(OfferFilter()), catalog.profiles())
    floors = job_card_floors(job, CONTEXT.headroom)
    wanted = dataclasses.replace(job_offer_filter(job), card_floors=floors)
    s = job.schedule
    rules = catalog.rules(wanted)
    factors = rule_floors(rules, s.earliest_start, s.deadline, s.run_windows)
    pricing = GroupPricing(job.currency, CONTEXT.fx, factors, most_runs(job), contract_runs(job))
    expected = memory.group_stream(wanted, pricing).unfit()
    for source in (catalog, memory):
        census = source.census(wanted)
        assert census.rules == rules == memory.rules(wanted)
        places = catalog.count(wanted) if wanted.by_place else 0
        assert census.in_places == places == (memory.count(wanted) if wanted.by_place else 0)
        assert set(census.unfit.items()) <= set(expected.items())
        stream, plain = (
            source.group_stream(wanted, pricing, census),
            source.group_stream(wanted, pricing),
        )
        try:
            assert stream.unfit() == plain.unfit() == expected
            assert set(stream.shapes()) == set(plain.shapes())
            at = [(g.provider, g.region, g.gpu) for g in memory.summaries(wanted, pricing).groups]
            for place in sorted(set(at))[:5]:
                assert set(stream.at(*place)) == set(plain.at(*place))
        finally:
            stream.close()
            plain.close()
    if name not in ("lora-7b-guangdong", "storage-upload-windows"):  # none short there
        assert any(expected.values())
