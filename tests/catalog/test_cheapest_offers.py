"""The unfiltered `offers` listing walks the index ix_offer_card_hour (migration 0009) and
lists what the scan of every current offer lists, superseded snapshots and ties included."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest
from sqlalchemy import Engine, text

from comparator.catalog import ranked_offers, top_offers
from comparator.catalog.cheapest_offers import _READ, NATIVE_SQL, cheapest_current
from comparator.catalog.db import MIGRATIONS_DIR
from comparator.catalog.listing import fx_table
from comparator.config import load_settings
from comparator.refresh.importer import import_files
from tests.support.listing_catalog import HEADER, build_listing_catalog

LIMITS = (1, 5, 30, 200, 2000)


def migration_sql() -> str:
    [path] = (MIGRATIONS_DIR / "versions").glob("*_card_hour_index.py")
    spec = importlib.util.spec_from_file_location("card_hour_migration", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return str(module.NATIVE_SQL)


def test_the_listing_repeats_the_index_expression_exactly() -> None:
    """A query uses an expression index only when it spells the expression as the index."""
    assert migration_sql() == NATIVE_SQL


@pytest.fixture
def superseded(any_db_url: str, tmp_path: Path) -> Engine:
    """The listing catalog, then a newer sheet for six providers at ten times the prices: their
    old (cheapest) offers stay in the index but are no longer current."""
    engine = build_listing_catalog(any_db_url, tmp_path)
    lines = [HEADER]
    for n in range(6):
        for i in range(8):
            price = f"{(i % 3 + 1) * 190:.2f}"
            lines.append(f"list-{n:03d},dc{n}-0,4090,{1 + i % 2 * 7},8,hourly,{price},CNY,")
            lines[-1] += "2026-11-23T11:00:00+08:00\n"
    sheet = tmp_path / "newer.csv"
    sheet.write_text("".join(lines), encoding="utf-8")
    import_files(engine, [sheet], [], timezone=load_settings({}).timezone, replace=True)
    return engine


def listed(engine: Engine, limit: int) -> tuple[object, ...]:
    top = top_offers(engine, load_settings({}), limit)
    return [(r.offer.offer_id, r.card_hour_quote) for r in top.rows], top.total, top.unpriced


@pytest.mark.slow
def test_the_index_lists_what_the_scan_lists(
    superseded: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings = load_settings({})
    with superseded.connect() as conn:
        assert cheapest_current(conn, fx_table(settings), "CNY", 5, 1e-9) is not None
    walked = {limit: listed(superseded, limit) for limit in LIMITS}
    monkeypatch.setattr(ranked_offers, "cheapest_current", lambda *args: None)
    for limit in LIMITS:
        assert walked[limit] == listed(superseded, limit), limit


def test_a_currency_without_a_rate_is_left_to_the_scan(superseded: Engine) -> None:
    settings = load_settings({})
    rates = {c: r for c, r in settings.fx_rates.items() if c != "USD"}
    fx = fx_table(settings.__class__(**{**settings.__dict__, "fx_rates": rates}))
    with superseded.connect() as conn:
        assert cheapest_current(conn, fx, "CNY", 5, 1e-9) is None


def test_sqlite_reads_the_cheapest_from_the_index(sqlite_url: str, tmp_path: Path) -> None:
    engine = build_listing_catalog(sqlite_url, tmp_path)
    with engine.connect() as conn:
        plan = conn.execute(
            text(f"EXPLAIN QUERY PLAN {_READ.text}"), {"currency": "CNY", "rows": 10}
        ).all()
    details = " ".join(str(row[-1]) for row in plan)
    assert "USING INDEX ix_offer_card_hour" in details and "TEMP B-TREE" not in details, details


def test_postgresql_walks_the_index_and_probes_the_current_snapshots(
    pg_url: str, tmp_path: Path
) -> None:
    """Each offer the walk reaches is tested against the kept current snapshots by their
    index, not by a scan of them per offer (without the index: a nested loop over a seq scan
    of the 10,000 current snapshots for each of 1,222 offers, 371 ms at 1M offers)."""
    engine = build_listing_catalog(pg_url, tmp_path)
    with engine.begin() as conn:
        conn.execute(text("ANALYZE"))
        plan = (
            conn.execute(text(f"EXPLAIN {_READ.text}"), {"currency": "CNY", "rows": 10})
            .scalars()
            .all()
        )
    details = "\n".join(plan)
    assert "ix_offer_card_hour" in details and "Sort" not in details, details
    assert "Seq Scan on currentsnapshot" not in details, details  # scanned per offer
    engine.dispose()
