"""The market index in the database: per week, GPU and billing mode, each provider's cheapest
card-hour price, then the minimum, median and 90th percentile over providers.

A week's offers are those of each provider's newest snapshot fetched before the week's end
(:func:`week_snapshots`). They are read from the snapshots' summaries (:mod:`comparator.
catalog.snapshot_summary`: each group's cheapest offer per card), not from every offer. The
card-hour price is tax-inclusive (``× (1 + vat_rate)`` where a sheet says tax-exclusive), in
the quote currency (the FX table), off-peak rules of hourly and spot offers at their mean
factor over a reference week, divided by the cards of the rental unit and the hours of the
billing period.

Both databases order on that price as a float in SQL, which is exact enough to rank (two
prices a float cannot tell apart round to the same cent); the exact price is computed in
``Decimal`` from the offer's exact row, and only for what is shown: the minimum, the rows
around each percentile, the cheapest compliant offer (:mod:`comparator.domain.price_index`).
"""

from __future__ import annotations

import json
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from decimal import Decimal
from typing import Any

from sqlalchemy import Connection, Engine, select, text

from comparator.catalog.db import analytic_session
from comparator.catalog.models import PriceSnapshot, table_of
from comparator.catalog.snapshot_summary import SUMMARY
from comparator.domain.billing import HOURLY_MODES, PERIOD_HOURS
from comparator.domain.price_index import WEEK_HOURS, IndexStats, summarise_ordered

SNAPSHOT = table_of(PriceSnapshot)
GroupKey = tuple[int, str, str]  # (week number, GPU, billing mode)


@dataclass(frozen=True)
class Pricing:
    """How an offer becomes a card-hour price in the index (see the module docstring)."""

    currency: str
    fx_rates_cny: Mapping[str, Decimal]  # CNY per unit of each currency (CNY itself included)
    tou_sums: Mapping[str, Decimal] = field(default_factory=dict)  # rule → factor sum per week

    def card_hour(self, row: Any) -> Decimal:
        """The exact card-hour price of an offer row (its price, cards, billing, currency, …)."""
        price = Decimal(str(row["price"]))
        if not row["tax_inclusive"]:
            price *= 1 + Decimal(str(row["vat_rate"]))
        price *= self.fx_rates_cny[str(row["currency"]).upper()]
        tou = str(row["time_of_use"] or "")
        weekly = (
            self.tou_sums.get(tou, WEEK_HOURS) if row["billing"] in HOURLY_MODES else WEEK_HOURS
        )
        denominator = int(row["cards"]) * PERIOD_HOURS[str(row["billing"])] * WEEK_HOURS
        return price * weekly / (denominator * self.fx_rates_cny[self.currency])


class Sql:
    """A statement's text and its bind parameters, built piece by piece."""

    def __init__(self) -> None:
        self.params: dict[str, Any] = {}

    def bind(self, value: Any) -> str:
        name = f"p{len(self.params)}"
        self.params[name] = value
        return f":{name}"

    def card_hour(self, pricing: Pricing, dialect: str) -> str:
        """The card-hour price of row ``o`` as one float SQL expression, for ordering only:
        exact prices are computed from the few rows shown (:meth:`Pricing.card_hour`)."""
        real = "DOUBLE PRECISION" if dialect == "postgresql" else "REAL"
        num = f"CAST(o.{{}} AS {real})"
        tax = f"(CASE WHEN o.tax_inclusive THEN 1 ELSE 1 + {num.format('vat_rate')} END)"
        rates = " ".join(
            f"WHEN {self.bind(code)} THEN {float(rate)!r}"
            for code, rate in pricing.fx_rates_cny.items()
        )
        tous = " ".join(
            f"WHEN {self.bind(rule)} THEN {float(total)!r}"
            for rule, total in pricing.tou_sums.items()
        )
        hourly = ", ".join(f"'{mode}'" for mode in HOURLY_MODES)
        tou = f"(CASE o.time_of_use {tous} ELSE {WEEK_HOURS} END)" if tous else str(WEEK_HOURS)
        weekly = f"(CASE WHEN o.billing IN ({hourly}) THEN {tou} ELSE {WEEK_HOURS} END)"
        hours = " ".join(f"WHEN '{mode}' THEN {h}" for mode, h in PERIOD_HOURS.items())
        rate_quote = float(pricing.fx_rates_cny[pricing.currency])
        return (
            f"{num.format('price')} * {tax} * (CASE o.currency {rates} END) * {weekly}"
            f" / (o.cards * (CASE o.billing {hours} END) * {WEEK_HOURS} * {rate_quote!r})"
        )

    def priced_only(self, pricing: Pricing) -> str:
        currencies = ", ".join(self.bind(code) for code in pricing.fx_rates_cny)
        modes = ", ".join(f"'{mode}'" for mode in PERIOD_HOURS)
        return f"o.currency IN ({currencies}) AND o.billing IN ({modes})"

    def outside(self, places: Collection[tuple[str, str]], dialect: str) -> str:
        """``o`` is in none of these (provider, data centre) places: one JSON parameter, as
        a national catalog excludes more places than a statement may have parameters."""
        if not places:
            return "1 = 1"
        pairs = self.bind(json.dumps(sorted(places), ensure_ascii=False))
        rows = (
            f"SELECT json_extract(value, '$[0]'), json_extract(value, '$[1]') FROM json_each({pairs})"
            if dialect != "postgresql"
            else f"SELECT x ->> 0, x ->> 1 FROM json_array_elements(CAST({pairs} AS json)) x"
        )
        return f"(o.provider, o.region) NOT IN ({rows})"


