"""What several sources fetched, stored set-based: a few statements per batch, not per source.

:func:`~comparator.refresh.source_store.store_result_in` once per source made eight statements
each (profile, current snapshot twice, snapshot, COPY, run), and a refresh of 10,000 small
sources spent its time in their round trips. :func:`store_results_in` writes the same rows for
a whole batch of sources in one transaction: their profiles (:func:`store_profiles_in`), their
current snapshots read in one query, the changed ones' stored prices in one more, the new
snapshots and all their offers as one sheet (:func:`~comparator.catalog.bulk.store_groups_in`:
one insert of snapshots, one ``COPY``) and every run finished by one ``executemany``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import Connection, bindparam, select, update

from comparator.catalog.bulk import current_snapshots_of, group_sheet, store_groups_in
from comparator.catalog.changes import KEY_FIELDS, KeyedPrice, diff_offers
from comparator.catalog.models import OfferColumns
from comparator.catalog.queries import (
    OFFER,
    SnapshotInfo,
    SnapshotResult,
    as_columns,
    store_profiles_in,
)
from comparator.refresh.runs import ERROR_LIMIT, RUN, SUCCEEDED, UNCHANGED, Claim, RunRecord
from comparator.refresh.source_store import Stored, new_prices, store_result_in
from providers import AdapterResult, SourceSpec, Validators, phase

_IN_CHUNK = 500


@dataclass(frozen=True)
class Fetched:
    """One source's fetch, to be stored and its run finished."""

    claim: Claim
    source: SourceSpec
    result: AdapterResult
    now: datetime


def store_results_in(conn: Connection, items: Sequence[Fetched]) -> list[Stored]:
    """:func:`store_result_in` of every item, in the caller's transaction (which holds their
    providers' locks): the same rows, runs and price changes, in a few statements."""
    providers = [item.source.provider for item in items]
    columns = [None if i.result.not_modified else as_columns(i.result.offers) for i in items]
    if len(set(providers)) < len(providers) or not all(
        c is None or _only_of(c, p) for c, p in zip(columns, providers, strict=True)
    ):  # one provider twice, or offers of none/another: one source after the other
        return [store_result_in(conn, i.claim, i.source, i.result, i.now) for i in items]
    with phase("store_profiles"):
        store_profiles_in(conn, [i.result.profile for i in items if i.result.profile is not None])
    fresh = [(i, c) for i, c in zip(items, columns, strict=True) if c is not None]
    with phase("store_detect"):  # what changed: digests against the current snapshots
        previous = current_snapshots_of(conn, providers)
        groups = group_sheet(_concatenated([c for _, c in fresh])) if fresh else None
        digests = dict(zip(groups.providers, groups.digests, strict=True)) if groups else {}
        changed = {
            previous[p].id: p
            for p in digests
            if p in previous and previous[p].content_sha256 != digests[p]
        }
        before = _stored_prices_of(conn, changed)
    stored = {}
    if groups is not None:
        sources = {i.source.provider: i.source.shown for i, _ in fresh}
        fetched_at = {i.source.provider: i.now for i, _ in fresh}
        with phase("store_write"):
            results = store_groups_in(  # the current snapshots as read above: once
                conn, groups, source=sources, fetched_at=fetched_at, current=previous
            )
        stored = {r.provider: r for r in results}
    with phase("store_detect"):
        outcomes = [
            _outcome(item, previous.get(item.source.provider), stored, before) for item in items
        ]
    with phase("store_runs"):
        finish_runs_in(
            conn, [(i.claim, s.record, i.now) for i, s in zip(items, outcomes, strict=True)]
        )
    return outcomes


def _outcome(
    item: Fetched,
    old: SnapshotInfo | None,
    stored: dict[str, SnapshotResult],
    before: dict[str, list[KeyedPrice]],
) -> Stored:
    """The item's run record, and its price changes against the stored offers."""
    pid, validators = item.source.provider, item.result.validators
    if item.result.not_modified:
        offers, snapshot_id = (old.offers, old.id) if old else (0, None)
        return Stored(RunRecord(UNCHANGED, offers, snapshot_id, validators=validators))
    snapshot = stored[pid]
    record = RunRecord(
        snapshot.status, snapshot.offers, snapshot.snapshot_id, validators=validators
    )
    if snapshot.status != SUCCEEDED or old is None:
        return Stored(record, first_snapshot=old is None)
    changes = diff_offers(pid, before.get(pid, []), new_prices(item.result.offers))
    return Stored(record, changes)


def _only_of(columns: OfferColumns, provider: str) -> bool:
    """Whether every offer is ``provider``'s, and there is at least one."""
    return columns.count > 0 and all(p == provider for p in columns.values["provider"])


def _concatenated(parts: Sequence[OfferColumns]) -> OfferColumns:
    if len(parts) == 1:
        return parts[0]
    names = OfferColumns.FIELDS
    return OfferColumns({n: [v for part in parts for v in part.values[n]] for n in names})


def _stored_prices_of(
    conn: Connection, providers_of: dict[int, str]
) -> dict[str, list[KeyedPrice]]:
    """(key, price) of the offers of each snapshot id's provider, 500 snapshots a query."""
    prices: dict[str, list[KeyedPrice]] = {pid: [] for pid in providers_of.values()}
    ids = list(providers_of)
    columns = [OFFER.c[name] for name in KEY_FIELDS]
    for start in range(0, len(ids), _IN_CHUNK):
        query = select(OFFER.c.snapshot_id, OFFER.c.price, *columns).where(
            OFFER.c.snapshot_id.in_(ids[start : start + _IN_CHUNK])
        )
        for row in conn.execute(query):
            prices[providers_of[row[0]]].append((tuple(row[2:]), row[1]))
    return prices


_FINISH = (
    update(RUN)
    .where(RUN.c.id == bindparam("b_id"))
    .values(
        status=bindparam("b_status"),
        finished_at=bindparam("b_finished_at"),
        offers=bindparam("b_offers"),
        snapshot_id=bindparam("b_snapshot_id"),
        error=bindparam("b_error"),
        etag=bindparam("b_etag"),
        last_modified=bindparam("b_last_modified"),
        body_sha256=bindparam("b_body_sha256"),
    )
)


def finish_runs_in(conn: Connection, finished: Sequence[tuple[Claim, RunRecord, datetime]]) -> None:
    """Every run's outcome in one ``executemany``."""
    if finished:
        conn.execute(_FINISH, [_finish_row(*one) for one in finished])


def _finish_row(claim: Claim, record: RunRecord, now: datetime) -> dict[str, Any]:
    validators = record.validators or Validators()
    return {
        "b_id": claim.run_id,
        "b_status": record.status,
        "b_finished_at": now,
        "b_offers": record.offers,
        "b_snapshot_id": record.snapshot_id,
        "b_error": None if record.error is None else record.error[:ERROR_LIMIT],
        "b_etag": validators.etag,
        "b_last_modified": validators.last_modified,
        "b_body_sha256": validators.sha256,
    }
