"""Engines from a URL and schema upgrades through Alembic. No global engine: pass it in."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from sqlalchemy import Connection, Engine, create_engine, event, inspect
from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError, NoSuchModuleError, OperationalError

from comparator.errors import ConfigError

if TYPE_CHECKING:  # Alembic loads only when a schema is upgraded (not for `offers`)
    from alembic.config import Config

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
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS_DIR))
    config.attributes["connection"] = connection
    return config


def upgrade_schema(engine: Engine, revision: str = "head") -> None:
    """Bring the schema to ``revision`` (idempotent). Existing data is kept."""
    from alembic import command

    try:
        with engine.begin() as connection:
            command.upgrade(alembic_config(connection), revision)
    except OperationalError as exc:
        raise ConfigError(f"cannot open the catalog database {engine.url!r}: {exc.orig}") from None


def head_revision() -> str:
    """The newest migration's revision, read from the file names (``NNNN_….py`` is revision
    ``NNNN``; tests/test_migrations.py checks it is Alembic's head) without loading Alembic."""
    versions = MIGRATIONS_DIR / "versions"
    return max(p.name.split("_", 1)[0] for p in versions.glob("[0-9][0-9][0-9][0-9]_*.py"))


def upgrade_if_needed(engine: Engine) -> None:
    """:func:`upgrade_schema` only when the stored revision is not the head (a current catalog
    opens without loading Alembic)."""
    try:
        with engine.connect() as conn:
            stored = conn.exec_driver_sql("SELECT version_num FROM alembic_version").scalar()
    except OperationalError as exc:
        raise ConfigError(f"cannot open the catalog database {engine.url!r}: {exc.orig}") from None
    if stored != head_revision():
        upgrade_schema(engine)


def schema_is_current(engine: Engine) -> bool:
    """Whether the database has the tables at all (commands other than init need them)."""
    try:
        return inspect(engine).has_table("alembic_version")
    except OperationalError as exc:
        raise ConfigError(f"cannot open the catalog database {engine.url!r}: {exc.orig}") from None
