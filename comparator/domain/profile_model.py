"""The provider profile file as pydantic models, for its JSON Schema (``suanli schema profile``).

The profile is still *validated* by :func:`comparator.domain.profile.parse_profile` (credential
numbers, provinces, a data centre's country): these models describe its tables and keys for
editors, and a test holds their keys equal to the ones the parser accepts.
"""

from __future__ import annotations

from datetime import date
from decimal import Decimal
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

Number = Decimal | int | float | str  # a number, or its digits written as a string


class _Table(BaseModel):
    model_config = ConfigDict(extra="forbid")

    notes: str | None = Field(None, description="free text")
    source: str | None = Field(None, description="where the facts of this table were read")


class ProviderTable(_Table):
    """``[provider]``: who the provider is."""

    id: str = Field(description="an id without spaces, at most 64 characters")
    name: str
    legal_name: str | None = None
    uscc: str | None = Field(None, description="unified social credit code (USCC), 18 characters")
    country: str | None = Field("CN", description="ISO 3166 two-letter code")
    website: str | None = None
    own_datacenter: bool | None = None
    support: str | None = None
    support_response_minutes: int | None = Field(None, ge=0)
    registered_capital_cny: Number | None = None
    invoice_types: list[str] | str | None = None
    demo: bool | None = None
    timezone: str | None = Field("Asia/Shanghai", description="IANA time zone")
    converts_billing: bool | None = Field(
        True, description="a rented machine may change billing mode in place"
    )
    discount: Number | None = Field(None, description="factor on every price, 0 < d ≤ 1")
    cnnic_member: bool | None = Field(None, description="a member of CNNIC")
    elastic_scaling: bool | None = Field(
        None, description="cards may be added or released within a contract"
    )
    hourly_refund: bool | None = Field(
        None, description="unused contract time is refunded by the hour"
    )
    free_maintenance: bool | None = Field(
        None, description="maintenance and machine replacement at no charge"
    )
    prepayment: str | None = Field(None, description="what must be paid before the rental")
    deposit_cny: Number | None = Field(None, description="a deposit in CNY")
    sla_percent: Number | None = Field(None, description="availability promised, percent")


class LicenseTable(_Table):
    """``[[licenses]]``: a value-added telecom licence."""

    number: str | None = Field(None, description="such as B1-20190123 (or claimed = true)")
    name: str | None = Field(None, description="what a claimed licence is called")
    claimed: bool | None = Field(
        None, description="held as the provider claims, without a number (never passes a rule)"
    )
    services: list[str] | str | None = Field(None, description="service codes: B11, B12, B14")
    idc_item: str | None = None
    coverage: list[str] | str | None = Field(
        None, description="provinces or province-city entries, or nationwide"
    )
    valid_until: date | None = None
    last_annual_report: int | None = Field(None, ge=1990, le=2100)


class FilingTable(_Table):
    """``[[filings]]``: an ICP filing or licence, a public security filing, an MLPS assessment."""

    kind: Literal["icp_filing", "icp_license", "gongan", "mlps"]
    number: str | None = None
    level: int | None = Field(None, ge=1, le=5, description="MLPS level (kind mlps)")
    assessed_on: date | None = None
    claimed: bool | None = Field(
        None, description="held as the provider claims, without a number (never passes a rule)"
    )


class CertificationTable(_Table):
    """``[[certifications]]``: ISO 27001 and the like."""

    name: str
    certifier: str | None = None
    valid_until: date | None = None
    claimed: bool | None = Field(
        None, description="held as the provider claims, without a number (never passes a rule)"
    )


class DataCenterTable(_Table):
    """``[[datacenters]]``: a data centre and its storage terms."""

    id: str = Field(description="an id without spaces, unique in the profile")
    name: str
    country: str | None = Field(None, description="default: the provider's")
    province: str | None = Field(
        None, description="required in mainland China: a province name or short name"
    )
    city: str | None = None
    region: str | None = None
    storage_price_gb_month: Number | None = None
    storage_price_gb_day: Number | None = None
    free_storage_gb: Number | None = None
    upload_gbps: Number | None = None
    egress_price_gb: Number | None = None
    storage_currency: str | None = Field("CNY", description="ISO 4217 code")
    carriers: list[str] | str | None = Field(
        None, description="the carriers: telecom, unicom, mobile or BGP, as the profile writes them"
    )
    latency_ms: dict[str, Number] | None = Field(
        None, description="measured round-trip milliseconds to cities: { city = 8.5 }"
    )


class ProfileFile(BaseModel):
    """A provider profile (TOML): the provider, its credentials and its data centres."""

    model_config = ConfigDict(extra="forbid")

    provider: ProviderTable
    licenses: list[LicenseTable] = []
    filings: list[FilingTable] = []
    certifications: list[CertificationTable] = []
    datacenters: list[DataCenterTable] = []


def profile_schema() -> dict[str, Any]:
    """The JSON Schema of a provider profile file."""
    schema = ProfileFile.model_json_schema()
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    return schema
