"""A sheet's summary rows, found from its columns before the write (catalog/sheet_summary.py),
are the rows the SQL summary finds, on both databases: the same groups (the database's
equality: NUMERIC by value on PostgreSQL, text on SQLite), the same counts, and the cheapest
offer per card exactly, the lowest id among equals; offer ids given before the write are
unused ones (catalog/offer_ids.py)."""

from __future__ import annotations

from collections import defaultdict
from datetime import UTC, datetime
from decimal import Decimal
from fractions import Fraction
from pathlib import Path
from typing import Any

from sqlalchemy import text

from comparator.catalog.db import make_engine, upgrade_schema
from comparator.catalog.models import OfferColumns, OfferIn
from comparator.catalog.snapshot_summary import GROUP_COLUMNS, summarise_snapshots
from tests.support.refresh_helpers import profile_toml

SEEN = datetime(2026, 11, 23, 3, 0, tzinfo=UTC)


def _offer(provider: str, price: str, cards: int = 1, **fields: Any) -> OfferIn:
    values: dict[str, Any] = {"region": "sg-1", "gpu": "H100-SXM5-80GB", "billing": "hourly"}
    values |= {"currency": "USD", "observed_at": SEEN, "sku": f"sku-{price}-{cards}"}
    return OfferIn(provider=provider, price=Decimal(price), cards=cards, **(values | fields))


def _awkward_groups() -> list[OfferIn]:
    """Ties the float ratios cannot decide, equal ratios, duplicates and scales of a key."""
    return [
        _offer("a", "16", 8),  # 2 per card, as the next: the lowest id wins
        _offer("a", "2", 1),
        _offer("a", "2.0000000000000000001", 1, billing="daily"),  # beyond a float
        _offer("a", "2.0000000000000000000", 1, billing="daily", sku="least"),
        _offer("a", "2.00000000000000000005", 1, billing="daily", sku="later"),
        _offer("a", "7", 1, billing="monthly", sku="x"),  # duplicates: the first row
        _offer("a", "7", 1, billing="monthly", sku="y"),
        _offer("b", "3", 1, vat_rate=Decimal("0.06")),  # equal VAT, another scale
        _offer("b", "1", 1, vat_rate=Decimal("0.060"), sku="b1"),
        _offer("b", "5", 2, time_of_use="00:00-08:00*0.5"),
        _offer("b", "0.5", 1, billing="weekly"),
    ]


def _key(engine: Any, values: Any) -> tuple[str, ...]:
    """Group key values as the database compares them (PostgreSQL: NUMERIC by value)."""
    by_value = engine.dialect.name == "postgresql"
    return tuple(
        str(Decimal(str(v)).normalize()) if by_value and name == "vat_rate" else str(v)
        for name, v in zip(GROUP_COLUMNS, values, strict=False)
    )


def _stored_summary(engine: Any) -> list[tuple[Any, ...]]:
    columns = ", ".join([*GROUP_COLUMNS, "provider", "offers", "offer_id", "cards", "price"])
    with engine.connect() as conn:
        rows = conn.execute(text(f"SELECT {columns} FROM snapshotsummary")).all()
    width = len(GROUP_COLUMNS)
    found = [_key(engine, row[:width]) + tuple(str(v) for v in row[width:]) for row in rows]
    return sorted(found)


def test_the_summary_written_with_a_sheet_is_the_one_sql_finds(
    any_db_url: str, tmp_path: Path
) -> None:
    from comparator.catalog.queries import store_profile
    from comparator.domain.profile import load_profile
    from comparator.refresh.importer import store_sheet

    engine = make_engine(any_db_url)
    upgrade_schema(engine)
    for name in ("a", "b"):
        path = tmp_path / f"{name}.toml"
        path.write_text(profile_toml(name), encoding="utf-8")
        store_profile(engine, load_profile(path))
    results = store_sheet(engine, OfferColumns.from_offers(_awkward_groups()), "sheet.csv")
    written = _stored_summary(engine)
    with engine.begin() as conn:
        conn.exec_driver_sql("DELETE FROM snapshotsummary")
        summarise_snapshots(conn, [r.snapshot_id for r in results])
    by_sql = _stored_summary(engine)
    assert len(written) == len(by_sql)  # the same groups and counts ...
    assert [r[:10] for r in written] == [r[:10] for r in by_sql]
    _assert_exact_cheapest(engine, written)  # ... and exactly the cheapest (SQL: a float)
    engine.dispose()


