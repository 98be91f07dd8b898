"""Current offers filtered in SQL, by the `offers` command's options or by a job.

Both databases answer these from indexes (tests/catalog/test_scale_queries.py reads their plans):
the current snapshot of each provider (``pricesnapshot`` by provider), then its offers by
``(snapshot_id, gpu, …)`` or ``(snapshot_id, region)``, and the data centres by province.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import (
    Connection,
    Engine,
    Float,
    Select,
    and_,
    case,
    cast,
    func,
    or_,
    select,
    true,
)
from sqlalchemy.sql.elements import ColumnElement

from comparator.catalog.queries import (
    DATACENTER,
    OFFER,
    PROVIDER,
    SNAPSHOT,
    current_snapshots,
    offer_view_columns,
    offer_view_of,
)
from comparator.domain.billing import PERIOD_HOURS
from comparator.domain.money import FxTable
from comparator.domain.offer_filter import OfferFilter
from comparator.domain.offer_view import OfferView

BATCH_ROWS = 5_000


def _place_condition(offer_filter: OfferFilter) -> ColumnElement[bool]:
    condition: ColumnElement[bool] = DATACENTER.c.mainland == true()
    if offer_filter.provinces:
        condition = and_(condition, DATACENTER.c.province.in_(offer_filter.provinces))
    if offer_filter.cities:
        condition = and_(condition, DATACENTER.c.city.in_(offer_filter.cities))
    return condition


def offer_condition(offer_filter: OfferFilter) -> ColumnElement[bool]:
    condition: ColumnElement[bool] = true()
    if offer_filter.gpus:
        condition = and_(condition, OFFER.c.gpu.in_(offer_filter.gpus))
    if offer_filter.exclude_spot:
        condition = and_(condition, OFFER.c.billing != "spot")
    return condition


def unfit_columns(
    offer_filter: OfferFilter,
) -> tuple[ColumnElement[bool], ColumnElement[bool]] | None:
    """Whether an offer fits no placement by the filter's card floors: for stock, and for a
    network its node size needs (an offer may be both: stock comes first) —
    :func:`~comparator.domain.offer_filter.unfit_kind` in SQL (docs/planner-pruning.md,
    rule 8). None: the filter has no floors. GPUs of one floor share one test (no GPU test at
    all when they are every GPU the filter allows)."""
    floors = offer_filter.card_floors
    if not floors:
        return None
    classes: dict[tuple[int, int], list[str]] = {}
    for f in floors:
        classes.setdefault((f.cards, f.node_group), []).append(f.gpu)
    no_network = or_(OFFER.c.network.is_(None), OFFER.c.network == "")
    stock, network = [], []
    for (least, group), gpus in sorted(classes.items()):
        held: ColumnElement[bool] = true()
        if not (offer_filter.gpus and set(offer_filter.gpus) <= set(gpus)):
            held = OFFER.c.gpu.in_(sorted(gpus))
        if group > 1:
            held = and_(held, OFFER.c.node_cards >= group)
        short = and_(OFFER.c.stock.is_not(None), OFFER.c.stock * OFFER.c.cards < least)
        stock.append(and_(held, short))
        network.append(and_(held, OFFER.c.node_cards < least, no_network))
    return or_(*stock), or_(*network)


def unfit_kind_column(offer_filter: OfferFilter) -> ColumnElement[int] | None:
    """0 for an offer the filter's card floors keep, 1 unfit for stock, 2 for network (None:
    no floors). A ``CASE``, which no index can answer: the tests inside it do not change the
    plan SQLite picks for the job's other conditions (as an ``OR`` of ``IN`` lists they made
    it scan every current offer for the README's job)."""
    unfit = unfit_columns(offer_filter)
    if unfit is None:
        return None
    kind = case((unfit[0], 1), (unfit[1], 2), else_=0)
    gpus = sorted({f.gpu for f in offer_filter.card_floors})
    if offer_filter.gpus and set(offer_filter.gpus) <= set(gpus):
        return kind
    return case((OFFER.c.gpu.in_(gpus), kind), else_=0)  # one test for the other GPUs' offers


def fit_condition(offer_filter: OfferFilter) -> ColumnElement[bool]:
    """The offers the filter's card floors keep (every offer without floors)."""
    kind = unfit_kind_column(offer_filter)
    return true() if kind is None else kind == 0


