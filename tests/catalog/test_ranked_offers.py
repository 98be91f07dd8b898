"""`suanli offers` filtered, ranked and judged by the database gives the listing the whole
catalog gave when every offer was loaded and judged in Python (issue 29), on both databases."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Engine, event

from comparator.catalog import current_offers, rank_offers, top_offers
from comparator.config import Settings, load_settings
from comparator.services import ListingQuery, default_verdicts, eligible_for_job, list_offers
from tests.support.listing_catalog import build_listing_catalog

ROOT = Path(__file__).resolve().parents[2]
JOB = ROOT / "examples" / "lora-7b-guangdong.toml"


@pytest.fixture
def listing_engine(any_db_url: str, tmp_path: Path) -> Engine:
    return build_listing_catalog(any_db_url, tmp_path)


def whole_catalog(engine: Engine, settings: Settings, ask: ListingQuery) -> tuple[Any, ...]:
    """The listing as `offers` made it before: every matching offer loaded, judged, ranked."""
    filters = {"gpu": ask.gpu, "province": ask.province, "billing": ask.billing}
    views = current_offers(engine, provider=ask.provider, **filters)
    if ask.compliant_for is not None:
        views = eligible_for_job(engine, views, ask.compliant_for, settings)
    ranked, unpriced = rank_offers(views, settings)
    verdicts = default_verdicts(engine, [r.offer for r in ranked], settings)
    if ask.compliant:
        ranked = [r for r in ranked if verdicts[r.offer.offer_id] != "fail"]
    shown = ranked if ask.shown is None else ranked[: ask.shown]
    rows = [(r.offer.offer_id, r.card_hour_quote, verdicts[r.offer.offer_id]) for r in shown]
    return rows, len(ranked), unpriced


def from_database(engine: Engine, settings: Settings, ask: ListingQuery) -> tuple[Any, ...]:
    listing = list_offers(engine, settings, ask)
    rows = [(r.offer.offer_id, r.card_hour_quote, listing.verdict(r.offer)) for r in listing.rows]
    return rows, listing.total, listing.unpriced


ASKS = [
    ListingQuery(compliant_for=JOB),
    ListingQuery(compliant_for=JOB, shown=30),
    ListingQuery(compliant_for=JOB, shown=4, billing="monthly"),
    ListingQuery(compliant_for=JOB, shown=1, gpu="RTX4090"),
    ListingQuery(compliant_for=JOB, gpu="RTX4090", billing="hourly"),
    ListingQuery(compliant_for=JOB, province="贵州"),  # outside the job's provinces: none
    ListingQuery(compliant_for=JOB, compliant=True, shown=7),
    ListingQuery(compliant=True),
    ListingQuery(compliant=True, shown=30, province="广东"),
    ListingQuery(),  # offers --json: every offer, streamed
    ListingQuery(gpu="H20", provider="list-004"),
    ListingQuery(shown=30),
    ListingQuery(shown=3, billing="monthly"),
]


@pytest.mark.slow
@pytest.mark.parametrize("without_usd", [False, True], ids=["fx", "usd-unpriced"])
def test_listings_are_those_of_the_whole_catalog_judgement(
    listing_engine: Engine, without_usd: bool
) -> None:
    settings = load_settings({})
    if without_usd:
        rates = {c: r for c, r in settings.fx_rates.items() if c != "USD"}
        settings = dataclasses.replace(settings, fx_rates=rates)
    for ask in ASKS:
        expected = whole_catalog(listing_engine, settings, ask)
        assert from_database(listing_engine, settings, ask) == expected, ask
    _, total, _ = whole_catalog(listing_engine, settings, ASKS[0])
    assert 0 < total < len(current_offers(listing_engine)), "the job leaves some offers out"
    assert {v for *_, v in whole_catalog(listing_engine, settings, ListingQuery())[0]} == {
        "pass",
        "warn",
        "fail",
    }


@pytest.mark.slow
def test_the_unfiltered_listing_reads_only_a_limited_query(listing_engine: Engine) -> None:
    """The first rows are cut by the database: no statement reads every offer's row."""
    statements: list[str] = []

    def record(conn: Any, cursor: Any, statement: str, *args: Any) -> None:
        statements.append(" ".join(statement.split()))

    event.listen(listing_engine, "before_cursor_execute", record)
    top = top_offers(listing_engine, load_settings({}), 5)
    event.remove(listing_engine, "before_cursor_execute", record)
    reading = [s for s in statements if " offer" in s]
    assert top.total == len(current_offers(listing_engine)) and len(top.rows) == 5
    assert any("LIMIT" in s and "ORDER BY" in s for s in reading), reading
    for statement in reading:
        counted = statement.startswith("SELECT count(offer.id)")
        by_id = "offer.id IN (" in statement
        assert counted or by_id or "LIMIT" in statement, statement
        if by_id:  # only the offers that may rank among the first 5 become objects
            assert statement.count(",") < 16 * 5 + 40, statement


@pytest.mark.slow
def test_the_first_rows_for_a_job_leave_the_failing_places_out_in_the_query(
    listing_engine: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`offers --compliant-for JOB` (its first rows) is cut by the database too, the places
    that fail the job left out by the query; the same rows as the streamed ranking."""
    from comparator.services import offer_listing

    settings = load_settings({})
    excluded: list[set[tuple[str, str]]] = []
    cut = offer_listing.top_offers

    def spied(*args: Any, **kwargs: Any) -> Any:
        excluded.append(set(kwargs["excluded"]))
        return cut(*args, **kwargs)

    monkeypatch.setattr(offer_listing, "top_offers", spied)
    asks = [ListingQuery(compliant_for=JOB, shown=n) for n in (1, 5, 30)]
    for ask in asks:
        assert from_database(listing_engine, settings, ask) == whole_catalog(
            listing_engine, settings, ask
        )
    assert len(excluded) == 3 and all(excluded), "some places of the job's provinces fail it"
    monkeypatch.setattr(offer_listing, "MAX_EXCLUDED", 0)  # the streamed ranking instead
    for ask in asks:
        assert from_database(listing_engine, settings, ask) == whole_catalog(
            listing_engine, settings, ask
        )
    assert len(excluded) == 3
