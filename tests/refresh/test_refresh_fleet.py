"""Many sources, several worker processes, one PostgreSQL: each source refreshed exactly once.

300 loopback sheet sources with 50–300 ms of latency, 3 % of them faulty (past the deadline,
HTTP 500, a body cut short); four ``run_refresh(only_if_due=True)`` processes with
``[worker] shared = true`` start together. Every good source ends with one good run and one
snapshot, every faulty one with failed runs only, and none is left without a finished run.
The 10,000-source version of this is ``benchmarks/refresh.py --fleet``.

Finished sources are committed in batches: a worker killed mid-way loses only the batch not
yet committed, and the next pass redoes exactly the sources without a good run.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest
from sqlalchemy import Engine, select

from comparator.catalog.db import make_engine, upgrade_schema
from tests.support.httpserver import fault_server
from tests.support.refresh_fleet import ROOT, publish_fleet, run_workers, tally
from tests.support.refresh_helpers import RUN, SNAPSHOT


@pytest.mark.slow
@pytest.mark.postgres
def test_four_workers_on_one_postgres_refresh_each_source_once(pg_url: str, tmp_path: Path) -> None:
    engine = make_engine(pg_url)
    upgrade_schema(engine)
    with fault_server() as server:
        fleet = publish_fleet(server, tmp_path, 300, fault_share=0.03, shared=True)
        _, results = run_workers(fleet.config, pg_url, 4)
        found = tally(engine, fleet)
    engine.dispose()
    assert found.duplicates == []
    assert found.lost == []
    assert found.extra_snapshots == []
    assert found.wrong == []  # the faulty sources failed, every other one was refreshed
    assert found.good == 300 - len(fleet.faults)
    assert sorted(found.failed_kinds.elements()) == sorted(fleet.faults.values())
    ran = [r.statuses.get("succeeded", 0) for r in results]
    assert sum(ran) == found.good
    assert sum(1 for n in ran if n) >= 2  # the work was shared, not done by one of them


def _runs(engine: Engine) -> list[tuple[str, str, str | None]]:
    with engine.connect() as conn:
        query = select(RUN.c.provider_id, RUN.c.status, RUN.c.error).order_by(RUN.c.id)
        return [(p, s, e) for p, s, e in conn.execute(query)]


def _snapshots(engine: Engine) -> Counter[str]:
    with engine.connect() as conn:
        return Counter(p for (p,) in conn.execute(select(SNAPSHOT.c.provider_id)))


@pytest.mark.slow
def test_a_killed_worker_loses_only_its_uncommitted_batch_and_a_restart_redoes_those(
    any_db_url: str, tmp_path: Path
) -> None:
    engine = make_engine(any_db_url)
    upgrade_schema(engine)
    argv = [sys.executable, "-m", "tests.support.refresh_fleet"]
    with fault_server() as server:
        fleet = publish_fleet(server, tmp_path, 200, fault_share=0, max_in_flight=8)
        proc = subprocess.Popen([*argv, str(fleet.config), any_db_url], cwd=ROOT)
        deadline = time.monotonic() + 120
        while sum(s == "succeeded" for _, s, _ in _runs(engine)) < 60:
            assert proc.poll() is None, "the worker finished before it could be killed"
            assert time.monotonic() < deadline
            time.sleep(0.02)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)
        time.sleep(0.5)  # PostgreSQL notices the closed connection and rolls back
        before = _runs(engine)
        committed = {p for p, s, _ in before if s == "succeeded"}
        unfinished = {p for p, s, _ in before if s == "running"}
        assert set(_snapshots(engine)) == committed  # a good run exactly where a snapshot is
        assert 0 < len(committed) < 200
        _, results = run_workers(fleet.config, any_db_url, 1)
    after = _runs(engine)
    engine.dispose()
    good = Counter(p for p, s, _ in after if s == "succeeded")
    assert good == Counter(fleet.providers)  # every source once, none twice
    assert _snapshots(engine) == good
    redone = {p for p, _, _ in after[len(before) :]}
    assert redone == set(fleet.providers) - committed  # exactly the ones without a good run
    abandoned = {p for p, s, e in after if s == "failed" and "abandoned" in (e or "")}
    assert abandoned == unfinished  # the lost batch (and sources still fetching) marked so
    assert results[0].statuses == {"succeeded": len(redone), "skipped": len(committed)}
