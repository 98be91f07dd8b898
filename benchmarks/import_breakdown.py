"""The breakdown printed by ``import_offers.py --catalog``: each part of an import alone.

The CPU seconds of the import's Python steps over all sheets, and on PostgreSQL a COPY of the
same offers alone into the offer table as it is, as it was (with its foreign key) and without
its indexes, each in a transaction rolled back; backend CPU is read from /proc.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

from sqlalchemy import Engine

from comparator.config import load_settings


def backend_cpu_s(engine: Engine) -> float:
    """CPU seconds (user + system) of this database's PostgreSQL backends, read from /proc
    (the server runs on this machine); NaN where they cannot be read."""
    from sqlalchemy import text

    with engine.connect() as conn:
        pids = conn.execute(
            text("SELECT pid FROM pg_stat_activity WHERE datname = current_database()")
        ).scalars()
        return sum(_process_cpu_s(int(pid)) for pid in pids)


def _process_cpu_s(pid: int) -> float:
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return float("nan")
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def python_breakdown(sheets: list[Path], engine: Engine) -> list[tuple[str, str]]:
    """CPU seconds of the import's Python steps over all sheets, and the COPY texts."""
    from comparator.catalog.bulk import copy_payload, group_sheet
    from comparator.catalog.queries import known_regions
    from providers import KnownCatalog, parse_sheet_columns

    known = KnownCatalog(known_regions(engine))
    zone = load_settings({}).timezone
    text_step = "COPY text (as PostgreSQL takes it)"
    spent = {"read + check (providers/sheet)": 0.0, "group + content hash": 0.0, text_step: 0.0}
    texts: list[tuple[list[str], int]] = []
    first_id = 1
    for sheet in sheets:
        content = sheet.read_bytes()
        started = time.process_time()
        columns = parse_sheet_columns(content, str(sheet), known, timezone=zone)
        spent["read + check (providers/sheet)"] += time.process_time() - started
        started = time.process_time()
        groups = group_sheet(columns)
        spent["group + content hash"] += time.process_time() - started
        started = time.process_time()
        ids = [(i, first_id + i) for i in range(len(groups.spans))]
        chunks, count = copy_payload(engine.dialect, groups, ids)
        texts.append((list(chunks), count))
        spent[text_step] += time.process_time() - started
        first_id += len(ids)
    rows = sum(n for _, n in texts)
    lines = [(name, f"{cpu:5.2f} s CPU  {rows / cpu:10,.0f} rows/s") for name, cpu in spent.items()]
    total = sum(spent.values())
    lines.append(("Python in all", f"{total:5.2f} s CPU  {rows / total:10,.0f} rows/s"))
    return [*lines, *copy_breakdown(engine, texts, first_id - 1)]


# what a COPY of the same offers costs into the offer table as it is, and as it was or could be
COPY_TARGETS = {
    "offer as it is (pk + 2 indexes)": [],
    "offer + the FK it had until 0006": [
        "ALTER TABLE offer ADD FOREIGN KEY (snapshot_id) REFERENCES pricesnapshot (id)"
    ],
    "offer without its 2 indexes": [
        "DROP INDEX ix_offer_snapshot_gpu_place",
        "DROP INDEX ix_offer_snapshot_region_gpu",
    ],
    "a bare copy of offer (no pk/index)": ["CREATE TABLE bare (LIKE offer INCLUDING DEFAULTS)"],
}


def copy_breakdown(
    engine: Engine, texts: list[tuple[list[str], int]], snapshots: int
) -> list[tuple[str, str]]:
    """COPY the texts alone into each of :data:`COPY_TARGETS`, each in a transaction
    rolled back: wall and backend CPU seconds, in the same run."""
    if engine.dialect.name != "postgresql":
        return []
    from comparator.catalog.bulk import copy_offers

    rows = sum(n for _, n in texts)
    found = []
    for label, setup in COPY_TARGETS.items():
        raw = engine.raw_connection()
        try:
            driver = raw.driver_connection
            with driver.cursor() as cursor:  # type: ignore[union-attr]
                cursor.execute("SELECT pg_backend_pid()")
                pid = int(cursor.fetchone()[0])  # type: ignore[index]
                cursor.execute(
                    "INSERT INTO pricesnapshot (id, provider_id, source, content_sha256,"
                    " fetched_at, offers) SELECT g, min(id), 'bench', '', now(), 0"
                    " FROM generate_series(1, %s) AS g, provider GROUP BY g",
                    (snapshots,),
                )
                for statement in setup:
                    cursor.execute(statement)
            table = "bare" if "bare" in label else "offer"
            started, cpu = time.perf_counter(), _process_cpu_s(pid)
            for text, count in texts:
                copy_offers(driver, text, count, table)
            wall, cpu = time.perf_counter() - started, _process_cpu_s(pid) - cpu
        finally:
            raw.rollback()
            raw.close()
        found.append(
            (
                f"COPY into {label}",
                f"{wall:5.2f} s wall, {cpu:5.2f} s backend CPU  {rows / wall:10,.0f} rows/s",
            )
        )
    _vacuum(engine)  # the rolled-back rows must not slow the import measured next
    return found


def _vacuum(engine: Engine) -> None:
    with engine.connect().execution_options(isolation_level="AUTOCOMMIT") as conn:
        conn.exec_driver_sql("VACUUM offer, pricesnapshot")
