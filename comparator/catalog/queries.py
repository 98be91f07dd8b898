"""The catalog database: store profiles and append-only price snapshots; read current offers.

A provider's *current* snapshot is its newest one. Storing a snapshot whose content hash
equals the current one's stores nothing ("unchanged"). Each store is one transaction, so an
interrupted import leaves the whole snapshot or none of it.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, fields
from datetime import UTC, datetime
from typing import Any, Literal, NamedTuple, TypeVar

from sqlalchemy import (
    Connection,
    Engine,
    ScalarSelect,
    Select,
    Table,
    case,
    delete,
    func,
    insert,
    select,
)
from sqlalchemy.sql.elements import ColumnElement

from comparator.catalog.db import write_transaction
from comparator.catalog.models import (
    CurrentSnapshot,
    DataCenterRow,
    Offer,
    OfferColumns,
    OfferIn,
    PriceSnapshot,
    Provider,
    table_of,
)
from comparator.catalog.snapshot_summary import summarise_snapshots
from comparator.domain.collector import collector_paused
from comparator.domain.offer_view import OfferView
from comparator.domain.profile import ProviderProfile, parse_profile, profile_to_dict
from comparator.domain.profile_plan import ProviderTerms, parse_provider_terms
from comparator.domain.profile_record import (
    RECORD_PREFIX,
    RECORD_PREFIX_CHARS,
    profile_from_record,
    profile_record,
    record_is_current,
    terms_from_record,
)
from comparator.domain.profile_values import stored_discount
from comparator.errors import CatalogError

OFFER = table_of(Offer)
SNAPSHOT = table_of(PriceSnapshot)
CURRENT = table_of(CurrentSnapshot)
DATACENTER = table_of(DataCenterRow)
PROVIDER = table_of(Provider)
OFFER_FIELDS: tuple[str, ...] = OfferColumns.FIELDS
# the priced content of an offer: when a price was read and where from are left out
CONTENT_FIELDS: tuple[str, ...] = tuple(
    f for f in OFFER_FIELDS if f not in ("observed_at", "source")
)
VIEW_FIELDS: tuple[str, ...] = tuple(f.name for f in fields(OfferView))
T = TypeVar("T")  # what one stored profile is read as (a profile, its terms)

ProfileStatus = Literal["created", "updated", "unchanged"]


@dataclass(frozen=True)
class SnapshotResult:
    provider: str
    snapshot_id: int
    status: Literal["succeeded", "unchanged"]
    offers: int


def utc_now() -> datetime:
    return datetime.now(UTC)


def as_columns(offers: Sequence[OfferIn] | OfferColumns) -> OfferColumns:
    return offers if isinstance(offers, OfferColumns) else OfferColumns.from_offers(offers)


def content_sha256(offers: Sequence[OfferIn] | OfferColumns) -> str:
    """Hash of the priced content of offers (order-insensitive), for "nothing changed" checks.

    When a price was read and where from are left out: the same prices read again are the
    same content.
    """
    columns = as_columns(offers).values
    priced = [[str(v) for v in columns[f]] for f in CONTENT_FIELDS]
    return lines_sha256(["\x1f".join(row) for row in zip(*priced, strict=True)])


def lines_sha256(lines: list[str]) -> str:
    """:func:`content_sha256` of offers given as their content lines (``str`` of each
    :data:`CONTENT_FIELDS` value, joined by ``\\x1f``), in any order."""
    return hashlib.sha256("\n".join(sorted(lines)).encode()).hexdigest()


# ---------------------------------------------------------------- profiles


def store_profile(engine: Engine, profile: ProviderProfile) -> ProfileStatus:
    """Insert or replace a provider with its credentials and data centres (one transaction)."""
    with write_transaction(engine, f"provider:{profile.id}") as conn:
        return store_profile_in(conn, profile)


def store_profile_in(conn: Connection, profile: ProviderProfile) -> ProfileStatus:
    """:func:`store_profile` inside the caller's transaction."""
    return store_profiles_in(conn, [profile])[0]


