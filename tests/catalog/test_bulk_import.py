"""The bulk import path (PostgreSQL COPY) keeps a sheet all-or-nothing, even under SIGKILL."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

import pytest
from sqlalchemy import Engine, func, select, text

from comparator.catalog.db import make_engine, upgrade_schema
from comparator.catalog.models import OfferColumns, OfferIn
from comparator.catalog.queries import OFFER, SNAPSHOT, store_snapshot
from tests.support.refresh_helpers import profile_toml

FIRST_ROWS, SECOND_ROWS = 100_000, 250_000  # two sheets, two providers


def write_sheet(path: Path, rows: int, provider: str = "big") -> None:
    lines = ["provider,region,gpu,cards,billing,price,currency,sku"]
    lines += [
        f"{provider},sg-1,H100,1,hourly,{2 + (i % 997) / 1000:.3f},USD,vm-{i}" for i in range(rows)
    ]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def stored(engine: Engine) -> tuple[int, int]:
    """(snapshots, offers) of the providers "big" and "big2"."""
    with engine.connect() as conn:
        snapshots = conn.execute(
            select(func.count())
            .select_from(SNAPSHOT)
            .where(SNAPSHOT.c.provider_id.in_(["big", "big2"]))
        ).scalar_one()
        offers = conn.execute(
            select(func.count()).select_from(OFFER).where(OFFER.c.provider.in_(["big", "big2"]))
        ).scalar_one()
    return int(snapshots), int(offers)


def copied_rows(engine: Engine) -> int:
    """The most rows a COPY under way in this database has processed (0: none is)."""
    query = "SELECT tuples_processed FROM pg_stat_progress_copy WHERE datname = current_database()"
    with engine.connect() as conn:
        rows = conn.execute(text(query)).all()
    return max((int(r[0]) for r in rows), default=0)


@pytest.mark.slow
def test_sigkill_during_a_postgres_copy_leaves_nothing_then_a_rerun_stores_all(
    pg_url: str, tmp_path: Path
) -> None:
    """Killed while the second sheet is COPY'd (more rows than the first sheet has): the
    first sheet's offers, its snapshot and the profiles are all in the one transaction."""
    engine = make_engine(pg_url)
    upgrade_schema(engine)
    profiles = []
    for name in ("big", "big2"):
        profiles += ["--profile", str(tmp_path / f"{name}.toml")]
        (tmp_path / f"{name}.toml").write_text(profile_toml(name), encoding="utf-8")
    first, second = tmp_path / "first.csv", tmp_path / "second.csv"
    write_sheet(first, FIRST_ROWS)
    write_sheet(second, SECOND_ROWS, "big2")
    argv = [sys.executable, "-m", "comparator", "--db", pg_url, "import", str(first), str(second)]
    proc = subprocess.Popen([*argv, *profiles], stdout=subprocess.DEVNULL)
    deadline = time.monotonic() + 120
    while copied_rows(engine) <= FIRST_ROWS:  # only the second sheet's COPY gets past it
        assert proc.poll() is None, "the import finished before it could be killed"
        assert time.monotonic() < deadline
        time.sleep(0.005)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=10)
    assert proc.returncode == -signal.SIGKILL
    time.sleep(0.5)  # the server notices the closed connection and rolls back
    assert stored(engine) == (0, 0)
    # the profiles went with the killed transaction too: the rerun brings them again
    done = subprocess.run([*argv, *profiles], capture_output=True, check=False)
    assert done.returncode == 0, done.stderr
    assert stored(engine) == (2, FIRST_ROWS + SECOND_ROWS)
    engine.dispose()


def test_a_sheet_of_many_providers_stores_each_changed_one_once(
    any_db_url: str, tmp_path: Path
) -> None:
    from comparator.config import load_settings
    from comparator.refresh.importer import import_files

    engine = make_engine(any_db_url)
    upgrade_schema(engine)
    zone = load_settings({}).timezone
    profiles = []
    for name in ("a", "b", "c"):
        path = tmp_path / f"{name}.toml"
        path.write_text(profile_toml(name), encoding="utf-8")
        profiles.append(path)

    def sheet(price_of_b: str) -> Path:
        path = tmp_path / "many.csv"
        lines = ["provider,region,gpu,cards,billing,price,currency"]
        lines += [
            f"{p},sg-1,H100,{i},hourly,{price_of_b if p == 'b' else '2.5'},USD"
            for p in ("a", "b", "c")
            for i in (1, 2)
        ]
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        return path

    first = import_files(engine, [sheet("3.1")], profiles, timezone=zone)
    assert [(r.provider, r.status, r.offers) for _, r in first.snapshots] == [
        ("a", "succeeded", 2),
        ("b", "succeeded", 2),
        ("c", "succeeded", 2),
    ]
    again = import_files(engine, [sheet("3.2")], [], timezone=zone)
    assert [(r.provider, r.status) for _, r in again.snapshots] == [
        ("a", "unchanged"),
        ("b", "succeeded"),
        ("c", "unchanged"),
    ]
    with engine.connect() as conn:
        rows = conn.execute(
            select(SNAPSHOT.c.provider_id, func.count(OFFER.c.id))
            .join(OFFER, OFFER.c.snapshot_id == SNAPSHOT.c.id)
            .group_by(SNAPSHOT.c.provider_id, SNAPSHOT.c.id)
            .order_by(SNAPSHOT.c.provider_id, SNAPSHOT.c.id)
        ).all()
    assert [tuple(r) for r in rows] == [("a", 2), ("b", 2), ("b", 2), ("c", 2)]
    store_snapshot(  # the refresh path writes offers too
        engine,
        "c",
        [_awkward_offers()[0].model_copy(update={"provider": "c"})],
        source="refresh",
        content_sha256="c2",
        fetched_at=datetime.now(UTC),
    )
    assert_every_offer_has_its_snapshot(engine)
    engine.dispose()


