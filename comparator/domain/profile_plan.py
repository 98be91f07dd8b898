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
from typing import Any, Protocol

from comparator.domain.profile import _discount, _timezone
from comparator.domain.profile_fields import Fields
from comparator.domain.profile_terms import parse_storage
from comparator.domain.storage import StorageTerms
from comparator.errors import ProfileError


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


def parse_provider_terms(data: Mapping[str, Any], source: str) -> ProviderTerms:
    """The planning terms of a stored profile document (one :func:`parse_profile` accepted):
    its time zone, discount, ``converts_billing`` and data centres' storage, read by the same
    field parsers."""
    provider = Fields(data, source, "").table("provider")
    if provider is None:
        raise ProfileError("{path}: missing the [provider] table (with id and name)", path=source)
    centres = tuple(
        DataCenterTerms(table.identifier("id", max_length=128), parse_storage(table))
        for table in Fields(data, source, "").tables("datacenters")
    )
    return ProviderTerms(
        provider.identifier("id"),
        _timezone(provider),
        provider.optional_bool("converts_billing") is not False,
        _discount(provider),
        centres,
    )
