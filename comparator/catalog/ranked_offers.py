"""`suanli offers` ranked by the database: the listing streamed in its exact order, the
places (provider, data centre, time read) it covers with their offer counts, the GPU models.

The database orders the offers by their card-hour price as a float
(:func:`~comparator.catalog.current_offers.approximate_card_hour_price`, relative error below
1e-15); Python then ranks exactly (Decimal, :func:`~comparator.catalog.listing.rank_offers`)
each run of offers whose floats lie within 1e-9 of the one before. Two offers of different
runs differ by more than the floats' error, so their exact order is the float order: the
stream is ``rank_offers`` of every matching offer, holding one run (and one batch of rows)
at a time instead of every offer.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from datetime import datetime
from typing import Any, NamedTuple

from sqlalchemy import Engine, func, select
from sqlalchemy.sql.elements import ColumnElement

from comparator.catalog.current_offers import (
    BATCH_ROWS,
    approximate_card_hour_price,
    current_query,
)
from comparator.catalog.listing import OfferRow, TopOffers, fx_table, rank_offers
from comparator.catalog.queries import OFFER, offer_view_of, offers_by_id
from comparator.config import Settings
from comparator.domain.offer_filter import OfferFilter
from comparator.domain.offer_view import OfferView

NEAR = 1e-9  # floats closer than this (relative) may rank either way: ranked exactly


def binary_order(column: ColumnElement[Any], engine: Engine) -> ColumnElement[Any]:
    """``column`` compared as Python compares str (code points): PostgreSQL's ``"C"``
    collation; SQLite's default (``BINARY`` on UTF-8) already is."""
    return column.collate("C") if engine.dialect.name == "postgresql" else column


def ranked_rows(
    engine: Engine,
    settings: Settings,
    offer_filter: OfferFilter,
    *,
    provider: str | None = None,
    billing: str | None = None,
    keep: Callable[[OfferView], bool] | None = None,
) -> Iterator[OfferRow]:
    """``rank_offers`` of the current offers that pass the filters (and ``keep``), streamed."""
    key = approximate_card_hour_price(fx_table(settings), settings.currency)
    query = (
        current_query(offer_filter, provider=provider, billing=billing)
        .add_columns(key)
        .order_by(key.is_(None), key, binary_order(OFFER.c.provider, engine), OFFER.c.id)
    )
    run: list[OfferView] = []
    last: float | None = None
    with engine.connect() as conn:
        result = conn.execution_options(stream_results=True, yield_per=BATCH_ROWS).execute(query)
        for rows in result.partitions():
            for row in rows:
                view = offer_view_of(row[:-1])
                if keep is not None and not keep(view):
                    continue
                price: float | None = row[-1]
                if run and (price is None or last is None or price > last * (1 + NEAR) + 1e-12):
                    yield from rank_offers(run, settings)[0]
                    run = []
                if price is None:  # unpriced: last, in the database's (provider, id) order
                    yield from rank_offers([view], settings)[0]
                    continue
                run.append(view)
                last = price
    yield from rank_offers(run, settings)[0]


class Place(NamedTuple):
    """Offers of one provider's data centre read at one time, in one currency: what a verdict
    depends on (and whether they have an FX rate)."""

    provider: str
    region: str
    observed_at: datetime
    currency: str
    first_offer_id: int
    offers: int


def current_places(
    engine: Engine,
    offer_filter: OfferFilter,
    *,
    provider: str | None = None,
    billing: str | None = None,
) -> list[Place]:
    """Each (provider, data centre, time read, currency) of the matching current offers, with
    its first offer's id and how many offers it holds."""
    grouped = (OFFER.c.provider, OFFER.c.region, OFFER.c.observed_at, OFFER.c.currency)
    columns = (*grouped, func.min(OFFER.c.id), func.count(OFFER.c.id))
    query = current_query(offer_filter, provider=provider, billing=billing, columns=columns)
    with engine.connect() as conn:
        return [
            Place(str(p), str(r), t, str(c), int(i), int(n))
            for p, r, t, c, i, n in conn.execute(query.group_by(*grouped))
        ]


