"""Price history: each offer's price over its provider's snapshots ("did it get cheaper?").

An offer is followed across snapshots by what identifies it (data centre, GPU, cards, billing,
SKU, time-of-use rule, minimum units, currency — as in the change report). A refresh with
unchanged content makes no snapshot, so every point is a snapshot where something changed.
When one snapshot holds the same offer twice, its lowest price is the point.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from decimal import Decimal
from typing import Any
from zoneinfo import ZoneInfo

from sqlalchemy import Engine, Select, select

from comparator.catalog.changes import KEY_FIELDS, OfferKey
from comparator.catalog.models import Offer, PriceSnapshot, table_of
from comparator.catalog.queries import current_snapshots

OFFER = table_of(Offer)
SNAPSHOT = table_of(PriceSnapshot)


@dataclass(frozen=True)
class PricePoint:
    snapshot_id: int
    fetched_at: datetime
    price: Decimal


@dataclass(frozen=True)
class OfferHistory:
    provider: str
    key: OfferKey
    points: tuple[PricePoint, ...]
    current: bool  # still offered in the provider's current snapshot

    @property
    def first_price(self) -> Decimal:
        return self.points[0].price

    @property
    def last_price(self) -> Decimal:
        return self.points[-1].price

    @property
    def change_pct(self) -> Decimal:
        change = (self.last_price - self.first_price) / self.first_price * 100
        return change.quantize(Decimal("0.1"))

    def to_json(self, zone: ZoneInfo | None = None) -> dict[str, object]:
        """``fetched_at`` in ``zone`` (the settings' time zone, like every other timestamp)."""
        return {
            "provider": self.provider,
            **dict(zip(KEY_FIELDS, self.key, strict=True)),
            "current": self.current,
            "first_price": format(self.first_price, "f"),
            "last_price": format(self.last_price, "f"),
            "min_price": format(min(p.price for p in self.points), "f"),
            "change_pct": str(self.change_pct),
            "points": [
                {
                    "snapshot_id": str(p.snapshot_id),
                    "fetched_at": _in_zone(p.fetched_at, zone).isoformat(),
                    "price": format(p.price, "f"),
                }
                for p in self.points
            ],
        }


def iter_price_history(
    engine: Engine, *, provider: str | None = None, gpu: str | None = None
) -> Iterator[OfferHistory]:
    """Every offer ever stored (filtered by provider id and canonical GPU), oldest point first,
    one offer at a time, its rows streamed from the database (an unfiltered history of 1M
    offers held 1 GiB as a list): the snapshots' times are read apart, once per snapshot
    instead of once per offer."""
    columns = [OFFER.c.provider, *(OFFER.c[name] for name in KEY_FIELDS)]
    query = select(*columns, OFFER.c.snapshot_id, OFFER.c.price).order_by(
        *columns, OFFER.c.snapshot_id
    )
    if provider is not None:
        query = query.where(OFFER.c.provider == provider)
    if gpu is not None:
        query = query.where(OFFER.c.gpu == gpu)
    with engine.connect() as conn:
        current = {str(pid): int(sid) for pid, sid in conn.execute(current_snapshots())}
        fetched = {int(sid): at for sid, at in conn.execute(_snapshot_times(provider))}
        rows = conn.execution_options(yield_per=STREAM_ROWS).execute(query)
        yield from _group(rows, fetched, current)


STREAM_ROWS = 5_000


def _snapshot_times(provider: str | None) -> Select[Any]:
    query = select(SNAPSHOT.c.id, SNAPSHOT.c.fetched_at)
    return query if provider is None else query.where(SNAPSHOT.c.provider_id == provider)


def _group(
    rows: Iterable[Any], fetched: dict[int, datetime], current: dict[str, int]
) -> Iterator[OfferHistory]:
    points: list[PricePoint] = []
    last: tuple[str, OfferKey] | None = None
    for row in rows:
        identity: tuple[str, OfferKey] = (row[0], tuple(row[1:9]))
        if last is not None and identity != last:
            yield _history(last, points, current)
            points = []
        last = identity
        point = PricePoint(row[9], fetched[row[9]], row[10])
        if points and points[-1].snapshot_id == point.snapshot_id:  # a duplicate: keep the lowest
            point = min(points.pop(), point, key=lambda p: p.price)
        points.append(point)
    if last is not None:
        yield _history(last, points, current)


def _history(
    identity: tuple[str, OfferKey], points: list[PricePoint], current: dict[str, int]
) -> OfferHistory:
    provider, key = identity
    return OfferHistory(provider, key, tuple(points), points[-1].snapshot_id == current[provider])


def _in_zone(moment: datetime, zone: ZoneInfo | None) -> datetime:
    if zone is None:
        return moment
    if moment.tzinfo is None:  # SQLite hands back naive UTC
        moment = moment.replace(tzinfo=UTC)
    return moment.astimezone(zone)
