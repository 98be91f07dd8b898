"""What changed in the market between two weeks, in the database, and the sources that failed.

Two weeks are compared through their snapshot ids (:func:`comparator.catalog.market_queries.
week_snapshots`). Offers are matched as the change report matches them (provider, data
centre, GPU, cards, billing, SKU, time-of-use rule, minimum units, currency); only providers
whose snapshot differs between the weeks are compared offer by offer.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from typing import Any

from sqlalchemy import Connection, Engine, text

from comparator.catalog.changes import KEY_FIELDS
from comparator.catalog.db import analytic_session
from comparator.catalog.snapshot_summary import SUMMARY

MOVES_SHOWN = 10


@dataclass(frozen=True)
class WeekDiff:
    places_now: frozenset[tuple[str, str]]  # (provider, data centre) with offers
    places_before: frozenset[tuple[str, str]]
    offers_added: int
    offers_removed: int
    moves: tuple[dict[str, Any], ...]  # the largest price moves, biggest first
    stock_to_zero: tuple[dict[str, Any], ...]


def _ids(snapshots: Iterable[int]) -> str:
    return ", ".join(str(int(s)) for s in sorted(set(snapshots))) or "-1"


def places(conn: Connection, snapshots: Collection[int]) -> frozenset[tuple[str, str]]:
    query = text(
        f"SELECT DISTINCT provider, region FROM {SUMMARY.name}"
        f" WHERE snapshot_id IN ({_ids(snapshots)})"
    )
    return frozenset((str(p), str(r)) for p, r in conn.execute(query))


def week_diff(engine: Engine, now: Mapping[str, int], before: Mapping[str, int]) -> WeekDiff:
    """Places, offers added and removed, price moves and stock gone to zero from ``before`` to
    ``now`` (provider → snapshot id of each week)."""
    changed = [p for p, sid in now.items() if before.get(p) != sid]
    changed += [p for p in before if p not in now]
    new_ids = [now[p] for p in changed if p in now]
    old_ids = [before[p] for p in changed if p in before]
    both = [(now[p], before[p]) for p in changed if p in now and p in before]
    with engine.connect() as conn:
        analytic_session(conn)
        sqlite = conn.dialect.name == "sqlite"
        matched_new, matched_old, moved, gone = _matched(conn, both, sqlite)
        return WeekDiff(
            places(conn, now.values()),
            places(conn, before.values()),
            _count(conn, new_ids) - matched_new,
            _count(conn, old_ids) - matched_old,
            tuple(_move(row) for row in _largest_moves(moved)),
            tuple(_offer_fields(row) for row in gone),
        )


def _count(conn: Connection, snapshots: Sequence[int]) -> int:
    if not snapshots:
        return 0
    query = text(
        f"SELECT COALESCE(SUM(offers), 0) FROM pricesnapshot WHERE id IN ({_ids(snapshots)})"
    )
    return int(conn.execute(query).scalar_one())


_COLUMNS = "provider, region, gpu, cards, billing, sku, currency, price, old_price, stock"
_NAMES = ["part", "new_offer", "old_offer", *_COLUMNS.split(", "), "old_stock"]


def _matched(
    conn: Connection, both: Sequence[tuple[int, int]], sqlite: bool
) -> tuple[int, int, list[dict[str, Any]], list[dict[str, Any]]]:
    """How many offers of each week found their match in the other (each provider's new
    snapshot against its old one, through the snapshot index), and the matched pairs the
    report shows: those whose price moved the most (with every pair tied with the last of
    them on the inexact float) and those whose stock went to zero.

    ``CROSS JOIN`` makes SQLite walk the pairs, then each new snapshot's offers, then the old
    offers of the same GPU and data centre through the snapshot index: left to choose, it
    built a throwaway index over every offer of the catalog (PostgreSQL still plans freely)."""
    if not both:
        return 0, 0, [], []
    same = " AND ".join(f"b.{k} = n.{k}" for k in ("provider", *KEY_FIELDS))
    real = "CAST({} AS REAL)" if sqlite else "{}"  # SQLite keeps prices as exact text
    move = f"ABS({real.format('n.price')} - {real.format('b.price')}) / {real.format('b.price')}"
    zero = "stock = 0 AND (old_stock IS NULL OR old_stock > 0)"
    if sqlite:
        pairs = ", ".join(f"({int(new)}, {int(old)})" for new, old in both)
        start = f"WITH chg(new_id, old_id) AS (VALUES {pairs}),"
        offers = (
            "chg CROSS JOIN offer n CROSS JOIN offer b WHERE n.snapshot_id = chg.new_id"
            f" AND b.snapshot_id = chg.old_id AND {same}"
        )
    else:  # a changed provider has one snapshot on each side: it pairs them (a hash join)
        start = "WITH"
        offers = (
            f"offer n JOIN offer b ON {same} WHERE n.snapshot_id IN ({_ids(n for n, _ in both)})"
            f" AND b.snapshot_id IN ({_ids(o for _, o in both)})"
        )
    query = (  # one pass over the pairs: the counts (part 1), the moves (2), stock gone (3)
        f"{start} m AS MATERIALIZED (SELECT"
        f" n.id AS new_offer, b.id AS old_offer, n.provider, n.region, n.gpu, n.cards,"
        f" n.billing, n.sku, n.currency, n.price, b.price AS old_price, n.stock,"
        f" b.stock AS old_stock, {move} AS moved FROM {offers}),"
        f" cut AS (SELECT moved FROM m WHERE moved > 0 ORDER BY moved DESC"
        f" LIMIT 1 OFFSET {MOVES_SHOWN - 1})"
        f" SELECT 1 AS part, COUNT(DISTINCT new_offer) AS new_offer,"
        f" COUNT(DISTINCT old_offer) AS old_offer, {', '.join(['NULL'] * 11)} FROM m"
        f" UNION ALL SELECT 2, new_offer, old_offer, {_COLUMNS}, old_stock FROM m"
        f" WHERE moved > 0 AND moved >= COALESCE((SELECT moved FROM cut), 0) * {1 - 1e-9!r}"
        f" UNION ALL SELECT 3, new_offer, old_offer, {_COLUMNS}, old_stock FROM m WHERE {zero}"
        " ORDER BY 1, 4, 5, 6, 8, 2"
    )
    found = [dict(zip(_NAMES, row, strict=True)) for row in conn.execute(text(query))]
    counts = found[0]
    moved = [row for row in found if row["part"] == 2]
    gone = [row for row in found if row["part"] == 3]
    return int(counts["new_offer"]), int(counts["old_offer"]), moved, gone


def _largest_moves(rows: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """The largest moves, biggest first, on the exact prices."""

    def pct(row: dict[str, Any]) -> Decimal:
        old = Decimal(str(row["old_price"]))
        return abs(Decimal(str(row["price"])) - old) / old

    ordered = sorted(rows, key=lambda r: (-pct(r), r["provider"], r["region"], r["gpu"]))
    return ordered[:MOVES_SHOWN]


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
