"""SQLite's staged insert (catalog/staged_insert.py) stores exactly what binding every column
of every row stores: the same values, of the same SQLite storage class, in the same order."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from comparator.catalog import staged_insert
from comparator.catalog.db import make_engine, upgrade_schema
from comparator.catalog.models import OfferColumns, OfferIn
from comparator.catalog.staged_insert import few_combinations
from tests.support.refresh_helpers import profile_toml

SEEN = datetime(2026, 11, 23, 3, 0, tzinfo=UTC)


def _offers(count: int) -> list[OfferIn]:
    """Offers of two providers whose columns repeat a few values (staged as combinations)
    beside ones that vary per row, with NULLs, texts that need quoting and exact prices."""
    offers = []
    for i in range(count):
        offers.append(
            OfferIn(
                provider="ab"[i % 2],
                region=f"dc-{i % 5}",
                gpu=["H100-SXM5-80GB", "A100-SXM4-80GB"][i % 2],
                cards=[1, 8][i % 2],
                billing=["hourly", "daily", "monthly"][i // 2 % 3],
                price=Decimal(f"{i}.{i % 7}0") if i % 5 else Decimal("1E+1"),
                currency="USD",
                time_of_use=["", "00:00-08:00*0.5"][i // 3 % 2],
                stock=None if i % 4 == 0 else i % 9,
                network=None if i % 3 else "ib 'quoted' \t tab",
                sku=f"sku-{i}" if i % 2 else "机型",
                vat_rate=Decimal("0.060") if i % 6 else Decimal("0.06"),
                tax_inclusive=bool(i % 2),
                observed_at=SEEN + timedelta(microseconds=i % 2),
            )
        )
    return offers


def _stored(url: str, table: str, order: str) -> list[tuple[Any, ...]]:
    engine = make_engine(url)
    with engine.connect() as conn:
        names = [row[1] for row in conn.exec_driver_sql(f"PRAGMA table_info({table})")]
        typed = ", ".join(f"{n}, typeof({n})" for n in names)
        rows = conn.exec_driver_sql(f"SELECT {typed} FROM {table} ORDER BY {order}").all()
    engine.dispose()
    return [tuple(row) for row in rows]


def _import(url: str, tmp_path: Path, offers: list[OfferIn]) -> None:
    from comparator.catalog.queries import store_profile
    from comparator.domain.profile import load_profile
    from comparator.refresh.importer import store_sheet

    engine = make_engine(url)
    upgrade_schema(engine)
    for name in ("a", "b"):
        path = tmp_path / f"{name}.toml"
        path.write_text(profile_toml(name), encoding="utf-8")
        store_profile(engine, load_profile(path))
    store_sheet(engine, OfferColumns.from_offers(offers), "sheet.csv")
    engine.dispose()


def test_staged_rows_are_the_rows_bound_one_by_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    offers = _offers(600)
    bound, staged = f"sqlite:///{tmp_path / 'bound.db'}", f"sqlite:///{tmp_path / 'staged.db'}"
    monkeypatch.setattr(staged_insert, "STAGED_MIN_ROWS", 10**9)  # every row bound
    _import(bound, tmp_path, offers)
    monkeypatch.setattr(staged_insert, "STAGED_MIN_ROWS", 1)
    monkeypatch.setattr(staged_insert, "FEW_FRACTION", 4)  # combinations of up to 150 rows
    _import(staged, tmp_path, offers)
    for table, order in (("offer", "id"), ("snapshotsummary", "snapshot_id, offer_id")):
        rows = _stored(staged, table, order)
        assert rows == _stored(bound, table, order)
        assert len(rows) > 10
    stored = _stored(staged, "offer", "id")
    assert {row[1] for row in stored} == {"text"}  # provider
    assert "null" in {row[19] for row in stored}  # stock: NULL where none
    with make_engine(staged).connect() as conn:  # no temporary table is left behind
        assert conn.exec_driver_sql("SELECT count(*) FROM sqlite_temp_master").scalar_one() == 0


def test_neighbouring_columns_with_few_combinations_are_grouped() -> None:
    rows = 64
    ids = np.arange(rows)  # all distinct: alone
    a = np.arange(rows) % 2
    b = np.arange(rows) % 4  # with a: 4 combinations
    c = np.arange(rows) % 32  # 32 > 8 values: alone, and so is d after it
    d = np.zeros(rows, dtype=np.int64)
    groups = few_combinations([ids, a, b, c, d], rows // 8)
    assert [members for members, _ in groups] == [[0], [1, 2], [3], [4]]
    _, key = groups[1]
    assert len(np.unique(key)) == 4 and key.max() == 3
    first = {(int(x), int(y)): int(k) for x, y, k in zip(a, b, key, strict=True)}
    assert len(set(first.values())) == len(first)  # one key per combination


def test_a_summary_row_whose_cheapest_offer_is_not_stored_fails_the_write(
    tmp_path: Path,
) -> None:
    from comparator.catalog.sheet_summary import _copied_from_offers
    from comparator.errors import CatalogError

    engine = make_engine(f"sqlite:///{tmp_path / 'c.db'}")
    upgrade_schema(engine)
    with engine.connect() as conn, pytest.raises(CatalogError, match="found 0 of 1"):
        _copied_from_offers(conn, [12345], [3])  # no offer 12345
    engine.dispose()
