"""The job's group table built from two queries of disjoint groups at once, on both cores:
on SQLite the second half by a child process into a file of its own, appended after; on
PostgreSQL on a second connection, copied in as it arrives (docs/planner-pruning.md, "Sixth
round" and "Tenth round").
"""

from __future__ import annotations

import contextlib
import os
import pickle
import shutil
import signal
import tempfile
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from queue import Queue
from typing import Any

from sqlalchemy import Connection, Engine, MetaData, Select
from sqlalchemy.exc import DBAPIError

from comparator.catalog.db import analytic_session, hash_aggregates, lock_timeout_s, make_engine
from comparator.catalog.group_table import GROUPS, CreateTableAs, Tally, tally_of, tally_rows

PART_SCHEMA = "suanli_part"  # the second half's database, attached while it is built and read


class _Half:
    """The second half of the group table, built by a child process (``fork``) into a
    database file of its own (a temporary table is its connection's only). A process, not a
    thread: two of SQLite's threads in one process contend for its global mutexes (the two
    halves on two threads took 1.46-1.52 s and 1.9-2.6 CPU s, one after the other 1.46-1.61 s,
    in two processes 0.82-0.84 s). The child's tally of its half, or its error, comes back
    pickled through a pipe."""

    def __init__(self, engine: Engine, query: Select[Any], path: Path) -> None:
        self.url = engine.url.render_as_string(hide_password=False)
        self.timeout_s = lock_timeout_s(engine)
        self.query, self.path = query, path
        self.pid = 0
        self.pipe = -1

    def start(self) -> None:
        reading, writing = os.pipe()
        pid = os.fork()
        if pid == 0:  # the child: builds its half, reports, and leaves at once
            os.close(reading)
            code = 0
            try:
                _send(writing, self._build())
            except BaseException as exc:
                code = 1
                _send(writing, exc)
            finally:
                os._exit(code)
        os.close(writing)
        self.pid, self.pipe = pid, reading

    def _build(self) -> list[Tally]:
        engine = make_engine(self.url, self.timeout_s)
        with engine.connect() as conn:
            raw: Any = conn.connection.dbapi_connection
            _attach(raw, self.path)
            raw.execute(f"PRAGMA {PART_SCHEMA}.journal_mode = OFF")
            raw.execute(f"PRAGMA {PART_SCHEMA}.synchronous = OFF")
            conn.execute(CreateTableAs(GROUPS.name, self.query, schema=PART_SCHEMA))
            conn.commit()
            part = GROUPS.to_metadata(MetaData(), schema=PART_SCHEMA)
            return tally_rows(conn.execute(tally_of(part)))

    def stop(self) -> None:
        """End the child (the caller failed)."""
        with contextlib.suppress(ProcessLookupError):
            os.kill(self.pid, signal.SIGTERM)

    def finish(self) -> list[Tally]:
        """Wait for the child: the tally of its half, once written; its error raised."""
        with os.fdopen(self.pipe, "rb") as pipe:
            sent = pipe.read()
        _, status = os.waitpid(self.pid, 0)
        found: list[Tally] | BaseException | None = pickle.loads(sent) if sent else None
        if isinstance(found, BaseException):
            raise found
        if status != 0 or found is None:
            raise RuntimeError(f"the group table's second half failed (status {status})")
        return found


def _send(pipe: int, found: list[Tally] | BaseException) -> None:
    """``found`` pickled into ``pipe`` (an error's text in a RuntimeError if it does not
    pickle)."""
    try:
        data = pickle.dumps(found)
    except Exception:
        data = pickle.dumps(RuntimeError(str(found)))
    with os.fdopen(pipe, "wb") as out:
        out.write(data)


def _attach(raw: Any, path: Path) -> None:
    raw.execute(f"ATTACH DATABASE ? AS {PART_SCHEMA}", (str(path),))


