"""Time `suanli report market` over a national-scale catalog with weeks of history.

The catalog comes from ``benchmarks/scale_catalog.py``: ``--weeks`` weekly catalogs of
``--history`` offers each (seeds 101, 102, …), then the current one of ``--offers`` offers, all
over the same ``--providers`` provider ids, imported by ``suanli import``'s code path with
``--replace`` into a fresh SQLite file and, with SUANLI_TEST_PG_URL (an admin URL: a
throwaway database is made and dropped), PostgreSQL. Each weekly import's snapshots are dated
on the Wednesday of its week. Then the report (``market_report``, as ``--json`` builds it) runs
``--runs`` times over the weeks on record plus the current week; the script prints each run's
wall time and the mean seconds of its database steps: the index aggregation, the week's
diff, the cheapest compliant offers, the failed sources and loading the profiles.

    python benchmarks/market_report.py [--offers 1000000] [--history 100000] [--weeks 12]
        [--providers 1000] [--db sqlite,postgres] [--runs 3]
    python benchmarks/market_report.py --keep sqlite:////tmp/market.db   # build a catalog
    python benchmarks/market_report.py --reuse sqlite:////tmp/market.db  # time it again

Measured 2026-12-03 on the 2-core machine, defaults (1,000,000 + 12 x 100,000 offers, 1,000
providers), catalogs built with --keep, then --reuse --runs 2 at load 1.7-1.8:

    sqlite    report 6.56, 5.10 s; market_index 3.18, week_diff 1.90 s/run
    postgres  report 6.64, 6.22 s; market_index 4.11, week_diff 1.49 s/run

(before the per-snapshot summary: 44.9-54.7 s and 27.9-35.2 s; docs/market-report.md).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from datetime import UTC, date, datetime, timedelta
from datetime import time as clock
from pathlib import Path
from typing import Any

from sqlalchemy import Engine, text

from comparator.catalog.db import make_engine, upgrade_schema
from comparator.config import load_settings
from comparator.refresh.importer import import_files
from comparator.services import weekly_market as market

sys.path.insert(0, str(Path(__file__).resolve().parent))
from import_offers import throwaway_database
from scale_catalog import write_catalog

TODAY = date(2026, 12, 3)


def build(
    engine: Engine, root: Path, weeks: int, history: int, offers: int, providers: int
) -> float:
    """Import the weekly catalogs then the current one; returns the seconds it took."""
    zone = load_settings({}).timezone
    monday = TODAY - timedelta(days=TODAY.weekday())
    started = time.perf_counter()
    for week in range(weeks + 1):
        current = week == weeks
        folder = root / ("now" if current else f"week-{week:02d}")
        if not folder.exists():
            count, seed = (offers, 15) if current else (history, 101 + week)
            write_catalog(folder, count, providers, seed=seed)
        sheets = sorted((folder / "sheets").iterdir())
        profiles = sorted((folder / "profiles").iterdir())
        import_files(engine, sheets, profiles, timezone=zone, replace=True)
        wednesday = monday - timedelta(weeks=weeks - week) + timedelta(days=2)
        _date_new_snapshots(engine, datetime.combine(wednesday, clock(12), zone))
        print(f"  imported {folder.name}: {time.perf_counter() - started:.0f} s", flush=True)
    return time.perf_counter() - started


def _date_new_snapshots(engine: Engine, moment: datetime) -> None:
    """Date the snapshots just imported (stamped now) inside their week."""
    with engine.begin() as conn:
        sqlite = conn.dialect.name == "sqlite"  # SQLite keeps naive UTC
        params = {"m": moment.astimezone(UTC).replace(tzinfo=None) if sqlite else moment}
        conn.execute(text("UPDATE pricesnapshot SET fetched_at = :m WHERE fetched_at > :m"), params)


originals: dict[str, Any] = {}
PARTS = ("market_index", "week_diff", "failed_sources", "load_profiles")


def _timed_parts() -> dict[str, float]:
    """Wrap the report's database steps so each run adds up their seconds."""
    spent = dict.fromkeys(PARTS, 0.0)
    originals.update({name: getattr(market, name) for name in PARTS if name not in originals})
    for name in PARTS:
        inner = originals[name]

        def timed(*args: Any, _inner: Any = inner, _name: str = name, **kwargs: Any) -> Any:
            started = time.perf_counter()
            try:
                return _inner(*args, **kwargs)
            finally:
                spent[_name] += time.perf_counter() - started

        setattr(market, name, timed)
    return spent


def time_report(engine: Engine, weeks: int, runs: int) -> list[float]:
    """Run the report ``runs`` times; print each run's wall and CPU seconds (this process and
    the database server's work show in the wall time; on a shared machine the CPU time is
    the steadier figure for this process) and the parts' mean seconds."""
    settings = load_settings({})
    seconds = []
    spent = _timed_parts()
    for _ in range(runs):
        started, cpu = time.perf_counter(), time.process_time()
        document = market.market_report(engine, settings, today=TODAY, weeks=weeks + 1)
        seconds.append(time.perf_counter() - started)
        print(
            f"  run: {seconds[-1]:.2f} s wall, {time.process_time() - cpu:.2f} s CPU (this process)"
        )
    print("  parts, mean s per run: " + ", ".join(f"{k} {v / runs:.2f}" for k, v in spent.items()))
    for name in PARTS:
        setattr(market, name, originals[name])
    rows = sum(1 for row in document["index"] if row["current"])
    print(f"  {rows} GPU × billing rows this week, {len(document['weeks'])} weeks on record")
    print(f"  load average {' '.join(f'{x:.1f}' for x in os.getloadavg())}")
    return seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--offers", type=int, default=1_000_000)
    parser.add_argument("--history", type=int, default=100_000)
    parser.add_argument("--weeks", type=int, default=12)
    parser.add_argument("--providers", type=int, default=1_000)
    parser.add_argument("--db", default="sqlite,postgres")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument(
        "--reuse", metavar="URL", help="time the report on a catalog this script built before"
    )
    parser.add_argument(
        "--keep", metavar="URL", help="build the catalog into URL (an empty database) and stop"
    )
    args = parser.parse_args()
    if args.reuse:
        engine = make_engine(args.reuse)
        seconds = time_report(engine, args.weeks, args.runs)
        print(f"{engine.dialect.name:8} report: {', '.join(f'{s:.2f}' for s in seconds)} s")
        return
    if args.keep:
        engine = make_engine(args.keep)
        upgrade_schema(engine)
        with tempfile.TemporaryDirectory() as tmp:
            build(engine, Path(tmp), args.weeks, args.history, args.offers, args.providers)
        return
    with tempfile.TemporaryDirectory() as tmp:
        for kind in args.db.split(","):
            with throwaway_database(kind, Path(tmp), prefix="suanli_market") as url:
                engine = make_engine(url)
                upgrade_schema(engine)
                print(f"{kind}: building the catalog", flush=True)
                built = build(
                    engine, Path(tmp), args.weeks, args.history, args.offers, args.providers
                )
                seconds = time_report(engine, args.weeks, args.runs)
                engine.dispose()
            print(
                f"{kind:8} report over {args.offers:,} current offers + {args.weeks} weeks of "
                f"{args.history:,} ({args.providers:,} providers): "
                f"{', '.join(f'{s:.2f}' for s in seconds)} s "
                f"(median {statistics.median(seconds):.2f} s; catalog built in {built:.0f} s)",
                flush=True,
            )


if __name__ == "__main__":
    main()
