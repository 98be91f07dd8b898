"""Import a generated 200,000-row price sheet and time an `offers` query over it.

Prints rows/s of `suanli import`'s code path beside a baseline measured in the same run:
pandas `read_csv` + one `executemany` into the same table (no validation at all). Then the
time of a current-offers query filtered by GPU and province over the 200k offers.

    python benchmarks/import_offers.py [--rows 200000]

``--catalog OFFERS:PROVIDERS`` measures the national-scale import instead: the generated
catalog of ``benchmarks/scale_catalog.py`` (sheets of 100,000 rows, one profile per provider)
imported by ``suanli import``'s code path into a fresh SQLite file and, with
SUANLI_TEST_PG_URL (an admin URL: a throwaway database is made and dropped), PostgreSQL:
profiles first, then all sheets in one all-or-nothing import, whose wall and CPU time and
rows/s it prints (target on PostgreSQL: ≥ 100,000 rows/s).

    python benchmarks/import_offers.py --catalog 1000000:10000 [--db sqlite,postgres]

``--from DIR`` imports a catalog written before (its ``sheets/`` and ``profiles/``, e.g. a
folder kept by ``benchmarks/scale.py --keep``) instead of generating one; ``--no-breakdown`` prints only
the import, the baseline and the import by phase (:mod:`import_phases`: each step's wall,
thread CPU and PostgreSQL backend CPU).

Fifth round (issue #26, item 3: each provider's offers COPYed in the order of
ix_offer_snapshot_region_gpu, the first sheet parsed in the writer's process beside the child,
current snapshots read once a sheet), 2026-12-03 with ``--from
/work/scratch-shape/bench-1000000 --db postgres,sqlite --no-breakdown`` under the measurement
lock, main and the branch one after the other (docs/import.md, "Fifth round"):

    main c2f9d7f (22:09 UTC, load 2.0-2.5):
      postgres 71,989 rows/s (13.9 s; writer 2.6, child 6.9, backend 7.5 s CPU);
        baseline 151,327 (6.6 s): 0.48 by wall, 0.77 by CPU
      sqlite   64,624 rows/s (15.5 s; writer 13.0, child 7.5 s CPU); baseline 108,971
        (9.2 s): 0.59 by wall, 0.69 by CPU
    branch (22:14 UTC, load 1.2-1.4):
      postgres 69,030 rows/s (14.5 s; writer 3.7, child 7.7, backend 8.4 s CPU);
        baseline 136,772 (7.3 s): 0.50 by wall, 0.85 by CPU
      sqlite   81,373 rows/s (12.3 s; writer 11.3, child 5.8 s CPU); baseline 103,320
        (9.7 s): 0.79 by wall, 0.85 by CPU

Fourth round (issue #26, item 3: SQLite's offers staged with few bound values a row, its
summary copied from the cheapest offers, offer ids by one setval, prices pickled as text),
2026-12-03 with ``--from /work/scratch-shape/bench-1000000 --no-breakdown`` under the
measurement lock, main and the branch one after the other (docs/import.md, "Fourth round"):

    main 61b696c (18:38 UTC, load 3.5-5.2):
      postgres 67,342 rows/s (14.8 s); baseline 142,149 (7.0 s): 0.47 by wall, 0.74 by CPU
      sqlite   64,862 rows/s (15.4 s); baseline 118,017 (8.5 s): 0.55 by wall, 0.61 by CPU
    branch (18:41 UTC, load 2.1-4.2):
      postgres 76,569 rows/s (13.1 s; writer 3.1, child 7.0, backend 7.6 s CPU);
        baseline 177,131 (5.6 s): 0.43 by wall, 0.75 by CPU
      sqlite   74,008 rows/s (13.5 s; writer 11.5, child 7.3 s CPU); baseline 116,442
        (8.6 s): 0.64 by wall, 0.75 by CPU
    branch's last commit (18:56-19:00 UTC, load 3.1-5.6):
      postgres 79,229 rows/s (12.6 s; writer 2.4, child 5.9, backend 6.5 s CPU);
        baseline 158,539 (6.3 s): 0.50 by wall, 0.81 by CPU
      sqlite   83,572 rows/s (12.0 s; writer 10.7, child 5.7 s CPU); baseline 142,774
        (7.0 s): 0.59 by wall, 0.65 by CPU (alone at 18:54: 11.2 s against 7.5 s, 0.67)

Third round (issue #26, item 3: a parsing child process, SQLite's page cache and its indexes
after the rows), 2026-12-03 with ``--from /work/scratch-shape/bench-1000000 --no-breakdown``,
under the measurement lock (docs/import.md, "Third round"):

    before (main a33f3f3, 15:56 UTC, load 2.1-3.0):
      postgres 80,912 rows/s (12.4 s); baseline 160,066 (6.2 s): 0.51 by wall, 0.78 by CPU
      sqlite   40,908 rows/s (24.4 s); baseline 133,421 (7.5 s): 0.31 by wall, 0.29 by CPU
    after (17:03 UTC, load 2.6-4.1):
      postgres 60,408 rows/s (16.6 s; writer 2.3, child 6.6, backend 7.1 s CPU);
        baseline 189,145 (5.3 s): 0.32 by wall, 0.65 by CPU
      sqlite   56,732 rows/s (17.6 s; writer 14.2, child 7.8 s CPU); baseline 105,142
        (9.5 s): 0.54 by wall, 0.65 by CPU

The CPU line adds the parsing child's CPU (``RUSAGE_CHILDREN``), and the phases list its
steps as ``parse (child process)``.

Measured 2026-12-03, 13:42-13:56 UTC, both databases in one run, load average 11-14 (the CPU
figures are the ones to read; docs/import.md has the phases):

    postgres 1,000,000 rows: 12,284 rows/s (wall 81.4 s; CPU Python 9.0 s, backend 7.1 s);
      baseline 31,072 rows/s (32.2 s; busier process 5.2 s): 0.40 by wall, 0.58 by CPU
    sqlite   1,000,000 rows: 12,298 rows/s (wall 81.3 s; CPU 19.3 s); baseline 17,289 rows/s
      (57.8 s; CPU 8.4 s): 0.71 by wall, 0.44 by CPU
    backend before (12:30, idle): 14.8 s; now COPY 2.9 (no secondary indexes: an empty
      table's are built after the rows, 2.1 s), summary rows 0.9, offer ids 0.4, ANALYZE 0.5

It first prints the breakdown, each part measured alone in the same run: the CPU seconds of
the import's Python steps over all sheets (read + check, group + content hash, COPY text), and
on PostgreSQL a COPY of the same offers alone, each in a transaction rolled back, into the
offer table as it is, with the foreign key it had until migration 0006, without its two
secondary indexes, and into a bare copy; wall and backend CPU seconds (read from /proc).

Measured 2026-12-01 on the shared 2-core machine (other engineers' tests ran beside it).
At 17:26 UTC, load average 1.0 (the breakdown's rolled-back COPYs are vacuumed first):

    postgres 1,000,000 rows / 10,000 providers in 10 sheets: 103,185 rows/s (wall 9.7 s;
      CPU: Python 6.8 s, PostgreSQL backend 7.5 s); bound on two free cores 134,048 rows/s
    Python, CPU s per 1M: read + check 2.48, group + content hash 1.31, COPY text 1.27 (5.06)
    COPY alone, wall / backend CPU s: offer as it is 6.15 / 6.11; with the FK it had until
      0006 11.26 / 11.24; without its two indexes 3.84 / 3.81; a bare copy 2.95 / 2.91
    sqlite (17:25, load 1.2): 66,221 rows/s (wall 15.1 s, CPU 15.4 s)

The tree before this work, in the same session (17:15, load 1.6, one e2e import each):
PostgreSQL 40,120 rows/s (wall 24.9 s; Python 12.5 s, backend 12.7 s CPU, one after the
other), the new tree 87,215; SQLite 50,292 rows/s before, 81,067 after. Under a load average
of 11-16 (16:51) the same import ran at 25,000-40,000 rows/s: the wall then is 2-4x the CPU.
Not done, measured: the index columns in COLLATE "C" saved 0.6 of ~2.8 backend CPU s that
the two indexes cost; deduplicate_items = off cost more; a COPY of all-text columns saves
~0.4 s of type input (binary COPY would save at most that).
"""

