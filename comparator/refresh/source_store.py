"""Storing what one source's adapter returned: profile, snapshot, run record, price changes.

The profile, the snapshot and the run's outcome are written in one transaction, so a refresh
killed in the middle leaves the whole snapshot or none of it, and never a run marked
succeeded without one.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from sqlalchemy import Connection, Engine, select, update

from comparator.catalog.changes import (
    KEY_FIELDS,
    KeyedPrice,
    PriceChange,
    diff_offers,
    keyed_prices,
)
from comparator.catalog.db import write_transaction
from comparator.catalog.models import Offer, OfferColumns, OfferIn, table_of
from comparator.catalog.queries import (
    content_sha256,
    current_snapshot_in,
    store_profile_in,
    store_snapshot_in,
)
from comparator.refresh.runs import (
    ERROR_LIMIT,
    FAILED,
    RUN,
    SUCCEEDED,
    UNCHANGED,
    Claim,
    RunRecord,
)
from providers import AdapterResult, SourceSpec, Validators

OFFER = table_of(Offer)


@dataclass(frozen=True)
class Stored:
    record: RunRecord
    changes: list[PriceChange] = field(default_factory=list)
    first_snapshot: bool = False


def store_result(
    engine: Engine, claim: Claim, source: SourceSpec, result: AdapterResult, now: datetime
) -> Stored:
    """Write the result of ``claim``'s fetch and finish the run (one transaction)."""
    with write_transaction(engine, f"provider:{source.provider}") as conn:
        return store_result_in(conn, claim, source, result, now)


def store_result_in(
    conn: Connection, claim: Claim, source: SourceSpec, result: AdapterResult, now: datetime
) -> Stored:
    """:func:`store_result` inside the caller's transaction, which holds the provider's lock
    (a batch of sources: see :mod:`comparator.refresh.batch`)."""
    if result.profile is not None:
        store_profile_in(conn, result.profile)
    previous = current_snapshot_in(conn, source.provider)
    if result.not_modified:
        offers, snapshot_id = (previous.offers, previous.id) if previous else (0, None)
        record = RunRecord(UNCHANGED, offers, snapshot_id, validators=result.validators)
        _finish(conn, claim, record, now)
        return Stored(record)
    digest = content_sha256(result.offers)
    changed = previous is not None and previous.content_sha256 != digest
    before = _stored_prices(conn, previous.id) if previous and changed else []
    snapshot = store_snapshot_in(
        conn,
        source.provider,
        result.offers,
        source=source.shown,
        content_sha256=digest,
        fetched_at=now,
    )
    record = RunRecord(
        snapshot.status, snapshot.offers, snapshot.snapshot_id, validators=result.validators
    )
    _finish(conn, claim, record, now)
    if snapshot.status != SUCCEEDED or previous is None:
        return Stored(record, first_snapshot=previous is None)
    return Stored(record, diff_offers(source.provider, before, new_prices(result.offers)))


def _stored_prices(conn: Connection, snapshot_id: int) -> list[KeyedPrice]:
    columns = [OFFER.c[name] for name in KEY_FIELDS]
    query = select(OFFER.c.price, *columns).where(OFFER.c.snapshot_id == snapshot_id)
    return [(tuple(row[1:]), row[0]) for row in conn.execute(query)]


def new_prices(offers: list[OfferIn] | OfferColumns) -> list[KeyedPrice]:
    """(key, price) of offers held as objects or as columns."""
    if not isinstance(offers, OfferColumns):
        return keyed_prices(offers)
    keys = zip(*(offers.values[name] for name in KEY_FIELDS), strict=True)
    return list(zip(keys, offers.values["price"], strict=True))


def finish_failed(engine: Engine, claim: Claim, error: str, now: datetime) -> RunRecord:
    with write_transaction(engine) as conn:
        return finish_failed_in(conn, claim, error, now)


def finish_failed_in(conn: Connection, claim: Claim, error: str, now: datetime) -> RunRecord:
    record = RunRecord(FAILED, error=error)
    _finish(conn, claim, record, now)
    return record


def _finish(conn: Connection, claim: Claim, record: RunRecord, now: datetime) -> None:
    validators = record.validators or Validators()
    error = None if record.error is None else record.error[:ERROR_LIMIT]
    conn.execute(
        update(RUN)
        .where(RUN.c.id == claim.run_id)
        .values(
            status=record.status,
            finished_at=now,
            offers=record.offers,
            snapshot_id=record.snapshot_id,
            error=error,
            etag=validators.etag,
            last_modified=validators.last_modified,
            body_sha256=validators.sha256,
        )
    )
