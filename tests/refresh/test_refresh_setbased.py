"""Claims and stores made set-based (a batch of sources, a few statements) write what the
one-source-at-a-time functions wrote: the same runs, snapshots, offers, changes and validators."""

from __future__ import annotations

import dataclasses
from datetime import datetime
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Engine, select

from comparator.catalog.db import make_engine, upgrade_schema, write_transaction
from comparator.catalog.models import OfferIn
from comparator.catalog.queries import OFFER, OFFER_FIELDS, store_profile
from comparator.domain.profile import DataCenter, ProviderProfile
from comparator.domain.zones import DEFAULT_TIMEZONE
from comparator.errors import Msg
from comparator.refresh.batch_store import Fetched, store_results_in
from comparator.refresh.claims import ClaimRequest, claim_runs
from comparator.refresh.runs import Claim, claim_run, last_validators
from comparator.refresh.source_store import Stored, store_result_in
from comparator.refresh.sources import load_sources
from providers import AdapterResult, SourceSpec, Validators
from tests.support.refresh_helpers import RUN, SNAPSHOT, source_entry, write_sources

NOW = datetime(2026, 11, 30, 3, 0, tzinfo=DEFAULT_TIMEZONE)
PROVIDERS = ["a", "b", "c", "d"]


def _sources(tmp_path: Path) -> list[SourceSpec]:
    for pid in PROVIDERS:
        (tmp_path / f"{pid}.csv").write_text("provider\n", encoding="utf-8")
    entries = [source_entry(pid, f"{pid}.csv") for pid in PROVIDERS]
    return list(load_sources(write_sources(tmp_path, entries)).sources)


def _profile(pid: str, city: str = "Singapore") -> ProviderProfile:
    return ProviderProfile(pid, pid, datacenters=(DataCenter("sg-1", city, "SG"),))


def _offers(pid: str, prices: list[str]) -> list[OfferIn]:
    fields: dict[str, Any] = {"region": "sg-1", "gpu": "H100-SXM5-80GB", "node_cards": 8}
    fields |= {"billing": "hourly", "currency": "USD", "time_of_use": "", "stock": None}
    fields |= {"min_units": 1, "interconnect": None, "network": None, "tax_inclusive": False}
    fields |= {"vat_rate": Decimal(0), "free_trial_hours": 0, "observed_at": NOW}
    fields |= {"source": "t", "sku": ""}
    return [
        OfferIn.model_construct(provider=pid, cards=n, price=Decimal(p), **fields)
        for n, p in enumerate(prices, 1)
    ]


def _claims(engine: Engine, sources: list[SourceSpec], period: str) -> list[Claim]:
    found = []
    for s in sources:
        claim = claim_run(
            engine, s.provider, s.shown, period, only_if_due=False, now=NOW, deadline_s=60
        )
        assert isinstance(claim, Claim)
        found.append(claim)
    return found


def _rounds(sources: list[SourceSpec]) -> list[list[AdapterResult]]:
    """Two refreshes: every source new; then a's prices change, b is the same, c answers
    304, d gets a new profile (another data centre name) and loses an offer."""
    first = [
        AdapterResult(_profile(s.provider), _offers(s.provider, ["1.5", "2"])) for s in sources
    ]
    etag = Validators(etag='"c-1"')
    second = [
        AdapterResult(None, _offers("a", ["1.75", "2"])),
        AdapterResult(_profile("b"), _offers("b", ["1.5", "2"])),
        AdapterResult(None, [], validators=etag, not_modified=True),
        AdapterResult(_profile("d", "Jurong"), _offers("d", ["1.5"])),
    ]
    return [first, second]


def _store(url: str, tmp_path: Path, set_based: bool) -> tuple[list[Any], list[Any]]:
    engine = make_engine(url)
    upgrade_schema(engine)
    sources = _sources(tmp_path)
    outcomes: list[Any] = []
    for period, results in zip(("w1", "w2"), _rounds(sources), strict=True):
        claims = _claims(engine, sources, period)
        keys = [f"provider:{p}" for p in PROVIDERS]
        with write_transaction(engine, *keys) as conn:
            if set_based:
                items = [Fetched(*one, NOW) for one in zip(claims, sources, results, strict=True)]
                stored = store_results_in(conn, items)
            else:
                stored = [
                    store_result_in(conn, c, s, r, NOW)
                    for c, s, r in zip(claims, sources, results, strict=True)
                ]
        outcomes += [_outcome(s) for s in stored]
    rows = _rows(engine)
    engine.dispose()
    return outcomes, rows


def _outcome(stored: Stored) -> tuple[Any, ...]:
    """The outcome, its snapshot id aside (PostgreSQL's sequence goes on after a DELETE)."""
    changes = sorted((c.kind, str(c.old_price), str(c.new_price)) for c in stored.changes)
    record = dataclasses.replace(stored.record, snapshot_id=None)
    return (record, stored.record.snapshot_id is None, stored.first_snapshot, changes)


