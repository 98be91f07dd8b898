"""An import into an empty catalog on PostgreSQL builds offer's secondary indexes and the
summary's primary key after the rows (catalog/index_rebuild.py): afterwards they are the same
as before, a refused import leaves them as they were, and a reader of offers keeps them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Engine, event, text

from comparator.catalog.db import make_engine, upgrade_schema, usable_cores
from comparator.catalog.index_rebuild import BULK_ROWS, SECONDARY_INDEXES, SQLITE_DEFAULT_CACHE
from comparator.catalog.queries import store_profile
from comparator.config import load_settings
from comparator.domain.profile import load_profile
from comparator.errors import InputError
from comparator.refresh.importer import import_files
from tests.support.refresh_helpers import profile_toml

pytestmark = pytest.mark.slow  # each imports a first sheet of 10,000 offers: 2-4 s loaded


def _catalog(pg_url: str, tmp_path: Path) -> tuple[Engine, list[Path]]:
    engine = make_engine(pg_url)
    upgrade_schema(engine)
    sheets = []
    for name in ("a", "b"):
        profile = tmp_path / f"{name}.toml"
        profile.write_text(profile_toml(name), encoding="utf-8")
        store_profile(engine, load_profile(profile))
        sheet = tmp_path / f"{name}.csv"
        count = BULK_ROWS if name == "a" else 50  # a bulk load's first sheet, a small one
        rows = [
            f"{name},sg-1,H100,{1 + i % 2},hourly,{2 + i / 100:.2f},USD,vm-{i}"
            for i in range(count)
        ]
        sheet.write_text("provider,region,gpu,cards,billing,price,currency,sku\n" + "\n".join(rows))
        sheets.append(sheet)
    return engine, sheets


def _indexes(engine: Engine) -> list[tuple[str, str]]:
    with engine.connect() as conn:
        rows = conn.execute(
            text(
                "SELECT indexname, indexdef FROM pg_indexes WHERE tablename IN"
                " ('offer', 'snapshotsummary') ORDER BY indexname"
            )
        ).all()
    return [(str(name), str(definition)) for name, definition in rows]


def _oids(engine: Engine) -> dict[str, int]:
    """Each index's object id: a rebuilt index gets a new one."""
    with engine.connect() as conn:
        rows = conn.execute(
            text(
                "SELECT c.relname, c.oid FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid"
                " WHERE i.indrelid IN ('offer'::regclass, 'snapshotsummary'::regclass)"
            )
        ).all()
    return {str(name): int(oid) for name, oid in rows}


def _import(engine: Engine, sheets: list[Path]) -> None:
    import_files(engine, sheets, [], timezone=load_settings({}).timezone)


def test_an_import_into_an_empty_catalog_builds_the_same_indexes(
    pg_url: str, tmp_path: Path
) -> None:
    engine, sheets = _catalog(pg_url, tmp_path)
    before = _indexes(engine)
    assert len(before) == 5  # offer: key and 3 indexes; the summary's key
    oids = _oids(engine)
    _import(engine, sheets)
    assert _indexes(engine) == before
    rebuilt = {name for name, oid in _oids(engine).items() if oids[name] != oid}
    assert rebuilt == set(SECONDARY_INDEXES) | {"snapshotsummary_pkey"}
    with engine.connect() as conn:
        offers = conn.execute(text("SELECT COUNT(*) FROM offer")).scalar_one()
        summary = conn.execute(text("SELECT SUM(offers) FROM snapshotsummary")).scalar_one()
    assert offers == summary == BULK_ROWS + 50
    engine.dispose()


def test_a_refused_import_into_an_empty_catalog_leaves_the_indexes(
    pg_url: str, tmp_path: Path
) -> None:
    engine, sheets = _catalog(pg_url, tmp_path)
    before = _indexes(engine)
    broken = tmp_path / "broken.csv"
    broken.write_text(
        "provider,region,gpu,cards,billing,price,currency\na,sg-1,H100,1,hourly,-1,USD\n"
    )
    with pytest.raises(InputError):  # the first sheet is stored, the second is refused
        _import(engine, [sheets[0], broken])
    assert _indexes(engine) == before
    with engine.connect() as conn:
        assert conn.execute(text("SELECT COUNT(*) FROM offer")).scalar_one() == 0
    engine.dispose()