def store_profiles_in(conn: Connection, profiles: Sequence[ProviderProfile]) -> list[ProfileStatus]:
    """:func:`store_profile_in` of each of ``profiles`` (distinct providers), in a few
    statements for all of them: their stored hashes read 500 at a time, the new providers
    inserted in one statement, the data centres of new and changed ones in one more."""
    if len({p.id for p in profiles}) < len(profiles):  # a later one replaces an earlier one
        return [status for p in profiles for status in store_profiles_in(conn, [p])]
    old = _stored_hashes(conn, [p.id for p in profiles])
    statuses: list[ProfileStatus] = []
    created: list[dict[str, Any]] = []
    written: list[ProviderProfile] = []
    for profile in profiles:
        text = json.dumps(profile_to_dict(profile), ensure_ascii=False, sort_keys=True)
        sha = hashlib.sha256(text.encode()).hexdigest()
        if old.get(profile.id) == (sha, True):
            statuses.append("unchanged")
            continue
        if old.get(profile.id) == (sha, False):  # the same document, its record outdated
            _refresh_record(conn, profile)
            statuses.append("unchanged")
            continue
        row = _provider_row(profile, text, sha)
        if profile.id in old:
            conn.execute(PROVIDER.update().where(PROVIDER.c.id == profile.id).values(**row))
        else:
            created.append(row)
        statuses.append("updated" if profile.id in old else "created")
        written.append(profile)
    _delete_credentials(conn, [p.id for p in written if p.id in old])
    if created:
        conn.execute(insert(PROVIDER), created)
    _insert_credentials(conn, written)
    return statuses


def _stored_hashes(conn: Connection, ids: Sequence[str]) -> dict[str, tuple[str, bool]]:
    """provider id → (its stored document's hash, whether its record is current), 500 ids
    at a time."""
    old: dict[str, tuple[str, bool]] = {}
    prefix = func.substr(PROVIDER.c.profile_record, 1, RECORD_PREFIX_CHARS)
    query = select(PROVIDER.c.id, PROVIDER.c.profile_sha256, prefix)
    for start in range(0, len(ids), 500):
        chunk = query.where(PROVIDER.c.id.in_(ids[start : start + 500]))
        old.update((pid, (sha, record_is_current(head))) for pid, sha, head in conn.execute(chunk))
    return old


def _refresh_record(conn: Connection, profile: ProviderProfile) -> None:
    record = profile_record(profile)
    conn.execute(PROVIDER.update().where(PROVIDER.c.id == profile.id).values(profile_record=record))


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
        "profile_record": profile_record(profile),
        "discount": stored_discount(None if profile.discount is None else str(profile.discount)),
        "updated_at": utc_now(),
    }


def _delete_credentials(conn: Connection, provider_ids: Sequence[str]) -> None:
    for start in range(0, len(provider_ids), 500):
        chunk = provider_ids[start : start + 500]
        conn.execute(delete(DATACENTER).where(DATACENTER.c.provider_id.in_(chunk)))


def _insert_credentials(conn: Connection, profiles: Sequence[ProviderProfile]) -> None:
    """The profiles' data centres as rows of the data centre index."""
    columns = set(DATACENTER.c.keys())
    rows = [
        {key: value for key, value in dataclasses.asdict(dc).items() if key in columns}
        | {"provider_id": profile.id, "mainland": dc.mainland}
        for profile in profiles
        for dc in profile.datacenters
    ]
    if rows:
        conn.execute(insert(DATACENTER), rows)


def load_profiles(
    engine: Engine, providers: Collection[str] | None = None
) -> dict[str, ProviderProfile]:
    """Every stored provider profile (or those of ``providers`` only), by provider id: as
    parsed at import (its record), or parsed now where the record is missing or outdated."""
    return _read_profiles(engine, providers, profile_from_record, parse_profile)


def load_provider_terms(
    engine: Engine, providers: Collection[str] | None = None
) -> dict[str, ProviderTerms]:
    """What the planner's bounds read of the stored profiles (of ``providers`` only), by
    provider id, without parsing the whole profiles (:mod:`comparator.domain.profile_plan`)."""
    return _read_profiles(engine, providers, terms_from_record, parse_provider_terms)


def _read_profiles(
    engine: Engine,
    providers: Collection[str] | None,
    from_record: Callable[[Any], T | None],
    parse: Callable[[Any, str], T],
) -> dict[str, T]:
    """Each stored profile read by ``from_record``, or parsed by ``parse`` where its record is
    missing or outdated (looked up at call time: tests count the calls)."""
    found: dict[str, T] = {}
    documents = _profile_documents(engine, providers)
    with collector_paused():
        for pid, text, record in documents:
            value = from_record(record)
            if value is None:
                value = parse(json.loads(str(text)), f"catalog:{pid}")
            found[pid] = value
    return found