def week_snapshots(conn: Connection, ends: Sequence[datetime]) -> dict[int, dict[str, int]]:
    """For each week (by its position in ``ends``), provider id → the id of its newest
    snapshot fetched before the week's end (aware datetimes)."""
    rows = conn.execute(
        select(SNAPSHOT.c.id, SNAPSHOT.c.provider_id, SNAPSHOT.c.fetched_at).order_by(SNAPSHOT.c.id)
    )
    snapshots = sorted((_aware(fetched), int(sid), str(pid)) for sid, pid, fetched in rows)
    weeks: dict[int, dict[str, int]] = {}
    chosen: dict[str, int] = {}
    taken = 0
    for week, end in sorted(enumerate(ends), key=lambda item: item[1]):
        while taken < len(snapshots) and snapshots[taken][0] < end:
            _, sid, pid = snapshots[taken]
            chosen[pid] = max(sid, chosen.get(pid, sid))  # the newest id fetched before the end
            taken += 1
        weeks[week] = dict(chosen)
    return dict(sorted(weeks.items()))


def _aware(moment: datetime) -> datetime:
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment


def distinct_rules(conn: Connection, snapshot_ids: Sequence[int]) -> list[str]:
    """The off-peak rules of the hourly and spot offers of these snapshots."""
    if not snapshot_ids:
        return []
    ids = ", ".join(str(int(s)) for s in sorted(set(snapshot_ids)))
    hourly = ", ".join(f"'{mode}'" for mode in HOURLY_MODES)
    query = text(
        f"SELECT DISTINCT o.time_of_use FROM {SUMMARY.name} o WHERE o.snapshot_id IN ({ids}) "
        f"AND o.billing IN ({hourly}) AND o.time_of_use <> ''"
    )
    return sorted(str(rule) for (rule,) in conn.execute(query))


@dataclass(frozen=True)
class CheapestOffer:
    offer_id: int
    provider: str
    region: str
    gpu: str
    billing: str
    cards: int
    sku: str
    price_card_hour: Decimal


@dataclass(frozen=True)
class MarketIndex:
    stats: dict[GroupKey, IndexStats]  # (week, GPU, mode) → the index (prices not rounded)
    cheapest: dict[tuple[str, str], CheapestOffer]  # (GPU, mode) → the last week's cheapest


def market_index(
    engine: Engine,
    weeks: Mapping[int, Mapping[str, int]],
    pricing: Pricing,
    stale_providers: Sequence[str] = (),
    excluded: Collection[tuple[str, str]] = (),
) -> MarketIndex:
    """The index of every (week, GPU, billing mode) that has offers, and the cheapest offer of
    the last week per GPU and mode outside the ``excluded`` (provider, data centre) places."""
    last = max(weeks) if weeks else 0
    with engine.connect() as conn:
        analytic_session(conn)
        stats = _index(conn, weeks, pricing, stale_providers)
        cheapest = _cheapest_offers(conn, weeks.get(last, {}), pricing, excluded)
    return MarketIndex(stats, cheapest)


def _cheapest(row: Any, price: Decimal) -> CheapestOffer:
    return CheapestOffer(
        int(row["id"]),
        str(row["provider"]),
        str(row["region"]),
        str(row["gpu"]),
        str(row["billing"]),
        int(row["cards"]),
        str(row["sku"] or ""),
        price,
    )


_ROW_FIELDS: tuple[str, ...] = ("id", "provider", "region", "gpu", "billing", "cards", "sku")
_ROW_FIELDS += ("price", "currency", "tax_inclusive", "vat_rate", "time_of_use")


class RankedRows(Sequence[dict[str, Any]]):
    """A group's providers in ascending price order, of which only the rows the minimum and
    the percentiles need were read: ``len`` is the whole count, indexing reaches those rows."""

    def __init__(self, count: int, rows: Mapping[int, dict[str, Any]]) -> None:
        self._count = count
        self._rows = rows

    def __len__(self) -> int:
        return self._count

    def __getitem__(self, rank: Any) -> Any:
        return self._rows[rank]


