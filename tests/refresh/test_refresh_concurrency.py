"""Concurrent refreshes (real processes) and a refresh killed with SIGKILL mid-snapshot."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import Engine, func, select

from comparator.catalog.db import make_engine, upgrade_schema
from comparator.refresh.run import run_refresh
from comparator.refresh.sources import load_sources
from tests.conftest import REPO
from tests.support.httpserver import FaultServer, Reply, fault_server
from tests.support.refresh_helpers import (
    OFFER,
    SNAPSHOT,
    profile_toml,
    runs_by_provider,
    sheet_csv,
    source_entry,
    write_sources,
)

PROVIDERS = ("alpha", "beta", "gamma")


@pytest.fixture()
def server() -> Iterator[FaultServer]:
    with fault_server() as running:
        yield running


def suanli(db_url: str, *args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "comparator", "--db", db_url, *args],
        cwd=REPO,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def slow_sources(server: FaultServer, folder: Path) -> Path:
    """Three sheets that each take 3 s to answer, so two refreshes started together overlap."""
    entries = []
    for provider in PROVIDERS:
        (folder / f"{provider}.toml").write_text(profile_toml(provider), encoding="utf-8")
        url = server.set(
            f"/{provider}.csv", Reply(body=sheet_csv(provider, ["2.50", "4.80"]), delay_s=3.0)
        )
        entries.append(source_entry(provider, url, profile=f"{provider}.toml"))
    return write_sources(folder, entries)


@pytest.mark.slow
def test_two_refreshes_started_together_make_one_run_per_source(
    any_db_url: str, server: FaultServer, tmp_path: Path
) -> None:
    engine = make_engine(any_db_url)
    upgrade_schema(engine)
    config = slow_sources(server, tmp_path)
    procs = [suanli(any_db_url, "refresh", "--config", str(config), "--json") for _ in range(2)]
    outputs = [proc.communicate(timeout=60) for proc in procs]
    assert [proc.returncode for proc in procs] == [0, 0], [err for _, err in outputs]
    documents = [json.loads(out) for out, _ in outputs]
    assert documents[0]["period"] == documents[1]["period"]
    for provider in PROVIDERS:
        statuses = sorted(
            run["status"] for doc in documents for run in doc["runs"] if run["provider"] == provider
        )
        assert statuses == ["skipped", "succeeded"]
    runs = runs_by_provider(engine, documents[0]["period"])
    assert {p: [(r["attempt"], r["status"]) for r in rs] for p, rs in runs.items()} == {
        p: [(1, "succeeded")] for p in PROVIDERS
    }
    assert sum(server.hits[f"/{p}.csv"] for p in PROVIDERS) == len(PROVIDERS)
    engine.dispose()


def big_sheet(rows: int) -> bytes:
    lines = ["provider,region,gpu,cards,billing,price,currency,sku"]
    lines += [f"big,sg-1,H100,1,hourly,{2 + (i % 997) / 1000:.3f},USD,vm-{i}" for i in range(rows)]
    return ("\n".join(lines) + "\n").encode()


def wal_size(db: Path) -> int:
    wal = db.with_name(db.name + "-wal")
    return wal.stat().st_size if wal.exists() else 0


def snapshot_rows(engine: Engine) -> list[tuple[int, int, int]]:
    """(snapshot id, offers it says it has, offer rows it has) for every snapshot of `big`."""
    count = (
        select(func.count())
        .select_from(OFFER)
        .where(OFFER.c.snapshot_id == SNAPSHOT.c.id)
        .scalar_subquery()
    )
    with engine.connect() as conn:
        rows = conn.execute(
            select(SNAPSHOT.c.id, SNAPSHOT.c.offers, count).where(SNAPSHOT.c.provider_id == "big")
        )
        return [(int(a), int(b), int(c)) for a, b, c in rows]


@pytest.mark.slow
def test_sigkill_in_the_middle_of_a_200k_row_sheet_leaves_all_or_nothing(
    server: FaultServer, tmp_path: Path
) -> None:
    db = tmp_path / "catalog.db"
    engine = make_engine(f"sqlite:///{db}")
    upgrade_schema(engine)
    (tmp_path / "big.toml").write_text(profile_toml("big"), encoding="utf-8")
    url = server.set("/big.csv", Reply(body=big_sheet(200_000)))
    config = write_sources(tmp_path, [source_entry("big", url, profile="big.toml", timeout_s=60)])
    start_wal = wal_size(db)
    proc = suanli(f"sqlite:///{db}", "refresh", "--config", str(config), "--json")
    deadline = time.monotonic() + 120
    while wal_size(db) < start_wal + 4_000_000:  # the snapshot's insert is under way
        assert proc.poll() is None, "refresh finished before it could be killed"
        assert time.monotonic() < deadline
        time.sleep(0.01)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=10)
    assert proc.returncode == -signal.SIGKILL
    assert all(said == stored for _, said, stored in snapshot_rows(engine))
    assert snapshot_rows(engine) == []  # killed before the commit: nothing at all
    [run] = runs_by_provider(engine)["big"]
    assert run["status"] == "running"  # the dead process could not say more

    server.set("/big.csv", Reply(body=big_sheet(1_000)))
    report = run_refresh(engine, load_sources(config))  # the next refresh cleans up after it
    assert report.runs[0].status == "succeeded" and report.runs[0].offers == 1_000
    [(_, said, stored)] = snapshot_rows(engine)
    assert said == stored == 1_000
    first, second = runs_by_provider(engine)["big"]
    assert first["status"] == "failed" and "abandoned" in first["error"]
    assert (second["attempt"], second["status"]) == (2, "succeeded")
    engine.dispose()
