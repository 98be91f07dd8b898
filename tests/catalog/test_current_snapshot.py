"""Each provider's current snapshot, kept by the database (migration 0013): the
``currentsnapshot`` table always equals ``max(id)`` per provider over every snapshot, however
the snapshots were written (the demo's import, a single store, plain SQL), and a rolled-back
write leaves it as it was. On SQLite and on PostgreSQL."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from decimal import Decimal

import pytest
from alembic import command
from sqlalchemy import Engine, inspect, text

from comparator.catalog.db import alembic_config, make_engine, upgrade_schema
from comparator.catalog.models import OfferIn
from comparator.catalog.queries import current_snapshots, store_snapshot
from tests.conftest import run_cli

GROUPED = "SELECT provider_id, max(id) FROM pricesnapshot GROUP BY provider_id"
KEPT = "SELECT provider_id, snapshot_id FROM currentsnapshot"
INSERT = (
    "INSERT INTO pricesnapshot (id, provider_id, source, content_sha256, fetched_at, offers)"
    " VALUES (:id, :provider, 'sql', 'x', :at, 0)"
)


def _rows(engine: Engine, sql: str) -> set[tuple[str, int]]:
    with engine.connect() as conn:
        return {(str(p), int(s)) for p, s in conn.execute(text(sql))}


def _offer(price: str) -> OfferIn:
    return OfferIn(
        provider="",
        region="",
        gpu="RTX4090",
        billing="hourly",
        price=Decimal(price),
        observed_at=datetime(2026, 12, 1, tzinfo=UTC),
    )


@pytest.fixture
def demo(capsys: pytest.CaptureFixture[str], any_db_url: str) -> Iterator[Engine]:
    """The demo catalog: its providers' snapshots written by the import."""
    assert run_cli(capsys, any_db_url, "init").code == 0
    engine = make_engine(any_db_url)
    yield engine
    engine.dispose()


def test_the_kept_current_snapshots_are_the_newest_of_each_provider(demo: Engine) -> None:
    grouped = _rows(demo, GROUPED)
    assert len(grouped) >= 2 and _rows(demo, KEPT) == grouped
    with demo.connect() as conn:
        read = {(str(p), int(s)) for p, s in conn.execute(current_snapshots())}
    assert read == grouped
    provider, _ = min(grouped)
    with demo.connect() as conn:
        where = text("SELECT min(id) FROM datacenter WHERE provider_id = :p")
        region = str(conn.execute(where, {"p": provider}).scalar_one())
    for price in ("1.11", "2.22"):  # two new snapshots of one provider, one at a time
        offer = _offer(price).model_copy(update={"provider": provider, "region": region})
        stored = store_snapshot(
            demo, provider, [offer], source="t", content_sha256=price, fetched_at=datetime.now(UTC)
        )
        assert dict(_rows(demo, KEPT))[provider] == stored.snapshot_id
    assert _rows(demo, KEPT) == _rows(demo, GROUPED)


def test_plain_sql_keeps_the_greatest_id_and_a_rollback_nothing(demo: Engine) -> None:
    """A snapshot inserted by any statement moves its provider's current snapshot, but only
    forward (an id below the current one leaves it); a rolled-back insert leaves the table."""
    before = dict(_rows(demo, KEPT))
    provider = min(before)
    top = max(before.values())
    at = datetime(2026, 12, 2, tzinfo=UTC)
    with demo.begin() as conn:
        conn.execute(text(INSERT), {"id": top + 10, "provider": provider, "at": at})
        conn.execute(text(INSERT), {"id": top + 5, "provider": provider, "at": at})
    assert dict(_rows(demo, KEPT))[provider] == top + 10
    assert _rows(demo, KEPT) == _rows(demo, GROUPED)
    with pytest.raises(RuntimeError), demo.begin() as conn:
        conn.execute(text(INSERT), {"id": top + 20, "provider": provider, "at": at})
        raise RuntimeError("rolled back")
    assert dict(_rows(demo, KEPT))[provider] == top + 10


def test_a_downgrade_drops_the_table_and_an_upgrade_fills_it_again(demo: Engine) -> None:
    grouped = _rows(demo, GROUPED)
    with demo.begin() as conn:
        command.downgrade(alembic_config(conn), "0012")
    assert not inspect(demo).has_table("currentsnapshot")
    with demo.begin() as conn:  # no trigger left to fire
        at = datetime(2026, 12, 3, tzinfo=UTC)
        provider, top = min(grouped)[0], max(s for _, s in grouped)
        conn.execute(text(INSERT), {"id": top + 1, "provider": provider, "at": at})
    upgrade_schema(demo)
    assert _rows(demo, KEPT) == _rows(demo, GROUPED) != grouped
