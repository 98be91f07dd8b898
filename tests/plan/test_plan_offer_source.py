"""The planner's one port to offers: the catalog and a list in memory answer alike.

:class:`~comparator.domain.offer_list.OfferList` answers the planner's questions from a list by
the rules the catalog's SQL follows; on the demo catalog, in SQLite and PostgreSQL, both give
the same groups, floors, reads and counts, and :func:`comparator.plan.plan_job` gives the same
plans from either (streamed), and from the offers already loaded.
"""

from __future__ import annotations

import math
from typing import Any

import pytest
from sqlalchemy import Engine

from comparator.catalog import CatalogGroups
from comparator.config import load_settings
from comparator.domain import GroupPricing, OfferFilter, OfferList, load_job
from comparator.domain.offer_filter import GroupSummary
from comparator.plan import PlanResult, plan_job, plan_job_read, plan_jobs
from comparator.plan.entry import left_out
from comparator.plan.prune.sql_prefilter import job_offer_filter
from comparator.plan.prune.streamed import contract_runs, most_runs, rule_floors
from comparator.services import context_from_settings
from tests.catalog.test_scale_queries import demo_engine  # noqa: F401 (a fixture: both databases)
from tests.plan.test_plan_prune import CONTEXT

EXAMPLES = ["lora-7b-guangdong", "seeds-13b-full-8xa100", "70b-full-multinode"]
FILTERS = [
    OfferFilter(),
    OfferFilter(provinces=("广东",), exclude_spot=True),
    OfferFilter(gpus=("A100-SXM4-80GB", "L40S"), cities=("深圳",)),
]


def in_memory(engine: Engine) -> OfferList:
    catalog = CatalogGroups(engine)
    return OfferList(catalog.offers(OfferFilter()), catalog.profiles())


def comparable(result: PlanResult) -> dict[str, Any]:
    out = result.to_json()
    out.pop("seconds", None)
    return out


FLOORS = ("least_per_card", "least_hourly_per_card", "least_minimum_per_card")


def _same_summary(mine: GroupSummary, sql: GroupSummary, own_runs: bool) -> None:
    """The list's summary of a group is the catalog's, its floats to 12 digits; with
    ``own_runs`` rule 7's fields too (None for both without)."""
    assert mine[6:8] == sql[6:8] and mine.free_trial == sql.free_trial
    assert math.isclose(mine.most_factor_per_card, sql.most_factor_per_card)
    floors = (*FLOORS, "least_contract_per_card") if own_runs else FLOORS[:1]
    for name in floors:
        a, b = getattr(mine, name), getattr(sql, name)
        assert (a is None) == (b is None), name
        assert a is None or math.isclose(a, b, rel_tol=1e-12), name
    if own_runs:
        assert mine.hourly_rules == sql.hourly_rules
    else:
        assert sql.hourly_rules is None and sql.least_contract_per_card is None


@pytest.mark.parametrize("name", EXAMPLES)
def test_the_list_summarises_as_the_catalog_does(demo_engine: Engine, name: str) -> None:  # noqa: F811
    job = load_job(f"examples/{name}.toml")
    catalog, memory = CatalogGroups(demo_engine), in_memory(demo_engine)
    for wanted in [*FILTERS, job_offer_filter(job)]:
        assert memory.rules(wanted) == catalog.rules(wanted)
        schedule = job.schedule
        floors = rule_floors(catalog.rules(wanted), schedule.earliest_start, schedule.deadline)
        for own_runs in (False, True):  # rule 7's aggregates too (a job that may not pause)
            pricing = GroupPricing(
                job.currency, CONTEXT.fx, floors, most_runs(job), contract_runs(job), own_runs
            )
            sql, mine = catalog.summaries(wanted, pricing), memory.summaries(wanted, pricing)
            assert mine.in_places == sql.in_places
            assert len(mine.groups) == len(sql.groups) > 0
            by_key = {tuple(g[:6]): g for g in sql.groups}
            for group in mine.groups:
                _same_summary(group, by_key[tuple(group[:6])], own_runs)
        some = sorted(sql.groups, key=lambda g: g.first_offer_id)[:3]
        assert memory.read(wanted, some) == catalog.read(wanted, some)
        assert memory.offers(wanted) == catalog.offers(wanted)
        assert memory.count(wanted) == catalog.count(wanted)
        loaded = len(catalog.offers(wanted))
        assert left_out(memory, wanted, loaded) == left_out(catalog, wanted, loaded)
    assert memory.profiles({"demo-zhujiang", "nowhere"}) == catalog.profiles({"demo-zhujiang"})


@pytest.mark.parametrize("objective", ["cost", "time"])
def test_plan_job_gives_one_answer_from_either_source(demo_engine: Engine, objective: str) -> None:  # noqa: F811
    """Streamed from the catalog or from the list, or over the job's offers loaded: the same
    plans, exclusions of the offers read, and counts of the offers left out."""
    settings = load_settings({})
    context = context_from_settings(settings, objective=objective, today=CONTEXT.today)
    memory = in_memory(demo_engine)
    for name in EXAMPLES:
        job = load_job(f"examples/{name}.toml")
        from_sql, read = plan_job_read(job, CatalogGroups(demo_engine), None, context)
        from_list, read_list = plan_job_read(job, memory, None, context)
        assert comparable(from_list) == comparable(from_sql), name
        assert read_list == read
        loaded = memory.offers(job_offer_filter(job))
        over_all = plan_job(job, loaded, memory, context, filtered=read.filtered)
        assert comparable(over_all)["best"] == comparable(from_sql)["best"], name
        assert comparable(over_all)["alternatives"] == comparable(from_sql)["alternatives"]
        unpruned, read_all = plan_job_read(job, memory, None, context, prune=False)
        assert comparable(unpruned)["best"] == comparable(from_sql)["best"], name
        assert read_all.offers == loaded  # no streaming: every offer of the job is read


def test_plans_of_several_jobs_read_each_job_through_its_filter(demo_engine: Engine) -> None:  # noqa: F811
    """The shared plan from the catalog reads each job's offers as its plan alone does, and
    finds the plan it finds over every offer."""
    settings = load_settings({})
    context = context_from_settings(settings, today=CONTEXT.today)
    jobs = [load_job(f"examples/{name}.toml") for name in EXAMPLES[:2]]
    memory = in_memory(demo_engine)
    shared = plan_jobs(jobs, CatalogGroups(demo_engine), None, context, time_limit_s=10)
    everything = plan_jobs(jobs, memory.offers(OfferFilter()), memory, context, time_limit_s=10)
    assert shared.total_cost == everything.total_cost
    for index, (job, result) in enumerate(zip(jobs, shared.results, strict=True)):
        alone = plan_job(job, CatalogGroups(demo_engine), None, context)
        by_filter = [
            f
            for f in alone.stats["filtered_in_catalog"]
            if f["kind"] in ("compliance", "requirements")
        ]
        assert by_filter and result.stats["filtered_in_catalog"] == by_filter
        assert len(result.excluded) < len(everything.results[index].excluded)