def _rows(engine: Engine) -> list[Any]:
    """Every row written, ids as their rank (the order they were written in)."""
    with engine.connect() as conn:
        snapshot_rank = {
            sid: n
            for n, (sid,) in enumerate(conn.execute(select(SNAPSHOT.c.id).order_by(SNAPSHOT.c.id)))
        }
        runs = [
            (*row[:-1], snapshot_rank.get(row[-1]))
            for row in conn.execute(
                select(*(c for c in RUN.c if c.name not in ("id", "holder", "snapshot_id")))
                .add_columns(RUN.c.snapshot_id)
                .order_by(RUN.c.id)
            )
        ]
        snapshots = [tuple(r) for r in conn.execute(select(SNAPSHOT).order_by(SNAPSHOT.c.id))]
        offers = [
            (snapshot_rank[row[0]], *row[1:])
            for row in conn.execute(
                select(OFFER.c.snapshot_id, *(OFFER.c[n] for n in OFFER_FIELDS)).order_by(
                    OFFER.c.snapshot_id, OFFER.c.cards
                )
            )
        ]
        centres = conn.exec_driver_sql(
            "SELECT provider_id, id, name FROM datacenter ORDER BY provider_id, id"
        ).all()
        providers = conn.exec_driver_sql(
            "SELECT id, profile_sha256 FROM provider ORDER BY id"
        ).all()
    return [runs, snapshots, offers, [tuple(r) for r in centres], [tuple(r) for r in providers]]


@pytest.mark.slow
def test_a_batch_stored_set_based_writes_what_one_source_at_a_time_wrote(
    any_db_url: str, tmp_path: Path
) -> None:
    one_outcomes, one_rows = _store(any_db_url, tmp_path, set_based=False)
    engine = make_engine(any_db_url)  # the same database again, emptied
    with engine.begin() as conn:
        for table in (
            "snapshotsummary",
            "offer",
            "refreshrun",
            "pricesnapshot",
            "currentsnapshot",  # kept by the database, which never deletes a snapshot itself
            "datacenter",
            "provider",
        ):
            conn.exec_driver_sql(f"DELETE FROM {table}")
    engine.dispose()
    set_outcomes, set_rows = _store(any_db_url, tmp_path, set_based=True)
    assert set_outcomes == one_outcomes
    statuses = [record.status for record, _, _, _ in set_outcomes]
    assert statuses == ["succeeded"] * 4 + ["succeeded", "unchanged", "unchanged", "succeeded"]
    assert [first for _, _, first, _ in set_outcomes] == [True] * 4 + [False] * 4
    assert set_outcomes[4][3] == [("dearer", "1.5", "1.75")]
    assert [r[1:] for r in set_rows[1]] == [r[1:] for r in one_rows[1]]  # snapshots, ids aside
    assert [set_rows[n] for n in (0, 2, 3, 4)] == [one_rows[n] for n in (0, 2, 3, 4)]
    assert ("d", "sg-1", "Jurong") in [tuple(r) for r in set_rows[3]]


def _claim_all(engine: Engine, sources: list[SourceSpec], due: bool) -> list[Any]:
    requests = [ClaimRequest(s.provider, s.shown, 60) for s in sources]
    return claim_runs(engine, requests, "w", only_if_due=due, now=NOW)


def test_claims_made_together_follow_the_rules_of_one_claim(
    any_db_url: str, tmp_path: Path
) -> None:
    engine = make_engine(any_db_url)
    upgrade_schema(engine)
    for pid in PROVIDERS:
        store_profile(engine, _profile(pid))
    sources = _sources(tmp_path)
    [a, b, c, d] = _claim_all(engine, sources, due=True)
    assert all(isinstance(claim, Claim) and since is None for claim, since in (a, b, c, d))
    assert [claim.attempt for claim, _ in (a, b, c, d)] == [1, 1, 1, 1]
    again = _claim_all(engine, sources, due=True)  # all four still running in this process
    assert all(isinstance(m, Msg) and "being refreshed by" in str(m) for m, _ in again)
    with write_transaction(engine, "provider:a") as conn:  # a succeeds with an ETag
        result = AdapterResult(None, _offers("a", ["1"]), validators=Validators(etag='"a-1"'))
        store_result_in(conn, a[0], sources[0], result, NOW)
    with engine.begin() as conn:  # b, c, d end failed
        conn.execute(RUN.update().where(RUN.c.provider_id != "a").values(status="failed"))
    due = _claim_all(engine, sources, due=True)
    assert str(due[0][0]) == "already refreshed in period w (attempt 1, succeeded)"
    assert [claim.attempt for claim, _ in due[1:]] == [2, 2, 2]
    manual = _claim_all(engine, sources[:1], due=False)  # a manual refresh: a new attempt
    assert manual[0][0].attempt == 2
    assert manual[0][1] == last_validators(engine, "a", sources[0].shown)
    assert manual[0][1] is not None and manual[0][1].etag == '"a-1"'
    engine.dispose()
