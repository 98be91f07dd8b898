"""The cheapest current offers of the whole catalog, walked in an index's order.

`suanli offers` without a filter lists the cheapest 30 by card-hour price. Computed for every
row, that price cost a scan of the million offers (0.85 s on SQLite, ~1 s on PostgreSQL at
1M offers, idle). An offer's card-hour price is its native price per card-hour (price over
cards × the billing period's hours: one column of the offer row) times its currency's FX
rate, so within one currency the order is the native price's order: the expression index
``ix_offer_card_hour`` (upper(currency), native card-hour price; migration 0009) holds it.
Each currency's cheapest current offers are read from that index (its walk skips the offers of
superseded snapshots, tested against the kept current snapshots, migration 0013: a history of
price cuts puts those first), the currencies merged by their rate, and the offers within 1e-9 of the
``limit``-th ranked exactly by the caller, as before
(:func:`comparator.catalog.ranked_offers.top_offers`).

When the index cannot answer exactly (some currency without an FX rate, or an offer whose
native price is NULL: an unknown billing mode or no cards), :func:`cheapest_current` returns
None and the caller ranks by the scan.
"""

from __future__ import annotations

from sqlalchemy import Connection, func, select, text

from comparator.catalog.queries import SNAPSHOT, current_snapshots
from comparator.domain.billing import PERIOD_HOURS
from comparator.domain.money import FxTable

INDEX_NAME = "ix_offer_card_hour"
_PERIOD = " ".join(f"WHEN '{mode}' THEN {hours}" for mode, hours in PERIOD_HOURS.items())
# the index's second expression, written as the migration wrote it (a test compares them):
# a query uses the index only when it repeats the expression exactly
NATIVE_SQL = f"CAST(price AS FLOAT) / NULLIF(cards * CASE billing {_PERIOD} END, 0)"
# the current snapshots' offers only, tested as the index walk reaches them (superseded
# snapshots' offers stay in the index: a history of price cuts puts them first)
_CURRENT = "snapshot_id IN (SELECT snapshot_id FROM currentsnapshot)"
_READ = text(
    f"SELECT id, {NATIVE_SQL} FROM offer WHERE upper(currency) = :currency AND {_CURRENT}"
    f" ORDER BY {NATIVE_SQL} LIMIT :rows"
)
_UP_TO = text(
    f"SELECT id, {NATIVE_SQL} FROM offer WHERE upper(currency) = :currency AND {_CURRENT}"
    f" AND {NATIVE_SQL} <= :most ORDER BY {NATIVE_SQL}"
)
_NEXT_CURRENCY = text(
    "SELECT upper(currency) FROM offer WHERE upper(currency) > :after"
    " ORDER BY upper(currency) LIMIT 1"
)
_NULL_PRICE = text(
    f"SELECT 1 FROM offer WHERE upper(currency) = :currency AND {NATIVE_SQL} IS NULL LIMIT 1"
)


def cheapest_current(
    conn: Connection, fx: FxTable, currency: str, limit: int, near: float
) -> list[tuple[int, float]] | None:
    """(id, float card-hour price in ``currency``) of every current offer that may rank among
    the first ``limit``: the ``limit`` cheapest and each within ``near`` (relative) of the
    ``limit``-th; None when the index cannot tell (the caller scans)."""
    currencies = _currencies(conn)
    if any(c not in fx.rates_cny for c in currencies):
        return None  # unpriced offers rank last, by provider: the scan lists them
    if any(conn.execute(_NULL_PRICE, {"currency": c}).first() for c in currencies):
        return None
    rates = {c: float(fx.rate(c, currency)) for c in currencies}
    wanted = max(16 * limit, 256)  # ties of sheets priced to the cent
    found = {c: _first(conn, c, wanted) for c in currencies}
    keyed = sorted(
        (native * rates[c], offer_id) for c, (rows, _) in found.items() for offer_id, native in rows
    )
    if len(keyed) < limit:
        return [(i, k) for k, i in keyed]
    cut = keyed[limit - 1][0] * (1 + near) + 1e-12
    out: list[tuple[int, float]] = []
    for c, (rows, complete) in found.items():
        if not complete and rows and rows[-1][1] * rates[c] <= cut:  # more may lie within
            rows = _up_to(conn, c, cut / rates[c] * (1 + 1e-12))
        out += [(i, n * rates[c]) for i, n in rows if n * rates[c] <= cut]
    return sorted(out, key=lambda pair: (pair[1], pair[0]))


def current_total(conn: Connection) -> int:
    """How many current offers there are: the sum of the current snapshots' counts."""
    current = current_snapshots().subquery()
    query = select(func.coalesce(func.sum(SNAPSHOT.c.offers), 0))
    return int(conn.execute(query.where(SNAPSHOT.c.id.in_(select(current.c.id)))).scalar_one())


def _currencies(conn: Connection) -> list[str]:
    """Every currency of the offers (any snapshot), one index seek each."""
    out: list[str] = []
    after = ""
    while (code := conn.execute(_NEXT_CURRENCY, {"after": after}).scalar()) is not None:
        out.append(str(code))
        after = str(code)
    return out


def _first(conn: Connection, currency: str, wanted: int) -> tuple[list[tuple[int, float]], bool]:
    """The ``wanted`` cheapest current offers of ``currency`` (id, native price) and whether
    they are all of them."""
    read = conn.execute(_READ, {"currency": currency, "rows": wanted}).all()
    return [(int(i), float(n)) for i, n in read], len(read) < wanted


def _up_to(conn: Connection, currency: str, most: float) -> list[tuple[int, float]]:
    read = conn.execute(_UP_TO, {"currency": currency, "most": most})
    return [(int(i), float(n)) for i, n in read]