from __future__ import annotations

import argparse
import os
import random
import resource
import sqlite3
import statistics
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pandas as pd
from sqlalchemy import Engine

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from comparator.catalog.current_offers import current_offers
from comparator.catalog.db import make_engine, upgrade_schema
from comparator.catalog.listing import rank_offers
from comparator.catalog.queries import store_profile
from comparator.config import load_settings
from comparator.domain.profile import DataCenter, ProviderProfile
from comparator.refresh.importer import import_files

# A catalog the size of an aggregator's: many data centres and GPU models, as SkyPilot's
# AWS/GCP files have. A GPU+province filter then matches a few hundred offers, not 5 %.
PROVINCES = [
    ("广东", "深圳"),
    ("广东", "广州"),
    ("江苏", "常州"),
    ("江苏", "苏州"),
    ("贵州", "贵安"),
    ("上海", "上海"),
    ("北京", "北京"),
    ("浙江", "杭州"),
    ("内蒙古", "乌兰察布"),
    ("四川", "成都"),
    ("河北", "张家口"),
    ("宁夏", "中卫"),
    ("湖北", "武汉"),
    ("山东", "济南"),
    ("安徽", "芜湖"),
    ("福建", "福州"),
    ("河南", "郑州"),
    ("湖南", "长沙"),
    ("重庆", "重庆"),
    ("陕西", "西安"),
]
GPUS = [
    "4090",
    "4090D",
    "A100 80G",
    "A100 40G",
    "A800",
    "H800 80G",
    "H100",
    "H100 PCIe",
    "H20",
    "H200",
    "L40S",
    "L40",
    "L4",
    "A10",
    "A40",
    "A30",
    "910B",
    "V100",
    "V100-32GB",
    "T4",
    "3090",
    "A6000",
    "RTX6000-Ada",
    "B200",
    "5090",
    "A5000",
    "A4000",
    "GH200",
    "MI300X",
    "Gaudi2",
]
BILLING = ["hourly", "按量", "daily", "weekly", "包月", "yearly", "spot"]
HEADER = "provider,region,gpu,cards,billing,price,currency,time_of_use,stock,min_units,network\n"


