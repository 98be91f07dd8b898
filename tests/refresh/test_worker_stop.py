"""The worker stops on SIGTERM within its grace, survives SIGKILL, and never skips a period."""

from __future__ import annotations

import os
import re
import signal
import time
from datetime import datetime
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from sqlalchemy import Engine

from comparator.catalog.db import make_engine, upgrade_schema
from comparator.refresh import worker as worker_module
from comparator.refresh.schedule import current_period, parse_cron
from comparator.refresh.worker import refresh_due
from tests.refresh.test_worker import WorkerProcess
from tests.support.httpserver import FaultServer, Reply, fault_server
from tests.support.refresh_helpers import (
    profile_toml,
    runs_by_provider,
    sheet_csv,
    source_entry,
    write_sources,
)

SHANGHAI = ZoneInfo("Asia/Shanghai")


def slow_sources(
    server: FaultServer, folder: Path, delays: dict[str, float], grace_s: float = 1.0
) -> Path:
    entries = []
    for provider, delay in delays.items():
        (folder / f"{provider}.toml").write_text(profile_toml(provider), encoding="utf-8")
        url = server.set(
            f"/{provider}.csv", Reply(body=sheet_csv(provider, ["3.10"]), delay_s=delay)
        )
        entries.append(
            source_entry(
                provider, url, profile=f"{provider}.toml", timeout_s=120, read_timeout_s=120
            )
        )
    return write_sources(folder, entries, worker_extra=f"stop_grace_s = {grace_s}\n")


def this_period() -> str:
    return current_period(parse_cron("mon 03:00", SHANGHAI), datetime.now(SHANGHAI)).label


@pytest.mark.slow
def test_sigterm_during_a_hung_source_stops_within_the_grace(tmp_path: Path) -> None:
    db_url = f"sqlite:///{tmp_path / 'catalog.db'}"
    engine = make_engine(db_url)
    upgrade_schema(engine)
    with fault_server() as server:
        config = slow_sources(server, tmp_path, {"alpha": 0.0, "beta": 60.0}, grace_s=1.0)
        worker = WorkerProcess(db_url, config)
        worker.wait_for(r"alpha: succeeded in")
        started = time.monotonic()
        code = worker.terminate()
        took = time.monotonic() - started
    assert code == 0, worker.log
    assert took < 1.0 + 10, f"stopped after {took:.1f} s:\n{worker.log}"
    runs = runs_by_provider(engine)
    assert runs["alpha"][-1]["status"] == "succeeded"
    assert runs["beta"][-1]["status"] == "failed"
    assert "interrupted" in runs["beta"][-1]["error"]
    assert "worker stopped" in worker.log
    engine.dispose()


@pytest.mark.slow
def test_sigkill_mid_refresh_then_restart_completes_the_week(tmp_path: Path) -> None:
    db_url = f"sqlite:///{tmp_path / 'catalog.db'}"
    engine = make_engine(db_url)
    upgrade_schema(engine)
    with fault_server() as server:
        config = slow_sources(server, tmp_path, {"alpha": 0.0, "beta": 30.0})
        first = WorkerProcess(db_url, config)
        first.wait_for(r"alpha: succeeded in")
        os.kill(first.proc.pid, signal.SIGKILL)
        first.proc.wait(timeout=10)
        assert runs_by_provider(engine)["beta"][-1]["status"] == "running"  # left behind
        slow_sources(server, tmp_path, {"alpha": 0.0, "beta": 0.0})  # the source answers now
        second = WorkerProcess(db_url, config)  # restarted at once: the lease is still "valid"
        second.wait_for(r"refresh of period \S+ finished", timeout=60)
        assert second.terminate() == 0
    runs = runs_by_provider(engine, this_period())
    assert [r["status"] for r in runs["alpha"]] == ["succeeded"]  # not run twice
    assert [r["status"] for r in runs["beta"]] == ["failed", "succeeded"], second.log
    assert "abandoned" in runs["beta"][0]["error"]
    assert "is held by" not in second.log
    engine.dispose()


def test_a_period_that_begins_during_a_catch_up_is_refreshed_right_after(
    engine: Engine, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = worker_module.current_period
    checks: list[str] = []

    def turning(trigger, now):  # type: ignore[no-untyped-def]
        period = real(trigger, now)
        checks.append(period.label)
        if len(checks) == 1:  # the clock says a new period began while the first run ran
            return type(period)("2099-W01", now)
        return period

    monkeypatch.setattr(worker_module, "current_period", turning)
    with fault_server() as server:
        config = slow_sources(server, tmp_path, {"alpha": 0.0})
        report = refresh_due(engine, config)
    assert report is not None
    periods = [r["period"] for r in runs_by_provider(engine)["alpha"]]
    assert periods == [this_period()]
    # a second pass ran at once (in real life for the new period; here the period is done)
    assert {r.status for r in report.runs} == {"skipped"}
    assert len(checks) == 2


def test_shared_workers_on_postgresql_split_the_sources_without_duplicates(
    pg_url: str, tmp_path: Path
) -> None:
    engine = make_engine(pg_url)
    upgrade_schema(engine)
    providers = [f"s{n:02d}" for n in range(30)]
    with fault_server() as server:
        entries = []
        for provider in providers:
            (tmp_path / f"{provider}.toml").write_text(profile_toml(provider), encoding="utf-8")
            body = sheet_csv(provider, ["3.10"])
            url = server.set(f"/{provider}.csv", Reply(body=body, delay_s=0.3))
            entries.append(source_entry(provider, url, profile=f"{provider}.toml"))
        extra = "max_in_flight = 3\nshared = true\n"
        config = write_sources(tmp_path, entries, worker_extra=extra)
        workers = [WorkerProcess(pg_url, config) for _ in range(2)]
        for worker in workers:
            worker.wait_for(r"refresh of period \S+ finished", timeout=90)
        assert all(worker.terminate() == 0 for worker in workers)
    runs = runs_by_provider(engine, this_period())
    assert sorted(runs) == providers  # none lost ...
    assert all([r["status"] for r in runs[p]] == ["succeeded"] for p in providers), runs  # ... once
    done = [len(re.findall(r": succeeded in", worker.log)) for worker in workers]
    assert sum(done) == len(providers) and min(done) > 0, done  # both took a share
    engine.dispose()