def _profile_documents(
    engine: Engine, providers: Collection[str] | None
) -> list[tuple[str, str | None, str | None]]:
    """(provider id, profile document, its record) of every provider or of ``providers``;
    the document only where the record is not current (it is not read otherwise)."""
    current = func.substr(PROVIDER.c.profile_record, 1, RECORD_PREFIX_CHARS) == RECORD_PREFIX
    document = case((current, None), else_=PROVIDER.c.profile_json)
    query = select(PROVIDER.c.id, document, PROVIDER.c.profile_record)
    query = query.order_by(PROVIDER.c.id)
    with engine.connect() as conn:
        if providers is None:
            return [(r[0], r[1], r[2]) for r in conn.execute(query)]
        wanted = sorted(providers)
        return [
            (row[0], row[1], row[2])
            for start in range(0, len(wanted), 500)
            for row in conn.execute(query.where(PROVIDER.c.id.in_(wanted[start : start + 500])))
        ]


def provider_ids(engine: Engine) -> list[str]:
    """The id of every stored provider (without reading the profiles)."""
    with engine.connect() as conn:
        query = select(PROVIDER.c.id).order_by(PROVIDER.c.id)  # as load_profiles lists them
        return [str(i) for i in conn.execute(query).scalars()]


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


def current_snapshots(providers: Sequence[str] | None = None) -> Select[Any]:
    """(provider id, current snapshot id) of every provider (or of ``providers``): its newest,
    as the database keeps it (:class:`~comparator.catalog.models.CurrentSnapshot`)."""
    query = select(CURRENT.c.provider_id, CURRENT.c.snapshot_id.label("id"))
    if providers is not None:
        query = query.where(CURRENT.c.provider_id.in_(providers))
    return query


def current_snapshot_id(provider_id: str) -> ScalarSelect[int]:
    """The id of the provider's current snapshot, as a subquery."""
    return (
        select(CURRENT.c.snapshot_id).where(CURRENT.c.provider_id == provider_id)
    ).scalar_subquery()


def current_snapshot_ids() -> Select[tuple[int]]:
    return select(current_snapshots().subquery().c.id)


class SnapshotInfo(NamedTuple):
    id: int
    offers: int
    content_sha256: str


def current_snapshot_in(conn: Connection, provider_id: str) -> SnapshotInfo | None:
    """The provider's current (newest) snapshot, or None when it has none."""
    row = conn.execute(
        select(SNAPSHOT.c.id, SNAPSHOT.c.offers, SNAPSHOT.c.content_sha256)
        .where(SNAPSHOT.c.provider_id == provider_id)
        .order_by(SNAPSHOT.c.id.desc())
        .limit(1)
    ).first()
    return (
        None if row is None else SnapshotInfo(int(row.id), int(row.offers), str(row.content_sha256))
    )


def current_snapshot(engine: Engine, provider_id: str) -> SnapshotInfo | None:
    """:func:`current_snapshot_in` on a connection of its own."""
    with engine.connect() as conn:
        return current_snapshot_in(conn, provider_id)


def store_snapshot(
    engine: Engine,
    provider_id: str,
    offers: Sequence[OfferIn] | OfferColumns,
    *,
    source: str,
    content_sha256: str,
    fetched_at: datetime,
) -> SnapshotResult:
    """Append a snapshot with its offers in one transaction, unless the content is unchanged."""
    with write_transaction(engine, f"provider:{provider_id}") as conn:
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
    offers: Sequence[OfferIn] | OfferColumns,
    *,
    source: str,
    content_sha256: str,
    fetched_at: datetime,
) -> SnapshotResult:
    """:func:`store_snapshot` inside the caller's transaction (several providers of one sheet)."""
    current = current_snapshot_in(conn, provider_id)
    if current is not None and current.content_sha256 == content_sha256:
        return SnapshotResult(provider_id, current.id, "unchanged", current.offers)
    columns = as_columns(offers)
    snapshot_id = conn.execute(
        insert(SNAPSHOT).values(
            provider_id=provider_id,
            source=source,
            content_sha256=content_sha256,
            fetched_at=fetched_at,
            offers=columns.count,
        )
    ).inserted_primary_key[0]  # type: ignore[index]
    if columns.count:
        bulk_insert(conn, OFFER, {**columns.values, "snapshot_id": [snapshot_id] * columns.count})
        summarise_snapshots(conn, [snapshot_id])
    return SnapshotResult(provider_id, snapshot_id, "succeeded", columns.count)


