"""Offer ids given before a bulk write, so that rows written beside the offers (the snapshot
summary's ``offer_id``, :mod:`comparator.catalog.sheet_summary`) can name them.

PostgreSQL: ``count`` values of the offer id's own sequence, which no other session can get
(``nextval`` never hands a value out twice), read back through ``COPY … TO STDOUT``. SQLite:
the ids after the greatest, as SQLite gives an ``INTEGER PRIMARY KEY`` itself; the write
transaction holds SQLite's one write lock, so no other writer takes them meanwhile (and the
primary key refuses an id taken twice: the import fails whole, nothing is written).
"""

from __future__ import annotations

import numpy as np
from sqlalchemy import Connection

from comparator.catalog.queries import OFFER


def reserve_offer_ids(conn: Connection, count: int, *, alone: bool = False) -> np.ndarray:
    """``count`` unused offer ids, ascending, for the caller's transaction to write.
    ``alone``: no other session writes offers meanwhile (the caller holds every provider's
    lock, as an import of sheets does), so PostgreSQL's sequence may be moved past them at
    once (:func:`_moved_past`)."""
    if count <= 0:
        return np.empty(0, dtype=np.int64)
    if conn.dialect.name == "postgresql" and conn.dialect.driver == "psycopg":
        return _moved_past(conn, count) if alone else _from_sequence(conn, count)
    last = conn.exec_driver_sql(f"SELECT COALESCE(MAX(id), 0) FROM {OFFER.name}").scalar_one()
    return np.arange(int(last) + 1, int(last) + 1 + count, dtype=np.int64)


def _moved_past(conn: Connection, count: int) -> np.ndarray:
    """One ``nextval`` and a ``setval`` past ``count`` ids, instead of ``count`` calls of
    ``nextval`` (0.43 s of the backend's CPU per million offers, ``benchmarks/import_phases``,
    2026-12-03). Only where no other session draws offer ids meanwhile: a writer that took
    one in between would share an id with this import, and the primary key would fail one
    of the two whole (nothing half-written)."""
    sequence = f"pg_get_serial_sequence('{OFFER.name}', 'id')"
    first = int(conn.exec_driver_sql(f"SELECT nextval({sequence})").scalar_one())
    conn.exec_driver_sql(f"SELECT setval({sequence}, {first + count - 1})")
    return np.arange(first, first + count, dtype=np.int64)


def _from_sequence(conn: Connection, count: int) -> np.ndarray:
    """The ids nextval gives: as a range where they are one (no other session took one
    meanwhile, the usual case), else listed (read back through ``COPY … TO STDOUT``)."""
    sequence = conn.exec_driver_sql(
        f"SELECT pg_get_serial_sequence('{OFFER.name}', 'id')::regclass::oid"
    ).scalar_one()
    given = f"SELECT nextval({int(sequence)}::regclass) AS id FROM generate_series(1, {int(count)})"
    low, high = conn.exec_driver_sql(f"SELECT MIN(id), MAX(id) FROM ({given}) AS given").one()
    if int(high) - int(low) + 1 == count:  # count distinct values in a range of count
        return np.arange(int(low), int(high) + 1, dtype=np.int64)
    return listed_ids(conn, given)


def listed_ids(conn: Connection, given: str) -> np.ndarray:
    """The ids the query ``given`` hands out, ascending."""
    raw = conn.connection.driver_connection
    with raw.cursor() as cursor, cursor.copy(f"COPY ({given}) TO STDOUT") as copy:  # type: ignore[union-attr]
        data = b"".join(bytes(block) for block in copy)
    ids = np.array(data.split(), dtype=np.int64)
    ids.sort()
    return ids
