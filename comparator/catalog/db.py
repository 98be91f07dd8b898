"""Engines from a URL and schema upgrades through Alembic. No global engine: pass it in.

Every write goes through :func:`write_transaction`, which takes the database's write lock with
its first statement (SQLite ``BEGIN IMMEDIATE``) and waits for it at most the lock timeout
(``SUANLI_LOCK_TIMEOUT_S``, 30 s by default), then fails with one clear message.
"""

from __future__ import annotations

import hashlib
import os
import re
import weakref
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sqlalchemy import Connection, Engine, create_engine, event, inspect, text
from sqlalchemy.engine import make_url
from sqlalchemy.exc import (
    ArgumentError,
    DatabaseError,
    DBAPIError,
    NoSuchModuleError,
    OperationalError,
)

from comparator.errors import CatalogError, ConfigError, Msg

if TYPE_CHECKING:  # Alembic loads only when a schema is upgraded (not for `offers`)
    from alembic.config import Config

MIGRATIONS_DIR = Path(__file__).parent / "migrations"
_REVISION = re.compile(r"^revision: str = \"([^\"]+)\"", re.MULTILINE)
DEFAULT_LOCK_TIMEOUT_S = 30.0
_WRITE = "suanli_write"  # execution option: this transaction writes
_PROVIDER = "provider:"  # lock keys of writers of one provider's profile or snapshots
_ALL_PROVIDERS = "providers"  # shared by each of them, held alone by an import of sheets
_LOCK_TIMEOUTS: weakref.WeakKeyDictionary[Engine, float] = weakref.WeakKeyDictionary()


def _prepare_sqlite(engine: Engine, lock_timeout_s: float) -> None:
    """WAL mode, foreign keys, a busy timeout, and real BEGINs (pysqlite defers them)."""

    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection: Any, _record: Any) -> None:
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        cursor.execute(f"PRAGMA busy_timeout={int(lock_timeout_s * 1000)}")
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.close()

    @event.listens_for(engine, "begin")
    def _on_begin(connection: Connection) -> None:
        writes = connection.get_execution_options().get(_WRITE, False)
        connection.exec_driver_sql("BEGIN IMMEDIATE" if writes else "BEGIN")


def lock_timeout_s(engine: Engine) -> float:
    return _LOCK_TIMEOUTS.get(engine, DEFAULT_LOCK_TIMEOUT_S)


# the subquery's order is the order the locks are taken in (sorted names: no deadlock)
_LOCK_IN_ORDER = text(
    "SELECT count(pg_advisory_xact_lock(k)) FROM "
    "(SELECT k FROM unnest(CAST(:keys AS bigint[])) WITH ORDINALITY AS t(k, n) ORDER BY n) AS s"
)


@contextmanager
def write_transaction(
    engine: Engine, *lock_keys: str, all_providers: bool = False
) -> Iterator[Connection]:
    """A transaction holding the write lock from its first statement, waiting for it boundedly.

    SQLite: ``BEGIN IMMEDIATE`` (a deferred transaction would start as a reader and fail,
    without waiting, when another process wrote first). PostgreSQL: a transaction advisory
    lock per ``lock_keys`` (e.g. ``provider:ID``), taken in sorted order, so two writers of
    the same provider run one after the other and the second sees the first's snapshot.
    Writers of providers first share the ``providers`` lock, which ``all_providers`` takes
    alone, instead of any ``provider:`` key: an import (of sheets, which it learns sheet by
    sheet, or of profiles, which may be 30,000) holds them all at once with one lock,
    without an order to deadlock in and without filling PostgreSQL's lock table.
    """
    wait_s = lock_timeout_s(engine)
    try:
        with engine.connect().execution_options(**{_WRITE: True}) as conn, conn.begin():
            if engine.dialect.name == "postgresql" and (lock_keys or all_providers):
                conn.execute(text(f"SET LOCAL lock_timeout = '{int(wait_s * 1000)}ms'"))
                _take_locks(conn, lock_keys, all_providers)
            yield conn
    except OperationalError as exc:
        if not _is_lock_wait(exc):
            raise
        raise CatalogError(
            "the catalog database {url} is busy: another process held its "
            "write lock for more than {wait_s:g} s (SUANLI_LOCK_TIMEOUT_S); nothing was "
            "written, try again",
            url=engine.url.render_as_string(hide_password=True),
            wait_s=wait_s,
        ) from None


