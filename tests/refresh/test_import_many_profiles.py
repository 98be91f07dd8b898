"""Profile imports take the one exclusive lock of all providers, as sheet imports do (issue #29).

One advisory lock per provider in one transaction overflowed PostgreSQL's shared lock table
(room for at least ``max_locks_per_transaction`` × ``max_connections`` locked objects, 64 × 100
by default, plus some slack) with ``out of shared memory``; one lock does not.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from sqlalchemy import func, select, text

from comparator.catalog.db import make_engine, upgrade_schema, write_transaction
from comparator.catalog.models import Provider
from tests.support.refresh_helpers import profile_toml

PROFILES = 30_000


def run_import(
    db_url: str, folder: Path, names: list[str], **env: str
) -> subprocess.CompletedProcess[str]:
    """``suanli import`` of the files ``names`` in ``folder`` (short relative names: 30,000 fit
    in one command line)."""
    return subprocess.run(
        [sys.executable, "-m", "comparator", "--db", db_url, "--lang", "en", "import", *names],
        cwd=folder,
        capture_output=True,
        text=True,
        env={**os.environ, **env},
        timeout=540,
        check=False,
    )


def providers_stored(db_url: str) -> int:
    engine = make_engine(db_url)
    with engine.connect() as conn:
        count = int(conn.execute(select(func.count()).select_from(Provider)).scalar_one())
    engine.dispose()
    return count


@pytest.mark.slow
def test_thirty_thousand_profiles_import_in_one_command(pg_url: str, tmp_path: Path) -> None:
    engine = make_engine(pg_url)
    upgrade_schema(engine)
    with engine.connect() as conn:  # the server's defaults, which used to be too few
        per_transaction = int(conn.execute(text("SHOW max_locks_per_transaction")).scalar_one())
        connections = int(conn.execute(text("SHOW max_connections")).scalar_one())
    engine.dispose()
    assert per_transaction * connections < PROFILES  # far fewer slots than one lock a provider
    names = [f"p{n:05d}.toml" for n in range(PROFILES)]
    for name in names:
        (tmp_path / name).write_text(profile_toml(name.removesuffix(".toml")), encoding="utf-8")

    proc = run_import(pg_url, tmp_path, names)

    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "Traceback" not in proc.stderr and "bug" not in proc.stderr
    assert proc.stdout.count(": created") == PROFILES
    assert providers_stored(pg_url) == PROFILES


@pytest.mark.slow
def test_an_import_of_profiles_holds_all_providers_exclusively(pg_url: str, tmp_path: Path) -> None:
    """A profile import waits for a writer of any provider (here another provider's), as a
    sheet import does: it holds the ``providers`` lock alone, not one lock per provider."""
    engine = make_engine(pg_url)
    upgrade_schema(engine)
    (tmp_path / "alpha.toml").write_text(profile_toml("alpha"), encoding="utf-8")
    with write_transaction(engine, "provider:beta"):
        busy = run_import(pg_url, tmp_path, ["alpha.toml"], SUANLI_LOCK_TIMEOUT_S="1")
    assert busy.returncode == 1, busy.stderr
    assert "Traceback" not in busy.stderr
    assert "is busy" in busy.stderr
    assert providers_stored(pg_url) == 0
    done = run_import(pg_url, tmp_path, ["alpha.toml"])
    assert done.returncode == 0, done.stderr
    assert providers_stored(pg_url) == 1
    engine.dispose()


def test_the_all_providers_lock_takes_no_lock_per_provider(pg_url: str) -> None:
    engine = make_engine(pg_url)
    upgrade_schema(engine)
    keys = [f"provider:p{n}" for n in range(100)]
    with write_transaction(engine, *keys, all_providers=True) as conn:
        held = conn.execute(
            text(
                "SELECT count(*) FROM pg_locks "
                "WHERE locktype = 'advisory' AND pid = pg_backend_pid()"
            )
        ).scalar_one()
    assert held == 1
    with write_transaction(engine, *keys) as conn:  # a writer of these providers: all of them
        held = conn.execute(
            text(
                "SELECT count(*) FROM pg_locks "
                "WHERE locktype = 'advisory' AND pid = pg_backend_pid()"
            )
        ).scalar_one()
    assert held == 1 + len(keys)
    engine.dispose()
