"""Shared fixtures: real SQLite files, a real PostgreSQL server, the demo catalog, the CLI.

PostgreSQL tests use the server named by SUANLI_TEST_PG_URL (`.ci/start-postgres` starts one);
each test gets a fresh database. Without the variable they are skipped, unless
SUANLI_REQUIRE_PG=1 (CI), which makes a missing server an error.
"""

from __future__ import annotations

import atexit
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import settings
from sqlalchemy import Engine, create_engine, text

from comparator.catalog.db import make_engine, upgrade_schema
from comparator.cli import main as cli_main

REPO = Path(__file__).resolve().parents[1]
# The day plan, quote and check judge as today (README, Settings): the examples' and test jobs'
# windows are in December 2026, and a window that ended before today is refused, so the suite
# judges as of the day it was written unless a test gives --today or sets its own.
os.environ.setdefault("SUANLI_TODAY", "2026-12-03")
# The report's compiled templates (comparator.report.template_cache) go to a folder of this
# run, never the developer's own ~/.cache/suanli; CLI subprocesses inherit it.
os.environ["XDG_CACHE_HOME"] = tempfile.mkdtemp(prefix="suanli-test-cache-")
atexit.register(shutil.rmtree, os.environ["XDG_CACHE_HOME"], ignore_errors=True)
DATA = Path(__file__).resolve().parent / "data"
SKYPILOT_DIR = DATA / "skypilot-catalog"  # copies of the public catalog, see its SOURCE.md


# Hypothesis profiles: "full" (the default, and CI's) keeps every test's own example count;
# "fast" (scripts/test --fast) caps it for the loop between edits. HYPOTHESIS_PROFILE picks one.
settings.register_profile("full", deadline=None, print_blob=True)
settings.register_profile("fast", max_examples=10, deadline=None, print_blob=True)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "full"))


LONG_RUNS = os.environ.get("SUANLI_LONG_TESTS") == "1"
_LONG_SKIP = pytest.mark.skip(reason="long: minutes at full scale; run with scripts/test --long")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark every test that uses PostgreSQL ``postgres``, whether it asks for ``pg_url`` itself
    or runs once per database (``any_db_url``), so tiers can select on the marker; skip the
    ``long`` tests (the issues' full-scale checks) unless ``SUANLI_LONG_TESTS=1``."""
    for item in items:
        if not LONG_RUNS and item.get_closest_marker("long") is not None:
            item.add_marker(_LONG_SKIP)
        callspec = getattr(item, "callspec", None)
        params = callspec.params.values() if callspec is not None else ()
        fixtures = getattr(item, "fixturenames", ())
        if "pg_url" in fixtures or any(isinstance(v, str) and v == "postgres" for v in params):
            item.add_marker(pytest.mark.postgres)


def postgres_admin_url() -> str | None:
    url = os.environ.get("SUANLI_TEST_PG_URL")
    if not url and os.environ.get("SUANLI_REQUIRE_PG") == "1":
        raise RuntimeError("SUANLI_REQUIRE_PG=1 but SUANLI_TEST_PG_URL is not set")
    return url


@pytest.fixture
def pg_url() -> Iterator[str]:
    """A fresh, empty PostgreSQL database; dropped afterwards."""
    admin_url = postgres_admin_url()
    if not admin_url:
        pytest.skip("no PostgreSQL server (set SUANLI_TEST_PG_URL; see .ci/start-postgres)")
    name = f"suanli_test_{uuid.uuid4().hex[:12]}"
    admin = create_engine(admin_url, isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(text(f'CREATE DATABASE "{name}"'))
    yield admin_url.rsplit("/", 1)[0] + f"/{name}"
    with admin.connect() as conn:
        conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
    admin.dispose()


@pytest.fixture
def sqlite_url(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'catalog.db'}"


@pytest.fixture(params=["sqlite", "postgres"])
def any_db_url(request: pytest.FixtureRequest) -> str:
    """Runs the test once on SQLite and once on PostgreSQL."""
    fixture = "sqlite_url" if request.param == "sqlite" else "pg_url"
    return str(request.getfixturevalue(fixture))


@pytest.fixture
def engine(sqlite_url: str) -> Iterator[Engine]:
    eng = make_engine(sqlite_url)
    upgrade_schema(eng)
    yield eng
    eng.dispose()


class CliResult:
    def __init__(self, code: int, out: str, err: str) -> None:
        self.code, self.out, self.err = code, out, err

    def json(self) -> Any:
        return json.loads(self.out)


def run_cli(
    capsys: pytest.CaptureFixture[str], db_url: str, *args: str, lang: str | None = None
) -> CliResult:
    """Run `suanli --db URL ARGS…` in-process and capture what it printed."""
    capsys.readouterr()
    argv = ["--db", db_url, *(["--lang", lang] if lang else []), *args]
    code = cli_main(argv)
    captured = capsys.readouterr()
    return CliResult(code, captured.out, captured.err)


@pytest.fixture
def cli(capsys: pytest.CaptureFixture[str], sqlite_url: str) -> Any:
    """`cli("offers", "--json")` against a per-test SQLite catalog."""

    def call(*args: str, db: str = sqlite_url, lang: str | None = None) -> CliResult:
        return run_cli(capsys, db, *args, lang=lang)

    return call


@pytest.fixture(scope="session")
def demo_db_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A SQLite file with the demo catalog, made once per session and copied per test."""
    path = tmp_path_factory.mktemp("demo") / "demo.db"
    proc = subprocess.run(
        [sys.executable, "-m", "comparator", "--db", f"sqlite:///{path}", "init"],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    return path


@pytest.fixture
def demo_db_url(demo_db_template: Path, tmp_path: Path) -> str:
    """A private copy of the demo catalog (SQLite's online backup, WAL included)."""
    target = tmp_path / "demo.db"
    with sqlite3.connect(demo_db_template) as src, sqlite3.connect(target) as dst:
        src.backup(dst)
    return f"sqlite:///{target}"


def skip_unless_installed(available: bool, what: str, require_env: str) -> pytest.MarkDecorator:
    """Skip when a system part is missing on a developer machine; in CI, where `require_env`
    is 1, run anyway so that a missing install step fails instead of passing quietly."""
    required = os.environ.get(require_env) == "1"
    return pytest.mark.skipif(not available and not required, reason=f"{what} is not installed")


def _weasyprint_works() -> bool:
    try:
        import weasyprint  # noqa: F401
    except (ImportError, OSError):  # OSError: Pango's libraries are missing
        return False
    return True


needs_pdf = skip_unless_installed(
    _weasyprint_works() and all(shutil.which(t) for t in ("pdftotext", "pdffonts", "pdfinfo")),
    "WeasyPrint with Pango, or poppler-utils",
    "SUANLI_REQUIRE_PDF",
)
