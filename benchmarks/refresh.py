"""Refresh throughput over loopback: many small sources, then one very large sheet.

1. ``--sources`` (50) sheet sources of ``--source-rows`` (200) offers each, served by a local
   HTTP server with ETags, refreshed concurrently: sources/s for the first refresh (fetch,
   parse, store) and for a second one (every source answers 304 Not Modified).
2. One sheet of ``--rows`` (1,000,000) offers: rows/s from the start of the refresh to the
   committed snapshot (fetch, parse, validate, hash, one-transaction insert).

    python benchmarks/refresh.py [--sources 50] [--rows 1000000] [--db URL]

3. ``--fleet N``: national scale instead. N small sheet sources on a light loopback server
   (:mod:`tests.support.light_httpserver`: one event loop, as cheap as a server can be, since
   a remote one costs the refreshing machine nothing) that answers each after 50–300 ms, 1 %
   of them faulty (a third each: past the deadline, HTTP 500 on every attempt, a body cut
   short), refreshed by ``--workers`` processes (``[worker] shared = true`` when more than
   one) in one pass each, as ``suanli worker`` runs it. Prints wall, CPU (workers + server),
   sources/s, failures by kind, and from the run table: duplicates (a source refreshed twice)
   and lost runs (a source with no finished run), both expected 0, and sources whose outcome
   is not the one its fault calls for.

    python benchmarks/refresh.py --fleet 10000 --workers 4 --db postgresql+psycopg://…

The database defaults to a temporary SQLite file; pass a PostgreSQL URL to measure that (the
fleet empties its tables first: use a throwaway database).
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from sqlalchemy import Engine

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from comparator.catalog.db import make_engine, upgrade_schema  # noqa: E402
from comparator.refresh.run import RefreshReport, run_refresh  # noqa: E402
from comparator.refresh.sources import load_sources  # noqa: E402
from tests.support.httpserver import FaultServer, Reply, fault_server  # noqa: E402
from tests.support.light_httpserver import LightServer, light_server  # noqa: E402
from tests.support.refresh_fleet import (  # noqa: E402
    WorkerResult,
    publish_fleet,
    run_workers,
    tally,
)
from tests.support.refresh_helpers import profile_toml, source_entry, write_sources  # noqa: E402

GPUS = ("H100", "A100-80G", "4090", "L40S", "H20", "910B", "A800", "H800")
BILLINGS = ("hourly", "daily", "monthly", "spot")


def sheet(provider: str, rows: int) -> bytes:
    lines = ["provider,region,gpu,cards,billing,price,currency,sku"]
    lines += [
        f"{provider},sg-1,{GPUS[i % len(GPUS)]},{1 + i % 8},{BILLINGS[i % 4]},"
        f"{1 + (i % 9973) / 100:.2f},USD,sku-{i}"
        for i in range(rows)
    ]
    return ("\n".join(lines) + "\n").encode()


def publish(
    server: FaultServer, folder: Path, providers: Sequence[str], rows: int, timeout_s: int
) -> tuple[Path, int]:
    """A sources file of ``providers``, each a served sheet; and the bytes served in all."""
    entries, served = [], 0
    for provider in providers:
        (folder / f"{provider}.toml").write_text(profile_toml(provider), encoding="utf-8")
        body = sheet(provider, rows)
        served += len(body)
        url = server.set(f"/{provider}.csv", Reply(body=body), etag=f'"{provider}-1"')
        entries.append(source_entry(provider, url, profile=f"{provider}.toml", timeout_s=timeout_s))
    return write_sources(folder, entries), served


def timed_refresh(engine: Engine, config: Path) -> tuple[RefreshReport, float]:
    started = time.perf_counter()
    report = run_refresh(engine, load_sources(config))
    elapsed = time.perf_counter() - started
    failed = [r for r in report.runs if r.status == "failed"]
    if failed:
        raise SystemExit(f"benchmark source failed: {failed[0].provider}: {failed[0].error}")
    return report, elapsed


def many_sources(engine: Engine, server: FaultServer, folder: Path, count: int, rows: int) -> None:
    providers = [f"bench-{i:03d}" for i in range(count)]
    config, _ = publish(server, folder, providers, rows, timeout_s=120)
    _, first = timed_refresh(engine, config)
    report, second = timed_refresh(engine, config)
    assert {r.status for r in report.runs} == {"unchanged"}
    print(
        f"{count} sources × {rows} rows, first refresh:   {first:7.2f} s  "
        f"{count / first:8.1f} sources/s  {count * rows / first:10,.0f} rows/s"
    )
    print(
        f"{count} sources, unchanged (304):        {second:7.2f} s  {count / second:8.1f} sources/s"
    )


def one_big_sheet(engine: Engine, server: FaultServer, folder: Path, rows: int) -> None:
    config, served = publish(server, folder, ["bench-big"], rows, timeout_s=600)
    report, elapsed = timed_refresh(engine, config)
    assert report.runs[0].offers == rows
    print(
        f"1 sheet × {rows:,} rows ({served / 1e6:.0f} MB):    {elapsed:7.2f} s  "
        f"{rows / elapsed:10,.0f} rows/s"
    )


def fleet(
    server: LightServer, folder: Path, url: str, count: int, workers: int, args: argparse.Namespace
) -> None:
    engine = make_engine(url)
    upgrade_schema(engine)
    _emptied(engine)
    published = publish_fleet(
        server,
        folder,
        count,
        shared=workers > 1,
        offers=args.source_rows,
        fault_share=args.fault_share,
        max_in_flight=args.max_in_flight,
    )
    own_cpu = resource.getrusage(resource.RUSAGE_SELF)
    with database_load(engine) as load:
        wall, results = run_workers(published.config, url, workers)
    server_cpu = _cpu(resource.getrusage(resource.RUSAGE_SELF)) - _cpu(own_cpu)
    found = tally(engine, published)
    engine.dispose()
    cpu = sum(r.cpu_s for r in results)
    print(f"{count} sources × {args.source_rows} offers, {workers} worker(s), ", end="")
    print(f"{len(published.faults)} faulty, max_in_flight {args.max_in_flight} per worker")
    print(f"wall {wall:8.1f} s   (target < 60 s); refresh passes {_passes(results)}")
    print(
        f"cpu  {cpu:8.1f} s workers + {server_cpu:.1f} s server   {cpu / count * 1000:.1f} ms/source"
    )
    print(f"rate {count / wall:8.1f} sources/s, {count * args.source_rows / wall:,.0f} offers/s")
    _per_source(results, count)
    if load.peak:
        print(f"database connections at most {load.peak} (all workers; sampled every 0.2 s)")
    if load.server_cpu_s is not None:
        print(
            f"database server CPU {load.server_cpu_s:.1f} s, "
            f"{load.server_cpu_s / count * 1000:.2f} ms/source (its backends, from /proc); "
            f"workers + server {(cpu + load.server_cpu_s) / count * 1000:.2f} ms/source"
        )
    print(f"refreshed {found.good}, failed by kind {dict(sorted(found.failed_kinds.items()))}")
    print(f"per worker: {[r.statuses for r in results]}")
    print(
        f"duplicates {len(found.duplicates)}  lost {len(found.lost)}  extra snapshots "
        f"{len(found.extra_snapshots)}  wrong outcome {len(found.wrong)} {found.wrong[:5]}"
    )


def _emptied(engine: Engine) -> None:
    """Every table of the catalog emptied: the fleet's sources are all due again. PostgreSQL:
    ``TRUNCATE``, as a fresh database would be: a ``DELETE`` of the last run's million offers
    left as many dead rows, which autovacuum then cleaned up on the same two cores while the
    next run was measured."""
    from sqlmodel import SQLModel

    tables = list(reversed(SQLModel.metadata.sorted_tables))
    with engine.begin() as conn:
        if engine.dialect.name == "postgresql":
            names = ", ".join(conn.dialect.identifier_preparer.format_table(t) for t in tables)
            conn.exec_driver_sql(f"TRUNCATE {names} RESTART IDENTITY")
            return
        for table in tables:
            conn.execute(table.delete())


@dataclass
class DatabaseLoad:
    """What the workers' database connections did (PostgreSQL): the most at once, and the CPU
    of their server backends (read from ``/proc`` when the server runs on this machine)."""

    peak: int = 0
    backend_cpu_s: dict[int, float] = field(default_factory=dict)  # pid → CPU seen

    @property
    def server_cpu_s(self) -> float | None:
        return sum(self.backend_cpu_s.values()) if self.backend_cpu_s else None


_TICKS_PER_S = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def _backend_cpu_s(pid: int) -> float | None:
    """utime + stime of a process (``/proc/PID/stat`` fields 14 and 15), None if not here."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None
    return (int(fields[11]) + int(fields[12])) / _TICKS_PER_S


