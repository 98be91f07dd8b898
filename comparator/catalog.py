"""The catalog database: store profiles and append-only price snapshots; read current offers.

A provider's *current* snapshot is its newest one. Storing a snapshot whose content hash
equals the current one's stores nothing ("unchanged"). Each store is one transaction, so an
interrupted import leaves the whole snapshot or none of it.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Literal

from sqlalchemy import Connection, Engine, Row, Select, delete, func, insert, select
from sqlmodel import SQLModel

from comparator.errors import CatalogError
from comparator.models import (
    Certification,
    DataCenter,
    Filing,
    License,
    OfferIn,
    OfferView,
)
from comparator.profile import ProviderProfile, parse_profile, profile_to_dict

_TABLES = SQLModel.metadata.tables
OFFER = _TABLES["offer"]
SNAPSHOT = _TABLES["pricesnapshot"]
DATACENTER = _TABLES["datacenter"]
PROVIDER = _TABLES["provider"]
OFFER_FIELDS: tuple[str, ...] = tuple(OfferIn.model_fields)


@dataclass(frozen=True)
class SnapshotResult:
    provider: str
    snapshot_id: int
    status: Literal["succeeded", "unchanged"]
    offers: int


def utc_now() -> datetime:
    return datetime.now(UTC)


def content_sha256(offers: Iterable[OfferIn]) -> str:
    """Hash of the priced content of offers (order-insensitive), for "nothing changed" checks."""
    lines = sorted(
        "\x1f".join(str(getattr(o, f)) for f in OFFER_FIELDS if f not in ("observed_at", "source"))
        for o in offers
    )
    return hashlib.sha256("\n".join(lines).encode()).hexdigest()


# ---------------------------------------------------------------- profiles


def store_profile(
    engine: Engine, profile: ProviderProfile
) -> Literal["created", "updated", "unchanged"]:
    """Insert or replace a provider with its credentials and data centres (one transaction)."""
    document = profile_to_dict(profile)
    text = json.dumps(document, ensure_ascii=False, sort_keys=True)
    sha = hashlib.sha256(text.encode()).hexdigest()
    with engine.begin() as conn:
        old = conn.execute(
            select(PROVIDER.c.profile_sha256).where(PROVIDER.c.id == profile.id)
        ).first()
        if old is not None and old[0] == sha:
            return "unchanged"
        _delete_credentials(conn, profile.id)
        row = _provider_row(profile, text, sha)
        if old is None:
            conn.execute(insert(PROVIDER), [row])
        else:
            conn.execute(PROVIDER.update().where(PROVIDER.c.id == profile.id).values(**row))
        _insert_credentials(conn, profile)
    return "created" if old is None else "updated"


def _provider_row(profile: ProviderProfile, text: str, sha: str) -> dict[str, Any]:
    return {
        "id": profile.id,
        "name": profile.name,
        "legal_name": profile.legal_name or "",
        "uscc": profile.uscc or "",
        "country": profile.country,
        "website": profile.website or "",
        "demo": profile.demo,
        "profile_json": text,
        "profile_sha256": sha,
        "updated_at": utc_now(),
    }


def _delete_credentials(conn: Connection, provider_id: str) -> None:
    for model in (License, Filing, Certification, DataCenter):
        table = _TABLES[model.__tablename__]  # type: ignore[index]
        conn.execute(delete(table).where(table.c.provider_id == provider_id))


def _insert_credentials(conn: Connection, profile: ProviderProfile) -> None:
    pid = profile.id
    rows: list[tuple[type[SQLModel], list[dict[str, Any]]]] = [
        (
            License,
            [
                {
                    "provider_id": pid,
                    "number": x.number,
                    "services": list(x.services),
                    "idc_item": x.idc_item,
                    "coverage": list(x.coverage),
                    "valid_until": x.valid_until,
                    "last_annual_report": x.last_annual_report,
                }
                for x in profile.licenses
            ],
        ),
        (
            Filing,
            [
                {
                    "provider_id": pid,
                    "kind": x.kind,
                    "number": x.number,
                    "level": x.level,
                    "assessed_on": x.assessed_on,
                }
                for x in profile.filings
            ],
        ),
        (
            Certification,
            [
                {
                    "provider_id": pid,
                    "name": x.name,
                    "certifier": x.certifier or "",
                    "valid_until": x.valid_until,
                }
                for x in profile.certifications
            ],
        ),
        (
            DataCenter,
            [
                {
                    "provider_id": pid,
                    "id": x.id,
                    "name": x.name,
                    "country": x.country,
                    "province": x.province,
                    "city": x.city,
                    "region": x.region,
                    "mainland": x.mainland,
                }
                for x in profile.datacenters
            ],
        ),
    ]
    for model, values in rows:
        if values:
            conn.execute(insert(_TABLES[model.__tablename__]), values)  # type: ignore[index]


def load_profiles(engine: Engine) -> dict[str, ProviderProfile]:
    """Every stored provider profile, by provider id."""
    with engine.connect() as conn:
        rows = conn.execute(select(PROVIDER.c.id, PROVIDER.c.profile_json).order_by(PROVIDER.c.id))
        return {pid: parse_profile(json.loads(text), f"catalog:{pid}") for pid, text in rows}


def known_regions(engine: Engine) -> dict[str, dict[str, str]]:
    """provider id → {data-centre id or name → data-centre id}: what a sheet may refer to."""
    regions: dict[str, dict[str, str]] = {}
    with engine.connect() as conn:
        for pid in conn.execute(select(PROVIDER.c.id)).scalars():
            regions[pid] = {}
        for pid, dc_id, name in conn.execute(
            select(DATACENTER.c.provider_id, DATACENTER.c.id, DATACENTER.c.name)
        ):
            regions[pid].setdefault(name, dc_id)
            regions[pid][dc_id] = dc_id
    return regions


# ---------------------------------------------------------------- snapshots


def current_snapshot_ids() -> Select[tuple[int]]:
    return select(func.max(SNAPSHOT.c.id)).group_by(SNAPSHOT.c.provider_id)


def store_snapshot(
    engine: Engine,
    provider_id: str,
    offers: Sequence[OfferIn],
    *,
    source: str,
    content_sha256: str,
    fetched_at: datetime,
) -> SnapshotResult:
    """Append a snapshot with its offers in one transaction, unless the content is unchanged."""
    with engine.begin() as conn:
        return store_snapshot_in(
            conn,
            provider_id,
            offers,
            source=source,
            content_sha256=content_sha256,
            fetched_at=fetched_at,
        )


def store_snapshot_in(
    conn: Connection,
    provider_id: str,
    offers: Sequence[OfferIn],
    *,
    source: str,
    content_sha256: str,
    fetched_at: datetime,
) -> SnapshotResult:
    """:func:`store_snapshot` inside the caller's transaction (several providers of one sheet)."""
    current = conn.execute(
        select(SNAPSHOT.c.id, SNAPSHOT.c.content_sha256, SNAPSHOT.c.offers)
        .where(SNAPSHOT.c.provider_id == provider_id)
        .order_by(SNAPSHOT.c.id.desc())
        .limit(1)
    ).first()
    if current is not None and current.content_sha256 == content_sha256:
        return SnapshotResult(provider_id, current.id, "unchanged", current.offers)
    snapshot_id = conn.execute(
        insert(SNAPSHOT).values(
            provider_id=provider_id,
            source=source,
            content_sha256=content_sha256,
            fetched_at=fetched_at,
            offers=len(offers),
        )
    ).inserted_primary_key[0]  # type: ignore[index]
    if offers:
        conn.execute(insert(OFFER), _offer_rows(offers, snapshot_id))
    return SnapshotResult(provider_id, snapshot_id, "succeeded", len(offers))


