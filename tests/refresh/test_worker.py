"""The worker: catch-up after downtime, one run per period, the lease, SIGTERM, the schedule."""

from __future__ import annotations

import re
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from datetime import datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from sqlalchemy import Engine, select

from comparator.catalog.db import make_engine, upgrade_schema
from comparator.errors import InputError
from comparator.refresh.lease import LEASE, hold_lease
from comparator.refresh.run import run_refresh
from comparator.refresh.schedule import current_period, iso_week, parse_cron
from comparator.refresh.sources import load_sources
from comparator.refresh.worker import LEASE_NAME, refresh_due, run_worker
from tests.conftest import REPO
from tests.support.httpserver import FaultServer, Reply, fault_server
from tests.support.refresh_helpers import (
    profile_toml,
    runs_by_provider,
    sheet_csv,
    source_entry,
    write_sources,
)

SHANGHAI = ZoneInfo("Asia/Shanghai")
PROVIDERS = ("alpha", "beta")


@pytest.fixture()
def server() -> Iterator[FaultServer]:
    with fault_server() as running:
        yield running


def sources_file(
    server: FaultServer, folder: Path, delay_s: float = 0.0, price: str = "3.10"
) -> Path:
    entries = []
    for provider in PROVIDERS:
        (folder / f"{provider}.toml").write_text(profile_toml(provider), encoding="utf-8")
        url = server.set(
            f"/{provider}.csv", Reply(body=sheet_csv(provider, [price]), delay_s=delay_s)
        )
        entries.append(source_entry(provider, url, profile=f"{provider}.toml"))
    return write_sources(folder, entries)


class WorkerProcess:
    """`suanli worker` in a subprocess, its stderr log collected line by line."""

    def __init__(self, db_url: str, config: Path) -> None:
        self.lines: list[str] = []
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "comparator", "--db", db_url, "worker", "--config", str(config)],
            cwd=REPO,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.proc.stderr is not None
        for line in self.proc.stderr:
            self.lines.append(line.rstrip("\n"))

    @property
    def log(self) -> str:
        return "\n".join(self.lines)

    def wait_for(self, pattern: str, timeout: float = 60) -> None:
        deadline = time.monotonic() + timeout
        while not re.search(pattern, self.log):
            assert self.proc.poll() is None or re.search(pattern, self.log), self.log
            assert time.monotonic() < deadline, f"no {pattern!r} in:\n{self.log}"
            time.sleep(0.05)

    def terminate(self) -> int:
        self.proc.send_signal(signal.SIGTERM)
        code = self.proc.wait(timeout=30)
        self._reader.join(timeout=5)
        return code


def lease_taken(engine: Engine) -> bool:
    with engine.connect() as conn:
        return conn.execute(select(LEASE.c.holder)).first() is not None


@pytest.mark.slow
def test_after_a_three_week_stop_the_worker_runs_once_and_a_second_worker_runs_nothing(
    server: FaultServer, tmp_path: Path
) -> None:
    db_url = f"sqlite:///{tmp_path / 'catalog.db'}"
    engine = make_engine(db_url)
    upgrade_schema(engine)
    config = sources_file(server, tmp_path)
    three_weeks_ago = datetime.now(SHANGHAI) - timedelta(weeks=3)
    run_refresh(engine, load_sources(config), now=three_weeks_ago)  # the last run before the stop
    old_period = current_period(parse_cron("mon 03:00", SHANGHAI), three_weeks_ago).label
    sources_file(server, tmp_path, delay_s=2.5, price="2.95")  # prices moved; slow answers

    first = WorkerProcess(db_url, config)
    deadline = time.monotonic() + 60
    while not lease_taken(engine):
        assert time.monotonic() < deadline and first.proc.poll() is None, first.log
        time.sleep(0.02)
    second = WorkerProcess(db_url, config)
    first.wait_for(r"refresh of period \S+ finished")
    second.wait_for(r"is held by|refresh of period \S+ finished")
    assert first.terminate() == 0 and second.terminate() == 0

    period = current_period(parse_cron("mon 03:00", SHANGHAI), datetime.now(SHANGHAI)).label
    runs = runs_by_provider(engine)
    for provider in PROVIDERS:
        assert [(r["period"], r["status"]) for r in runs[provider]] == [
            (old_period, "succeeded"),
            (period, "succeeded"),
        ]  # no replay of the missed weeks
    assert re.search(rf"alpha: succeeded in {period}", first.log)
    assert "worker started" in first.log and "worker stopped" in first.log
    assert "received SIGTERM" in first.log
    assert "succeeded in" not in second.log  # the second worker ran nothing
    assert server.hits["/alpha.csv"] == 2 and server.hits["/beta.csv"] == 2
    assert not lease_taken(engine)  # released on the way out
    engine.dispose()


