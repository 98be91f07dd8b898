"""Concurrent imports: they queue on the write lock, all succeed, and make one snapshot."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from sqlalchemy import func, select

from comparator.catalog.db import (
    DEFAULT_LOCK_TIMEOUT_S,
    make_engine,
    upgrade_schema,
    write_transaction,
)
from comparator.errors import CatalogError
from tests.conftest import REPO
from tests.support.refresh_helpers import SNAPSHOT, profile_toml


def sheet(folder: Path, provider: str, price: str) -> Path:
    rows = "\n".join(f"{provider},sg-1,H100,{n},hourly,{price},USD" for n in range(1, 400))
    path = folder / f"{provider}-{price}.csv"
    path.write_text(f"provider,region,gpu,cards,billing,price,currency\n{rows}\n", "utf-8")
    return path


def start_import(db_url: str, *files: Path) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "comparator", "--db", db_url, "import", *map(str, files)],
        cwd=REPO,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def snapshots(db_url: str) -> int:
    engine = make_engine(db_url)
    with engine.connect() as conn:
        count = int(conn.execute(select(func.count()).select_from(SNAPSHOT)).scalar_one())
    engine.dispose()
    return count


@pytest.mark.slow
def test_four_concurrent_sqlite_imports_all_succeed(tmp_path: Path) -> None:
    db_url = f"sqlite:///{tmp_path / 'catalog.db'}"
    upgrade_schema(make_engine(db_url))
    files = []
    for i in range(4):
        provider = f"p{i}"
        profile = tmp_path / f"{provider}.toml"
        profile.write_text(profile_toml(provider), encoding="utf-8")
        files.append((profile, sheet(tmp_path, provider, "2.50")))
    for _round in range(2):
        procs = [start_import(db_url, *pair) for pair in files]
        results = [(p.wait(timeout=120), p.stderr.read() if p.stderr else "") for p in procs]
        assert all(code == 0 for code, _ in results), results
        assert not any("Traceback" in err for _, err in results)
        files = [(profile, sheet(tmp_path, profile.stem, "2.40")) for profile, _ in files]
    assert snapshots(db_url) == 8


@pytest.mark.slow
def test_identical_concurrent_imports_make_one_snapshot(any_db_url: str, tmp_path: Path) -> None:
    upgrade_schema(make_engine(any_db_url))
    profile = tmp_path / "alpha.toml"
    profile.write_text(profile_toml("alpha"), encoding="utf-8")
    data = sheet(tmp_path, "alpha", "3.10")
    procs = [start_import(any_db_url, profile, data) for _ in range(4)]
    results = [(p.wait(timeout=120), p.stderr.read() if p.stderr else "") for p in procs]
    assert all(code == 0 for code, _ in results), results
    assert snapshots(any_db_url) == 1


@pytest.mark.slow
def test_a_lock_held_too_long_gives_one_clear_message(tmp_path: Path) -> None:
    db_url = f"sqlite:///{tmp_path / 'catalog.db'}"
    engine = make_engine(db_url)
    upgrade_schema(engine)
    profile = tmp_path / "alpha.toml"
    profile.write_text(profile_toml("alpha"), encoding="utf-8")
    with write_transaction(engine):  # another process is writing for a long time
        started = time.monotonic()
        proc = subprocess.run(
            [
                sys.executable,
                "-m",
                "comparator",
                "--db",
                db_url,
                "--lang",
                "en",
                "import",
                str(profile),
            ],
            cwd=REPO,
            capture_output=True,
            text=True,
            env={**os.environ, "SUANLI_LOCK_TIMEOUT_S": "1"},
            timeout=60,
        )
        took = time.monotonic() - started
    assert proc.returncode == 1, proc.stderr
    assert "Traceback" not in proc.stderr
    assert "is busy" in proc.stderr and "SUANLI_LOCK_TIMEOUT_S" in proc.stderr
    assert "more than 1 s" in proc.stderr  # the setting, not the 30 s default, bounded the wait
    assert took < DEFAULT_LOCK_TIMEOUT_S  # loose: a loaded machine starts Python slowly
    engine.dispose()


@pytest.mark.slow
def test_an_import_of_sheets_and_writers_of_providers_exclude_each_other(pg_url: str) -> None:
    """On PostgreSQL an import of sheets holds the lock of all providers (it learns them
    sheet by sheet): a writer of any provider waits for it, and it for them."""
    engine = make_engine(pg_url, lock_timeout_s=0.5)
    upgrade_schema(engine)
    with write_transaction(engine, all_providers=True):
        with pytest.raises(CatalogError, match="is busy"), write_transaction(engine, "provider:x"):
            pass
        with write_transaction(engine, "quote-numbers"):  # not a writer of providers: no wait
            pass
    with write_transaction(engine, "provider:x"):
        with (
            pytest.raises(CatalogError, match="is busy"),
            write_transaction(engine, all_providers=True),
        ):
            pass
        with write_transaction(engine, "provider:y"):  # writers of providers share it
            pass
    engine.dispose()
