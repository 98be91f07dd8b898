"""What changed in the market between two weeks, in the database, and the sources that failed.

Two weeks are compared through their snapshot ids (:func:`comparator.catalog.market.
week_snapshots`). Offers are matched as the change report matches them (provider, data
centre, GPU, cards, billing, SKU, time-of-use rule, minimum units, currency); only providers
whose snapshot differs between the weeks are compared offer by offer.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from typing import Any

from sqlalchemy import Connection, Engine, text

from comparator.catalog.changes import KEY_FIELDS

MOVES_SHOWN = 10


@dataclass(frozen=True)
class WeekDiff:
    places_now: frozenset[tuple[str, str]]  # (provider, data centre) with offers
    places_before: frozenset[tuple[str, str]]
    offers_added: int
    offers_removed: int
    moves: tuple[dict[str, Any], ...]  # the largest price moves, biggest first
    stock_to_zero: tuple[dict[str, Any], ...]


def _ids(snapshots: Collection[int]) -> str:
    return ", ".join(str(int(s)) for s in sorted(set(snapshots))) or "-1"


def places(conn: Connection, snapshots: Collection[int]) -> frozenset[tuple[str, str]]:
    query = text(
        f"SELECT DISTINCT provider, region FROM offer WHERE snapshot_id IN ({_ids(snapshots)})"
    )
    return frozenset((str(p), str(r)) for p, r in conn.execute(query))


def week_diff(engine: Engine, now: Mapping[str, int], before: Mapping[str, int]) -> WeekDiff:
    """Places, offers added and removed, price moves and stock gone to zero from ``before`` to
    ``now`` (provider → snapshot id of each week)."""
    changed = [p for p, sid in now.items() if before.get(p) != sid]
    changed += [p for p in before if p not in now]
    new_ids = [now[p] for p in changed if p in now]
    old_ids = [before[p] for p in changed if p in before]
    keys = ", ".join(["provider", *KEY_FIELDS])
    with engine.connect() as conn:
        sqlite = conn.dialect.name == "sqlite"
        added = _count_except(conn, keys, new_ids, old_ids)
        removed = _count_except(conn, keys, old_ids, new_ids)
        moves = _moves(conn, new_ids, old_ids, sqlite)
        zero = _stock_to_zero(conn, new_ids, old_ids, sqlite)
        return WeekDiff(
            places(conn, now.values()),
            places(conn, before.values()),
            added,
            removed,
            moves,
            zero,
        )


def _count_except(conn: Connection, keys: str, ids: Sequence[int], other: Sequence[int]) -> int:
    if not ids:
        return 0
    query = (
        f"SELECT COUNT(*) FROM (SELECT {keys} FROM offer WHERE snapshot_id IN ({_ids(ids)})"
        f" EXCEPT SELECT {keys} FROM offer WHERE snapshot_id IN ({_ids(other)})) AS added"
    )
    return int(conn.execute(text(query)).scalar_one())


def _pairs(new_ids: Sequence[int], old_ids: Sequence[int], sqlite: bool) -> str:
    """Each offer of the newer week beside the same offer of the older week (cheapest each)."""
    keys = ", ".join(["provider", *KEY_FIELDS])
    price = "CAST(price AS REAL)" if sqlite else "price"  # SQLite keeps prices as exact text
    join = " AND ".join(f"n.{k} = b.{k}" for k in ["provider", *KEY_FIELDS])
    side = (
        "SELECT {keys}, MIN({price}) AS price, MIN(stock) AS stock"
        " FROM offer WHERE snapshot_id IN ({ids}) GROUP BY {keys}"
    )
    return (
        f"SELECT n.*, b.price AS old_price, b.stock AS old_stock"
        f" FROM ({side.format(keys=keys, ids=_ids(new_ids), price=price)}) n"
        f" JOIN ({side.format(keys=keys, ids=_ids(old_ids), price=price)}) b ON {join}"
    )


def _moves(
    conn: Connection, new_ids: Sequence[int], old_ids: Sequence[int], sqlite: bool
) -> tuple[dict[str, Any], ...]:
    if not new_ids or not old_ids:
        return ()
    query = (
        f"SELECT * FROM ({_pairs(new_ids, old_ids, sqlite)}) AS pairs WHERE price <> old_price"
        " ORDER BY ABS(price - old_price) / old_price DESC, provider, region, gpu"
        f" LIMIT {MOVES_SHOWN}"
    )
    return tuple(_move(dict(row)) for row in conn.execute(text(query)).mappings())


def _move(row: dict[str, Any]) -> dict[str, Any]:
    new, old = Decimal(str(row["price"])).normalize(), Decimal(str(row["old_price"])).normalize()
    pct = ((new - old) / old * 100).quantize(Decimal("0.1"))
    return _offer_fields(row) | {
        "old_price": format(old, "f"),
        "new_price": format(new, "f"),
        "change_pct": str(pct),
    }


def _offer_fields(row: Mapping[str, Any]) -> dict[str, Any]:
    fields = ("provider", "region", "gpu", "cards", "billing", "sku", "currency")
    return {name: row[name] for name in fields}


def _stock_to_zero(
    conn: Connection, new_ids: Sequence[int], old_ids: Sequence[int], sqlite: bool
) -> tuple[dict[str, Any], ...]:
    """Offers whose stock is 0 now and was unlimited or above 0 the week before."""
    if not new_ids or not old_ids:
        return ()
    query = (
        f"SELECT * FROM ({_pairs(new_ids, old_ids, sqlite)}) AS pairs"
        " WHERE stock = 0 AND (old_stock IS NULL OR old_stock > 0)"
        " ORDER BY provider, region, gpu, billing"
    )
    return tuple(_offer_fields(dict(row)) for row in conn.execute(text(query)).mappings())


@dataclass(frozen=True)
class FailedSource:
    provider: str
    source: str
    period: str
    error: str
    failed_at: datetime | None
    last_good_at: datetime | None


def failed_sources(engine: Engine) -> list[FailedSource]:
    """Providers whose latest refresh run failed, with when their current prices were fetched."""
    query = text(
        "SELECT r.provider_id, r.source, r.period, r.error, r.finished_at,"
        " (SELECT MAX(s.fetched_at) FROM pricesnapshot s WHERE s.provider_id = r.provider_id)"
        " AS last_good FROM refreshrun r WHERE r.id IN"
        " (SELECT MAX(id) FROM refreshrun GROUP BY provider_id) AND r.status = 'failed'"
        " ORDER BY r.provider_id"
    )
    from comparator.catalog.dbtypes import AwareDateTime

    moment = AwareDateTime()
    with engine.connect() as conn:
        return [
            FailedSource(
                str(pid),
                str(source or ""),
                str(period),
                str(error or ""),
                moment.process_result_value(_parsed(finished), conn.dialect),
                moment.process_result_value(_parsed(last_good), conn.dialect),
            )
            for pid, source, period, error, finished, last_good in conn.execute(query)
        ]


def _parsed(value: Any) -> Any:
    """SQLite hands raw text back from a text() query: parse it as SQLAlchemy would."""
    if isinstance(value, str):
        return datetime.fromisoformat(value)
    return value