def _take_locks(conn: Connection, lock_keys: tuple[str, ...], all_providers: bool) -> None:
    providers = advisory_key(_ALL_PROVIDERS)
    if all_providers:  # held alone, it covers every provider's lock: those are not taken
        conn.execute(text("SELECT pg_advisory_xact_lock(:k)"), {"k": providers})
        lock_keys = tuple(key for key in lock_keys if not key.startswith(_PROVIDER))
    elif any(key.startswith(_PROVIDER) for key in lock_keys):
        conn.execute(text("SELECT pg_advisory_xact_lock_shared(:k)"), {"k": providers})
    if lock_keys:
        keys = [advisory_key(key) for key in sorted(set(lock_keys))]
        conn.execute(_LOCK_IN_ORDER, {"keys": keys})  # one round trip for 10,000


def _is_lock_wait(exc: DBAPIError) -> bool:
    message = str(exc.orig).lower()
    return "database is locked" in message or "lock timeout" in message


def advisory_key(name: str) -> int:
    """A stable signed 64-bit key for PostgreSQL advisory locks."""
    return int.from_bytes(hashlib.sha256(f"suanli:{name}".encode()).digest()[:8], signed=True)


def dispose_engines() -> None:
    """Close the pooled connections of every engine :func:`make_engine` made and that is still
    alive (a SQLite file checkpoints its WAL, a PostgreSQL session ends with a goodbye)."""
    for engine in list(_LOCK_TIMEOUTS):
        engine.dispose()


def make_engine(url: str, lock_timeout_s: float = DEFAULT_LOCK_TIMEOUT_S) -> Engine:
    """An engine for a SQLite or PostgreSQL URL; a SQLite file's folder is created if missing."""
    try:
        parsed = make_url(url)
    except ArgumentError:
        raise ConfigError("--db/SUANLI_DB: not a database URL: {url!r}", url=url) from None
    if parsed.get_backend_name() == "sqlite":
        if parsed.database and parsed.database != ":memory:":
            Path(parsed.database).expanduser().parent.mkdir(parents=True, exist_ok=True)
        engine = create_engine(parsed, connect_args={"timeout": lock_timeout_s})
        _prepare_sqlite(engine, lock_timeout_s)
        _LOCK_TIMEOUTS[engine] = lock_timeout_s
        return engine
    try:
        engine = create_engine(parsed, pool_pre_ping=True)
    except (NoSuchModuleError, ModuleNotFoundError):
        raise ConfigError(
            "--db: no driver for {drivername!r}; for PostgreSQL install "
            "suanli[postgres] and use postgresql+psycopg://user:pass@host/db",
            drivername=parsed.drivername,
            hint=DB_HINT,
        ) from None
    _LOCK_TIMEOUTS[engine] = lock_timeout_s
    return engine


DB_HINT = Msg(
    "--db or SUANLI_DB names the catalog: `sqlite:///path/catalog.db` or "
    "`postgresql+psycopg://user@host/db`; `suanli init` creates it"
)
# what the database drivers say, in the catalogue's words (the driver's English never shows)
_DRIVER_REASONS = (
    (
        ("could not translate host name", "failed to resolve host", "Name or service not known"),
        "the host name cannot be resolved",
    ),
    (("Connection refused",), "the server refused the connection (is it running on that port?)"),
    (("password authentication failed",), "the user name or password is wrong"),
    (("does not exist",), "the database does not exist on the server"),
    (("file is not a database",), "the file is not a SQLite database"),
    (("unable to open database file",), "the file cannot be opened"),
    (("database is locked",), "the database is locked by another suanli"),
    (("timeout expired", "timed out"), "the server did not answer in time"),
)


