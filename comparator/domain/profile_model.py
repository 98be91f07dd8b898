"""The provider profile file as pydantic models: every table, key, type and check, and the JSON
Schema (``suanli schema profile``).

:func:`comparator.domain.profile.parse_profile` validates a parsed TOML (or stored JSON)
document with :data:`PROFILE_FILE` and builds the profile the planner and the compliance rules
read. Errors name the file, the table (row) and the key in the catalogue's words
(:mod:`comparator.domain.input_model`). Structure only: whether a credential is *valid* (a
wrong USCC check digit, a B2-only licence) is for :mod:`comparator.compliance` to judge.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BeforeValidator, Field, TypeAdapter, model_validator

from comparator.domain.input_model import FileTable, bad
from comparator.domain.profile_terms import Carriers, Latencies
from comparator.domain.profile_values import (
    COVERAGE_TEXT,
    MAX_ID,
    Amount,
    City,
    Country,
    Coverage,
    Currency,
    Day,
    Discount,
    Flag,
    Province,
    RequiredText,
    Services,
    Sla,
    Text,
    Texts,
    Timezone,
    Upload,
    credential_number,
    identifier,
    whole,
    wrong_number,
)
from comparator.errors import Msg

FILING_KINDS = ("icp_filing", "icp_license", "gongan", "mlps")
_CLAIMED = "held as the provider claims, without a number (never passes a rule)"


class _Table(FileTable):
    notes: Text = Field(None, description="free text")
    source: Text = Field(None, description="where the facts of this table were read")


class ProviderTable(_Table):
    """``[provider]``: who the provider is."""

    id: Annotated[str, identifier(MAX_ID)] = Field(description="an id without spaces")
    name: RequiredText = Field(description="a non-empty string")
    legal_name: Text = None
    uscc: Annotated[str | None, credential_number("uscc")] = Field(
        None, description="unified social credit code (USCC), 18 characters"
    )
    country: Country = Field(None, description="ISO 3166 two-letter code (default CN)")
    website: Text = None
    own_datacenter: Flag = None
    support: Text = None
    support_response_minutes: Annotated[int | None, whole(0)] = None
    registered_capital_cny: Amount = None
    invoice_types: Texts = ()
    demo: Flag = None
    timezone: Timezone = Field(None, description="IANA time zone (default Asia/Shanghai)")
    converts_billing: Flag = Field(
        None, description="a rented machine may change billing mode in place"
    )
    discount: Discount = Field(None, description="factor on every price, 0 < d ≤ 1")
    cnnic_member: Flag = Field(None, description="a member of CNNIC")
    elastic_scaling: Flag = Field(
        None, description="cards may be added or released within a contract"
    )
    hourly_refund: Flag = Field(None, description="unused contract time is refunded by the hour")
    free_maintenance: Flag = Field(
        None, description="maintenance and machine replacement at no charge"
    )
    prepayment: Text = Field(None, description="what must be paid before the rental")
    deposit_cny: Amount = Field(None, description="a deposit in CNY")
    sla_percent: Sla = Field(None, description="availability promised, percent")


class LicenseTable(_Table):
    """``[[licenses]]``: a value-added telecom licence."""

    number: Annotated[str | None, credential_number("licence", "icp_license")] = Field(
        None, description="a licence number such as B1-20190123 (or claimed = true)"
    )
    name: Text = Field(None, description="what a claimed licence is called")
    claimed: Flag = Field(None, description=_CLAIMED)
    services: Services = Field((), description="service codes such as B11, B12, B14")
    idc_item: Text = None
    coverage: Coverage = Field((), description=COVERAGE_TEXT)
    valid_until: Day = None
    last_annual_report: Annotated[int | None, whole(1990, 2100)] = None

    @model_validator(mode="after")
    def _numbered_or_claimed(self) -> LicenseTable:
        if self.number is None and not self.claimed:
            expected = Msg("a licence number such as B1-20190123 (or claimed = true)")
            raise bad(expected, field=("number",))
        return self


def _kind(value: object) -> str:
    if value not in FILING_KINDS:
        raise bad(Msg("one of {names}", names=", ".join(FILING_KINDS)), value)
    return str(value)


class FilingTable(_Table):
    """``[[filings]]``: an ICP filing or licence, a public security filing, an MLPS assessment."""

    kind: Annotated[
        Literal["icp_filing", "icp_license", "gongan", "mlps"], BeforeValidator(_kind)
    ] = Field(description="one of 'icp_filing', 'icp_license', 'gongan', 'mlps'")
    number: Text = None
    level: Annotated[int | None, whole(1, 5)] = Field(
        None, description="MLPS level (kind = 'mlps')"
    )
    assessed_on: Day = None
    claimed: Flag = Field(None, description=_CLAIMED)

    @model_validator(mode="after")
    def _number_of_its_kind(self) -> FilingTable:
        if self.claimed:
            return self
        if self.kind == "mlps":
            if self.level is None:
                raise bad(Msg("an MLPS (等保, classified protection) level 1–5"), field=("level",))
            return self
        if self.number is None:
            raise bad(Msg("the {kind} number", kind=self.kind), field=("number",))
        allowed = ("icp_filing", "icp_license") if self.kind.startswith("icp") else (self.kind,)
        problem = wrong_number(self.number, *allowed)
        if problem is not None:
            raise bad(problem, self.number, field=("number",))
        return self


class CertificationTable(_Table):
    """``[[certifications]]``: ISO 27001 and the like."""

    name: RequiredText = Field(description="a non-empty string")
    certifier: Text = None
    valid_until: Day = None
    claimed: Flag = Field(None, description=_CLAIMED)


class DataCenterTable(_Table):
    """``[[datacenters]]``: a data centre, its network and its storage terms."""

    id: Annotated[str, identifier(128)] = Field(description="an id without spaces")
    name: RequiredText = Field(description="a non-empty string")
    country: Country = Field(None, description="ISO 3166 two-letter code (default: the provider's)")
    province: Province = Field(
        None, description="a mainland province name or 简称 (short name, e.g. 广东 or 粤)"
    )
    city: City = None
    region: Text = None
    storage_price_gb_month: Amount = None
    storage_price_gb_day: Amount = None
    free_storage_gb: Amount = None
    upload_gbps: Upload = None
    egress_price_gb: Amount = None
    storage_currency: Currency = Field(None, description="an ISO 4217 code like CNY")
    carriers: Carriers = Field((), description="carriers among telecom, unicom, mobile and BGP")
    latency_ms: Latencies = Field((), description="a table of city = round-trip milliseconds")

    @model_validator(mode="after")
    def _one_storage_price(self) -> DataCenterTable:
        if self.storage_price_gb_month is not None and self.storage_price_gb_day is not None:
            expected = Msg("either storage_price_gb_month or _gb_day, not both")
            raise bad(expected, field=("storage_price_gb_day",))
        return self

    def place(self, provider_country: str, index: int) -> str:
        """The data centre's country; its province is checked against it (``index``: its row)."""
        country = self.country or provider_country
        if country == "CN" and self.province is None:
            expected = Msg(
                "a province (name or 简称, short name) for a data centre in mainland China"
            )
            raise bad(expected, field=("datacenters", index, "province"))
        if country != "CN" and self.province is not None:
            expected = Msg(
                "no Chinese province for a data centre in country {country}", country=country
            )
            raise bad(expected, self.province, field=("datacenters", index, "province"))
        return country


class ProfileFile(FileTable):
    """A provider profile (TOML): the provider, its credentials and its data centres."""

    provider: ProviderTable = Field(description="a [provider] table with id and name")
    licenses: list[LicenseTable] = Field(default_factory=list)
    filings: list[FilingTable] = Field(default_factory=list)
    certifications: list[CertificationTable] = Field(default_factory=list)
    datacenters: list[DataCenterTable] = Field(default_factory=list)

    @model_validator(mode="after")
    def _datacentres_placed_once(self) -> ProfileFile:
        country = self.provider.country or "CN"
        seen: set[str] = set()
        for index, datacenter in enumerate(self.datacenters):
            datacenter.place(country, index)
            if datacenter.id in seen:
                expected = Msg("a data-centre id unique within the profile")
                raise bad(expected, datacenter.id, field=("datacenters", index, "id"))
            seen.add(datacenter.id)
        return self


# built once: validating is the hot path (a national import parses 30,000 profiles)
PROFILE_FILE: TypeAdapter[ProfileFile] = TypeAdapter(ProfileFile)


def profile_schema() -> dict[str, Any]:
    """The JSON Schema of a provider profile file."""
    schema = ProfileFile.model_json_schema()
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    return schema