def _offer_rows(offers: Sequence[OfferIn], snapshot_id: int) -> list[dict[str, Any]]:
    fields = OFFER_FIELDS
    return [{"snapshot_id": snapshot_id, **{f: o.__dict__[f] for f in fields}} for o in offers]


# ---------------------------------------------------------------- reading offers


def _offer_query() -> Select[Any]:
    return (
        select(
            OFFER,
            PROVIDER.c.name.label("provider_name"),
            DATACENTER.c.name.label("region_name"),
            DATACENTER.c.country,
            DATACENTER.c.province,
            DATACENTER.c.city,
            DATACENTER.c.mainland,
        )
        .join(PROVIDER, PROVIDER.c.id == OFFER.c.provider)
        .outerjoin(
            DATACENTER,
            (DATACENTER.c.provider_id == OFFER.c.provider) & (DATACENTER.c.id == OFFER.c.region),
        )
    )


def current_offers(
    engine: Engine,
    *,
    gpu: str | None = None,
    provider: str | None = None,
    province: str | None = None,
    billing: str | None = None,
) -> list[OfferView]:
    """Offers of every provider's current snapshot, filtered by canonical values."""
    query = _offer_query().where(OFFER.c.snapshot_id.in_(current_snapshot_ids()))
    if gpu is not None:
        query = query.where(OFFER.c.gpu == gpu)
    if provider is not None:
        query = query.where(OFFER.c.provider == provider)
    if province is not None:
        query = query.where(DATACENTER.c.province == province)
    if billing is not None:
        query = query.where(OFFER.c.billing == billing)
    with engine.connect() as conn:
        return [_view(row) for row in conn.execute(query.order_by(OFFER.c.id))]


def get_offer(engine: Engine, offer_id: str) -> OfferView:
    """Any stored offer by id (current or not); :class:`CatalogError` when there is none."""
    if not offer_id.isdigit():
        raise CatalogError(
            f"--offer: expected an offer id (a number from `suanli offers`), got {offer_id!r}"
        )
    with engine.connect() as conn:
        row = conn.execute(_offer_query().where(OFFER.c.id == int(offer_id))).first()
    if row is None:
        raise CatalogError(
            f"--offer {offer_id}: no such offer in the catalog (see `suanli offers`)"
        )
    return _view(row)


def _view(row: Row[Any]) -> OfferView:
    m = row._mapping
    return OfferView(
        offer_id=str(m["id"]),
        snapshot_id=str(m["snapshot_id"]),
        provider=m["provider"],
        provider_name=m["provider_name"],
        region=m["region"],
        region_name=m["region_name"] or m["region"],
        country=m["country"] or "",
        province=m["province"],
        city=m["city"],
        mainland=bool(m["mainland"]),
        gpu=m["gpu"],
        cards=m["cards"],
        node_cards=m["node_cards"],
        billing=m["billing"],
        price=m["price"],
        currency=m["currency"],
        time_of_use=m["time_of_use"],
        stock=m["stock"],
        min_units=m["min_units"],
        interconnect=m["interconnect"],
        network=m["network"],
        tax_inclusive=bool(m["tax_inclusive"]),
        vat_rate=m["vat_rate"],
        observed_at=m["observed_at"],
        source=m["source"],
        sku=m["sku"],
    )


def has_any_provider(engine: Engine) -> bool:
    with engine.connect() as conn:
        return conn.execute(select(func.count()).select_from(PROVIDER)).scalar_one() > 0
