"""The `offers` filter and the planner's load are answered from indexes on both databases.

SQLite: ``EXPLAIN QUERY PLAN`` must search the offer table through an index, never scan it.
PostgreSQL: with sequential scans disabled (a tiny table would otherwise be scanned whatever
the indexes), the plan must reach offers through one of the offer indexes.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest
from sqlalchemy import Engine, Select, text

from comparator.catalog import current_offers, rank_offers, top_offers
from comparator.catalog.current_offers import current_query, job_offers
from comparator.catalog.db import make_engine, upgrade_schema
from comparator.catalog.queries import OFFER
from comparator.config import load_settings
from comparator.domain.offer_filter import OfferFilter
from comparator.refresh.importer import load_demo

LISTING = OfferFilter(gpus=("A100-SXM4-80GB",), provinces=("广东",))
JOB_LOAD = OfferFilter(provinces=("广东",), exclude_spot=True)


@pytest.fixture
def demo_engine(any_db_url: str) -> Engine:
    engine = make_engine(any_db_url)
    upgrade_schema(engine)
    load_demo(engine, timezone=load_settings({}).timezone)
    return engine


def plan_text(engine: Engine, query: Select[Any]) -> str:
    sql = str(query.compile(dialect=engine.dialect, compile_kwargs={"literal_binds": True}))
    with engine.connect() as conn:
        if engine.dialect.name == "sqlite":
            rows = conn.exec_driver_sql(f"EXPLAIN QUERY PLAN {sql}").fetchall()
            return "\n".join(str(r[-1]) for r in rows)
        conn.execute(text("SET enable_seqscan = off"))
        return "\n".join(r[0] for r in conn.exec_driver_sql(f"EXPLAIN {sql}"))


@pytest.mark.slow
@pytest.mark.parametrize("offer_filter", [LISTING, JOB_LOAD], ids=["offers", "plan-load"])
@pytest.mark.parametrize("keys_only", [False, True], ids=["views", "ranking-keys"])
def test_offer_filters_use_the_offer_indexes(
    demo_engine: Engine, offer_filter: OfferFilter, keys_only: bool
) -> None:
    columns = (OFFER.c.id, OFFER.c.price, OFFER.c.currency) if keys_only else ()
    plan = plan_text(demo_engine, current_query(offer_filter, columns=columns))
    if demo_engine.dialect.name == "sqlite":
        assert "SCAN offer" not in plan, plan
        assert "USING INDEX ix_offer_snapshot" in plan or "COVERING INDEX ix_offer_" in plan, plan
    else:
        assert "Seq Scan on offer" not in plan, plan
        assert "ix_offer_snapshot" in plan, plan


@pytest.mark.slow
def test_the_job_load_returns_exactly_the_offers_the_filter_names(demo_engine: Engine) -> None:
    offers = job_offers(demo_engine, JOB_LOAD)
    assert offers and all(o.province == "广东" and o.billing != "spot" for o in offers)
    assert [int(o.offer_id) for o in offers] == sorted(int(o.offer_id) for o in offers)


@pytest.mark.slow
@pytest.mark.parametrize("without_usd", [False, True], ids=["fx", "usd-unpriced"])
def test_the_first_offers_are_those_of_the_full_ranking(
    demo_engine: Engine, without_usd: bool
) -> None:
    """`offers` reads only the offers its table shows (top_offers), in the full ranking's order
    (ties, USD prices, or USD without a rate: listed last), with the full count."""
    settings = load_settings({})
    if without_usd:
        rates = {c: r for c, r in settings.fx_rates.items() if c != "USD"}
        settings = dataclasses.replace(settings, fx_rates=rates)
    for filters in ({}, {"gpu": "A100-SXM4-80GB"}, {"billing": "monthly"}, {"province": "广东"}):
        full, unpriced = rank_offers(current_offers(demo_engine, **filters), settings)
        assert full, filters
        for limit in (1, 2, 3, 5, 8, 13, len(full), len(full) + 4):
            top = top_offers(demo_engine, settings, limit, **filters)
            assert [r.offer.offer_id for r in top.rows] == [
                r.offer.offer_id for r in full[:limit]
            ], (filters, limit)
            assert [r.card_hour_quote for r in top.rows] == [
                r.card_hour_quote for r in full[:limit]
            ]
            assert (top.total, top.unpriced) == (len(full), unpriced)
    assert without_usd == bool(rank_offers(current_offers(demo_engine), settings)[1])
