"""Engines from a URL and schema upgrades through Alembic. No global engine: pass it in."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from alembic import command
from alembic.config import Config
from sqlalchemy import Connection, Engine, create_engine, event, inspect
from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError, NoSuchModuleError, OperationalError

from comparator.errors import ConfigError

MIGRATIONS_DIR = Path(__file__).parent / "migrations"


def _prepare_sqlite(engine: Engine) -> None:
    """WAL mode, foreign keys, a busy timeout, and real BEGINs (pysqlite defers them)."""

    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection: Any, _record: Any) -> None:
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.execute("PRAGMA busy_timeout=30000")
        cursor.close()

    @event.listens_for(engine, "begin")
    def _on_begin(connection: Connection) -> None:
        connection.exec_driver_sql("BEGIN")


def make_engine(url: str) -> Engine:
    """An engine for a SQLite or PostgreSQL URL; a SQLite file's folder is created if missing."""
    try:
        parsed = make_url(url)
    except ArgumentError:
        raise ConfigError(f"--db/SUANLI_DB: not a database URL: {url!r}") from None
    if parsed.get_backend_name() == "sqlite":
        if parsed.database and parsed.database != ":memory:":
            Path(parsed.database).expanduser().parent.mkdir(parents=True, exist_ok=True)
        engine = create_engine(parsed, connect_args={"timeout": 30})
        _prepare_sqlite(engine)
        return engine
    try:
        return create_engine(parsed, pool_pre_ping=True)
    except (NoSuchModuleError, ModuleNotFoundError) as exc:
        raise ConfigError(
            f"--db: no driver for {parsed.drivername!r} ({exc}); for PostgreSQL install "
            "suanli[postgres] and use postgresql+psycopg://user:pass@host/db"
        ) from None


def alembic_config(connection: Connection) -> Config:
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS_DIR))
    config.attributes["connection"] = connection
    return config


def upgrade_schema(engine: Engine, revision: str = "head") -> None:
    """Bring the schema to ``revision`` (idempotent). Existing data is kept."""
    try:
        with engine.begin() as connection:
            command.upgrade(alembic_config(connection), revision)
    except OperationalError as exc:
        raise ConfigError(f"cannot open the catalog database {engine.url!r}: {exc.orig}") from None


def schema_is_current(engine: Engine) -> bool:
    """Whether the database has the tables at all (commands other than init need them)."""
    try:
        return inspect(engine).has_table("alembic_version")
    except OperationalError as exc:
        raise ConfigError(f"cannot open the catalog database {engine.url!r}: {exc.orig}") from None