def bench_profile() -> ProviderProfile:
    centres = tuple(
        DataCenter(f"dc-{i}", f"机房{i}", "CN", p, c) for i, (p, c) in enumerate(PROVINCES * 2)
    )
    return ProviderProfile(id="bench", name="基准云", datacenters=centres)


def write_sheet(path: Path, rows: int, seed: int = 7) -> None:
    rng = random.Random(seed)
    lines = [HEADER]
    for _ in range(rows):
        billing = rng.choice(BILLING)
        hourly = billing in ("hourly", "按量", "spot")
        tou = rng.choice(["", "00:00-08:00*0.5", "sat-sun*0.8"]) if hourly else ""
        price = f"{rng.uniform(1, 60000):.4f}"
        lines.append(
            f"bench,dc-{rng.randrange(2 * len(PROVINCES))},{rng.choice(GPUS)},"
            f"{rng.choice((1, 8))},{billing},{price},CNY,{tou},{rng.randrange(1, 50)},1,"
            f"{rng.choice(('', 'ib-400g'))}\n"
        )
    path.write_text("".join(lines), encoding="utf-8")


def baseline_seconds(sheet: Path, db_path: Path) -> float:
    """pandas read_csv + one executemany into the offer table of the same schema."""
    engine = make_engine(f"sqlite:///{db_path}")
    upgrade_schema(engine)
    engine.dispose()
    start = time.perf_counter()
    frame = pd.read_csv(sheet, dtype=str, keep_default_na=False)
    now = "2026-11-29 00:00:00"
    rows = [
        (
            "bench",
            r.region,
            r.gpu,
            int(r.cards),
            8,
            r.billing,
            r.price,
            r.currency,
            r.time_of_use,
            int(r.stock),
            int(r.min_units),
            None,
            r.network or None,
            1,
            "0.06",
            0,
            now,
            "b",
            "",
            1,
        )
        for r in frame.itertuples(index=False)
    ]
    conn = sqlite3.connect(db_path)
    conn.execute(  # the columns named: migrations add nullable ones (profile_record, discount)
        "insert into provider (id, name, legal_name, uscc, country, website, demo, profile_json,"
        " profile_sha256, updated_at) values ('bench','b','','','CN','',0,'{}','x',?)",
        (now,),
    )
    conn.execute(
        "insert into pricesnapshot (id, provider_id, source, content_sha256, fetched_at, offers)"
        " values (1,'bench','b','x',?,0)",
        (now,),
    )
    conn.executemany(
        "insert into offer (provider, region, gpu, cards, node_cards, billing, price, currency,"
        " time_of_use, stock, min_units, interconnect, network, tax_inclusive, vat_rate,"
        " free_trial_hours, observed_at, source, sku, snapshot_id)"
        " values (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
        rows,
    )
    conn.commit()
    conn.close()
    return time.perf_counter() - start