def current_query(
    offer_filter: OfferFilter,
    *,
    provider: str | None = None,
    billing: str | None = None,
    columns: Sequence[ColumnElement[Any]] = (),
    providers: Sequence[str] | None = None,
    datacenter: bool = True,
) -> Select[Any]:
    """Offers of every provider's current snapshot that pass ``offer_filter``: the OfferView
    columns, or only ``columns`` of the offer and its data centre (no provider join then;
    ``datacenter=False``: ``columns`` of the offer only, no data-centre join either unless the
    filter names places).

    Written as joins from the current snapshots (not ``IN (subquery)``): SQLite then walks
    each current snapshot's offers through an index instead of scanning every offer.
    """
    current = current_snapshots(providers).subquery("current")  # of ``providers`` only
    selected = columns or offer_view_columns()
    if offer_filter.by_place:  # the places first, then each one's offers by (snapshot, region)
        places = DATACENTER.c.provider_id == current.c.provider_id
        query = (
            select(*selected)
            .select_from(current)
            .join(DATACENTER, places & _place_condition(offer_filter))
            .join(
                OFFER, (OFFER.c.snapshot_id == current.c.id) & (OFFER.c.region == DATACENTER.c.id)
            )
        )
    else:
        place = (DATACENTER.c.provider_id == OFFER.c.provider) & (DATACENTER.c.id == OFFER.c.region)
        query = (
            select(*selected).select_from(current).join(OFFER, OFFER.c.snapshot_id == current.c.id)
        )
        if datacenter or not columns:
            query = query.outerjoin(DATACENTER, place)
    if not columns:  # the provider's name (every snapshot's provider exists: a foreign key)
        query = query.join(PROVIDER, PROVIDER.c.id == OFFER.c.provider)
    if offer_filter.by_offer:
        query = query.where(offer_condition(offer_filter))
    if provider is not None:
        query = query.where(current.c.provider_id == provider)
    if billing is not None:
        query = query.where(OFFER.c.billing == billing)
    return query


def stream_offers(conn: Connection, query: Select[Any]) -> Iterator[OfferView]:
    """The offers of ``query`` in batches from a server-side cursor (PostgreSQL) or the
    driver's cursor (SQLite): rows become views as they come, never all rows at once."""
    result = conn.execution_options(stream_results=True, yield_per=BATCH_ROWS).execute(query)
    for rows in result.partitions():
        yield from (offer_view_of(row) for row in rows)


def current_offers(
    engine: Engine,
    *,
    gpu: str | None = None,
    provider: str | None = None,
    province: str | None = None,
    billing: str | None = None,
) -> list[OfferView]:
    """Offers of every provider's current snapshot, filtered by canonical values, by offer id."""
    wanted = OfferFilter(
        gpus=() if gpu is None else (gpu,), provinces=() if province is None else (province,)
    )
    return job_offers(engine, wanted, provider=provider, billing=billing)


def job_offers(
    engine: Engine,
    offer_filter: OfferFilter,
    *,
    provider: str | None = None,
    billing: str | None = None,
) -> list[OfferView]:
    """The current offers that pass ``offer_filter`` (a job's,
    :func:`comparator.plan.prune.sql_prefilter.job_offer_filter`), by offer id, read in batches."""
    query = current_query(offer_filter, provider=provider, billing=billing).order_by(OFFER.c.id)
    with engine.connect() as conn:
        return list(stream_offers(conn, query))


def approximate_card_hour_price(fx: FxTable, currency: str) -> ColumnElement[Any]:
    """An offer's price per card-hour in ``currency`` as a float computed by the database
    (relative error ~1e-15; NULL for a currency without an FX rate): a key to rank by."""
    period = case(PERIOD_HOURS, value=OFFER.c.billing)
    rates = {code: float(fx.rate(code, currency)) for code in fx.rates_cny}
    rate = case(rates, value=func.upper(OFFER.c.currency), else_=None)
    return cast(OFFER.c.price, Float) * rate / (OFFER.c.cards * period)


def oldest_prices(
    engine: Engine, providers: Sequence[str] | None = None
) -> dict[tuple[str, str], datetime]:
    """When the oldest current price of each (provider, data centre) was read (rule 9's
    evidence), of every provider or of ``providers``: one row per place, not per offer."""
    columns = (OFFER.c.provider, OFFER.c.region, func.min(OFFER.c.observed_at))
    query = current_query(OfferFilter(), columns=columns, providers=providers, datacenter=False)
    with engine.connect() as conn:
        rows = conn.execute(query.group_by(OFFER.c.provider, OFFER.c.region))
        return {(str(p), str(r)): t for p, r, t in rows}


def current_snapshot_ids(engine: Engine) -> list[str]:
    """The id of every provider's current snapshot that holds offers."""
    current = current_snapshots().subquery()
    query = select(SNAPSHOT.c.id).where(
        SNAPSHOT.c.id.in_(select(current.c.id)), SNAPSHOT.c.offers > 0
    )
    with engine.connect() as conn:
        return [str(i) for i in conn.execute(query).scalars().all()]  # one fetch


def count_current(engine: Engine, offer_filter: OfferFilter | None = None) -> int:
    """How many current offers there are (in the filter's places only, when it has some)."""
    with engine.connect() as conn:
        if offer_filter is None or not offer_filter.by_place:
            current = current_snapshots().subquery()
            total = select(func.coalesce(func.sum(SNAPSHOT.c.offers), 0)).where(
                SNAPSHOT.c.id.in_(select(current.c.id))
            )
            return int(conn.execute(total).scalar_one())
        places = OfferFilter(provinces=offer_filter.provinces, cities=offer_filter.cities)
        query = current_query(places, columns=(func.count(OFFER.c.id),))  # no provider join
        return int(conn.execute(query).scalar_one())
