"""The discounts a quote reads (``provider.discount``, written beside each stored profile)
equal what the documents state, read by the field parser as the quote read them before:
on import, and after migration ``0011_provider_discount`` over a catalog written at
``0010``, on both databases (docs/planner-pruning.md, "Fifth round")."""

from __future__ import annotations

import dataclasses
import json
from decimal import Decimal
from pathlib import Path

from pydantic import TypeAdapter
from sqlalchemy import Engine, text

from comparator.catalog.db import make_engine, upgrade_schema, write_transaction
from comparator.catalog.group_stream import load_provider_discounts
from comparator.catalog.queries import store_profiles_in
from comparator.domain.profile import ProviderProfile, load_profile
from comparator.domain.profile_values import Discount
from tests.support.fuzz_profiles import parsed_profiles
from tests.support.old_catalog import store_profile_without_record

DEMO = Path(__file__).resolve().parents[2] / "providers" / "demo"
STATED = ("0.9", "0.90", "0.875", "1", "1.0", "0.5E+0", "0.05")


def _profiles() -> list[ProviderProfile]:
    found = [load_profile(p) for p in sorted(DEMO.glob("*.toml"))] + parsed_profiles(40, 26)
    stated = [
        dataclasses.replace(found[i % len(found)], id=f"stated-{i}", discount=Decimal(d))
        for i, d in enumerate(STATED)
    ]
    return found + stated


def _as_stated(engine: Engine) -> dict[str, Decimal]:
    """Each document's ``[provider] discount`` by the profile's field parser (what the quote
    read from the documents before the column)."""
    parser: TypeAdapter[Decimal | None] = TypeAdapter(Discount)
    with engine.connect() as conn:
        rows = conn.execute(text("SELECT id, profile_json FROM provider")).all()
    stated = {pid: json.loads(doc)["provider"].get("discount") for pid, doc in rows}
    return {
        pid: d
        for pid, value in stated.items()
        if value is not None and (d := parser.validate_python(value)) is not None
    }


def _assert_discounts_as_stated(engine: Engine, ids: list[str]) -> None:
    expected = _as_stated(engine)
    assert len(expected) >= len(STATED)  # the test reads some
    found = load_provider_discounts(engine, ids)
    assert found == expected
    assert {p: str(d) for p, d in found.items()} == {p: str(d) for p, d in expected.items()}
    some = ids[::2]
    assert load_provider_discounts(engine, some) == {p: expected[p] for p in some if p in expected}
    assert load_provider_discounts(engine, []) == {}


def test_imported_discounts_read_as_the_documents_state(any_db_url: str) -> None:
    engine = make_engine(any_db_url)
    upgrade_schema(engine)
    profiles = _profiles()
    with write_transaction(engine, "providers") as conn:
        assert set(store_profiles_in(conn, profiles)) == {"created"}
    _assert_discounts_as_stated(engine, [p.id for p in profiles])
    changed = dataclasses.replace(profiles[-1], discount=Decimal("0.70"))
    unstated = dataclasses.replace(profiles[-2], discount=None)
    with write_transaction(engine, "providers") as conn:
        assert store_profiles_in(conn, [changed, unstated]) == ["updated", "updated"]
    found = load_provider_discounts(engine, [changed.id, unstated.id])
    assert found == {changed.id: Decimal("0.70")} and str(found[changed.id]) == "0.70"
    engine.dispose()


def test_migration_derives_the_discounts_of_a_0010_catalog(any_db_url: str) -> None:
    engine = make_engine(any_db_url)
    upgrade_schema(engine, "0010")
    profiles = _profiles()
    refused = dataclasses.replace(profiles[0], id="refused", discount=Decimal("1.5"))
    for profile in [*profiles, refused]:
        store_profile_without_record(engine, profile)

    upgrade_schema(engine)

    with engine.connect() as conn:
        rows = dict(conn.execute(text("SELECT id, discount FROM provider")).all())
    assert rows["refused"] is None  # the parser refuses it: no discount (it stays unread)
    assert rows["stated-1"] == "0.90" and rows["stated-5"] == "0.5"
    del rows["refused"]
    with engine.begin() as conn:
        conn.execute(text("DELETE FROM datacenter WHERE provider_id = 'refused'"))
        conn.execute(text("DELETE FROM provider WHERE id = 'refused'"))
    _assert_discounts_as_stated(engine, [p.id for p in profiles])
    engine.dispose()