def _assert_exact_cheapest(engine: Any, summary: list[tuple[Any, ...]]) -> None:
    columns = ", ".join(GROUP_COLUMNS)
    with engine.connect() as conn:
        offers = conn.execute(text(f"SELECT {columns}, id, price, cards FROM offer")).all()
    groups: dict[tuple[str, ...], list[tuple[Fraction, int]]] = defaultdict(list)
    for row in offers:
        key = _key(engine, row[: len(GROUP_COLUMNS)])
        groups[key].append((Fraction(Decimal(str(row.price))) / row.cards, int(row.id)))
    expected = {key: (min(members)[1], len(members)) for key, members in groups.items()}
    found = {row[: len(GROUP_COLUMNS)]: (int(row[10]), int(row[9])) for row in summary}
    assert found == expected
    assert len(found) == (6 if engine.dialect.name == "postgresql" else 7)  # 0.06 ≠ 0.060
    assert sorted(row[12] for row in summary) == sorted(
        ["16", "2.0000000000000000000", "7", "1", "5", "0.5"]
        + ([] if engine.dialect.name == "postgresql" else ["3"])
    )


def test_offer_ids_from_the_sequence_are_no_session_s_else(pg_url: str) -> None:
    from comparator.catalog.offer_ids import reserve_offer_ids

    engine = make_engine(pg_url)
    upgrade_schema(engine)
    with engine.begin() as conn:
        first = reserve_offer_ids(conn, 5).tolist()
    with engine.begin() as conn:  # another transaction's default ids come after them
        taken = (
            conn.exec_driver_sql(
                "SELECT nextval(pg_get_serial_sequence('offer', 'id')) FROM generate_series(1, 3)"
            )
            .scalars()
            .all()
        )
    assert first == list(range(first[0], first[0] + 5)) and min(taken) > max(first)
    engine.dispose()


def test_offer_ids_reserved_alone_move_the_sequence_past_them(pg_url: str) -> None:
    """An import of sheets (every provider's lock held) reserves its ids with one setval:
    a range no nextval after it hands out again."""
    from comparator.catalog.offer_ids import reserve_offer_ids

    engine = make_engine(pg_url)
    upgrade_schema(engine)
    given = "SELECT nextval(pg_get_serial_sequence('offer', 'id')) FROM generate_series(1, 3)"
    with engine.begin() as conn:
        before = conn.exec_driver_sql(given).scalars().all()
        ids = reserve_offer_ids(conn, 100_000, alone=True).tolist()
    with engine.begin() as conn:
        after = conn.exec_driver_sql(given).scalars().all()
    assert ids == list(range(max(before) + 1, max(before) + 100_001))
    assert after == [ids[-1] + 1, ids[-1] + 2, ids[-1] + 3]
    engine.dispose()


def test_offer_ids_are_listed_where_another_session_took_some_between(pg_url: str) -> None:
    from comparator.catalog.offer_ids import listed_ids

    engine = make_engine(pg_url)
    upgrade_schema(engine)
    given = "SELECT nextval(pg_get_serial_sequence('offer', 'id')) AS id FROM generate_series(1, 4)"
    with engine.begin() as conn:
        ids = listed_ids(conn, given)
        taken = conn.exec_driver_sql(given).scalars().all()
    assert len(ids) == 4 and ids.tolist() == sorted(ids.tolist())
    assert not set(ids.tolist()) & set(taken)
    engine.dispose()
