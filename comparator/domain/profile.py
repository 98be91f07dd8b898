"""Provider profiles (TOML): the model and its parsing.

``parse_profile`` rejects only malformed *structure* — wrong types, bad dates, unknown provinces,
missing required fields, a data centre in mainland China without a province, a number that
clearly belongs in another field. Whether a credential is *valid* (a wrong USCC check digit, a
B2-only licence) is for :mod:`comparator.compliance.engine` to judge.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import date
from decimal import Decimal
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from comparator.domain.credentials import identify_number
from comparator.domain.profile_fields import Fields
from comparator.domain.profile_terms import (
    NETWORK_KEYS,
    STORAGE_KEYS,
    TERMS_KEYS,
    DatacenterNetwork,
    ServiceTerms,
    parse_network,
    parse_storage,
    parse_terms,
)
from comparator.domain.storage import StorageTerms
from comparator.domain.toml_input import loads_toml, read_toml
from comparator.domain.zones import DEFAULT_TIMEZONE_NAME
from comparator.errors import Msg, ProfileError

FILING_KINDS = ("icp_filing", "icp_license", "gongan", "mlps")
_NUMBER_KINDS = {
    "licence": Msg("a telecom licence number ([[licenses]] number)"),
    "icp_license": Msg(
        "an ICP licence number ([[licenses]] number or [[filings]] kind icp_license)"
    ),
    "icp_filing": Msg("an ICP filing ([[filings]] kind icp_filing)"),
    "gongan": Msg("a 公安备案 (public security filing) number ([[filings]] kind gongan)"),
    "uscc": Msg("a USCC ([provider] uscc)"),
}


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


_TOP_LEVEL = ("provider", "licenses", "filings", "certifications", "datacenters")
_EXTRA = ("notes", "source")  # free text allowed in every table
_PROVIDER_KEYS = (
    "id",
    "name",
    "legal_name",
    "uscc",
    "country",
    "website",
    "own_datacenter",
    "support",
    "support_response_minutes",
    "registered_capital_cny",
    "invoice_types",
    "demo",
    "timezone",
    "converts_billing",
    "discount",
    *TERMS_KEYS,
    *_EXTRA,
)
_LICENSE_KEYS = (
    "number",
    "services",
    "idc_item",
    "coverage",
    "valid_until",
    "last_annual_report",
    "claimed",
    "name",
    *_EXTRA,
)
_FILING_KEYS = ("kind", "number", "level", "assessed_on", "claimed", *_EXTRA)
_CERT_KEYS = ("name", "certifier", "valid_until", "claimed", *_EXTRA)
_DC_PLACE = ("id", "name", "country", "province", "city", "region")
_DC_KEYS = (*_DC_PLACE, *STORAGE_KEYS, *NETWORK_KEYS, *_EXTRA)


def parse_profile(data: Mapping[str, Any], source: str) -> ProviderProfile:
    """A provider profile from a TOML/JSON mapping; ProfileError names ``source`` and the field."""
    root = Fields(data, source, "", _TOP_LEVEL)
    provider = root.table("provider")
    if provider is None:
        raise ProfileError("{path}: missing the [provider] table (with id and name)", path=source)
    fields = provider.known(_PROVIDER_KEYS)
    country = fields.country("country", default="CN")
    return ProviderProfile(
        id=fields.identifier("id"),
        name=fields.required_str("name"),
        legal_name=fields.optional_str("legal_name"),
        uscc=_number_field(fields, "uscc", "uscc"),
        country=country,
        website=fields.optional_str("website"),
        own_datacenter=fields.optional_bool("own_datacenter"),
        support=fields.optional_str("support"),
        support_response_minutes=fields.optional_int("support_response_minutes", minimum=0),
        registered_capital_cny=fields.optional_decimal("registered_capital_cny"),
        invoice_types=fields.str_list("invoice_types"),
        licenses=tuple(_license(f.known(_LICENSE_KEYS)) for f in root.tables("licenses")),
        filings=tuple(_filing(f.known(_FILING_KEYS)) for f in root.tables("filings")),
        certifications=tuple(_cert(f.known(_CERT_KEYS)) for f in root.tables("certifications")),
        datacenters=_datacenters(root.tables("datacenters"), country),
        demo=fields.optional_bool("demo") or False,
        timezone=_timezone(fields),
        converts_billing=fields.optional_bool("converts_billing") is not False,
        discount=_discount(fields),
        terms=parse_terms(fields),
    )


def _discount(fields: Fields) -> Decimal | None:
    factor = fields.optional_decimal("discount")
    if factor is not None and not 0 < factor <= 1:
        fields.fail("discount", "a factor above 0 and at most 1 (0.9 = 10% off)", factor)
    return factor


def _number_field(fields: Fields, key: str, *allowed: str) -> str | None:
    """A credential number, refused when it clearly is another kind of number."""
    number = fields.optional_str(key)
    if number is None:
        return None
    kind = identify_number(number)
    if kind is not None and kind not in allowed:
        expected = Msg(
            "{wanted}, but this is {found}",
            wanted=_NUMBER_KINDS[allowed[0]],
            found=_NUMBER_KINDS[kind],
        )
        fields.fail(key, expected, number)
    return number.strip()


def _license(fields: Fields) -> License:
    number = _number_field(fields, "number", "licence", "icp_license")
    claimed = fields.optional_bool("claimed") or False
    if number is None and not claimed:
        fields.fail("number", "a licence number such as B1-20190123 (or claimed = true)")
    return License(
        number=number or "",
        claimed=claimed,
        name=fields.optional_str("name"),
        services=fields.service_codes("services"),
        idc_item=fields.optional_str("idc_item") or "",
        coverage=fields.coverage("coverage"),
        valid_until=fields.optional_date("valid_until"),
        last_annual_report=fields.optional_int("last_annual_report", minimum=1990, maximum=2100),
    )


def _filing(fields: Fields) -> Filing:
    kind = fields.choice("kind", FILING_KINDS)
    claimed = fields.optional_bool("claimed") or False
    if claimed:
        level = fields.optional_int("level", minimum=1, maximum=5)
        return Filing(kind, fields.optional_str("number"), level, None, claimed=True)
    if kind == "mlps":
        level = fields.optional_int("level", minimum=1, maximum=5)
        if level is None:
            fields.fail("level", "an MLPS (等保, classified protection) level 1–5")
        return Filing(
            kind, fields.optional_str("number"), level, fields.optional_date("assessed_on")
        )
    allowed = ("icp_filing", "icp_license") if kind.startswith("icp") else (kind,)
    number = _number_field(fields, "number", *allowed)
    if number is None:
        fields.fail("number", Msg("the {kind} number", kind=kind))
    return Filing(kind, number, None, fields.optional_date("assessed_on"))


def _cert(fields: Fields) -> Certification:
    return Certification(
        name=fields.required_str("name"),
        certifier=fields.optional_str("certifier"),
        valid_until=fields.optional_date("valid_until"),
        claimed=fields.optional_bool("claimed") or False,
    )


def _datacenters(tables: list[Fields], provider_country: str) -> tuple[DataCenter, ...]:
    result: list[DataCenter] = []
    for table in tables:
        datacenter = _datacenter(table.known(_DC_KEYS), provider_country)
        if any(dc.id == datacenter.id for dc in result):
            table.fail("id", "a data-centre id unique within the profile", datacenter.id)
        result.append(datacenter)
    return tuple(result)


def _datacenter(fields: Fields, provider_country: str) -> DataCenter:
    country = fields.country("country", default=provider_country)
    province = fields.province("province")
    if country == "CN" and province is None:
        fields.fail(
            "province", "a province (name or 简称, short name) for a data centre in mainland China"
        )
    if country != "CN" and province is not None:
        fields.fail(
            "province",
            Msg("no Chinese province for a data centre in country {country}", country=country),
            province,
        )
    return DataCenter(
        id=fields.identifier("id", max_length=128),
        name=fields.required_str("name"),
        country=country,
        province=province,
        city=fields.city("city"),
        region=fields.optional_str("region"),
        storage=parse_storage(fields),
        network=parse_network(fields),
    )


def _timezone(fields: Fields) -> str:
    name = fields.optional_str("timezone") or DEFAULT_TIMEZONE_NAME
    try:
        ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError, OSError):  # OSError: a name too long for a path
        fields.fail("timezone", "an IANA time zone such as Asia/Shanghai", name)
    return name


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
