"""What the planner's bounds read of a provider's profile, without parsing the whole profile.

Before it reads any offer, the streamed walk keys every group of the job's offers
(docs/planner-pruning.md, rule 5): for that it needs each provider's time zone, negotiated
discount, whether a machine may change billing mode, and its data centres' storage terms — not
its licences, filings and credentials, which only compliance reads, on the offers read. At 10⁴
providers :func:`~comparator.domain.profile.parse_profile` of every profile cost about a third
of a quote (issue #29), so these terms are read on their own (:func:`parse_provider_terms`, with
the same field parsers as the full profile) and a profile is parsed whole only for providers
whose offers the walk reads. A :class:`~comparator.domain.profile.ProviderProfile` has the same
attributes, so either serves (:class:`PlanTerms`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from functools import cache
from typing import TYPE_CHECKING, Any, Protocol

from comparator.domain.profile import storage_terms
from comparator.domain.storage import StorageTerms
from comparator.domain.zones import DEFAULT_TIMEZONE_NAME
from comparator.errors import ProfileError

if TYPE_CHECKING:  # the profile's pydantic models load where a document is parsed
    from pydantic import TypeAdapter

    from comparator.domain.profile_model import DataCenterTable, ProviderTable


class DataCenterStorage(Protocol):
    """A data centre as the data bill reads it."""

    @property
    def id(self) -> str: ...

    @property
    def storage(self) -> StorageTerms: ...


class PlanTerms(Protocol):
    """A provider as the planner's candidates and bounds read it (a full profile is one)."""

    @property
    def timezone(self) -> str: ...

    @property
    def converts_billing(self) -> bool: ...

    @property
    def discount(self) -> Decimal | None: ...

    @property
    def datacenters(self) -> Sequence[DataCenterStorage]: ...


@dataclass(frozen=True)
class DataCenterTerms:
    id: str
    storage: StorageTerms


@dataclass(frozen=True)
class ProviderTerms:
    """The terms of one provider the planner's bounds need (:class:`PlanTerms`)."""

    id: str
    timezone: str
    converts_billing: bool
    discount: Decimal | None
    datacenters: tuple[DataCenterTerms, ...]


def terms_of(profile: PlanTerms, provider_id: str) -> ProviderTerms:
    """The planning terms of a parsed profile."""
    centres = tuple(DataCenterTerms(dc.id, dc.storage) for dc in profile.datacenters)
    return ProviderTerms(
        provider_id, profile.timezone, profile.converts_billing, profile.discount, centres
    )


@cache
def _adapters() -> tuple[TypeAdapter[ProviderTable], TypeAdapter[list[DataCenterTable]]]:
    """The provider table's and the data centres' validators, built on first use (a catalog's
    stored profiles are read from their records, without them)."""
    from pydantic import TypeAdapter

    from comparator.domain.profile_model import DataCenterTable, ProviderTable

    return TypeAdapter(ProviderTable), TypeAdapter(list[DataCenterTable])


def parse_provider_terms(data: Mapping[str, Any], source: str) -> ProviderTerms:
    """The planning terms of a stored profile document (one :func:`parse_profile` accepted):
    its time zone, discount, ``converts_billing`` and data centres' storage, validated by the
    profile's own table models (its credentials are not read)."""
    from pydantic import ValidationError

    from comparator.domain.input_model import render_errors
    from comparator.domain.profile_model import ProfileFile

    provider_table, datacenter_tables = _adapters()
    try:
        provider = provider_table.validate_python(data.get("provider"))
        centres = datacenter_tables.validate_python(list(data.get("datacenters") or ()))
    except ValidationError as exc:
        raise render_errors(exc, ProfileFile, source, ProfileError) from None
    return ProviderTerms(
        provider.id,
        provider.timezone or DEFAULT_TIMEZONE_NAME,
        provider.converts_billing is not False,
        provider.discount,
        tuple(DataCenterTerms(table.id, storage_terms(table)) for table in centres),
    )
