"""Schema changes never break an existing database: upgrade a populated 0001 database."""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal

import pytest
from alembic.config import Config
from alembic.script import ScriptDirectory
from sqlalchemy import inspect

from comparator.catalog import queries
from comparator.catalog.current_offers import current_offers
from comparator.catalog.db import MIGRATIONS_DIR, head_revision, make_engine, upgrade_schema
from comparator.catalog.models import OfferIn
from comparator.catalog.queries import store_snapshot
from comparator.domain.profile import DataCenter, ProviderProfile
from comparator.domain.profile_record import record_is_current
from tests.support.old_catalog import store_profile_without_record

PROFILE = ProviderProfile(
    id="old", name="旧数据", datacenters=(DataCenter("gd-1", "广一", "CN", "广东", "广州"),)
)


def test_upgrade_from_first_revision_keeps_data(
    any_db_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    engine = make_engine(any_db_url)
    upgrade_schema(engine, "0001")
    assert not inspect(engine).has_table("quote")
    store_profile_without_record(engine, PROFILE)  # 0001 had no parsed record
    offer = OfferIn(
        provider="old",
        region="gd-1",
        gpu="RTX4090",
        billing="hourly",
        price=Decimal("1.2345"),
        observed_at=datetime(2026, 11, 1, tzinfo=UTC),
    )
    with monkeypatch.context() as old_writer:  # 0.1 stored no snapshot summary
        old_writer.setattr(queries, "summarise_snapshots", lambda conn, ids: None)
        store_snapshot(
            engine, "old", [offer], source="t", content_sha256="x", fetched_at=datetime.now(UTC)
        )

    upgrade_schema(engine)

    assert inspect(engine).has_table("quote") and inspect(engine).has_table("refreshrun")
    [view] = current_offers(engine)
    assert view.price == Decimal("1.2345") and view.province == "广东"
    with engine.connect() as conn:
        version = conn.exec_driver_sql("select version_num from alembic_version").scalar_one()
    assert version == head_revision() == "0013"
    with engine.connect() as conn:  # 0010 parsed the stored profile
        record = conn.exec_driver_sql("SELECT profile_record FROM provider").scalar_one()
    assert record_is_current(record)
    with engine.connect() as conn:  # 0007 summarised the snapshot stored before it
        summary = conn.exec_driver_sql("SELECT provider, offers, price FROM snapshotsummary")
        assert [(p, n, Decimal(str(price))) for p, n, price in summary] == [
            ("old", 1, Decimal("1.2345"))
        ]
    assert not any(inspect(engine).has_table(t) for t in ("license", "filing", "certification"))
    upgrade_schema(engine)  # idempotent
    engine.dispose()


# alembic cannot reflect the expression index on the card-hour price from SQLite; the models
# declare it, and tests/catalog/test_cheapest_offers.py checks the listing walks it
@pytest.mark.filterwarnings("ignore:Skipped unsupported reflection of expression-based index")
def test_schema_matches_models(sqlite_url: str) -> None:
    """The migrations produce exactly the tables the models declare (no drift)."""
    from alembic.autogenerate import compare_metadata
    from alembic.migration import MigrationContext
    from sqlmodel import SQLModel

    engine = make_engine(sqlite_url)
    upgrade_schema(engine)
    with engine.connect() as conn:
        diff = compare_metadata(MigrationContext.configure(conn), SQLModel.metadata)
    assert diff == []


def test_the_head_revision_read_from_file_names_is_alembics_head() -> None:
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS_DIR))
    assert ScriptDirectory.from_config(config).get_current_head() == head_revision()