def assert_every_offer_has_its_snapshot(engine: Engine) -> None:
    """What the foreign key dropped in migration 0006 enforced, checked on the data: every
    offer's snapshot exists and holds as many offers as it says."""
    with engine.connect() as conn:
        orphans = conn.execute(
            select(func.count())
            .select_from(OFFER.outerjoin(SNAPSHOT, SNAPSHOT.c.id == OFFER.c.snapshot_id))
            .where(SNAPSHOT.c.id.is_(None))
        ).scalar_one()
        counted = (
            select(OFFER.c.snapshot_id, func.count().label("n"))
            .group_by(OFFER.c.snapshot_id)
            .subquery()
        )
        wrong = conn.execute(
            select(func.count())
            .select_from(SNAPSHOT.outerjoin(counted, counted.c.snapshot_id == SNAPSHOT.c.id))
            .where(func.coalesce(counted.c.n, 0) != SNAPSHOT.c.offers)
        ).scalar_one()
    assert (orphans, wrong) == (0, 0)


def test_a_copy_that_stores_another_count_than_sent_fails(pg_url: str) -> None:
    from comparator.catalog.bulk import copy_offers, copy_payload, group_sheet
    from comparator.errors import CatalogError

    engine = make_engine(pg_url)
    upgrade_schema(engine)
    groups = group_sheet(OfferColumns.from_offers(_awkward_offers()))
    chunks, rows = copy_payload(engine.dialect, groups, [(0, 1), (1, 2)])
    payload = list(chunks)
    assert rows == 5
    raw = engine.raw_connection()
    try:
        copy_offers(raw.driver_connection, payload, rows)  # as sent: accepted
        with pytest.raises(CatalogError, match="COPY stored 5 offers of 6"):
            copy_offers(raw.driver_connection, payload, rows + 1)
    finally:
        raw.rollback()
        raw.close()
    engine.dispose()


def _awkward_offers() -> list[OfferIn]:
    """Offers whose values test the text forms: scales, NULLs, tabs, backslashes, zones."""
    from datetime import datetime
    from decimal import Decimal
    from zoneinfo import ZoneInfo

    seen = datetime(2026, 11, 23, 11, 0, tzinfo=ZoneInfo("Asia/Shanghai"))
    shared = Decimal("3.10")  # one object on several rows, as a parsed sheet shares it
    rows = [
        ("b", shared, "sku\twith tab", None, "ib-200g"),
        ("a", Decimal("3.1"), "back\\slash", 4, None),
        ("b", shared, "new\nline", 0, None),
        ("a", Decimal("0.0000001"), "", None, "roce-100g"),
        ("b", Decimal("1000.000"), "\\N", 8, None),
    ]
    return [
        OfferIn(
            provider=provider,
            region="sg-1",
            gpu="H100-SXM5-80GB",
            billing="hourly",
            price=price,
            currency="USD",
            stock=stock,
            network=network,
            sku=sku,
            observed_at=seen,
            vat_rate=Decimal("0"),
        )
        for provider, price, sku, stock, network in rows
    ]


def test_a_sheet_grouped_in_bulk_hashes_each_provider_as_content_sha256_does() -> None:
    from comparator.catalog.bulk import group_sheet
    from comparator.catalog.queries import content_sha256

    offers = _awkward_offers()
    groups = group_sheet(OfferColumns.from_offers(offers))
    assert groups.providers == ["a", "b"]  # interleaved rows, grouped in provider order
    for index, pid in enumerate(groups.providers):
        mine = [o for o in offers if o.provider == pid]
        assert groups.digests[index] == content_sha256(mine)
        assert groups.group(index).offers() == mine  # same rows, same order within a provider


def test_bulk_insert_stores_awkward_values_exactly(any_db_url: str, tmp_path: Path) -> None:
    from comparator.catalog import current_offers
    from comparator.catalog.queries import store_profile
    from comparator.domain.profile import load_profile
    from comparator.refresh.importer import store_sheet

    engine = make_engine(any_db_url)
    upgrade_schema(engine)
    for name in ("a", "b"):
        path = tmp_path / f"{name}.toml"
        path.write_text(profile_toml(name), encoding="utf-8")
        store_profile(engine, load_profile(path))
    offers = _awkward_offers()
    results = store_sheet(engine, OfferColumns.from_offers(offers), "awkward.csv")
    assert [(r.provider, r.offers) for r in results] == [("a", 2), ("b", 3)]
    stored = sorted(
        (o.provider, str(o.price), o.sku, o.stock, o.network, o.observed_at)
        for o in current_offers(engine)
    )
    expected = sorted(
        (o.provider, str(o.price), o.sku, o.stock, o.network, o.observed_at) for o in offers
    )
    assert stored == expected
    engine.dispose()