def test_a_small_import_into_an_empty_catalog_keeps_the_indexes(
    pg_url: str, tmp_path: Path
) -> None:
    engine, sheets = _catalog(pg_url, tmp_path)
    before, oids = _indexes(engine), _oids(engine)
    _import(engine, [sheets[1], sheets[0]])  # its first sheet has 50 offers
    assert (_indexes(engine), _oids(engine)) == (before, oids)
    engine.dispose()


def test_an_import_beside_a_reader_of_offers_keeps_the_indexes(pg_url: str, tmp_path: Path) -> None:
    engine, sheets = _catalog(pg_url, tmp_path)
    before, oids = _indexes(engine), _oids(engine)
    with engine.connect() as reader, reader.begin():
        reader.execute(text("SELECT COUNT(*) FROM offer")).scalar_one()  # holds ACCESS SHARE
        _import(engine, sheets)  # does not wait for the reader: it keeps the indexes
        assert (_indexes(engine), _oids(engine)) == (before, oids)
    with engine.connect() as conn:
        assert conn.execute(text("SELECT COUNT(*) FROM offer")).scalar_one() == BULK_ROWS + 50
    engine.dispose()


def _sqlite_indexes(engine: Engine) -> dict[str, tuple[str, int]]:
    """Each index of offer: (its definition, its root page; a rebuilt index gets another)."""
    with engine.connect() as conn:
        rows = conn.execute(
            text("SELECT name, sql, rootpage FROM sqlite_master WHERE type = 'index'")
        ).all()
    return {str(name): (str(sql), int(page)) for name, sql, page in rows}


def test_an_import_into_an_empty_sqlite_catalog_builds_the_same_indexes(
    tmp_path: Path,
) -> None:
    """SQLite drops offer's secondary indexes of an empty table and builds them again from
    their own definitions; a refused import leaves them as they were."""
    engine, sheets = _catalog(f"sqlite:///{tmp_path / 'catalog.db'}", tmp_path)
    before = _sqlite_indexes(engine)
    broken = tmp_path / "broken.csv"
    broken.write_text(
        "provider,region,gpu,cards,billing,price,currency\na,sg-1,H100,1,hourly,-1,USD\n"
    )
    with pytest.raises(InputError):
        _import(engine, [sheets[0], broken])
    assert _sqlite_indexes(engine) == before
    _import(engine, sheets)
    after = _sqlite_indexes(engine)
    assert {name: sql for name, (sql, _) in after.items()} == {
        name: sql for name, (sql, _) in before.items()
    }
    rebuilt = {name for name, (_, page) in after.items() if before[name][1] != page}
    assert rebuilt == set(SECONDARY_INDEXES)
    with engine.connect() as conn:
        assert conn.execute(text("PRAGMA integrity_check")).scalar_one() == "ok"
        offers = conn.execute(text("SELECT COUNT(*) FROM offer")).scalar_one()
        summary = conn.execute(text("SELECT SUM(offers) FROM snapshotsummary")).scalar_one()
    assert offers == summary == BULK_ROWS + 50
    engine.dispose()


def test_sqlite_sorts_the_rebuilt_indexes_on_worker_threads(tmp_path: Path) -> None:
    """The builds run with ``PRAGMA threads`` at the usable cores and SQLite's default page
    cache (the bulk import's large one sorted in one piece on one thread); the connection
    gets both pragmas back before the pool has it again."""
    engine, sheets = _catalog(f"sqlite:///{tmp_path / 'catalog.db'}", tmp_path)
    seen: list[tuple[str, int, int]] = []

    @event.listens_for(engine, "before_cursor_execute")
    def pragmas_at_each_build(conn: Any, cursor: Any, statement: str, *_: Any) -> None:
        if statement.startswith("CREATE INDEX"):
            threads = cursor.connection.execute("PRAGMA threads").fetchone()[0]
            cache = cursor.connection.execute("PRAGMA cache_size").fetchone()[0]
            seen.append((statement.split()[2].strip('"'), threads, cache))

    _import(engine, sheets)
    assert {name for name, _, _ in seen} == set(SECONDARY_INDEXES)
    assert {(threads, cache) for _, threads, cache in seen} == {
        (usable_cores(), SQLITE_DEFAULT_CACHE)
    }
    event.remove(engine, "before_cursor_execute", pragmas_at_each_build)
    with engine.connect() as conn:  # the pool's connection, as the import left it
        assert conn.execute(text("PRAGMA threads")).scalar_one() == 0
        assert conn.execute(text("PRAGMA cache_size")).scalar_one() == SQLITE_DEFAULT_CACHE
    engine.dispose()
