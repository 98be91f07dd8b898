"""The planner asks the group table for its providers only when some provider states a
discount, and takes the census beside the estimate where it does not depend on the card
floors (docs/planner-pruning.md, "Sixth round: the quote's wall"): the same plan either way,
a stated discount still read and applied, the census's error raised in the caller's thread."""

from __future__ import annotations

import dataclasses
import sqlite3
import threading
from typing import Any

import pytest
from sqlalchemy import Engine, update
from sqlalchemy.exc import OperationalError

from comparator.catalog.db import make_engine
from comparator.catalog.group_stream import SqlGroupStream
from comparator.catalog.queries import PROVIDER
from comparator.catalog.queries_groups import CatalogGroups
from comparator.config import load_settings
from comparator.domain.job import load_job
from comparator.domain.offer_filter import OfferFilter
from comparator.domain.offer_list import OfferList
from comparator.plan.entry import Later
from comparator.plan.prune.sql_prefilter import card_floors, job_offer_filter, job_works
from comparator.services.planning import context_from_settings, plan_for_job
from tests.catalog.test_scale_queries import demo_engine  # noqa: F401 (a fixture: both databases)
from tests.plan.test_plan_prune import CONTEXT, answer

JOB = "examples/lora-7b-guangdong.toml"


def test_later_reads_once_and_only_when_asked() -> None:
    calls: list[int] = []

    def read() -> list[str]:
        calls.append(1)
        return ["a", "b"]

    later = Later(read)
    assert calls == []
    assert "a" in later and sorted(later) == ["a", "b"] and len(later) == 2
    assert calls == [1]


@pytest.mark.slow
def test_providers_are_read_only_where_a_discount_is_stated(
    demo_db_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    asked: list[int] = []
    providers = SqlGroupStream.providers

    def spied(self: SqlGroupStream) -> Any:
        asked.append(1)
        return providers(self)

    monkeypatch.setattr(SqlGroupStream, "providers", spied)
    engine = make_engine(demo_db_url)
    job = load_job(JOB)
    context = context_from_settings(load_settings({}), today=CONTEXT.today)
    plain, _ = plan_for_job(engine, job, context)
    assert asked == [] and plain.best is not None
    assert not plain.assumptions["discounts"]
    chosen = plain.best.provider
    with engine.begin() as conn:
        conn.execute(update(PROVIDER).where(PROVIDER.c.id == chosen).values(discount="0.5"))
    discounted, _ = plan_for_job(engine, job, context)
    assert asked == [1]
    assert chosen in str(discounted.assumptions["discounts"])
    assert discounted.best is not None and discounted.best.total_cost < plain.best.total_cost
    with engine.begin() as conn:
        conn.execute(update(PROVIDER).values(discount=None))
    again, _ = plan_for_job(engine, job, context)
    assert answer(again) == answer(plain)
    engine.dispose()


@pytest.mark.slow
def test_the_early_census_is_the_census_with_floors(demo_engine: Engine) -> None:  # noqa: F811
    """Both databases: for a job that names places the census taken before the card floors
    are known (beside the estimate) is the census with them; the in-memory source says its
    census reads them."""
    source = CatalogGroups(demo_engine)
    context = context_from_settings(load_settings({}), today=CONTEXT.today)
    for name in ("lora-7b-guangdong", "seeds-13b-full-8xa100", "70b-full-multinode"):
        job = load_job(f"examples/{name}.toml")
        wanted = job_offer_filter(job)
        works = job_works(job, context.headroom)
        assert works is not None
        floored = dataclasses.replace(wanted, card_floors=card_floors(works))
        assert source.census_reads_floors(wanted) == (not wanted.by_place)
        if not source.census_reads_floors(wanted):
            assert floored.card_floors and source.census(wanted) == source.census(floored)
    assert OfferList([], {}).census_reads_floors(OfferFilter(provinces=("广东",)))


@pytest.mark.slow
def test_an_error_of_the_early_census_reaches_the_caller(
    demo_db_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The census's thread fails: the plan fails with its error, in the caller's thread, and
    no thread is left."""

    def locked(self: CatalogGroups, wanted: OfferFilter) -> Any:
        raise OperationalError("SELECT", {}, sqlite3.OperationalError("database is locked"))

    monkeypatch.setattr(CatalogGroups, "census", locked)
    engine = make_engine(demo_db_url)
    context = context_from_settings(load_settings({}), today=CONTEXT.today)
    with pytest.raises(OperationalError, match="database is locked"):
        plan_for_job(engine, load_job(JOB), context)
    assert threading.active_count() == 1
    engine.dispose()
