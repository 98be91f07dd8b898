"""The catalog schema (SQLModel tables) and the plain objects the pure core consumes.

Money columns are :class:`ExactDecimal` and times :class:`AwareDateTime` (UTC in the DB).
Schema changes go through Alembic migrations in ``comparator/migrations``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from decimal import Decimal
from typing import Any

from sqlalchemy import Column, Index, Table, Text, UniqueConstraint, text
from sqlmodel import Field, SQLModel

from comparator.catalog.dbtypes import AwareDateTime, ExactDecimal
from comparator.domain.offer_view import OfferView

__all__ = [
    "CurrentSnapshot",
    "DataCenterRow",
    "Lease",
    "Offer",
    "OfferColumns",
    "OfferIn",
    "OfferView",
    "PriceSnapshot",
    "Provider",
    "Quote",
    "RefreshRun",
    "SnapshotSummary",
    "Verification",
]


#: The providers that state a discount, by id: a quote reads them for every job (a scan of
#: 10,000 providers' rows, profiles and all, took 4 ms on SQLite and 6.5 ms on PostgreSQL;
#: most providers state none). docs/planner-pruning.md, "Ninth round".
STATED_DISCOUNT = text("discount IS NOT NULL")


class Provider(SQLModel, table=True):
    __table_args__ = (
        Index(
            "ix_provider_discount",
            "id",
            sqlite_where=STATED_DISCOUNT,
            postgresql_where=STATED_DISCOUNT,
        ),
    )

    id: str = Field(primary_key=True, max_length=64)
    name: str
    legal_name: str = ""
    uscc: str = ""
    country: str = "CN"
    website: str = ""
    demo: bool = False
    profile_json: str = Field(sa_column=Column(Text, nullable=False))
    profile_sha256: str = Field(max_length=64)
    # the profile as parsed at import (comparator.domain.profile_record); NULL: parse the JSON
    profile_record: str | None = Field(default=None, sa_column=Column(Text, nullable=True))
    # its [provider] discount as the document states it (a Decimal's text); NULL: none stated
    discount: str | None = Field(default=None, nullable=True)
    updated_at: datetime = Field(sa_type=AwareDateTime)


class DataCenterRow(SQLModel, table=True):
    """Where each provider's data centres are: an index the offer filters join (by province).

    Written from the profile's :class:`comparator.domain.DataCenter` on every profile import;
    the profile document itself (``provider.profile_json``) is the source of truth.
    """

    __tablename__ = "datacenter"

    provider_id: str = Field(foreign_key="provider.id", primary_key=True, max_length=64)
    id: str = Field(primary_key=True, max_length=128)
    name: str = ""
    country: str = "CN"
    province: str | None = Field(default=None, index=True)
    city: str | None = None
    region: str | None = None
    mainland: bool = True


class PriceSnapshot(SQLModel, table=True):
    id: int | None = Field(default=None, primary_key=True)
    provider_id: str = Field(foreign_key="provider.id", index=True, max_length=64)
    source: str = ""
    content_sha256: str = Field(max_length=64)
    fetched_at: datetime = Field(sa_type=AwareDateTime)
    offers: int = 0


class CurrentSnapshot(SQLModel, table=True):
    """Each provider's current snapshot: its newest (greatest id). Kept by the database
    itself, a trigger on every insert into ``pricesnapshot`` (migration 0013), so that no
    writer can forget it (the catalog never deletes a snapshot, so ids only grow; a test
    that empties the tables by hand empties this one too). Readers find the current
    snapshots here instead of grouping every snapshot ever stored (a year of weekly history
    at 10,000 providers: 520,000 rows grouped for every query, 32 ms on SQLite and 71-95 ms
    on PostgreSQL; docs/import.md)."""

    provider_id: str = Field(primary_key=True, max_length=64)
    # probed by the offers' walks that test "is this offer current" (cheapest_offers)
    snapshot_id: int = Field(index=True, unique=True)


class OfferIn(SQLModel):
    """One offer as an adapter or a sheet produces it (not yet stored)."""

    provider: str = Field(max_length=64)
    region: str = Field(max_length=128)
    gpu: str = Field(max_length=64)
    cards: int = 1
    node_cards: int = 8
    billing: str = Field(max_length=16)
    price: Decimal = Field(sa_type=ExactDecimal)
    currency: str = Field(default="CNY", max_length=3)
    time_of_use: str = ""
    stock: int | None = None
    min_units: int = 1
    interconnect: str | None = None
    network: str | None = None
    tax_inclusive: bool = True
    vat_rate: Decimal = Field(default=Decimal("0.06"), sa_type=ExactDecimal)
    free_trial_hours: int = 0
    observed_at: datetime = Field(sa_type=AwareDateTime)
    source: str = ""
    sku: str = ""


_KEY_REST = ("cards", "billing", "sku", "time_of_use", "min_units", "currency")


class Offer(OfferIn, table=True):
    # Covers the usual filters (GPU, then the data centre's province through provider+region)
    # so they are answered from the index before any offer row is read.
    __table_args__ = (
        Index("ix_offer_snapshot_gpu_place", "snapshot_id", "gpu", "provider", "region"),
        # A job's provinces (and the `offers` GPU filter): each current snapshot's offers by
        # place; then the rest of the offer key (catalog.changes.KEY_FIELDS), so an offer is
        # matched to last week's from the index alone (the market report's week diff).
        Index("ix_offer_snapshot_region_gpu", "snapshot_id", "region", "gpu", *_KEY_REST),
    )

    id: int | None = Field(default=None, primary_key=True)
    # pricesnapshot.id, without a foreign key (migration 0006): offers are written only with
    # their snapshot, in its transaction, and snapshots are never deleted (docs/import.md)
    snapshot_id: int


class SnapshotSummary(SQLModel, table=True):
    """Each snapshot's cheapest offer per GPU, billing mode, data centre and pricing basis
    (currency, tax, time-of-use rule), and how many offers that group has: written with the
    snapshot (snapshots never change), read by the market report instead of every offer
    (:mod:`comparator.catalog.snapshot_summary`, docs/market-report.md). Within a group every
    price term but the price per card is the same, so its cheapest offer per card is the
    cheapest card-hour under any exchange rate and reference week."""

    # SQLite keeps the rows in key order, so a snapshot's groups are read without a sort
    __table_args__ = ({"sqlite_with_rowid": False},)

    snapshot_id: int = Field(primary_key=True)
    gpu: str = Field(primary_key=True, max_length=64)
    billing: str = Field(primary_key=True, max_length=16)
    region: str = Field(primary_key=True, max_length=128)
    currency: str = Field(primary_key=True, max_length=3)
    tax_inclusive: bool = Field(primary_key=True)
    vat_rate: Decimal = Field(primary_key=True, sa_type=ExactDecimal)
    time_of_use: str = Field(primary_key=True)
    provider: str = Field(max_length=64)
    offers: int
    offer_id: int
    cards: int
    price: Decimal = Field(sa_type=ExactDecimal)


class RefreshRun(SQLModel, table=True):
    __table_args__ = (
        UniqueConstraint("provider_id", "period", "attempt"),
        Index("ix_refreshrun_provider_period", "provider_id", "period"),
    )

    id: int | None = Field(default=None, primary_key=True)
    provider_id: str = Field(index=True, max_length=64)
    source: str = ""
    period: str = Field(max_length=16)
    attempt: int = 1
    status: str = Field(max_length=16)
    started_at: datetime = Field(sa_type=AwareDateTime)
    finished_at: datetime | None = Field(default=None, sa_type=AwareDateTime)
    offers: int = 0
    snapshot_id: int | None = None
    error: str | None = Field(default=None, sa_column=Column(Text, nullable=True))
    holder: str = Field(default="", max_length=128)  # "<host>:<pid>" that claimed the run
    etag: str | None = None  # sent back as If-None-Match next time
    last_modified: str | None = None  # sent back as If-Modified-Since next time
    body_sha256: str | None = Field(default=None, max_length=64)  # of the fetched bytes


class Lease(SQLModel, table=True):
    name: str = Field(primary_key=True, max_length=64)
    holder: str = Field(max_length=128)
    expires_at: datetime = Field(sa_type=AwareDateTime)


class Quote(SQLModel, table=True):
    id: int | None = Field(default=None, primary_key=True)
    number: str = Field(unique=True, max_length=32)
    created_at: datetime = Field(sa_type=AwareDateTime)
    job_name: str = ""
    input_sha256: str = Field(max_length=64)
    snapshot_ids: str = "[]"
    software_version: str = ""
    lang: str = "zh"
    document_json: str = Field(sa_column=Column(Text, nullable=False))


class Verification(SQLModel, table=True):
    id: int | None = Field(default=None, primary_key=True)
    created_at: datetime = Field(sa_type=AwareDateTime)
    quote_number: str | None = Field(default=None, index=True, max_length=32)
    offer_id: str | None = None
    status: str = Field(max_length=8)
    result_json: str = Field(sa_column=Column(Text, nullable=False))


class OfferColumns:
    """Offers held column by column (one list per :class:`OfferIn` field).

    Sheets are validated a column at a time and stored in bulk; building 200,000 pydantic
    objects in between would cost more than reading the sheet. :meth:`offers` gives the
    objects when a caller wants them.
    """

    FIELDS: tuple[str, ...] = tuple(OfferIn.model_fields)

    def __init__(
        self, values: Mapping[str, Sequence[Any]], codes: Mapping[str, Any] | None = None
    ) -> None:
        """``codes``, where known (a sheet's parser knows them): a column's NumPy integer
        array whose rows of one code hold one value object, so bulk writes turn each distinct
        value into text once without looking for the distinct values again. ``values``: a
        list per column, or any sequence (a parsed sheet sent to the import's writer holds
        codes into each column's distinct values: :class:`~comparator.catalog.coded.CodedList`)."""
        missing = set(self.FIELDS) - set(values)
        if missing:
            raise ValueError(f"OfferColumns lacks {sorted(missing)}")
        self.values = {name: values[name] for name in self.FIELDS}
        self.count = len(self.values["provider"])
        self.codes: dict[str, Any] = dict(codes or {})

    @classmethod
    def from_offers(cls, offers: Sequence[OfferIn]) -> OfferColumns:
        return cls({name: [o.__dict__[name] for o in offers] for name in cls.FIELDS})

    def offers(self) -> list[OfferIn]:
        """The offers as objects, trusting values that were validated column by column."""
        rows = zip(*self.values.values(), strict=True)
        return [OfferIn.model_construct(**dict(zip(self.FIELDS, row, strict=True))) for row in rows]

    def take(self, indices: Sequence[int]) -> OfferColumns:
        return OfferColumns({name: [col[i] for i in indices] for name, col in self.values.items()})

    def by_provider(self) -> dict[str, OfferColumns]:
        groups: dict[str, list[int]] = {}
        for i, provider in enumerate(self.values["provider"]):
            groups.setdefault(provider, []).append(i)
        if len(groups) == 1:
            return {next(iter(groups)): self}
        return {provider: self.take(rows) for provider, rows in sorted(groups.items())}


def table_of(model: type[SQLModel]) -> Table:
    """The Core table of a model, for bulk statements (importing the model registers it)."""
    table = model.__table__  # type: ignore[attr-defined]
    assert isinstance(table, Table)
    return table