def bulk_insert(conn: Connection, table: Table, columns: Mapping[str, Sequence[Any]]) -> None:
    """Whole columns in one statement, each bound by its column type's own processor:
    PostgreSQL ``COPY … FROM STDIN``, else one executemany — inside the caller's transaction,
    so an interrupted import leaves all the rows or none.

    Core ``insert()`` with a list of dicts spends most of its time building parameters row
    by row; converting a column at a time keeps a 200k-row snapshot near the driver's speed.
    """
    dialect = conn.dialect
    processed: list[Sequence[Any]] = []
    for name, values in columns.items():
        process = table.c[name].type.bind_processor(dialect)
        processed.append([process(v) for v in values] if process else values)
    names = ", ".join(dialect.identifier_preparer.quote(n) for n in columns)
    rows = list(zip(*processed, strict=True))
    if dialect.name == "postgresql" and dialect.driver == "psycopg":
        raw = conn.connection.driver_connection
        sql = f"COPY {table.name} ({names}) FROM STDIN"
        with raw.cursor() as cursor, cursor.copy(sql) as copy:  # type: ignore[union-attr]
            for row in rows:
                copy.write_row(row)
        return
    marker = "?" if dialect.paramstyle == "qmark" else "%s"
    sql = f"INSERT INTO {table.name} ({names}) VALUES ({', '.join([marker] * len(columns))})"
    conn.exec_driver_sql(sql, rows)


# ---------------------------------------------------------------- reading offers


def offer_view_columns() -> list[ColumnElement[Any]]:
    """One column per OfferView field, in order: the offer, its provider and data centre."""
    named: dict[str, ColumnElement[Any]] = {
        "offer_id": OFFER.c.id,
        "provider_name": PROVIDER.c.name,
        "region_name": func.coalesce(DATACENTER.c.name, OFFER.c.region),
        "country": func.coalesce(DATACENTER.c.country, ""),
        "province": DATACENTER.c.province,
        "city": DATACENTER.c.city,
        "mainland": func.coalesce(DATACENTER.c.mainland, False),
    }
    return [named[f] if f in named else OFFER.c[f] for f in VIEW_FIELDS]


def _offer_query() -> Select[Any]:
    """Offers joined with provider and data centre, one column per OfferView field in order."""
    return (
        select(*offer_view_columns())
        .join(PROVIDER, PROVIDER.c.id == OFFER.c.provider)
        .outerjoin(
            DATACENTER,
            (DATACENTER.c.provider_id == OFFER.c.provider) & (DATACENTER.c.id == OFFER.c.region),
        )
    )


def get_offer(engine: Engine, offer_id: str) -> OfferView:
    """Any stored offer by id (current or not); :class:`CatalogError` when there is none."""
    if not offer_id.isdigit():
        raise CatalogError(
            "--offer: expected an offer id (a number from `suanli offers`), got {offer_id!r}",
            offer_id=offer_id,
        )
    with engine.connect() as conn:
        row = conn.execute(_offer_query().where(OFFER.c.id == int(offer_id))).first()
    if row is None:
        raise CatalogError(
            "--offer {offer_id}: no such offer in the catalog (see `suanli offers`)",
            offer_id=offer_id,
        )
    return offer_view_of(row)


def offers_by_id(engine: Engine, offer_ids: Sequence[int]) -> list[OfferView]:
    """The offers with these ids (by primary key, 500 at a time), in no particular order."""
    with engine.connect() as conn:
        return [
            offer_view_of(row)
            for start in range(0, len(offer_ids), 500)
            for row in conn.execute(
                _offer_query().where(OFFER.c.id.in_(offer_ids[start : start + 500]))
            )
        ]


def offer_view_of(row: Sequence[Any]) -> OfferView:
    """An OfferView from a row of :func:`_offer_query`.

    Filling ``__dict__`` directly skips the frozen dataclass's per-field ``__setattr__``,
    which is most of the cost of listing 10,000 offers; the values are already typed by the
    column types, and the view stays immutable to its users.
    """
    view: OfferView = object.__new__(OfferView)
    view.__dict__.update(zip(VIEW_FIELDS, row, strict=True))
    view.__dict__["offer_id"] = str(row[0])
    view.__dict__["snapshot_id"] = str(view.snapshot_id)
    view.__dict__["mainland"] = bool(view.mainland)
    view.__dict__["tax_inclusive"] = bool(view.tax_inclusive)
    return view


def has_any_provider(engine: Engine) -> bool:
    with engine.connect() as conn:
        return conn.execute(select(func.count()).select_from(PROVIDER)).scalar_one() > 0
