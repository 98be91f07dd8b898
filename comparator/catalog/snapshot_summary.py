"""Each snapshot's cheapest offer per group, written when the snapshot is stored.

A group is a snapshot's offers of one GPU, billing mode and data centre that share their
pricing basis (currency, tax inclusion and VAT rate, time-of-use rule): the card-hour price of
such offers differs only by their price per card, so the group's cheapest offer per card is its
cheapest card-hour under every exchange rate and reference week the market report may use. The
report reads these rows (about a fifth of the offers of a dense national catalog) instead of
every offer, and reads them in key order (docs/market-report.md, How it runs at scale).
"""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import Connection

from comparator.catalog.models import SnapshotSummary, table_of

SUMMARY = table_of(SnapshotSummary)
GROUP_COLUMNS = (
    "snapshot_id",
    "gpu",
    "billing",
    "region",
    "currency",
    "tax_inclusive",
    "vat_rate",
    "time_of_use",
)
ROW_COLUMNS = ("provider", "offers", "offer_id", "cards", "price")
_CHUNK = 500  # snapshot ids per statement


def summary_insert_sql(dialect_name: str, where: str) -> str:
    """``INSERT … SELECT`` of the groups of the offers ``where`` selects (one SQL condition)."""
    keys = ", ".join(GROUP_COLUMNS)
    target = f"INSERT INTO {SUMMARY.name} ({keys}, {', '.join(ROW_COLUMNS)})"
    if dialect_name == "postgresql":  # exact numeric; one hash aggregate, no sort
        least = "MIN(ARRAY[price / cards, id, cards, price])"  # by price per card, then id
        return (
            f"{target} SELECT {keys}, MIN(provider), COUNT(*), CAST(({least})[2] AS BIGINT),"
            f" CAST(({least})[3] AS INTEGER), ({least})[4] FROM offer WHERE {where}"
            f" GROUP BY {keys}"
        )
    # SQLite keeps prices as text: the group's MIN on the float price per card, and its bare
    # columns (SQLite takes them from the row of the one MIN)
    return (
        f"{target} SELECT {keys}, provider, offers, id, cards, price FROM"
        f" (SELECT {keys}, provider, COUNT(*) AS offers, id, cards, price,"
        f" MIN(CAST(price AS REAL) / cards) FROM offer WHERE {where} GROUP BY {keys})"
    )


def summarise_snapshots(conn: Connection, snapshot_ids: Sequence[int]) -> None:
    """Write the summary rows of newly stored snapshots, inside the caller's transaction."""
    ids = sorted({int(i) for i in snapshot_ids})
    for start in range(0, len(ids), _CHUNK):
        chunk = ", ".join(str(i) for i in ids[start : start + _CHUNK])
        conn.exec_driver_sql(summary_insert_sql(conn.dialect.name, f"snapshot_id IN ({chunk})"))
