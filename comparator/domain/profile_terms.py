"""What a provider profile states besides its credentials: service and contract terms of
``[provider]``, and the network of each ``[[datacenters]]`` entry (carriers, measured latency).

Every fact is optional: ``None`` means the profile does not say, and the compliance rules show
it as unknown (a job that requires it fails with that reason), never as a guess.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from comparator.domain.money import parse_decimal
from comparator.domain.provinces import canonical_city
from comparator.domain.storage import StorageTerms

if TYPE_CHECKING:
    from comparator.domain.profile_fields import Fields

TERMS_KEYS = (
    "cnnic_member",
    "elastic_scaling",
    "hourly_refund",
    "free_maintenance",
    "prepayment",
    "deposit_cny",
    "sla_percent",
)
CARRIERS = ("电信", "联通", "移动", "BGP")
_CARRIER_WORDS = {
    "电信": "电信",
    "中国电信": "电信",
    "telecom": "电信",
    "ct": "电信",
    "联通": "联通",
    "中国联通": "联通",
    "unicom": "联通",
    "cu": "联通",
    "移动": "移动",
    "中国移动": "移动",
    "mobile": "移动",
    "cm": "移动",
    "bgp": "BGP",
    "多线bgp": "BGP",
}
NETWORK_KEYS = ("carriers", "latency_ms")
STORAGE_KEYS = (
    "storage_price_gb_month",
    "storage_price_gb_day",
    "free_storage_gb",
    "upload_gbps",
    "egress_price_gb",
    "storage_currency",
)


@dataclass(frozen=True)
class ServiceTerms:
    """Contract and company terms a team compares before signing (``None``: not stated)."""

    cnnic_member: bool | None = None  # CNNIC IP address allocation member
    elastic_scaling: bool | None = None  # cards may be added or released within a contract
    hourly_refund: bool | None = None  # unused contract time refunded by the hour (按小时退费)
    free_maintenance: bool | None = None  # free maintenance and machine replacement
    prepayment: str | None = None  # what must be paid in advance, as the provider says it
    deposit_cny: Decimal | None = None
    sla_percent: Decimal | None = None  # availability promised in the SLA, e.g. 99.9

    def to_json(self) -> dict[str, Any]:
        values = {key: getattr(self, key) for key in TERMS_KEYS}
        return {
            k: str(v) if isinstance(v, Decimal) else v for k, v in values.items() if v is not None
        }


def parse_terms(fields: Fields) -> ServiceTerms:
    """The service terms of a ``[provider]`` table (its other keys are read elsewhere)."""
    sla = fields.optional_decimal("sla_percent")
    if sla is not None and not 0 < sla <= 100:
        fields.fail("sla_percent", "an availability in percent above 0 and at most 100", sla)
    return ServiceTerms(
        cnnic_member=fields.optional_bool("cnnic_member"),
        elastic_scaling=fields.optional_bool("elastic_scaling"),
        hourly_refund=fields.optional_bool("hourly_refund"),
        free_maintenance=fields.optional_bool("free_maintenance"),
        prepayment=fields.optional_str("prepayment"),
        deposit_cny=fields.optional_decimal("deposit_cny"),
        sla_percent=sla,
    )


@dataclass(frozen=True)
class DatacenterNetwork:
    """A data centre's carriers and the round-trip times it states to cities (ms, measured)."""

    carriers: tuple[str, ...] = ()
    latency_ms: tuple[tuple[str, Decimal], ...] = ()  # (city, round-trip ms)

    def measured_ms(self, city: str) -> Decimal | None:
        wanted = canonical_city(city)
        return next((ms for name, ms in self.latency_ms if name == wanted), None)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        if self.carriers:
            out["carriers"] = list(self.carriers)
        if self.latency_ms:
            out["latency_ms"] = {city: str(ms) for city, ms in self.latency_ms}
        return out


def parse_network(fields: Fields) -> DatacenterNetwork:
    """``carriers = ["电信", "BGP"]`` and ``latency_ms = { "深圳" = 8.5 }`` of a data centre."""
    carriers = []
    for word in fields.str_list("carriers"):
        carrier = _CARRIER_WORDS.get(word.strip().lower().replace(" ", ""))
        if carrier is None:
            fields.fail("carriers", "carriers among telecom, unicom, mobile and BGP", word)
        carriers.append(carrier)
    table = fields.data.get("latency_ms", {})
    if not isinstance(table, dict):
        fields.fail("latency_ms", "a table of city = round-trip milliseconds", table)
    latencies = []
    for city, value in table.items():
        ms = None if isinstance(value, bool) else parse_decimal(value)
        if ms is None or ms <= 0:
            fields.fail(f"latency_ms.{city}", "a positive round-trip time in milliseconds", value)
        latencies.append((canonical_city(str(city)), ms))
    return DatacenterNetwork(tuple(dict.fromkeys(carriers)), tuple(latencies))


def parse_storage(fields: Fields) -> StorageTerms:
    """The storage, upload and egress terms of a ``[[datacenters]]`` entry."""
    month = fields.optional_decimal("storage_price_gb_month")
    day = fields.optional_decimal("storage_price_gb_day")
    if month is not None and day is not None:
        fields.fail("storage_price_gb_day", "either storage_price_gb_month or _gb_day, not both")
    upload = fields.optional_decimal("upload_gbps")
    if upload is not None and upload <= 0:
        fields.fail("upload_gbps", "a positive bandwidth in Gbit/s", upload)
    currency = (fields.optional_str("storage_currency") or "CNY").upper()
    return StorageTerms(
        price_gb_month=month,
        price_gb_day=day,
        free_gb=fields.optional_decimal("free_storage_gb") or Decimal(0),
        upload_gbps=upload,
        egress_price_gb=fields.optional_decimal("egress_price_gb"),
        currency=currency,
    )
