"""Refresh runs: claiming one (provider, period, attempt), finishing it, what the last good run saw.

The UNIQUE (provider, period, attempt) constraint decides between processes that claim at the
same moment; a run still ``running`` in another live process makes a claim step aside. A run
left ``running`` by a process that died (SIGKILL, power loss) is marked ``failed`` when the
next claim finds it, so it never blocks a source for the rest of the period.
"""

from __future__ import annotations

import asyncio
import math
import os
import socket
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import Connection, Engine, Row, insert, select, text, update
from sqlalchemy.exc import IntegrityError

from comparator.catalog.db import advisory_key, write_transaction
from comparator.catalog.models import PriceSnapshot, RefreshRun, table_of
from comparator.catalog.queries import current_snapshot_id
from comparator.errors import Msg
from providers import Validators, phase

RUN = table_of(RefreshRun)
SNAPSHOT = table_of(PriceSnapshot)
RUNNING, SUCCEEDED, UNCHANGED, FAILED = "running", "succeeded", "unchanged", "failed"
GOOD = (SUCCEEDED, UNCHANGED)
STALE_AFTER = timedelta(minutes=15)  # beyond the deadline, for runs of other hosts
ERROR_LIMIT = 20_000
# the error of a run whose source was cancelled (the worker stopped) once claimed
INTERRUPTED = "interrupted: the worker was stopped before this source finished"


def this_holder() -> str:
    return f"{socket.gethostname()}:{os.getpid()}"


@dataclass(frozen=True)
class Claim:
    run_id: int
    provider: str
    period: str
    attempt: int


@dataclass(frozen=True)
class RunRecord:
    """How a claimed run ended."""

    status: str
    offers: int = 0
    snapshot_id: int | None = None
    error: str | None = None
    validators: Validators | None = None


def claim_run(
    engine: Engine,
    provider: str,
    source: str,
    period: str,
    *,
    only_if_due: bool,
    now: datetime,
    deadline_s: float,
) -> Claim | Msg:
    """A new attempt of (provider, period), or the reason another process or run has it.

    ``only_if_due`` (the worker): step aside when the period already has a good run.
    """
    try:
        with write_transaction(engine) as conn:
            if not _try_claim_lock(conn, provider, period):
                return Msg(
                    "another worker is claiming period {period} at this moment", period=period
                )
            runs = conn.execute(
                select(RUN).where(RUN.c.provider_id == provider, RUN.c.period == period)
            ).all()
            reason = reason_to_skip(conn, runs, only_if_due, now, deadline_s)
            if reason:
                return reason
            attempt = max((r.attempt for r in runs), default=0) + 1
            run_id = conn.execute(
                insert(RUN).values(
                    provider_id=provider,
                    source=source,
                    period=period,
                    attempt=attempt,
                    status=RUNNING,
                    started_at=now,
                    offers=0,
                    holder=this_holder(),
                )
            ).inserted_primary_key[0]  # type: ignore[index]
    except IntegrityError:
        return Msg("another process claimed period {period} at the same moment", period=period)
    return Claim(int(run_id), provider, period, attempt)


def _try_claim_lock(conn: Connection, provider: str, period: str) -> bool:
    """PostgreSQL: a transaction lock on (provider, period), not waited for (SKIP LOCKED-like):
    of several workers claiming the same source, one goes on and the others skip it at once.
    SQLite's write lock already serialises claims."""
    if conn.dialect.name != "postgresql":
        return True
    key = advisory_key(f"claim:{provider}:{period}")
    return bool(conn.execute(text("SELECT pg_try_advisory_xact_lock(:k)"), {"k": key}).scalar())


def reason_to_skip(
    conn: Connection,
    runs: Sequence[Row[Any]],
    only_if_due: bool,
    now: datetime,
    deadline_s: float,
) -> Msg | None:
    good = [r for r in runs if r.status in GOOD]
    if only_if_due and good:
        last = max(good, key=lambda r: r.attempt)
        return already_refreshed(last.period, last.attempt, last.status)
    for run in runs:
        if run.status != RUNNING:
            continue
        if _alive(run, now, deadline_s):
            return Msg(
                "being refreshed by {holder} since {since}",
                holder=run.holder,
                since=f"{run.started_at:%H:%M:%S}",
            )
        conn.execute(
            update(RUN)
            .where(RUN.c.id == run.id)
            .values(
                status=FAILED,
                finished_at=now,
                error=f"abandoned: process {run.holder} stopped before finishing",
            )
        )
    return None


def already_refreshed(period: str, attempt: int, status: str) -> Msg:
    return Msg(
        "already refreshed in period {period} (attempt {attempt}, {status})",
        period=period,
        attempt=attempt,
        status=status,
    )


