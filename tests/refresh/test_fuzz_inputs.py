"""Fuzzing the import boundary: malformed CSV, JSON, XLSX and TOML on SQLite and PostgreSQL.

Every case is imported in-process. A case may be accepted (and then the catalog must still list
it, as ``offers --json`` does) or rejected with a :class:`SuanliError` whose message names the
file and stays short — and a rejection leaves the database exactly as it was. Anything else
(another exception, a hang) fails the test with the seed and case number to replay it.

``SUANLI_FUZZ_SEED`` (default 16) and ``SUANLI_FUZZ_CASES`` (cases per format and database)
choose the run; the counts are printed (``pytest -s``) and kept as test properties.
"""

from __future__ import annotations

import json
import os
import random
import time
from collections.abc import Callable
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from sqlalchemy import Engine, func, select
from sqlmodel import SQLModel

from comparator.catalog import current_offers
from comparator.catalog.db import make_engine, upgrade_schema
from comparator.catalog.listing import rank_offers
from comparator.config import load_settings
from comparator.errors import SuanliError
from comparator.refresh.importer import import_files
from tests.support.fuzz_inputs import GENERATORS, PROFILE, PROVIDER

SEED = int(os.environ.get("SUANLI_FUZZ_SEED", "16"))
CASES = {"sqlite": 200, "postgres": 100}
SETTINGS = load_settings({})
SHANGHAI = ZoneInfo("Asia/Shanghai")
MESSAGE_LIMIT = 8_000  # no 2 MB cell echoed back
CASE_LIMIT_S = 20.0


def cases(database: str) -> int:
    return int(os.environ.get("SUANLI_FUZZ_CASES", CASES[database]))


def fingerprint(engine: Engine) -> dict[str, tuple[int, object]]:
    """Row count and highest key of every table: what any write would change."""
    result = {}
    with engine.connect() as conn:
        for name, table in SQLModel.metadata.tables.items():
            key = next(iter(table.primary_key.columns))
            row = conn.execute(select(func.count(), func.max(key)).select_from(table)).one()
            result[name] = (int(row[0]), row[1])
    return result


def still_lists(engine: Engine) -> None:
    """What `offers --json` and the table do with every current offer: rank, format, print."""
    rows, _ = rank_offers(current_offers(engine), SETTINGS)
    for row in rows:
        json.dumps(row.to_json(SHANGHAI), ensure_ascii=False)
        row.cells()


def run_cases(engine: Engine, folder: Path, fmt: str, count: int, seed: int) -> dict[str, int]:
    suffix, generate = GENERATORS[fmt]
    profile = folder / "fuzz-co.toml"
    profile.write_text(PROFILE.format(id=PROVIDER), encoding="utf-8")
    import_files(engine, [], [profile], timezone=SHANGHAI)
    counts = {"cases": 0, "accepted": 0, "rejected": 0, "tracebacks": 0}
    for number in range(count):
        rng = random.Random(f"{seed}:{fmt}:{number}")
        path = folder / f"case-{number}{suffix}"
        path.write_bytes(generate(rng))
        before = fingerprint(engine)
        started = time.monotonic()
        sheets, profiles = ([], [path]) if fmt == "toml" else ([path], [])
        replay = f"SUANLI_FUZZ_SEED={seed} {fmt} case {number}"
        try:
            import_files(engine, sheets, profiles, timezone=SHANGHAI)
        except SuanliError as exc:
            message = str(exc)
            assert str(path) in message or path.name in message, (replay, message[:500])
            assert len(message) < MESSAGE_LIMIT, (replay, len(message))
            assert fingerprint(engine) == before, (replay, "a rejected import wrote")
            counts["rejected"] += 1
        except Exception as exc:
            counts["tracebacks"] += 1
            pytest.fail(f"{replay}: {type(exc).__name__}: {str(exc)[:300]}")
        else:
            still_lists(engine)
            counts["accepted"] += 1
        assert time.monotonic() - started < CASE_LIMIT_S, (replay, "too slow")
        counts["cases"] += 1
        path.unlink()
    return counts


def fuzz(
    url: str, tmp_path: Path, fmt: str, database: str, record: Callable[[str, object], None]
) -> None:
    engine = make_engine(url)
    upgrade_schema(engine)
    counts = run_cases(engine, tmp_path, fmt, cases(database), SEED)
    engine.dispose()
    line = f"fuzz {fmt} {database} seed {SEED}: " + ", ".join(f"{k} {v}" for k, v in counts.items())
    print(line)
    record("fuzz", line)
    assert counts["tracebacks"] == 0 and counts["cases"] == cases(database)


# a damaged workbook may lose its styles.xml: openpyxl says so and reads it with defaults
NO_STYLESHEET = "ignore:Workbook contains no stylesheet:UserWarning"


@pytest.mark.slow
@pytest.mark.filterwarnings(NO_STYLESHEET)
@pytest.mark.parametrize("fmt", sorted(GENERATORS))
def test_fuzz_sqlite(
    fmt: str, sqlite_url: str, tmp_path: Path, record_property: Callable[[str, object], None]
) -> None:
    fuzz(sqlite_url, tmp_path, fmt, "sqlite", record_property)


@pytest.mark.filterwarnings(NO_STYLESHEET)
@pytest.mark.parametrize("fmt", sorted(GENERATORS))
def test_fuzz_postgres(
    fmt: str, pg_url: str, tmp_path: Path, record_property: Callable[[str, object], None]
) -> None:
    fuzz(pg_url, tmp_path, fmt, "postgres", record_property)
