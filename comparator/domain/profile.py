"""Provider profiles (TOML): the model and its parsing.

``parse_profile`` validates the file with its pydantic models
(:mod:`comparator.domain.profile_model`) and rejects only malformed *structure* — wrong types,
bad dates, unknown provinces, missing required fields, a data centre in mainland China without a
province, a number that clearly belongs in another field. Whether a credential is *valid* (a wrong USCC check digit, a
B2-only licence) is for :mod:`comparator.compliance.engine` to judge.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import date
from decimal import Decimal
from pathlib import Path
from typing import TYPE_CHECKING, Any

from comparator.domain.profile_terms import DatacenterNetwork, ServiceTerms
from comparator.domain.storage import StorageTerms
from comparator.domain.toml_input import loads_toml, read_toml
from comparator.domain.zones import DEFAULT_TIMEZONE_NAME
from comparator.errors import Msg, ProfileError

if TYPE_CHECKING:  # the profile's pydantic models load where a document is parsed
    from comparator.domain.profile_model import (
        CertificationTable,
        DataCenterTable,
        FilingTable,
        LicenseTable,
    )


@dataclass(frozen=True)
class License:
    number: str  # "" for a claimed licence whose number is not given
    services: tuple[str, ...] = ()
    idc_item: str = ""
    coverage: tuple[str, ...] = ()  # "广东", "江苏-常州", or "全国"
    valid_until: date | None = None
    last_annual_report: int | None = None
    claimed: bool = False  # the provider says it holds it, without the number: never passes
    name: str | None = None  # what is claimed, as the provider words it ("一类全牌照")


@dataclass(frozen=True)
class Filing:
    kind: str  # icp_filing | icp_license | gongan | mlps
    number: str | None = None
    level: int | None = None
    assessed_on: date | None = None
    claimed: bool = False


@dataclass(frozen=True)
class Certification:
    name: str
    certifier: str | None = None
    valid_until: date | None = None
    claimed: bool = False


@dataclass(frozen=True)
class DataCenter:
    id: str
    name: str
    country: str
    province: str | None = None
    city: str | None = None
    region: str | None = None
    storage: StorageTerms = field(default_factory=StorageTerms)
    network: DatacenterNetwork = field(default_factory=DatacenterNetwork)

    @property
    def mainland(self) -> bool:
        return self.country == "CN"


@dataclass(frozen=True)
class ProviderProfile:
    id: str
    name: str
    legal_name: str | None = None
    uscc: str | None = None
    country: str = "CN"
    website: str | None = None
    own_datacenter: bool | None = None
    support: str | None = None
    support_response_minutes: int | None = None
    registered_capital_cny: Decimal | None = None
    invoice_types: tuple[str, ...] = ()
    licenses: tuple[License, ...] = ()
    filings: tuple[Filing, ...] = ()
    certifications: tuple[Certification, ...] = ()
    datacenters: tuple[DataCenter, ...] = ()
    demo: bool = False
    timezone: str = DEFAULT_TIMEZONE_NAME
    converts_billing: bool = True  # a rented machine may change billing mode in place
    discount: Decimal | None = None  # negotiated factor on every price, 0 < discount ≤ 1
    terms: ServiceTerms = field(default_factory=ServiceTerms)

    @property
    def mainland(self) -> bool:
        """Whether the provider has any data centre in mainland China."""
        return any(dc.mainland for dc in self.datacenters)

    def datacenter(self, datacenter_id: str) -> DataCenter | None:
        return next((dc for dc in self.datacenters if dc.id == datacenter_id), None)


def parse_profile(data: Mapping[str, Any], source: str) -> ProviderProfile:
    """A provider profile from a TOML/JSON mapping; ProfileError names ``source``, the table
    (row) and the key (the checks: :mod:`comparator.domain.profile_model`, loaded here: a
    catalog's stored profiles are read from their records, without it)."""
    from pydantic import ValidationError

    from comparator.domain.input_model import render_errors
    from comparator.domain.profile_model import PROFILE_FILE, ProfileFile

    try:
        file = PROFILE_FILE.validate_python(data if isinstance(data, dict) else dict(data))
    except ValidationError as exc:
        raise render_errors(exc, ProfileFile, source, ProfileError) from None
    provider = file.provider
    country = provider.country or "CN"
    return ProviderProfile(
        id=provider.id,
        name=provider.name,
        legal_name=provider.legal_name,
        uscc=provider.uscc,
        country=country,
        website=provider.website,
        own_datacenter=provider.own_datacenter,
        support=provider.support,
        support_response_minutes=provider.support_response_minutes,
        registered_capital_cny=provider.registered_capital_cny,
        invoice_types=provider.invoice_types,
        licenses=tuple(_license(table) for table in file.licenses),
        filings=tuple(_filing(table) for table in file.filings),
        certifications=tuple(_cert(table) for table in file.certifications),
        datacenters=tuple(_datacenter(table, country) for table in file.datacenters),
        demo=provider.demo or False,
        timezone=provider.timezone or DEFAULT_TIMEZONE_NAME,
        converts_billing=provider.converts_billing is not False,
        discount=provider.discount,
        terms=ServiceTerms(
            cnnic_member=provider.cnnic_member,
            elastic_scaling=provider.elastic_scaling,
            hourly_refund=provider.hourly_refund,
            free_maintenance=provider.free_maintenance,
            prepayment=provider.prepayment,
            deposit_cny=provider.deposit_cny,
            sla_percent=provider.sla_percent,
        ),
    )


def _license(table: LicenseTable) -> License:
    return License(
        number=table.number or "",
        claimed=table.claimed or False,
        name=table.name,
        services=table.services,
        idc_item=table.idc_item or "",
        coverage=table.coverage,
        valid_until=table.valid_until,
        last_annual_report=table.last_annual_report,
    )


def _filing(table: FilingTable) -> Filing:
    if table.claimed:
        return Filing(table.kind, table.number, table.level, None, claimed=True)
    level = table.level if table.kind == "mlps" else None
    return Filing(table.kind, table.number, level, table.assessed_on)


def _cert(table: CertificationTable) -> Certification:
    return Certification(
        name=table.name,
        certifier=table.certifier,
        valid_until=table.valid_until,
        claimed=table.claimed or False,
    )


def storage_terms(table: DataCenterTable) -> StorageTerms:
    """A data centre's storage, upload and egress terms."""
    return StorageTerms(
        price_gb_month=table.storage_price_gb_month,
        price_gb_day=table.storage_price_gb_day,
        free_gb=table.free_storage_gb or Decimal(0),
        upload_gbps=table.upload_gbps,
        egress_price_gb=table.egress_price_gb,
        currency=table.storage_currency or "CNY",
    )


def _datacenter(table: DataCenterTable, provider_country: str) -> DataCenter:
    storage = storage_terms(table)
    return DataCenter(
        id=table.id,
        name=table.name,
        country=table.country or provider_country,
        province=table.province,
        city=table.city,
        region=table.region,
        storage=storage,
        network=DatacenterNetwork(table.carriers, table.latency_ms),
    )


def load_profile(path: str | Path) -> ProviderProfile:
    """Read and parse a provider profile TOML file."""
    data = read_toml(path, error=ProfileError, kind=Msg("profile"))
    return parse_profile(data, str(path))


def loads_profile(content: bytes, location: str) -> ProviderProfile:
    """A provider profile from TOML bytes (a file's or a URL's); errors name ``location``."""
    return parse_profile(loads_toml(content, location, error=ProfileError), location)


def profile_to_dict(profile: ProviderProfile) -> dict[str, Any]:
    """A JSON-able mapping (dates as ISO strings, money as strings) that parse_profile reads."""
    provider = _compact(
        {
            "id": profile.id,
            "name": profile.name,
            "legal_name": profile.legal_name,
            "uscc": profile.uscc,
            "country": profile.country,
            "website": profile.website,
            "own_datacenter": profile.own_datacenter,
            "support": profile.support,
            "support_response_minutes": profile.support_response_minutes,
            "registered_capital_cny": profile.registered_capital_cny,
            "invoice_types": list(profile.invoice_types),
            "demo": profile.demo,
            "timezone": profile.timezone,
            "converts_billing": None if profile.converts_billing else False,
            "discount": profile.discount,
            **profile.terms.to_json(),
        }
    )
    return {
        "provider": provider,
        "licenses": [_credential(item) for item in profile.licenses],
        "filings": [_credential(item) for item in profile.filings],
        "certifications": [_credential(item) for item in profile.certifications],
        "datacenters": [_datacenter_dict(item) for item in profile.datacenters],
    }


def _credential(item: License | Filing | Certification) -> dict[str, Any]:
    return _compact({**vars(item), "claimed": item.claimed or None})


def _datacenter_dict(datacenter: DataCenter) -> dict[str, Any]:
    values = {k: v for k, v in vars(datacenter).items() if k not in ("storage", "network")}
    return {**_compact(values), **datacenter.storage.to_json(), **datacenter.network.to_json()}


def _compact(values: Mapping[str, Any]) -> dict[str, Any]:
    return {key: _jsonable(value) for key, value in values.items() if value is not None}


def _jsonable(value: Any) -> Any:
    if isinstance(value, tuple):
        return list(value)
    if isinstance(value, Decimal):
        return str(value)
    if hasattr(value, "isoformat"):
        return value.isoformat()
    return value
