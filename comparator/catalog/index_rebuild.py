"""An import into an empty offer table builds its secondary indexes after the rows.

PostgreSQL maintains each index row by row while COPY stores the rows; on an import of a
million offers into an empty catalog the secondary indexes of ``offer`` cost about half of
the backend's COPY (docs/import.md, Figures). Built once after the rows (one sort each, in
parallel workers where the server allows them), they cost less: the PostgreSQL manual's advice,
"Remove Indices" (read at https://postgresql.org/docs/7/c49334947.htm).

Only for a bulk load (a first sheet of 10,000 offers or more) and only where it costs nobody
else: the offer table is empty and no other session holds a lock
on it (the lock is taken with ``NOWAIT``; otherwise the import maintains the indexes as
before). The summary table's primary key (``snapshotsummary``, written beside the offers) is
dropped and added again likewise; a duplicate key then fails the import when the key is
added, as it failed the COPY before. Dropping an index holds an ``ACCESS EXCLUSIVE`` lock on ``offer`` until the import
commits, so a reader of offers waits for the first import of an empty catalog instead of
reading nothing. DDL is transactional: an import that fails, is refused or is killed rolls
the drop back with everything else. SQLite drops and builds offer's secondary indexes of an
empty table likewise (its summary's key is the table's own order and stays): at a million
offers the import's writer, which bounds SQLite's wall, spent 14.3-15.3 CPU s against
15.6-18.8 s keeping them (docs/import.md); it sorts them on worker threads
(:func:`_sorting_on_threads`).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager, nullcontext

from sqlalchemy import Connection
from sqlalchemy.exc import OperationalError

from comparator.catalog.db import usable_cores
from comparator.catalog.queries import OFFER
from comparator.catalog.snapshot_summary import SUMMARY

SECONDARY_INDEXES = (
    "ix_offer_card_hour",
    "ix_offer_snapshot_gpu_place",
    "ix_offer_snapshot_region_gpu",
)
# maintenance_work_mem while the indexes are built; the test server's is 65536 kB (pg_settings)
BUILD_MEMORY = "256MB"
BULK_ROWS = 10_000  # a first sheet of fewer offers keeps the indexes (a small import)
SQLITE_DEFAULT_CACHE = -2000  # KiB: SQLite's default page cache, the sorter's piece size


@contextmanager
def indexes_built_after(conn: Connection, first_rows: int) -> Iterator[bool]:
    """Inside the caller's transaction: drop the secondary indexes of an empty, unlocked
    ``offer`` table and the primary key of its (empty) summary (yields True), and build them
    again from their own definitions when the block ends without an error. Yields False,
    doing nothing, elsewhere, and where the import's first sheet has fewer than
    :data:`BULK_ROWS` offers."""
    drops, builds = _droppable(conn) if first_rows >= BULK_ROWS else ([], [])
    if not drops:
        yield False
        return
    for statement in drops:
        conn.exec_driver_sql(statement)
    yield True
    if conn.dialect.name == "postgresql":
        conn.exec_driver_sql(f"SET LOCAL maintenance_work_mem = '{BUILD_MEMORY}'")
    sorting = _sorting_on_threads(conn) if conn.dialect.name == "sqlite" else nullcontext()
    with sorting:
        for statement in builds:
            conn.exec_driver_sql(statement)


@contextmanager
def _sorting_on_threads(conn: Connection) -> Iterator[None]:
    """SQLite sorts an index's rows on worker threads (``PRAGMA threads``, one per usable
    core) in pieces of its default page cache; the bulk import's cache of 256 MiB
    (:mod:`.page_cache`) made it sort all in one piece on one thread. The three indexes of
    a million offers: 2.3 s, 1.3-1.7 s this way (docs/import.md, "Seventh round"). Both
    pragmas are set back after."""
    threads = conn.exec_driver_sql("PRAGMA threads").scalar_one()
    cache = conn.exec_driver_sql("PRAGMA cache_size").scalar_one()
    conn.exec_driver_sql(f"PRAGMA threads = {usable_cores()}")
    conn.exec_driver_sql(f"PRAGMA cache_size = {SQLITE_DEFAULT_CACHE}")
    try:
        yield
    finally:
        conn.exec_driver_sql(f"PRAGMA cache_size = {int(cache)}")
        conn.exec_driver_sql(f"PRAGMA threads = {int(threads)}")


def _droppable(conn: Connection) -> tuple[list[str], list[str]]:
    """The statements that drop the indexes and build them again where they may be dropped."""
    if conn.dialect.name == "sqlite":
        return _droppable_on_sqlite(conn)
    if conn.dialect.name != "postgresql" or not _empty_and_free(conn, (OFFER.name, SUMMARY.name)):
        return [], []
    names = ", ".join(f"'{name}'" for name in SECONDARY_INDEXES)
    indexes = conn.exec_driver_sql(
        "SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = current_schema()"
        f" AND tablename = '{OFFER.name}' AND indexname IN ({names}) ORDER BY indexname"
    ).all()
    keys = conn.exec_driver_sql(
        "SELECT conname, pg_get_constraintdef(oid) FROM pg_constraint"
        f" WHERE conrelid = '{SUMMARY.name}'::regclass AND contype = 'p'"
    ).all()
    drops = [f'DROP INDEX "{name}"' for name, _ in indexes]
    drops += [f'ALTER TABLE {SUMMARY.name} DROP CONSTRAINT "{name}"' for name, _ in keys]
    builds = [str(definition) for _, definition in indexes]
    builds += [f'ALTER TABLE {SUMMARY.name} ADD CONSTRAINT "{n}" {d}' for n, d in keys]
    return drops, builds


def _droppable_on_sqlite(conn: Connection) -> tuple[list[str], list[str]]:
    """SQLite: offer's secondary indexes where the table is empty (the import's ``BEGIN
    IMMEDIATE`` holds SQLite's one write lock; readers keep reading the catalog as it was).
    The summary's key is its table's own order (``WITHOUT ROWID``) and stays."""
    if conn.exec_driver_sql(f"SELECT EXISTS (SELECT 1 FROM {OFFER.name})").scalar_one():
        return [], []
    names = ", ".join(f"'{name}'" for name in SECONDARY_INDEXES)
    indexes = conn.exec_driver_sql(
        f"SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = '{OFFER.name}'"
        f" AND name IN ({names}) AND sql IS NOT NULL ORDER BY name"
    ).all()
    return [f'DROP INDEX "{name}"' for name, _ in indexes], [str(sql) for _, sql in indexes]


def _empty_and_free(conn: Connection, tables: tuple[str, ...]) -> bool:
    """Whether ``tables`` are empty and no other session holds a lock on them (then this
    transaction holds them ``ACCESS EXCLUSIVE`` until it ends)."""
    for table in tables:
        if conn.exec_driver_sql(f"SELECT EXISTS (SELECT 1 FROM {table})").scalar_one():
            return False
    try:
        with conn.begin_nested():
            listed = ", ".join(tables)
            conn.exec_driver_sql(f"LOCK TABLE {listed} IN ACCESS EXCLUSIVE MODE NOWAIT")
    except OperationalError:  # another session reads or writes them: keep the indexes
        return False
    return True