class GoodRuns:
    """Which of ``providers`` have a good run in ``period``, read 500 providers at a time (the
    (provider, period) index) and again when older than ``max_age_s``.

    A worker sharing the sources with others steps aside from those another one already
    refreshed without a claim transaction each (10,000 sources, four workers: 30,000 claims
    saved). It only saves work: a provider not listed yet is claimed, and the claim decides.
    """

    CHUNK = 500

    def __init__(
        self, engine: Engine, period: str, providers: Sequence[str], max_age_s: float = 2.0
    ) -> None:
        self.engine, self.period, self.max_age_s = engine, period, max_age_s
        self._chunk_of = {pid: i // self.CHUNK for i, pid in enumerate(providers)}
        self._chunks = [
            list(providers[i : i + self.CHUNK]) for i in range(0, len(providers), self.CHUNK)
        ]
        self._good: dict[str, tuple[int, str]] = {}
        self._read_at: dict[int, float] = {}
        self._lock = threading.Lock()
        self._reading: dict[int, asyncio.Future[Msg | None]] = {}  # chunk → its read (ask)

    def cached(self, provider: str) -> tuple[bool, Msg | None]:
        """(True, :meth:`reason`) when the answer is at hand (read less than ``max_age_s``
        ago); (False, None) when :meth:`reason` must read. Never blocks: the event loop asks
        this first and goes to a thread only for a read (10,000 hops saved per worker)."""
        chunk = self._chunk_of.get(provider)
        if chunk is None:
            return True, None
        if not self._lock.acquire(blocking=False):  # a read is under way
            return False, None
        try:
            if time.monotonic() - self._read_at.get(chunk, -math.inf) > self.max_age_s:
                return False, None
            found = self._good.get(provider)
        finally:
            self._lock.release()
        return True, None if found is None else already_refreshed(self.period, *found)

    async def ask(self, provider: str) -> Msg | None:
        """:meth:`reason` on the event loop: :meth:`cached` when it can answer, else one read
        of the provider's chunk in a thread, which every source of the chunk asking meanwhile
        awaits. (A thread per asker before: while a read held the lock, each of up to
        ``max_in_flight`` askers took one of the event loop's few threads to wait for it,
        and the claims' transactions queued behind them.)"""
        known, reason = self.cached(provider)
        if known:
            return reason
        chunk = self._chunk_of[provider]
        reading = self._reading.get(chunk)
        if reading is None:
            reading = asyncio.ensure_future(asyncio.to_thread(self.reason, provider))
            self._reading[chunk] = reading
            reading.add_done_callback(lambda _: self._reading.pop(chunk, None))
        await asyncio.shield(reading)  # one asker's cancel leaves the read to the others
        found = self._good.get(provider)
        return None if found is None else already_refreshed(self.period, *found)

    def reason(self, provider: str) -> Msg | None:
        """Why ``provider`` needs no claim (blocking: call it in a thread), or None."""
        chunk = self._chunk_of.get(provider)
        if chunk is None:
            return None
        with self._lock:
            if time.monotonic() - self._read_at.get(chunk, -math.inf) > self.max_age_s:
                self._good.update(self._read(self._chunks[chunk]))
                self._read_at[chunk] = time.monotonic()
            found = self._good.get(provider)
        return None if found is None else already_refreshed(self.period, *found)

    def _read(self, providers: list[str]) -> dict[str, tuple[int, str]]:
        query = select(RUN.c.provider_id, RUN.c.attempt, RUN.c.status).where(
            RUN.c.provider_id.in_(providers), RUN.c.period == self.period, RUN.c.status.in_(GOOD)
        )
        with phase("good_runs_db"), self.engine.connect() as conn:
            return {
                pid: (int(attempt), str(status)) for pid, attempt, status in conn.execute(query)
            }


def local_holder_alive(holder: str) -> bool | None:
    """Whether a ``host:pid`` holder of this host still runs; None for another host's."""
    host, _, pid = holder.rpartition(":")
    if host == socket.gethostname() and pid.isdigit():
        return int(pid) == os.getpid() or _pid_alive(int(pid))
    return None


def _alive(run: Row[Any], now: datetime, deadline_s: float) -> bool:
    local = local_holder_alive(str(run.holder))
    if local is not None:
        return local
    started: datetime = run.started_at
    return now - started < timedelta(seconds=deadline_s) + STALE_AFTER


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def last_validators(engine: Engine, provider: str, source: str) -> Validators | None:
    """What the last good run of this source saw, if its snapshot is still the current one."""
    with engine.connect() as conn:
        row = conn.execute(
            select(RUN.c.etag, RUN.c.last_modified, RUN.c.body_sha256)
            .where(
                RUN.c.provider_id == provider,
                RUN.c.source == source,
                RUN.c.status.in_(GOOD),
                RUN.c.snapshot_id == current_snapshot_id(provider),
            )
            .order_by(RUN.c.id.desc())
            .limit(1)
        ).first()
    if row is None:
        return None
    return Validators(row.etag, row.last_modified, row.body_sha256)
