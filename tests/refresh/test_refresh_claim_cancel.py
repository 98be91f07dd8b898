"""A source cancelled while its claim's transaction runs leaves no run ``running`` behind.

The claim batch's transaction is shielded (one source's cancel must not roll back the
others' claims), so a source cancelled during that await (the worker stopped) used to keep
the run the transaction made: ``running``, under a live holder, until the claim expired.
Here the catalog's write lock is held by another connection (a real lock: SQLite's
``BEGIN IMMEDIATE``, PostgreSQL's ``LOCK TABLE … IN SHARE MODE``) so the claims wait in
their transaction, the worker is stopped with no grace, and the lock is released after the
sources were cancelled: the runs the transaction then makes must end ``failed``,
``interrupted``, before the refresh returns.
"""

from __future__ import annotations

import asyncio
import sqlite3
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from sqlalchemy import Engine

from comparator.catalog.db import make_engine, upgrade_schema
from comparator.refresh.batched import Batched
from comparator.refresh.run import run_refresh
from comparator.refresh.sources import load_sources
from tests.support.httpserver import Reply, fault_server
from tests.support.refresh_helpers import (
    profile_toml,
    runs_by_provider,
    sheet_csv,
    source_entry,
    write_sources,
)

SOURCES = 3
STOP_AFTER_S = 0.6  # the claims are waiting for the lock by then (their batch waits 20 ms)
RELEASE_AFTER_S = 2.0  # the sources are cancelled by then (the stop is polled every 0.2 s)


def _hold_write_lock(engine: Engine, url: str) -> Callable[[], None]:
    """Take the catalog's write lock on a connection of its own; the function releases it."""
    if engine.dialect.name == "sqlite":
        holder = sqlite3.connect(url.removeprefix("sqlite:///"), check_same_thread=False)
        holder.isolation_level = None
        holder.execute("BEGIN IMMEDIATE")

        def release_sqlite() -> None:
            holder.execute("COMMIT")
            holder.close()

        return release_sqlite
    conn = engine.connect()
    conn.exec_driver_sql("LOCK TABLE refreshrun IN SHARE MODE")  # inserts of runs wait

    def release_postgres() -> None:
        conn.commit()
        conn.close()

    return release_postgres


@pytest.mark.slow
def test_a_source_cancelled_during_its_claim_leaves_no_run_running(
    any_db_url: str, tmp_path: Path
) -> None:
    engine = make_engine(any_db_url)
    upgrade_schema(engine)
    with fault_server() as server:
        entries = []
        for n in range(SOURCES):
            provider = f"c{n}"
            (tmp_path / f"{provider}.toml").write_text(profile_toml(provider), encoding="utf-8")
            url = server.set(f"/{provider}.csv", Reply(body=sheet_csv(provider, ["2.00"])))
            entries.append(source_entry(provider, url, profile=f"{provider}.toml", timeout_s=30))
        config = write_sources(tmp_path, entries, worker_extra="stop_grace_s = 0\n")
        sources = load_sources(config)
        release = _hold_write_lock(engine, any_db_url)
        stop = threading.Event()
        threading.Timer(STOP_AFTER_S, stop.set).start()
        releaser = threading.Timer(RELEASE_AFTER_S, release)
        releaser.start()
        started = time.monotonic()
        try:
            report = run_refresh(engine, sources, stop=stop)
        finally:
            releaser.join()
        took = time.monotonic() - started
    runs = runs_by_provider(engine)
    engine.dispose()
    assert took >= RELEASE_AFTER_S * 0.9  # the refresh waited for the claims' transaction
    assert [r.status for r in report.runs] == ["failed"] * SOURCES
    assert all("interrupted" in (r.error or "") for r in report.runs)
    assert sorted(runs) == [f"c{n}" for n in range(SOURCES)], runs  # the claims were made ...
    statuses = {r["status"] for rs in runs.values() for r in rs}
    assert statuses == {"failed"}, runs  # ... and none is left running
    assert all("interrupted" in (r["error"] or "") for rs in runs.values() for r in rs)


class _Recorded(Batched[str, str]):
    def __init__(self) -> None:
        super().__init__(wait_s=0.05, most=10)
        self.flushed: list[str] = []

    async def flush(self, batch: list[tuple[str, asyncio.Future[str]]]) -> None:
        for request, done in batch:
            self.flushed.append(request)
            done.set_result(request.upper())


def test_a_request_withdrawn_before_its_batch_is_never_flushed() -> None:
    """A source cancelled while its claim waits for the batch to gather takes it back: no
    claim (no run) is made for it; once the batch is under way, withdraw says so."""

    async def scenario() -> tuple[list[str], bool, bool, list[str]]:
        batched = _Recorded()
        first, second = batched.submit("a"), batched.submit("b")
        withdrawn = batched.withdraw(second)
        await batched.drain()
        late = batched.withdraw(first)  # answered already
        return batched.flushed, withdrawn and second.cancelled(), late, [first.result()]

    flushed, withdrawn, late, answers = asyncio.run(scenario())
    assert flushed == ["a"] and withdrawn and not late and answers == ["A"]
