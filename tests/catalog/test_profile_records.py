"""Stored profiles read from their records (parsed once, at import) equal the documents parsed
again, on both databases; an outdated or missing record is parsed instead; migration
migration ``0010`` derives the records of a catalog written at 0008."""

from __future__ import annotations

import json
import random
from decimal import Decimal
from pathlib import Path

import pytest
from sqlalchemy import Engine, text

from comparator.catalog.db import make_engine, upgrade_schema, write_transaction
from comparator.catalog.queries import (
    load_profiles,
    load_provider_terms,
    store_profile,
    store_profiles_in,
)
from comparator.domain.profile import ProviderProfile, load_profile, parse_profile
from comparator.domain.profile_plan import parse_provider_terms, terms_of
from comparator.domain.profile_record import RECORD_VERSION, profile_record, record_is_current
from comparator.errors import ProfileError
from tests.support.fuzz_profiles import parsed_profiles, profile_document
from tests.support.old_catalog import store_profile_without_record

DEMO = Path(__file__).resolve().parents[2] / "providers" / "demo"


def _profiles() -> list[ProviderProfile]:
    return [load_profile(p) for p in sorted(DEMO.glob("*.toml"))] + parsed_profiles(80, 290)


def _parsed_documents(engine: Engine) -> dict[str, dict[str, object]]:
    with engine.connect() as conn:
        rows = conn.execute(text("SELECT id, profile_json FROM provider")).all()
    return {pid: json.loads(doc) for pid, doc in rows}


def _records(engine: Engine) -> dict[str, str | None]:
    with engine.connect() as conn:
        return dict(conn.execute(text("SELECT id, profile_record FROM provider")).all())  # type: ignore[arg-type]


def _assert_reads_as_parsed(engine: Engine, profiles: list[ProviderProfile]) -> None:
    documents = _parsed_documents(engine)
    loaded = load_profiles(engine)
    assert loaded == {p.id: p for p in profiles}
    assert loaded == {pid: parse_profile(doc, pid) for pid, doc in documents.items()}
    assert repr(loaded) == repr({pid: parse_profile(documents[pid], pid) for pid in loaded})
    ids = sorted(loaded)[::3]
    assert load_profiles(engine, ids) == {i: loaded[i] for i in ids}
    terms = load_provider_terms(engine, ids)
    assert terms == {i: parse_provider_terms(documents[i], i) for i in ids}
    assert terms == {i: terms_of(loaded[i], i) for i in ids}


def test_stored_records_read_back_as_the_parsed_documents(any_db_url: str) -> None:
    engine = make_engine(any_db_url)
    upgrade_schema(engine)
    profiles = _profiles()
    with write_transaction(engine, "providers") as conn:
        assert set(store_profiles_in(conn, profiles)) == {"created"}
    assert all(record_is_current(r) for r in _records(engine).values())
    _assert_reads_as_parsed(engine, profiles)
    engine.dispose()


def test_missing_or_outdated_records_are_parsed_and_refreshed_on_import(any_db_url: str) -> None:
    engine = make_engine(any_db_url)
    upgrade_schema(engine)
    profiles = _profiles()[:20]
    for profile in profiles:
        store_profile(engine, profile)
    stale = profile_record(profiles[1]).replace(RECORD_VERSION, "0:000000000000", 1)
    with engine.begin() as conn:
        conn.execute(
            text("UPDATE provider SET profile_record = NULL WHERE id = :i"), {"i": profiles[0].id}
        )
        conn.execute(
            text("UPDATE provider SET profile_record = :r WHERE id = :i"),
            {"r": stale, "i": profiles[1].id},
        )
    _assert_reads_as_parsed(engine, profiles)
    assert store_profile(engine, profiles[0]) == "unchanged"  # the same document
    assert store_profile(engine, profiles[1]) == "unchanged"
    assert all(record_is_current(r) for r in _records(engine).values())
    _assert_reads_as_parsed(engine, profiles)
    engine.dispose()


def test_a_free_egress_stays_stated_in_the_stored_document(sqlite_url: str) -> None:
    """A price of 0 (free) was dropped from the document and read back as not stated."""
    document = profile_document(random.Random(1), 1)
    centre = {"id": "sg-1", "name": "SG", "country": "SG", "egress_price_gb": 0}
    document["datacenters"] = [centre | {"storage_price_gb_month": "0"}]
    profile = parse_profile(document, "free.toml")
    engine = make_engine(sqlite_url)
    upgrade_schema(engine)
    store_profile(engine, profile)
    storage = parse_profile(_parsed_documents(engine)[profile.id], "x").datacenters[0].storage
    assert (storage.egress_price_gb, storage.price_gb_month) == (Decimal(0), Decimal(0))
    assert load_profiles(engine)[profile.id] == profile
    engine.dispose()


def test_the_migration_derives_the_records_of_a_0008_catalog(any_db_url: str) -> None:
    engine = make_engine(any_db_url)
    upgrade_schema(engine, "0008")
    profiles = _profiles()
    for profile in profiles:
        store_profile_without_record(engine, profile)
    broken = ProviderProfile(id="broken", name="x")
    store_profile_without_record(engine, broken)
    with engine.begin() as conn:  # a document the parser refuses today
        conn.execute(text("UPDATE provider SET profile_json = '{}' WHERE id = 'broken'"))

    upgrade_schema(engine)

    records = _records(engine)
    assert records.pop("broken") is None
    assert all(record_is_current(r) for r in records.values()) and len(records) == len(profiles)
    with pytest.raises(ProfileError, match="catalog:broken"):
        load_profiles(engine, ["broken"])
    with engine.begin() as conn:
        conn.execute(text("DELETE FROM provider WHERE id = 'broken'"))
    _assert_reads_as_parsed(engine, profiles)
    engine.dispose()
