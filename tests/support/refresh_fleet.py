"""A fleet of loopback sources for refresh at national scale: many small sheets with realistic
latency and a share of faults, refreshed by one or several worker processes.

Used by ``tests/refresh/test_refresh_fleet.py`` (300 sources, 4 workers) and ``benchmarks/refresh.py
--fleet`` (10,000 sources). A worker process runs ``python -m tests.support.refresh_fleet CONFIG URL``:
one ``run_refresh(only_if_due=True)`` pass, as ``suanli worker`` runs it, then prints its CPU
seconds and outcome counts as JSON.
"""

from __future__ import annotations

import json
import random
import resource
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from tests.support.httpserver import Reply

if TYPE_CHECKING:  # a worker process loads neither: tests.conftest imports WeasyPrint
    from sqlalchemy import Engine

    from tests.support.httpserver import FaultServer
    from tests.support.light_httpserver import LightServer

ROOT = Path(__file__).resolve().parents[2]
FAULT_KINDS = ("timeout", "http_500", "truncated")
# each source's deadline (the default is 60 s); a "timeout" source answers after TIMEOUT_S + 2
TIMEOUT_S = 10


@dataclass(frozen=True)
class Fleet:
    config: Path
    providers: Sequence[str]
    faults: dict[str, str]  # provider → fault kind


def publish_fleet(
    server: FaultServer | LightServer,
    folder: Path,
    count: int,
    *,
    fault_share: float = 0.01,
    latency_s: tuple[float, float] = (0.05, 0.3),
    shared: bool = False,
    max_in_flight: int = 32,
    seed: int = 15,
    offers: int = 3,
) -> Fleet:
    """``count`` sheet sources of ``offers`` offers, each answering after a random latency;
    ``fault_share`` of them time out, answer 500 or cut their body short (in turn)."""
    from tests.support.refresh_helpers import profile_toml, sheet_csv, source_entry

    rng = random.Random(seed)
    providers = [f"fleet-{i:05d}" for i in range(count)]
    faulty = rng.sample(providers, round(count * fault_share))
    faults = {pid: FAULT_KINDS[i % len(FAULT_KINDS)] for i, pid in enumerate(faulty)}
    (folder / "profiles").mkdir(parents=True, exist_ok=True)
    entries = []
    for pid in providers:
        body = sheet_csv(pid, [f"{rng.uniform(1, 40):.2f}" for _ in range(offers)])
        delay = rng.uniform(*latency_s)
        url = server.set(f"/{pid}.csv", _reply(faults.get(pid), body, delay), etag=f'"{pid}-1"')
        (folder / "profiles" / f"{pid}.toml").write_text(profile_toml(pid), encoding="utf-8")
        entries.append(
            source_entry(
                pid,
                url,
                profile=f"profiles/{pid}.toml",
                timeout_s=TIMEOUT_S,
                retries=2,
                backoff_s=0.2,
            )
        )
    worker = f'[worker]\ncron = "mon 03:00"\ntimezone = "Asia/Shanghai"\nshared = {str(shared).lower()}\n'
    worker += f"max_in_flight = {max_in_flight}\n\n"
    config = folder / "sources.toml"
    config.write_text(worker + "\n".join(entries), encoding="utf-8")
    return Fleet(config, providers, faults)


def _reply(fault: str | None, body: bytes, delay_s: float) -> Reply:
    if fault == "timeout":
        return Reply(body=body, delay_s=TIMEOUT_S + 2)
    if fault == "http_500":
        return Reply(500, b"internal error", delay_s=delay_s)
    if fault == "truncated":
        return Reply(body=body, delay_s=delay_s, reset_after_bytes=len(body) // 2)
    return Reply(body=body, delay_s=delay_s)


@dataclass(frozen=True)
class WorkerResult:
    cpu_s: float
    statuses: dict[str, int]
    pass_s: float = 0.0  # the refresh pass alone, without the process's start
    timings: dict[str, float] = field(default_factory=dict)  # RefreshReport.timings


def run_workers(config: Path, url: str, workers: int) -> tuple[float, list[WorkerResult]]:
    """(wall seconds, each worker's result) of ``workers`` processes started together."""
    argv = [sys.executable, "-m", "tests.support.refresh_fleet", str(config), url]
    started = time.perf_counter()
    procs = [
        subprocess.Popen(argv, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        for _ in range(workers)
    ]
    outputs = [proc.communicate() for proc in procs]
    wall = time.perf_counter() - started
    results = []
    for proc, (out, err) in zip(procs, outputs, strict=True):
        if proc.returncode:
            raise AssertionError(f"worker exited {proc.returncode}:\n{err.decode()[-3000:]}")
        data = json.loads(out.decode().strip().splitlines()[-1])
        results.append(
            WorkerResult(
                float(data["cpu_s"]), dict(data["statuses"]), data["pass_s"], data["timings"]
            )
        )
    return wall, results


@dataclass
class Tally:
    """What the run table says about one period of a fleet."""

    good: int = 0
    failed_kinds: Counter[str] = field(default_factory=Counter)
    duplicates: list[str] = field(default_factory=list)  # providers with two good runs
    lost: list[str] = field(default_factory=list)  # providers with no finished run
    wrong: list[str] = field(default_factory=list)  # a fault that succeeded, or a good one failed
    extra_snapshots: list[str] = field(default_factory=list)  # more than one snapshot


def tally(engine: Engine, fleet: Fleet) -> Tally:
    from sqlalchemy import select

    from tests.support.refresh_helpers import RUN, SNAPSHOT

    result = Tally()
    with engine.connect() as conn:
        runs = conn.execute(select(RUN.c.provider_id, RUN.c.status, RUN.c.error)).all()
        snapshots = Counter(p for (p,) in conn.execute(select(SNAPSHOT.c.provider_id)))
    by_provider: dict[str, list[tuple[str, str | None]]] = {}
    for pid, status, error in runs:
        by_provider.setdefault(pid, []).append((status, error))
    for pid in fleet.providers:
        statuses = [s for s, _ in by_provider.get(pid, [])]
        good = sum(s in ("succeeded", "unchanged") for s in statuses)
        result.good += bool(good)
        if good > 1:
            result.duplicates.append(pid)
        if not good and "failed" not in statuses:
            result.lost.append(pid)
        if not good and "failed" in statuses:
            errors = [e or "" for s, e in by_provider[pid] if s == "failed"]
            result.failed_kinds[failure_kind(errors[-1])] += 1
        if bool(good) == (pid in fleet.faults):
            result.wrong.append(pid)
        if snapshots[pid] > 1:
            result.extra_snapshots.append(pid)
    return result


def failure_kind(error: str) -> str:
    if "deadline" in error:
        return "timeout"
    if "500" in error:
        return "http_500"
    if "abandoned" in error or "interrupted" in error:
        return "interrupted"
    return "truncated" if "reset" in error or "incomplete" in error else f"other: {error[:80]}"


def worker_main(config: str, url: str) -> None:
    from comparator.catalog.db import make_engine
    from comparator.refresh.run import run_refresh
    from comparator.refresh.sources import load_sources

    engine = make_engine(url)
    report = run_refresh(engine, load_sources(Path(config)), only_if_due=True)
    engine.dispose()
    usage = resource.getrusage(resource.RUSAGE_SELF)
    statuses = Counter(run.status for run in report.runs)
    cpu_s = usage.ru_utime + usage.ru_stime
    print(
        json.dumps(
            {"cpu_s": cpu_s, "statuses": statuses, "pass_s": report.seconds}
            | {"timings": report.timings}
        )
    )


if __name__ == "__main__":
    worker_main(sys.argv[1], sys.argv[2])
