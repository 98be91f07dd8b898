"""An import into an empty offer table on PostgreSQL builds its secondary indexes after the rows.

PostgreSQL maintains each index row by row while COPY stores the rows; on an import of a
million offers into an empty catalog the two secondary indexes of ``offer`` cost about half of
the backend's COPY (docs/import.md, Figures). Built once after the rows (one sort each, in
parallel workers where the server allows them), they cost less: the PostgreSQL manual's advice
for populating a database, "Remove Indexes" (https://www.postgresql.org/docs/15/populate.html).

Only where it costs nobody else: the offer table is empty and no other session holds a lock
on it (the lock is taken with ``NOWAIT``; otherwise the import maintains the indexes as
before). Dropping an index holds an ``ACCESS EXCLUSIVE`` lock on ``offer`` until the import
commits, so a reader of offers waits for the first import of an empty catalog instead of
reading nothing. DDL is transactional: an import that fails, is refused or is killed rolls
the drop back with everything else. SQLite gains nothing from it (measured: the same CPU
time within a few per cent), so it keeps its indexes.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from sqlalchemy import Connection
from sqlalchemy.exc import OperationalError

from comparator.catalog.queries import OFFER

SECONDARY_INDEXES = ("ix_offer_snapshot_gpu_place", "ix_offer_snapshot_region_gpu")
BUILD_MEMORY = "256MB"  # maintenance_work_mem while the indexes are built (default 64MB)


@contextmanager
def indexes_built_after(conn: Connection) -> Iterator[bool]:
    """Inside the caller's transaction: drop the secondary indexes of an empty, unlocked
    ``offer`` table (yields True), and build them again from their own definitions when the
    block ends without an error. Yields False, doing nothing, elsewhere."""
    definitions = _droppable(conn)
    if not definitions:
        yield False
        return
    for name, _ in definitions:
        conn.exec_driver_sql(f'DROP INDEX "{name}"')
    yield True
    conn.exec_driver_sql(f"SET LOCAL maintenance_work_mem = '{BUILD_MEMORY}'")
    for _, definition in definitions:
        conn.exec_driver_sql(definition)


def _droppable(conn: Connection) -> list[tuple[str, str]]:
    """The secondary indexes' (name, CREATE statement) where they may be dropped, else []."""
    if conn.dialect.name != "postgresql":
        return []
    if conn.exec_driver_sql(f"SELECT EXISTS (SELECT 1 FROM {OFFER.name})").scalar_one():
        return []
    try:
        with conn.begin_nested():
            conn.exec_driver_sql(f"LOCK TABLE {OFFER.name} IN ACCESS EXCLUSIVE MODE NOWAIT")
    except OperationalError:  # another session reads or writes offers: keep the indexes
        return []
    names = ", ".join(f"'{name}'" for name in SECONDARY_INDEXES)
    rows = conn.exec_driver_sql(
        "SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = current_schema()"
        f" AND tablename = '{OFFER.name}' AND indexname IN ({names}) ORDER BY indexname"
    ).all()
    return [(str(name), str(definition)) for name, definition in rows]
