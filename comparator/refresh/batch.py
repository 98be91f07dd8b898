"""Batched per-source transactions: what finished sources fetched, committed several at a time.

With 10,000 sources, one transaction (and one fsync or WAL flush) per source is most of the
database's work. A :class:`StoreBatch` has one writer thread that takes the sources finished so
far — at most ``max_sources`` of them, waiting at most ``max_wait_s`` after the first — and
writes them in one transaction, each source inside its own SAVEPOINT:

- a source whose write fails is rolled back to its savepoint alone and recorded as failed in
  the same transaction; the others of the batch are unaffected;
- a kill loses at most the batch not yet committed: those sources' runs stay ``running`` under
  a dead holder, and the next claim marks them abandoned and runs them again (only those: the
  committed ones have their good run for the period);
- a source's outcome is reported only once its batch is committed.
"""

from __future__ import annotations

import asyncio
import queue
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass, field
from datetime import datetime

from sqlalchemy import Connection, Engine

from comparator.catalog.db import write_transaction
from comparator.refresh.runs import Claim
from comparator.refresh.store import Stored, finish_failed_in, store_result_in
from providers import AdapterResult, SourceSpec

DEFAULT_BATCH_SOURCES = 50
DEFAULT_BATCH_WAIT_S = 0.5


@dataclass
class _Item:
    provider: str
    write: Callable[[Connection], Stored]
    fail: Callable[[Connection, str], Stored]
    done: Future[Stored] = field(default_factory=Future)


class StoreBatch:
    """One writer thread committing finished sources in batches (see the module's text)."""

    def __init__(
        self,
        engine: Engine,
        *,
        max_sources: int = DEFAULT_BATCH_SOURCES,
        max_wait_s: float = DEFAULT_BATCH_WAIT_S,
    ) -> None:
        self.engine = engine
        self.max_sources = max(1, max_sources)
        self.max_wait_s = max_wait_s
        self.batches = 0  # committed transactions, for the benchmark
        self._queue: queue.Queue[_Item | None] = queue.Queue()
        self._thread = threading.Thread(target=self._run, name="suanli-store", daemon=True)
        self._thread.start()

    async def store(
        self, claim: Claim, source: SourceSpec, result: AdapterResult, now: datetime
    ) -> Stored:
        """Store ``result`` and finish ``claim``'s run, in the next batch."""

        def write(conn: Connection) -> Stored:
            return store_result_in(conn, claim, source, result, now)

        def fail(conn: Connection, error: str) -> Stored:
            return Stored(finish_failed_in(conn, claim, source.scrub(error), now))

        item = _Item(source.provider, write, fail)
        self._queue.put(item)
        # shielded: once handed over, the batch finishes the run (stored or failed) even when
        # the source's task is cancelled, so nothing else may write it afterwards
        return await asyncio.shield(asyncio.wrap_future(item.done))

    def close(self) -> None:
        """Commit what is queued, then stop the writer thread."""
        self._queue.put(None)
        self._thread.join()

    def _run(self) -> None:
        closing = False
        while not closing:
            first = self._queue.get()
            if first is None:
                return
            batch = [first]
            until = time.monotonic() + self.max_wait_s
            while len(batch) < self.max_sources:
                try:
                    item = self._queue.get(timeout=max(0.0, until - time.monotonic()))
                except queue.Empty:
                    break
                if item is None:
                    closing = True
                    break
                batch.append(item)
            self._commit(batch)

    def _commit(self, batch: list[_Item]) -> None:
        results: list[Stored] = []
        try:
            keys = [f"provider:{item.provider}" for item in batch]
            with write_transaction(self.engine, *keys) as conn:
                results = [_write_one(conn, item) for item in batch]
        except BaseException as exc:  # the whole batch is lost: each source reports it
            for item in batch:
                item.done.set_exception(exc)
            if not isinstance(exc, Exception):
                raise
            return
        self.batches += 1
        for item, stored in zip(batch, results, strict=True):
            item.done.set_result(stored)


def _write_one(conn: Connection, item: _Item) -> Stored:
    """One source inside its savepoint; a failure rolls back that source alone."""
    try:
        with conn.begin_nested():
            return item.write(conn)
    except Exception as exc:
        error = f"storing the fetched offers failed: {type(exc).__name__}: {exc}"
        with conn.begin_nested():
            return item.fail(conn, error[:2000])
