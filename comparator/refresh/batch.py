"""Batched per-source transactions: what finished sources fetched, committed several at a time.

With 10,000 sources, one transaction (and one fsync or WAL flush) per source is much of the
database's work. A :class:`StoreBatch` has a few writer threads; each takes the sources
finished so far — at most ``max_sources`` of them, waiting at most ``max_wait_s`` after the
first — and writes them in one transaction (holding their providers' locks):

- when a source's write fails, the transaction is rolled back and the batch's sources are
  written one transaction each: the failing one is recorded as failed, the others are
  unaffected (cheaper than a SAVEPOINT per source, for a failure that is rare);
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
from comparator.refresh.batch_store import Fetched, store_results_in
from comparator.refresh.runs import Claim
from comparator.refresh.source_store import Stored, finish_failed_in
from providers import AdapterResult, PhaseClock, SourceSpec, clock_in_use

DEFAULT_BATCH_SOURCES = 50
DEFAULT_BATCH_WAIT_S = 0.5
# batches written at the same time: a writer waits on each statement's round trip (and for the
# GIL after it, while fetches and parses hold it), so one writer alone fell behind the fetches
DEFAULT_WRITERS = 4


@dataclass
class _Item:
    provider: str
    fetched: Fetched
    fail: Callable[[Connection, str], Stored]
    done: Future[Stored] = field(default_factory=Future)


class StoreBatch:
    """Writer threads committing finished sources in batches (see the module's text)."""

    def __init__(
        self,
        engine: Engine,
        *,
        max_sources: int = DEFAULT_BATCH_SOURCES,
        max_wait_s: float = DEFAULT_BATCH_WAIT_S,
        writers: int = DEFAULT_WRITERS,
        clock: PhaseClock | None = None,
    ) -> None:
        self.engine = engine
        self.clock = clock or PhaseClock()  # store_lock, store_* (batch_store), store_commit
        self.max_sources = max(1, max_sources)
        self.max_wait_s = max_wait_s
        self.batches = 0  # committed transactions
        self._count = threading.Lock()
        self._queue: queue.Queue[_Item | None] = queue.Queue()
        self._threads = [
            threading.Thread(target=self._run, name=f"suanli-store-{n}", daemon=True)
            for n in range(max(1, writers))
        ]
        for thread in self._threads:
            thread.start()

    async def store(
        self, claim: Claim, source: SourceSpec, result: AdapterResult, now: datetime
    ) -> Stored:
        """Store ``result`` and finish ``claim``'s run, in the next batch."""

        def fail(conn: Connection, error: str) -> Stored:
            return Stored(finish_failed_in(conn, claim, source.scrub(error), now))

        item = _Item(source.provider, Fetched(claim, source, result, now), fail)
        self._queue.put(item)
        # shielded: once handed over, the batch finishes the run (stored or failed) even when
        # the source's task is cancelled, so nothing else may write it afterwards
        return await asyncio.shield(asyncio.wrap_future(item.done))

    def close(self) -> None:
        """Commit what is queued, then stop the writer threads."""
        for _ in self._threads:
            self._queue.put(None)  # each writer stops at its own
        for thread in self._threads:
            thread.join()

    def _run(self) -> None:
        with clock_in_use(self.clock):
            self._take_batches()

    def _take_batches(self) -> None:
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
        """The batch in one transaction; if a source of it fails to write, the transaction is
        rolled back and each source is written in its own, so the failing one fails alone."""
        try:
            results = self._transaction(batch, _write_all)
        except Exception as exc:
            if len(batch) == 1:
                return self._record_failure(batch[0], exc)
            for item in batch:
                self._commit([item])
            return None
        except BaseException as exc:
            for item in batch:
                item.done.set_exception(exc)
            raise
        for item, stored in zip(batch, results, strict=True):
            item.done.set_result(stored)
        return None

    def _transaction(
        self, batch: list[_Item], write: Callable[[Connection, list[_Item]], list[Stored]]
    ) -> list[Stored]:
        keys = [f"provider:{item.provider}" for item in batch]
        laps = self.clock.laps()
        with write_transaction(self.engine, *keys) as conn:
            laps.lap("store_lock")  # a connection, BEGIN and the providers' locks
            results = write(conn, batch)
            laps = self.clock.laps()
        laps.lap("store_commit")
        with self._count:
            self.batches += 1
        return results

    def timings(self) -> dict[str, float]:
        """The count of committed batches so far (their seconds are the clock's)."""
        with self._count:
            return {"batches": float(self.batches)}

    def _record_failure(self, item: _Item, exc: Exception) -> None:
        """The run of a source that could not be written, recorded as failed in a transaction
        of its own; when even that fails (the database is gone), the source gets the error."""
        error = f"storing the fetched offers failed: {type(exc).__name__}: {exc}"[:2000]
        try:
            [stored] = self._transaction([item], lambda conn, i: [i[0].fail(conn, error)])
        except Exception as final:
            item.done.set_exception(final)
            return
        item.done.set_result(stored)


def _write_all(conn: Connection, batch: list[_Item]) -> list[Stored]:
    """The batch's sources set-based (:mod:`comparator.refresh.batch_store`)."""
    return store_results_in(conn, [item.fetched for item in batch])