def _index(
    conn: Connection,
    weeks: Mapping[int, Mapping[str, int]],
    pricing: Pricing,
    stale: Sequence[str],
) -> dict[GroupKey, IndexStats]:
    """The database hands back each snapshot's (one provider's) cheapest card-hour per GPU and
    mode as a float with its offer id (SQLite groups the summary in its key order, without a
    sort); the groups of each week are ordered here, and exact prices are computed only for
    the offers at the minimum and around each percentile (:mod:`comparator.domain.
    price_index`). Window functions ranked the same rows in SQL at twice the CPU, and exact
    ``numeric`` arithmetic over every summary row cost PostgreSQL most of its time."""
    sql = Sql()
    serves: dict[int, list[tuple[int, int]]] = {}  # snapshot → (week, 1 if stale else 0)
    for week, snapshots in weeks.items():
        for provider, snapshot in snapshots.items():
            serves.setdefault(snapshot, []).append((week, int(provider in stale)))
    ids = ", ".join(str(snapshot) for snapshot in sorted(serves)) or "-1"
    query = (
        f"SELECT o.gpu, o.billing, {_cheapest_of(sql, pricing, conn.dialect.name)},"
        f" SUM(o.offers), o.snapshot_id FROM {SUMMARY.name} o"
        f" WHERE o.snapshot_id IN ({ids}) AND {sql.priced_only(pricing)}"
        f" GROUP BY o.snapshot_id, o.gpu, o.billing"
    )
    prices: dict[GroupKey, list[tuple[float, int]]] = {}
    counts: dict[GroupKey, list[int]] = {}  # [offers, stale providers]
    for gpu, billing, low, offer_id, offers, snapshot in conn.execute(
        text(query), sql.params
    ).all():
        for week, is_stale in serves[snapshot]:
            key = (week, gpu, billing)
            prices.setdefault(key, []).append((low, offer_id))
            count = counts.setdefault(key, [0, 0])
            count[0] += offers
            count[1] += is_stale
    return _ranked_stats(conn, prices, counts, pricing)


def _ranked_stats(
    conn: Connection,
    prices: Mapping[GroupKey, list[tuple[float, int]]],
    counts: Mapping[GroupKey, list[int]],
    pricing: Pricing,
) -> dict[GroupKey, IndexStats]:
    """Each group's index from its providers' (float price, offer id), valuing exactly only
    the offers at the ranks the minimum, the median and the 90th percentile read."""
    wanted: dict[GroupKey, dict[int, int]] = {}
    for key, items in prices.items():
        items.sort()
        n = len(items)
        ranks = {0, (n - 1) // 2, (n - 1) // 2 + 1, 9 * (n - 1) // 10, 9 * (n - 1) // 10 + 1}
        wanted[key] = {rank: items[rank][1] for rank in ranks if rank < n}
    offers = _offer_rows(conn, {i for ranks in wanted.values() for i in ranks.values()})
    return {
        key: summarise_ordered(
            RankedRows(len(prices[key]), {r: offers[i] for r, i in ranks.items()}),
            pricing.card_hour,
            counts[key][0],
            counts[key][1],
        )
        for key, ranks in sorted(wanted.items())
    }


def _offer_rows(conn: Connection, ids: Collection[int]) -> dict[int, dict[str, Any]]:
    """The offers of these ids, as the rows :meth:`Pricing.card_hour` reads."""
    ordered = sorted(ids)
    rows: dict[int, dict[str, Any]] = {}
    for start in range(0, len(ordered), 500):
        chunk = ", ".join(str(i) for i in ordered[start : start + 500])
        query = text(f"SELECT {', '.join(_ROW_FIELDS)} FROM offer WHERE id IN ({chunk})")
        rows.update({int(row["id"]): dict(row) for row in conn.execute(query).mappings()})
    return rows


def _cheapest_of(sql: Sql, pricing: Pricing, dialect: str) -> str:
    """A group's cheapest float card-hour and the id of that offer, as two select columns:
    SQLite takes bare columns from the row of the one ``MIN``; PostgreSQL takes the least
    (price, id) array (one aggregate: PostgreSQL computes identical aggregates once)."""
    price = sql.card_hour(pricing, dialect)
    if dialect == "postgresql":
        pick = f"MIN(ARRAY[{price}, o.offer_id])"
        return f"({pick})[1], CAST(({pick})[2] AS BIGINT)"
    return f"MIN({price}), o.offer_id"


def _cheapest_offers(
    conn: Connection,
    snapshots: Mapping[str, int],
    pricing: Pricing,
    excluded: Collection[tuple[str, str]],
) -> dict[tuple[str, str], CheapestOffer]:
    """The cheapest offer per GPU and mode outside the excluded places, chosen on the float
    price in SQL; the exact price of each winner is computed from its offer row."""
    sql = Sql()
    dialect = conn.dialect.name
    ids = ", ".join(str(int(s)) for s in sorted(set(snapshots.values()))) or "-1"
    query = (
        f"SELECT o.gpu, o.billing, {_cheapest_of(sql, pricing, dialect)} FROM {SUMMARY.name} o"
        f" WHERE o.snapshot_id IN ({ids}) AND {sql.priced_only(pricing)}"
        f" AND {sql.outside(excluded, dialect)} GROUP BY o.gpu, o.billing"
    )
    winners = {(str(g), str(b)): int(i) for g, b, _, i in conn.execute(text(query), sql.params)}
    offers = _offer_rows(conn, winners.values())
    return {g: _cheapest(offers[i], pricing.card_hour(offers[i])) for g, i in winners.items()}
