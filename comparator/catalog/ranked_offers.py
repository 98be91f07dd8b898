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

from collections.abc import Callable, Collection, Iterator
from datetime import datetime
from typing import Any, NamedTuple

from sqlalchemy import Connection, Engine, Select, func, tuple_
from sqlalchemy.sql.elements import ColumnElement

from comparator.catalog.cheapest_offers import cheapest_current, current_total
from comparator.catalog.current_offers import (
    BATCH_ROWS,
    approximate_card_hour_price,
    current_query,
)
from comparator.catalog.listing import OfferRow, TopOffers, fx_table, rank_offers
from comparator.catalog.queries import OFFER, offer_view_of, offers_by_id
from comparator.config import Settings
from comparator.domain.money import FxTable
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


class OfferPlace(NamedTuple):
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
) -> list[OfferPlace]:
    """Each (provider, data centre, time read, currency) of the matching current offers, with
    its first offer's id and how many offers it holds."""
    grouped = (OFFER.c.provider, OFFER.c.region, OFFER.c.observed_at, OFFER.c.currency)
    columns = (*grouped, func.min(OFFER.c.id), func.count(OFFER.c.id))
    query = current_query(
        offer_filter, provider=provider, billing=billing, columns=columns, datacenter=False
    )
    with engine.connect() as conn:
        return [
            OfferPlace(str(p), str(r), t, str(c), int(i), int(n))
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
    columns = (OFFER.c.gpu,)
    query = current_query(
        offer_filter, provider=provider, billing=billing, columns=columns, datacenter=False
    )
    with engine.connect() as conn:
        return sorted({str(g) for g in conn.execute(query.distinct()).scalars()})


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
    offer_filter: OfferFilter | None = None,
    excluded: Collection[tuple[str, str]] = (),
) -> TopOffers:
    """``rank_offers(current_offers(...))[:limit]``, ranked and cut by the database.

    The database lists the cheapest offers by float price (``ORDER BY … LIMIT``) until past
    1e-9 above the ``limit``-th float; only those are read and ranked exactly. Every offer of
    the exact top ``limit`` is among them: its float is at most ``(1 + 1e-15)`` times the
    ``limit``-th exact price, which is at most ``(1 + 1e-15) / (1 - 1e-15)`` times the
    ``limit``-th float. With fewer priced offers than ``limit``, all of them are read, and the
    first unpriced ones by (provider, id), as ``rank_offers`` lists them last.

    ``offer_filter`` replaces the ``gpu`` and ``province`` filters (a job's prefilter), and
    the offers of the ``excluded`` (provider, data centre) pairs are left out (those a job's
    fail-level checks exclude)."""
    wanted = offer_filter or listing_filter(gpu, province)
    where = {"provider": provider, "billing": billing}
    fx = fx_table(settings)
    key = approximate_card_hour_price(fx, settings.currency)
    keyed = _excluding(
        current_query(wanted, columns=(OFFER.c.id, key), datacenter=False, **where), excluded
    )
    count = current_query(wanted, columns=(func.count(OFFER.c.id),), datacenter=False, **where)
    if wanted == OfferFilter() and provider is None and billing is None and not excluded:
        walked = _walked(engine, settings, limit)  # the index walk knows no exclusions
        if walked is not None:
            return walked
    with engine.connect() as conn:
        total = int(conn.execute(_excluding(count, excluded)).scalar_one())
        cheapest, has_unpriced = _cheapest(conn, keyed, key, limit)
        unpriced: list[str] = []
        if has_unpriced:  # some currency has no FX rate: the priced ones, then those
            unpriced = _unpriced_currencies(conn, fx, wanted, excluded, **where)
            cheapest, _ = _cheapest(conn, keyed.where(key.is_not(None)), key, limit)
        ids = [i for i, _ in cheapest]
        if len(cheapest) < limit and unpriced:
            first = keyed.where(key.is_(None)).order_by(binary_order(OFFER.c.provider, engine))
            first = first.order_by(OFFER.c.id).limit(limit - len(cheapest))
            ids += [int(row[0]) for row in conn.execute(first)]
    rows, _ = rank_offers(offers_by_id(engine, ids), settings)
    return TopOffers(rows[:limit], total, unpriced)


def _walked(engine: Engine, settings: Settings, limit: int) -> TopOffers | None:
    """The unfiltered listing read in the order of the card-hour index
    (:mod:`~comparator.catalog.cheapest_offers`); None when some offer has no price."""
    with engine.connect() as conn:
        cheapest = cheapest_current(conn, fx_table(settings), settings.currency, limit, NEAR)
        if cheapest is None:
            return None
        total = current_total(conn)
    rows, _ = rank_offers(offers_by_id(engine, [i for i, _ in cheapest]), settings)
    return TopOffers(rows[:limit], total, [])


def _cheapest(
    conn: Connection, keyed: Select[Any], key: ColumnElement[Any], limit: int
) -> tuple[list[tuple[int, float]], bool]:
    """(id, float price) of the cheapest offers of ``keyed``: the first ``limit`` and every
    one whose float may still rank among them; and whether an offer without a price came
    first (``NULLS FIRST``: then the caller asks again for priced offers only).

    One query reads the first ``16 × limit``, which covers the ties of sheets priced to the
    cent; a second reads every offer up to the cut only when they all tie within it."""
    ordered = keyed.order_by(key.nulls_first())
    found = list(conn.execute(ordered.limit(max(16 * limit, 256))))
    if found and found[0][1] is None:
        return [], True
    cheapest = [(int(i), float(k)) for i, k in found]
    if len(cheapest) < limit:
        return cheapest, False
    cut = _cut(cheapest[limit - 1][1])
    if cheapest[-1][1] <= cut:
        cheapest = [(int(i), float(k)) for i, k in conn.execute(ordered.where(key <= cut))]
    return [(i, k) for i, k in cheapest if k <= cut], False


def _excluding(query: Select[Any], excluded: Collection[tuple[str, str]]) -> Select[Any]:
    """``query`` without the offers of the ``excluded`` (provider, data centre) pairs."""
    if not excluded:
        return query
    return query.where(tuple_(OFFER.c.provider, OFFER.c.region).not_in(sorted(excluded)))


def _cut(price: float) -> float:
    """The greatest float price that may still rank at or before ``price`` exactly."""
    return price * (1 + NEAR) + 1e-12


def _unpriced_currencies(
    conn: Connection,
    fx: FxTable,
    offer_filter: OfferFilter,
    excluded: Collection[tuple[str, str]],
    **where: str | None,
) -> list[str]:
    """The currencies of the matching current offers that have no FX rate."""
    no_rate = func.upper(OFFER.c.currency).not_in(sorted(fx.rates_cny))
    columns = (OFFER.c.currency,)
    query = current_query(offer_filter, columns=columns, datacenter=False, **where).where(no_rate)
    query = _excluding(query, excluded)
    return sorted({str(c) for c in conn.execute(query.distinct()).scalars()})