def build_halves(
    engine: Engine, conn: Connection, first: Select[Any], second: Select[Any]
) -> list[Tally]:
    """The group table from two queries of disjoint groups at once (SQLite): the first into
    the table on ``conn``, the second by a child process into a file, appended after (the
    ``GROUP BY`` of the LoRA job on the other shape: 1.5-1.6 s on one core, 0.8-0.9 s on two,
    docs/planner-pruning.md, "Sixth round"); the tallies of both halves, each taken where
    it is built. The child's error is raised here; nothing of it is left running or on
    disk."""
    folder = Path(tempfile.mkdtemp(prefix="suanli-groups-"))
    try:
        half = _Half(engine, second, folder / "half.db")
        half.start()
        try:
            conn.execute(CreateTableAs(GROUPS.name, first))
            tally = tally_rows(conn.execute(tally_of(GROUPS)))
        except BaseException:
            half.stop()
            with contextlib.suppress(Exception):  # the child's end: this error is the one
                half.finish()
            raise
        tally += half.finish()
        conn.commit()  # ATTACH needs no transaction open
        raw: Any = conn.connection.dbapi_connection
        _attach(raw, half.path)
        try:
            raw.execute(f"INSERT INTO temp.{GROUPS.name} SELECT * FROM {PART_SCHEMA}.{GROUPS.name}")
        finally:
            raw.execute(f"DETACH DATABASE {PART_SCHEMA}")
        return tally
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def copied_halves(
    engine: Engine, conn: Connection, first: Select[Any], second: Select[Any]
) -> list[Tally]:
    """The group table from two queries of disjoint groups at once (PostgreSQL): the first
    into the table on ``conn``; the second on a connection of its own, on a thread, read as
    ``COPY … TO STDOUT`` and copied into the table as its rows arrive (one backend per half:
    the planner expects a few rows of the job's join and plans no parallel workers for it;
    docs/planner-pruning.md, "Tenth round"). The tally is taken of the whole table; the
    second half's error is raised here."""
    blocks: Queue[bytes | None] = Queue()
    with ThreadPoolExecutor(1, thread_name_prefix="suanli-half") as pool:
        copied = pool.submit(_copied_out, engine, second, blocks.put)
        try:
            hash_aggregates(conn)
            conn.execute(CreateTableAs(GROUPS.name, first))
            hash_aggregates(conn, on=False)
            raw: Any = conn.connection.dbapi_connection
            with raw.cursor() as cursor, cursor.copy(f"COPY {GROUPS.name} FROM STDIN") as copy:
                while (block := blocks.get()) is not None:
                    copy.write(block)
        except BaseException:
            with contextlib.suppress(Exception):  # waited for: this error is the one
                copied.result()
            raise
        copied.result()  # the second half's error, if it stopped early
    return tally_rows(conn.execute(tally_of(GROUPS)))


COPY_BLOCK_ROWS = 512  # rows of the second half handed over at a time


def _copied_out(engine: Engine, query: Select[Any], send: Callable[[bytes | None], None]) -> None:
    """``query``'s rows in COPY's text format, read on a connection of its own (its
    parameters merged by psycopg: COPY takes none) and ``send`` in blocks, then None. The
    driver's errors are raised as SQLAlchemy raises them for the whole table's statement."""
    compiled = query.compile(dialect=engine.dialect, compile_kwargs={"render_postcompile": True})
    statement = f"COPY ({compiled}) TO STDOUT"
    driver_error = engine.dialect.loaded_dbapi.Error
    try:
        with engine.connect() as conn:
            analytic_session(conn)
            hash_aggregates(conn)
            raw: Any = conn.connection.dbapi_connection
            with raw.cursor() as cursor, cursor.copy(statement, compiled.params) as copy:
                rows: list[bytes] = []
                for row in copy:
                    rows.append(bytes(row))
                    if len(rows) == COPY_BLOCK_ROWS:
                        send(b"".join(rows))
                        rows.clear()
                send(b"".join(rows))
            conn.rollback()
    except driver_error as exc:
        raise DBAPIError.instance(statement, compiled.params, exc, driver_error) from None
    finally:
        send(None)
