"""A lease that lets one worker process at a time run the scheduled refresh.

PostgreSQL: a session advisory lock (``pg_try_advisory_lock``) on a connection kept open while
the lease is held; the server frees it when the process dies. SQLite: a ``lease`` row with an
expiry, taken in a write transaction and renewed by a thread while held; a crashed holder's
lease runs out after ``ttl``, and one held by a process of this host that is gone (SIGKILL)
is taken over at once.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta

from sqlalchemy import Engine, delete, insert, select, text, update

from comparator.catalog.db import advisory_key, write_transaction
from comparator.catalog.models import Lease, table_of
from comparator.refresh.runs import local_holder_alive, this_holder

LEASE = table_of(Lease)
DEFAULT_TTL = timedelta(minutes=5)


@contextmanager
def hold_lease(engine: Engine, name: str, ttl: timedelta = DEFAULT_TTL) -> Iterator[str | None]:
    """Yield ``None`` while this process holds lease ``name``, else who holds it."""
    if engine.dialect.name == "postgresql":
        with _advisory_lock(engine, name) as held:
            yield None if held else "another worker process (PostgreSQL advisory lock)"
        return
    holder = _take_row(engine, name, ttl)
    if holder is not None:
        yield holder
        return
    stop = threading.Event()
    renewer = threading.Thread(target=_renew, args=(engine, name, ttl, stop), daemon=True)
    renewer.start()
    try:
        yield None
    finally:
        stop.set()
        renewer.join()
        _release_row(engine, name)


@contextmanager
def _advisory_lock(engine: Engine, name: str) -> Iterator[bool]:
    key = advisory_key(name)
    with engine.connect() as conn:
        held = bool(conn.execute(text("SELECT pg_try_advisory_lock(:key)"), {"key": key}).scalar())
        conn.commit()
        try:
            yield held
        finally:
            if held:
                conn.execute(text("SELECT pg_advisory_unlock(:key)"), {"key": key})
                conn.commit()


def _take_row(engine: Engine, name: str, ttl: timedelta) -> str | None:
    now, me = datetime.now(UTC), this_holder()
    with write_transaction(engine) as conn:
        row = conn.execute(select(LEASE).where(LEASE.c.name == name)).first()
        if (
            row is not None
            and row.holder != me
            and row.expires_at > now
            and local_holder_alive(row.holder) is not False
        ):
            return f"{row.holder} (until {row.expires_at:%Y-%m-%d %H:%M:%S} UTC)"
        values = {"holder": me, "expires_at": now + ttl}
        if row is None:
            conn.execute(insert(LEASE).values(name=name, **values))
        else:
            conn.execute(update(LEASE).where(LEASE.c.name == name).values(**values))
    return None


def _renew(engine: Engine, name: str, ttl: timedelta, stop: threading.Event) -> None:
    while not stop.wait(ttl.total_seconds() / 3):
        with write_transaction(engine) as conn:
            conn.execute(
                update(LEASE)
                .where(LEASE.c.name == name, LEASE.c.holder == this_holder())
                .values(expires_at=datetime.now(UTC) + ttl)
            )


def _release_row(engine: Engine, name: str) -> None:
    with write_transaction(engine) as conn:
        conn.execute(delete(LEASE).where(LEASE.c.name == name, LEASE.c.holder == this_holder()))