def suanli_seconds(sheet: Path, db_path: Path) -> tuple[float, Engine]:
    engine = make_engine(f"sqlite:///{db_path}")
    upgrade_schema(engine)
    store_profile(engine, bench_profile())
    start = time.perf_counter()
    import_files(engine, [sheet], [], timezone=load_settings({}).timezone)
    return time.perf_counter() - start, engine


def query_ms(engine: Engine, runs: int = 7) -> tuple[float, int]:
    """Median time of the `offers --gpu A100-80G --province 广东` query, and its row count."""
    settings = load_settings({})
    times, matched = [], 0
    for _ in range(runs):
        start = time.perf_counter()
        rows, _ = rank_offers(
            current_offers(engine, gpu="A100-SXM4-80GB", province="广东"), settings
        )
        times.append(time.perf_counter() - start)
        matched = len(rows)
    return statistics.median(times) * 1000, matched


@contextmanager
def throwaway_database(kind: str, tmp: Path, prefix: str = "suanli_import") -> Iterator[str]:
    """A fresh SQLite file, or a PostgreSQL database made and dropped on SUANLI_TEST_PG_URL."""
    if kind == "sqlite":
        yield f"sqlite:///{tmp / f'{prefix}-{uuid.uuid4().hex[:6]}.db'}"
        return
    from sqlalchemy import create_engine, text
    from sqlalchemy.engine import make_url

    admin_url = os.environ.get("SUANLI_TEST_PG_URL")
    if not admin_url:
        raise SystemExit("--db postgres needs SUANLI_TEST_PG_URL")
    name = f"{prefix}_{uuid.uuid4().hex[:10]}"
    admin = create_engine(admin_url, isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(text(f'CREATE DATABASE "{name}"'))
    try:
        yield make_url(admin_url).set(database=name).render_as_string(hide_password=False)
    finally:
        with admin.connect() as conn:
            conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()


def bare_baseline_seconds(engine: Engine, sheets: list[Path]) -> tuple[float, float, int]:
    """The issue's bare baseline over the same sheets: pandas ``read_csv`` (every column as
    text, no check at all) and each row written as it is, with no key and no index, into a
    table of text columns made for it: ``COPY … FROM STDIN`` a row at a time on PostgreSQL
    (psycopg's ``write_row``), one ``executemany`` per sheet on SQLite; committed, as the
    import is (then the table is dropped). (wall s, CPU s of the busier process, rows)."""
    from import_breakdown import backend_cpu_s

    header = pd.read_csv(sheets[0], dtype=str, nrows=0).columns.tolist()
    columns = ", ".join(f'"{name}" text' for name in header)
    started, cpu, rows = time.perf_counter(), time.process_time(), 0
    backend = backend_cpu_s(engine) if engine.dialect.name == "postgresql" else 0.0
    with engine.connect() as conn:
        transaction = conn.begin()
        conn.exec_driver_sql(f"CREATE TABLE bare_offer ({columns})")
        raw = conn.connection.driver_connection
        for sheet in sheets:
            frame = pd.read_csv(sheet, dtype=str, keep_default_na=False)
            rows += len(frame)
            if conn.dialect.name == "postgresql":
                with raw.cursor() as cursor, cursor.copy("COPY bare_offer FROM STDIN") as copy:  # type: ignore[union-attr]
                    for row in frame.itertuples(index=False, name=None):
                        copy.write_row(row)
            else:
                marks = ", ".join("?" * len(header))
                raw.executemany(
                    f"INSERT INTO bare_offer VALUES ({marks})",
                    frame.itertuples(index=False, name=None),
                )  # type: ignore[union-attr]
        transaction.commit()
        elapsed, cpu = time.perf_counter() - started, time.process_time() - cpu
        with conn.begin():
            conn.exec_driver_sql("DROP TABLE bare_offer")
    if engine.dialect.name == "postgresql":
        cpu = max(cpu, backend_cpu_s(engine) - backend)
    return elapsed, cpu, rows


def catalog_import(
    size: str, kinds: list[str], source: Path | None = None, breakdown_too: bool = True
) -> None:
    from import_breakdown import backend_cpu_s, python_breakdown
    from import_phases import phases_timed
    from scale_catalog import write_catalog

    offers, providers = (int(n) for n in size.split(":"))
    zone = load_settings({}).timezone
    with tempfile.TemporaryDirectory() as tmp:
        if source is None:
            sheets, profiles = write_catalog(Path(tmp), offers, providers)
        else:  # the same catalog written before (scale_catalog's sheets/ and profiles/)
            sheets = sorted((source / "sheets").glob("*.csv"))
            profiles = sorted((source / "profiles").glob("*.toml"))
        for kind in kinds:
            with throwaway_database(kind, Path(tmp)) as url:
                engine = make_engine(url)
                upgrade_schema(engine)
                started = time.perf_counter()
                import_files(engine, [], profiles, timezone=zone)
                profile_s = time.perf_counter() - started
                bare_s, bare_cpu, bare_rows = bare_baseline_seconds(engine, sheets)
                breakdown = python_breakdown(sheets, engine) if breakdown_too else []
                backend = backend_cpu_s(engine) if kind == "postgres" else 0.0
                with phases_timed() as clock:
                    started, cpu = time.perf_counter(), time.process_time()
                    child = _children_cpu_s()
                    result = import_files(engine, sheets, [], timezone=zone)
                    wall, cpu = time.perf_counter() - started, time.process_time() - cpu
                    child = _children_cpu_s() - child
                if kind == "postgres":
                    backend = backend_cpu_s(engine) - backend
                engine.dispose()
            rows = sum(r.offers for _, r in result.snapshots)
            server = f", PostgreSQL backend CPU {backend:.1f} s" if kind == "postgres" else ""
            print(
                f"{kind:8} {rows:,} rows / {providers:,} providers in {len(sheets)} sheets: "
                f"{rows / wall:9,.0f} rows/s  (wall {wall:.1f} s; CPU: Python {cpu:.1f} s"
                f" + parsing child {child:.1f} s{server}; profiles {profile_s:.1f} s apart)"
            )
            bare = bare_rows / bare_s
            print(
                f"    {'bare read_csv + ' + ('COPY' if kind == 'postgres' else 'executemany'):44} "
                f"{bare:10,.0f} rows/s  (wall {bare_s:.1f} s, same run; load {_load()})"
            )
            print(
                f"    {'import / bare baseline, wall (target >= 0.7)':44} {rows / wall / bare:10.2f}"
            )
            busier = max(cpu, child, backend)
            print(
                f"    {'… by CPU of the busier process':44} {bare_cpu / busier:10.2f}  "
                f"(import {busier:.1f} s, baseline {bare_cpu:.1f} s)"
            )
            if kind == "postgres":  # the two processes overlap: the busier one bounds the wall
                print(
                    f"    {'bound on two free cores: rows / max(CPU)':44} "
                    f"{rows / max(cpu, child, backend):10,.0f} rows/s"
                )
            for name, figures in breakdown:
                print(f"    {name:44} {figures}")
            print("    the import by phase:")
            for name, figures in clock.lines(rows):
                print(f"    {name:44} {figures}")


def _children_cpu_s() -> float:
    """CPU seconds of this process's ended children (the import's parsing child)."""
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def _load() -> str:
    return " ".join(f"{n:.1f}" for n in os.getloadavg())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rows", type=int, default=200_000)
    parser.add_argument("--catalog", help="OFFERS:PROVIDERS, e.g. 1000000:10000")
    parser.add_argument("--db", default="sqlite,postgres", help="with --catalog")
    parser.add_argument(
        "--from", dest="source", type=Path, help="with --catalog: its sheets/ and profiles/"
    )
    parser.add_argument("--no-breakdown", action="store_true", help="only the phases")
    args = parser.parse_args()
    if args.catalog:
        catalog_import(args.catalog, args.db.split(","), args.source, not args.no_breakdown)
        return
    with tempfile.TemporaryDirectory() as tmp:
        sheet = Path(tmp) / "bench.csv"
        write_sheet(sheet, args.rows)
        base = baseline_seconds(sheet, Path(tmp) / "baseline.db")
        ours, engine = suanli_seconds(sheet, Path(tmp) / "suanli.db")
        print(f"rows                         {args.rows}")
        print(f"baseline read_csv+executemany {args.rows / base:12,.0f} rows/s  ({base:.2f} s)")
        print(f"suanli import (validated)     {args.rows / ours:12,.0f} rows/s  ({ours:.2f} s)")
        print(f"ratio suanli/baseline time    {ours / base:12.2f}x  (target ≤ 3x)")
        elapsed_ms, matched = query_ms(engine)
        print(
            f"offers --gpu A100-80G --province 广东: {elapsed_ms:.1f} ms median, "
            f"{matched} of {args.rows} offers (target < 200 ms)"
        )


if __name__ == "__main__":
    main()