@contextmanager
def database_load(engine: Engine) -> Iterator[DatabaseLoad]:
    """The database's load while the block ran (PostgreSQL; sampled every 0.2 s): a backend
    that ends between two samples loses at most 0.2 s of its CPU."""
    load = DatabaseLoad()
    if engine.dialect.name != "postgresql":
        yield load
        return
    done = threading.Event()
    query = (
        "SELECT pid FROM pg_stat_activity WHERE datname = current_database() "
        "AND pid <> pg_backend_pid()"
    )

    def sample() -> None:
        with engine.connect() as conn:
            while not done.wait(0.2):
                pids = [int(pid) for pid in conn.exec_driver_sql(query).scalars()]
                conn.rollback()  # pg_stat_activity is read once per transaction
                load.peak = max(load.peak, len(pids))
                for pid in pids:
                    cpu = _backend_cpu_s(pid)
                    if cpu is not None:
                        load.backend_cpu_s[pid] = max(cpu, load.backend_cpu_s.get(pid, 0.0))

    thread = threading.Thread(target=sample, daemon=True)
    thread.start()
    try:
        yield load
    finally:
        done.set()
        thread.join()


def _passes(results: Sequence[WorkerResult]) -> str:
    return ", ".join(f"{r.pass_s:.1f} s" for r in results)