def current_gpus(
    engine: Engine,
    offer_filter: OfferFilter,
    *,
    provider: str | None = None,
    billing: str | None = None,
) -> list[str]:
    """The GPU models of the matching current offers (one each), sorted."""
    query = current_query(offer_filter, provider=provider, billing=billing, columns=(OFFER.c.gpu,))
    with engine.connect() as conn:
        return sorted({str(g) for g in conn.execute(query.distinct()).scalars()})


def unpriced_currencies(
    engine: Engine,
    settings: Settings,
    offer_filter: OfferFilter,
    *,
    provider: str | None = None,
    billing: str | None = None,
) -> list[str]:
    """The currencies of matching offers that have no FX rate into the quote currency."""
    key = approximate_card_hour_price(fx_table(settings), settings.currency)
    columns = (OFFER.c.currency,)
    query = current_query(offer_filter, provider=provider, billing=billing, columns=columns)
    with engine.connect() as conn:
        found = conn.execute(query.where(key.is_(None)).distinct()).scalars()
        return sorted({str(c) for c in found})


def count_matching(
    engine: Engine,
    offer_filter: OfferFilter,
    *,
    provider: str | None = None,
    billing: str | None = None,
) -> int:
    """How many current offers pass the filters."""
    query = current_query(
        offer_filter, provider=provider, billing=billing, columns=(func.count(OFFER.c.id),)
    )
    with engine.connect() as conn:
        return int(conn.execute(query).scalar_one())


def listing_filter(gpu: str | None, province: str | None) -> OfferFilter:
    """The filter of `offers --gpu G --province P` (canonical values; None: any)."""
    return OfferFilter(
        gpus=() if gpu is None else (gpu,), provinces=() if province is None else (province,)
    )


def top_offers(
    engine: Engine,
    settings: Settings,
    limit: int,
    *,
    gpu: str | None = None,
    provider: str | None = None,
    province: str | None = None,
    billing: str | None = None,
) -> TopOffers:
    """``rank_offers(current_offers(...))[:limit]``, ranked and cut by the database.

    The database finds the ``limit``-th smallest float price (``ORDER BY … LIMIT``); only the
    offers whose float is within 1e-9 of it are read and ranked exactly. Every offer of the
    exact top ``limit`` is among them: its float is at most ``(1 + 1e-15)`` times the
    ``limit``-th exact price, which is at most ``(1 + 1e-15) / (1 - 1e-15)`` times the
    ``limit``-th float. With fewer priced offers than ``limit``, all of them are read, and the
    first unpriced ones by (provider, id), as ``rank_offers`` lists them last."""
    wanted = listing_filter(gpu, province)
    key = approximate_card_hour_price(fx_table(settings), settings.currency)
    columns = (OFFER.c.id, key.label("price_key"), OFFER.c.provider)
    keyed = current_query(wanted, provider=provider, billing=billing, columns=columns).subquery()
    price = keyed.c.price_key
    with engine.connect() as conn:
        total, priced = conn.execute(select(func.count(), func.count(price))).one()
        if priced >= limit:
            nth = select(price).where(price.is_not(None)).order_by(price).offset(limit - 1)
            cut = float(conn.execute(nth.limit(1)).scalar_one()) * (1 + NEAR) + 1e-12
            ids = list(conn.execute(select(keyed.c.id).where(price <= cut)).scalars())
        else:
            ids = list(conn.execute(select(keyed.c.id).where(price.is_not(None))).scalars())
            unpriced = select(keyed.c.id).where(price.is_(None))
            unpriced = unpriced.order_by(binary_order(keyed.c.provider, engine), keyed.c.id)
            ids += conn.execute(unpriced.limit(limit - priced)).scalars()
    rows, _ = rank_offers(offers_by_id(engine, ids), settings)
    currencies = (
        []
        if priced == total
        else unpriced_currencies(engine, settings, wanted, provider=provider, billing=billing)
    )
    return TopOffers(rows[:limit], int(total), currencies)