def test_refresh_due_steps_aside_while_another_process_holds_the_lease(
    any_db_url: str, server: FaultServer, tmp_path: Path
) -> None:
    engine, other = make_engine(any_db_url), make_engine(any_db_url)
    upgrade_schema(engine)
    config = sources_file(server, tmp_path)
    if engine.dialect.name == "sqlite":  # another process's row lease, not yet expired
        with engine.begin() as conn:
            until = datetime.now(SHANGHAI) + timedelta(minutes=5)
            conn.execute(
                LEASE.insert().values(name=LEASE_NAME, holder="elsewhere:1", expires_at=until)
            )
        assert refresh_due(engine, config) is None
        with engine.begin() as conn:
            conn.execute(LEASE.delete())
    else:
        with hold_lease(other, LEASE_NAME) as holder:
            assert holder is None
            assert refresh_due(engine, config) is None
    assert runs_by_provider(engine) == {}
    report = refresh_due(engine, config)
    assert report is not None and {r.status for r in report.runs} == {"succeeded"}
    again = refresh_due(engine, config)  # everything is done for this period
    assert again is not None and {r.status for r in again.runs} == {"skipped"}
    assert all("already refreshed in period" in (r.error or "") for r in again.runs)
    engine.dispose()
    other.dispose()


def test_an_expired_lease_is_taken_over(sqlite_url: str) -> None:
    engine = make_engine(sqlite_url)
    upgrade_schema(engine)
    with engine.begin() as conn:
        conn.execute(
            LEASE.insert().values(
                name="x", holder="dead:1", expires_at=datetime.now(SHANGHAI) - timedelta(1)
            )
        )
    with hold_lease(engine, "x") as holder:
        assert holder is None
        with engine.connect() as conn:
            assert conn.execute(select(LEASE.c.holder)).scalar_one() != "dead:1"
    engine.dispose()


def test_worker_in_a_thread_catches_up_then_stops_cleanly(
    engine: Engine, server: FaultServer, tmp_path: Path
) -> None:
    config = sources_file(server, tmp_path)
    stop = threading.Event()
    thread = threading.Thread(target=run_worker, args=(engine, config, stop))
    thread.start()
    deadline = time.monotonic() + 30
    while len(runs_by_provider(engine)) < len(PROVIDERS) or any(
        r["status"] == "running" for rs in runs_by_provider(engine).values() for r in rs
    ):
        assert time.monotonic() < deadline
        time.sleep(0.05)
    stop.set()
    thread.join(timeout=30)
    assert not thread.is_alive()


def test_cron_texts_and_periods() -> None:
    monday_3am = datetime(2026, 11, 30, 3, 0, tzinfo=SHANGHAI)
    weekly = parse_cron("mon 03:00", SHANGHAI)
    assert current_period(weekly, monday_3am - timedelta(minutes=1)).label == "2026-W48"
    assert current_period(weekly, monday_3am).label == "2026-W49"
    assert current_period(parse_cron("0 3 * * mon", SHANGHAI), monday_3am).label == "2026-W49"
    daily = current_period(parse_cron("daily 03:00", SHANGHAI), monday_3am + timedelta(hours=5))
    assert (daily.label, daily.start) == ("2026-11-30T03:00", monday_3am)
    assert iso_week(datetime(2027, 1, 1, tzinfo=SHANGHAI)) == "2026-W53"
    for bad in ("every monday", "mon 25:00", "xyz 03:00"):
        with pytest.raises(InputError, match="cron"):
            parse_cron(bad, SHANGHAI)