def driver_reason(exc: DBAPIError) -> Msg:
    """Why the driver failed, in the catalogue's words; its own text only when unknown."""
    said = str(exc.orig)
    for needles, reason in _DRIVER_REASONS:
        if any(needle in said for needle in needles):
            return Msg(reason)
    return Msg("{reason}", reason=said.splitlines()[0] if said else type(exc.orig).__name__)


def _cannot_open(engine: Engine, exc: DBAPIError) -> ConfigError:
    return ConfigError(
        "cannot open the catalog database {url!r}: {reason}",
        url=engine.url,
        reason=driver_reason(exc),
        hint=DB_HINT,
    )


def alembic_config(connection: Connection) -> Config:
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS_DIR))
    config.attributes["connection"] = connection
    return config


def upgrade_schema(engine: Engine, revision: str = "head") -> None:
    """Bring the schema to ``revision`` (idempotent). Existing data is kept."""
    from alembic import command  # only commands that migrate load Alembic

    try:
        with engine.begin() as connection:
            command.upgrade(alembic_config(connection), revision)
    except OperationalError as exc:
        raise _cannot_open(engine, exc) from None


def head_revision() -> str:
    """The newest migration's revision: the ``revision`` of the file whose ``NNNN_`` prefix is
    highest (tests/catalog/test_migrations.py checks it is Alembic's head), read without
    loading Alembic."""
    versions = MIGRATIONS_DIR / "versions"
    newest = max(versions.glob("[0-9][0-9][0-9][0-9]_*.py"), key=lambda p: p.name.split("_")[0])
    found = _REVISION.search(newest.read_text(encoding="utf-8"))
    return found.group(1) if found else newest.name.split("_", 1)[0]


def upgrade_if_needed(engine: Engine) -> None:
    """:func:`upgrade_schema` only when the stored revision is not the head (a current catalog
    opens without loading Alembic)."""
    try:
        with engine.connect() as conn:
            stored = conn.exec_driver_sql("SELECT version_num FROM alembic_version").scalar()
    except OperationalError as exc:
        raise _cannot_open(engine, exc) from None
    if stored != head_revision():
        upgrade_schema(engine)


def schema_is_current(engine: Engine) -> bool:
    """Whether the database has the tables at all (commands other than init need them)."""
    try:
        return inspect(engine).has_table("alembic_version")
    except DatabaseError as exc:
        raise _cannot_open(engine, exc) from None


def analytic_session(conn: Connection) -> None:
    """PostgreSQL settings for a few large queries (the market report's, the quote's group
    summaries), for this transaction only: sorts and hashes in memory rather than on disk, no
    JIT (compiling cost more than it saved), and hash joins (a merge join sorted the week's
    diff of a million offers on the nine columns of the offer key first: most of its time)."""
    if conn.dialect.name == "postgresql":
        conn.exec_driver_sql("SET LOCAL work_mem = '256MB'")
        conn.exec_driver_sql("SET LOCAL jit = off")
        conn.exec_driver_sql("SET LOCAL enable_mergejoin = off")


def hash_aggregates(conn: Connection, on: bool = True) -> None:
    """On PostgreSQL, for this transaction, group by hashing rather than sorting (``on``), or
    plan as usual again. The quote's scans join each current snapshot's offers to their data
    centres on two correlated columns (snapshot and data centre), which the planner takes for
    independent: it expects 16-43 rows where a province holds 379,000 and sorts them all
    (docs/planner-pruning.md, "Fifth round"); a hash aggregate has nothing to sort."""
    if conn.dialect.name == "postgresql":
        conn.exec_driver_sql(f"SET LOCAL enable_sort = {'off' if on else 'on'}")


def usable_cores() -> int:
    """The cores this process may run on (its affinity where the system tells it)."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1