# (phase, what it is), in a source's order; CPU where the phase's own thread measured it
PHASES = (
    ("claim_wait", "waiting for one of max_in_flight turns to be claimed ahead"),
    ("claim", "from the turn to its claim (the claim batch's wait and transaction)"),
    ("slot_wait", "claimed, waiting for one of max_in_flight fetch slots"),
    ("claim_db", "claim transactions (runs, locks, validators), per source"),
    ("good_runs_db", "reads of the sources other workers refreshed (500 a query)"),
    ("skip_db", "skipped sources' current snapshots (gathered, one query)"),
    ("fetch", "HTTP: the profile and the sheet, retries included"),
    ("fetch_parse", "from the slot to the parsed offers (the slot's hold)"),
    ("parse", "in the parse thread: read + check"),
    ("read", "  bytes to a table of text cells"),
    ("check", "  validation and conversion of the cells"),
    ("store_wait", "from the parsed offers to the committed batch"),
    ("store_lock", "store batch: connection, BEGIN, providers' locks"),
    ("store_profiles", "store batch: provider profiles"),
    ("store_detect", "store batch: change detection (digests, stored prices, diff)"),
    ("store_write", "store batch: snapshots and offers (COPY)"),
    ("store_runs", "store batch: the runs' outcomes"),
    ("store_commit", "store batch: COMMIT"),
    ("event_loop", "event loop thread: HTTP client, scheduling, profiles read"),
)
_OWN_CPU = (
    "claim_db",
    "good_runs_db",
    "skip_db",
    "parse",
    "store_lock",
    "store_profiles",
    "store_detect",
)
_OWN_CPU += ("store_write", "store_runs", "store_commit", "event_loop")


def _per_source(results: Sequence[WorkerResult], count: int) -> None:
    """Where a source's time goes, in ms per source summed over the workers. The phases of
    different sources overlap (max_in_flight sources at a time, four store writers), so the
    wall column adds up to more than the wall; the CPU column is each phase's own thread's
    CPU, and "other" is the rest of the workers' CPU (start, imports, threads, GC)."""
    total: Counter[str] = Counter()
    for result in results:
        total.update(result.timings)
    batches = int(total.pop("batches", 0))
    print(f"per source, ms ({batches} store batches)   wall     cpu")
    for name, what in PHASES:
        cpu = total.get(f"{name}_cpu")
        shown = f"{cpu / count * 1000:7.2f}" if cpu is not None else "      -"
        wall = total.get(name, 0.0) / count * 1000
        print(f"  {name:<15} {wall:9.2f} {shown}   {what}")
    measured = sum(total.get(f"{name}_cpu", 0.0) for name in _OWN_CPU)
    other = sum(r.cpu_s for r in results) - measured
    print(f"  {'other':<15} {'-':>9} {other / count * 1000:7.2f}   process start, imports, GC")


def _cpu(usage: resource.struct_rusage) -> float:
    return usage.ru_utime + usage.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sources", type=int, default=50)
    parser.add_argument("--source-rows", type=int, default=200)
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--db", help="database URL (default: a temporary SQLite file)")
    parser.add_argument("--fleet", type=int, help="national scale: this many sources instead")
    parser.add_argument("--workers", type=int, default=1, help="worker processes (--fleet)")
    parser.add_argument("--fault-share", type=float, default=0.01, help="faulty share (--fleet)")
    parser.add_argument("--max-in-flight", type=int, default=32, help="per worker (--fleet)")
    args = parser.parse_args()
    if args.fleet:
        with tempfile.TemporaryDirectory() as tmp, light_server() as server:
            fleet(
                server,
                Path(tmp),
                args.db or f"sqlite:///{tmp}/fleet.db",
                args.fleet,
                args.workers,
                args,
            )
        return
    with tempfile.TemporaryDirectory() as tmp, fault_server() as server:
        folder = Path(tmp)
        for name in ("many", "big"):
            (folder / name).mkdir()
        engine = make_engine(args.db or f"sqlite:///{folder / 'bench.db'}")
        upgrade_schema(engine)
        print(f"database: {engine.url.render_as_string(hide_password=True)}")
        many_sources(engine, server, folder / "many", args.sources, args.source_rows)
        one_big_sheet(engine, server, folder / "big", args.rows)
        engine.dispose()


if __name__ == "__main__":
    main()
