"""The store batch: several finished sources in one transaction; a source that cannot be
written fails alone (the batch is then written again one source per transaction)."""

from __future__ import annotations

import asyncio
from datetime import datetime
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Engine, select

from comparator.catalog.models import OfferIn
from comparator.domain.zones import DEFAULT_TIMEZONE
from comparator.refresh.batch import StoreBatch
from comparator.refresh.runs import Claim, claim_run
from comparator.refresh.source_store import Stored
from comparator.refresh.sources import load_sources
from providers import AdapterResult, SourceSpec
from tests.support.refresh_helpers import RUN, SNAPSHOT, source_entry, write_sources

NOW = datetime(2026, 11, 30, 3, 0, tzinfo=DEFAULT_TIMEZONE)


def _offer(provider: str, price: Decimal | None) -> OfferIn:
    values: dict[str, Any] = dict(  # as validated columns arrive: no check sees a None price
        provider=provider,
        region="sg-1",
        gpu="H100-SXM5-80GB",
        cards=1,
        node_cards=8,
        billing="hourly",
        price=price,
        currency="USD",
        time_of_use="",
        stock=None,
        min_units=1,
        interconnect=None,
        network=None,
        tax_inclusive=False,
        vat_rate=Decimal(0),
        free_trial_hours=0,
        observed_at=NOW,
        source="t",
        sku="",
    )
    return OfferIn.model_construct(**values)


def _sources(tmp_path: Path, providers: list[str]) -> list[SourceSpec]:
    for pid in providers:
        (tmp_path / f"{pid}.csv").write_text("provider\n", encoding="utf-8")
    entries = [source_entry(pid, f"{pid}.csv") for pid in providers]
    return list(load_sources(write_sources(tmp_path, entries)).sources)


def _claim(engine: Engine, source: SourceSpec) -> Claim:
    claim = claim_run(
        engine, source.provider, source.shown, "w", only_if_due=False, now=NOW, deadline_s=60
    )
    assert isinstance(claim, Claim)
    return claim


async def _store_all(
    batch: StoreBatch, work: list[tuple[Claim, SourceSpec, AdapterResult]]
) -> list[Stored]:
    return await asyncio.gather(*(batch.store(c, s, r, NOW) for c, s, r in work))


@pytest.mark.slow
def test_a_source_that_cannot_be_stored_fails_alone_inside_its_batch(
    engine: Engine, tmp_path: Path
) -> None:
    from comparator.catalog.queries import store_profile
    from comparator.domain.profile import DataCenter, ProviderProfile

    providers = ["a", "b", "c"]
    for pid in providers:
        store_profile(
            engine, ProviderProfile(pid, pid, datacenters=(DataCenter("sg-1", "Singapore", "SG"),))
        )
    sources = _sources(tmp_path, providers)
    prices = {"a": Decimal("2.5"), "b": None, "c": Decimal("3.5")}  # b breaks NOT NULL
    work = [
        (_claim(engine, s), s, AdapterResult(None, [_offer(s.provider, prices[s.provider])]))
        for s in sources
    ]
    batch = StoreBatch(engine, max_sources=10, max_wait_s=2.0, writers=1)
    stored = asyncio.run(_store_all(batch, work))
    batch.close()
    assert batch.batches == 3  # the batch of three rolled back; a, c, and b's failure alone
    assert [s.record.status for s in stored] == ["succeeded", "failed", "succeeded"]
    assert "storing the fetched offers failed" in (stored[1].record.error or "")
    with engine.connect() as conn:
        runs = dict(conn.execute(select(RUN.c.provider_id, RUN.c.status)).all())
        snapshots = sorted(p for (p,) in conn.execute(select(SNAPSHOT.c.provider_id)))
    assert runs == {"a": "succeeded", "b": "failed", "c": "succeeded"}
    assert snapshots == ["a", "c"]  # b's rollback took its snapshot row with it


@pytest.mark.slow
def test_a_batch_is_committed_at_most_max_sources_at_a_time(engine: Engine, tmp_path: Path) -> None:
    from comparator.catalog.queries import store_profile
    from comparator.domain.profile import DataCenter, ProviderProfile

    providers = [f"p{i}" for i in range(7)]
    for pid in providers:
        store_profile(
            engine, ProviderProfile(pid, pid, datacenters=(DataCenter("sg-1", "Singapore", "SG"),))
        )
    sources = _sources(tmp_path, providers)
    work = [
        (_claim(engine, s), s, AdapterResult(None, [_offer(s.provider, Decimal(1))]))
        for s in sources
    ]
    batch = StoreBatch(engine, max_sources=3, max_wait_s=2.0, writers=1)
    stored = asyncio.run(_store_all(batch, work))
    batch.close()
    assert [s.record.status for s in stored] == ["succeeded"] * 7
    assert batch.batches == 3  # 3 + 3 + 1


def test_good_runs_name_the_sources_another_worker_refreshed_this_period(
    engine: Engine, tmp_path: Path
) -> None:
    from comparator.refresh.runs import GoodRuns, claim_run
    from comparator.refresh.source_store import finish_failed

    [a, b] = _sources(tmp_path, ["a", "b"])
    good = GoodRuns(engine, "w", ["a", "b"], max_age_s=0.0)
    assert good.reason("a") is None
    claim = _claim(engine, a)
    assert good.reason("a") is None  # running is not refreshed
    finish_failed(engine, _claim(engine, b), "boom", NOW)
    with engine.begin() as conn:
        conn.execute(RUN.update().where(RUN.c.id == claim.run_id).values(status="succeeded"))
    assert str(good.reason("a")) == "already refreshed in period w (attempt 1, succeeded)"
    assert good.reason("b") is None  # a failed run leaves the source due
    again = claim_run(engine, "a", a.shown, "w", only_if_due=True, now=NOW, deadline_s=60)
    assert again == good.reason("a")  # the claim says the same
