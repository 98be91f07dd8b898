"""A larger SQLite page cache for the length of a bulk import.

SQLite keeps 2,000 KiB of pages per connection by default (``PRAGMA cache_size = -2000``).
An import of a million offers maintains the offer table's key and three secondary indexes,
and the card-hour index takes its rows in price order, all over the table: with 2 MiB the
same pages were read and written again and again. Inserting the million offers of
``benchmarks/scale_catalog.py`` alone (an ``executemany`` into an empty offer table with its
indexes, 2026-12-03, load 3-4) took 15.3 CPU s (55 s wall) with the default cache and 8.0 CPU s
(9.0 s wall) with 256 MiB. The cache grows only as pages are read, and is set back when the
import ends (the connection returns to the pool with its default).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager, suppress

from sqlalchemy import Connection
from sqlalchemy.exc import SQLAlchemyError

BULK_CACHE_KIB = 256 * 1024  # the page cache of a bulk import's connection
BULK_CACHE_ROWS = 10_000  # a first sheet of fewer offers keeps the default cache


@contextmanager
def bulk_page_cache(conn: Connection, first_rows: int) -> Iterator[None]:
    """On SQLite, with a first sheet of :data:`BULK_CACHE_ROWS` offers or more: the page
    cache at :data:`BULK_CACHE_KIB` until the block ends, then as it was."""
    if conn.dialect.name != "sqlite" or first_rows < BULK_CACHE_ROWS:
        yield
        return
    before = conn.exec_driver_sql("PRAGMA cache_size").scalar_one()
    conn.exec_driver_sql(f"PRAGMA cache_size = -{BULK_CACHE_KIB}")
    try:
        yield
    finally:
        with suppress(SQLAlchemyError):  # a broken connection is not pooled again anyway
            conn.exec_driver_sql(f"PRAGMA cache_size = {int(before)}")
