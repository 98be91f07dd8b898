"""What a provider profile states besides its credentials: service and contract terms of
``[provider]``, and the network of each ``[[datacenters]]`` entry (carriers, measured latency),
with the pydantic types that read carriers and latencies.

Every fact is optional: ``None`` means the profile does not say, and the compliance rules show
it as unknown (a job that requires it fails with that reason), never as a guess.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from typing import Annotated, Any

from pydantic import BeforeValidator, WithJsonSchema

from comparator.domain.input_model import bad
from comparator.domain.money import parse_decimal
from comparator.domain.profile_values import texts
from comparator.domain.provinces import canonical_city
from comparator.errors import Msg

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
_TEXTS_SCHEMA: dict[str, Any] = {
    "anyOf": [{"type": "array", "items": {"type": "string"}}, {"type": "string"}]
}


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


def _carriers(value: object) -> tuple[str, ...]:
    """``carriers = ["电信", "BGP"]``: each carrier once, in the profile's order."""
    carriers = []
    for word in texts(value):
        carrier = _CARRIER_WORDS.get(word.strip().lower().replace(" ", ""))
        if carrier is None:
            raise bad(Msg("carriers among telecom, unicom, mobile and BGP"), word)
        carriers.append(carrier)
    return tuple(dict.fromkeys(carriers))


def _latencies(value: object) -> tuple[tuple[str, Decimal], ...]:
    """``latency_ms = { "深圳" = 8.5 }``: (city, round-trip ms) pairs, one per city (the last
    of two names of one city), by city: the order the stored document (a JSON object with
    sorted keys) gives back, so a profile reads the same parsed at import or from the catalog."""
    if isinstance(value, tuple):
        return value  # already read (a default)
    if not isinstance(value, dict):
        raise bad(Msg("a table of city = round-trip milliseconds"), value)
    latencies: dict[str, Decimal] = {}
    for city, ms_value in value.items():
        ms = None if isinstance(ms_value, bool) else parse_decimal(ms_value)
        if ms is None or ms <= 0:
            expected = Msg("a positive round-trip time in milliseconds")
            raise bad(expected, ms_value, field=(str(city),))
        latencies[canonical_city(str(city))] = ms
    return tuple(sorted(latencies.items()))


_LATENCY_SCHEMA: dict[str, Any] = {
    "type": "object",
    "additionalProperties": {
        "anyOf": [{"type": "number", "exclusiveMinimum": 0}, {"type": "string"}]
    },
}
Carriers = Annotated[tuple[str, ...], BeforeValidator(_carriers), WithJsonSchema(_TEXTS_SCHEMA)]
Latencies = Annotated[
    tuple[tuple[str, Decimal], ...], BeforeValidator(_latencies), WithJsonSchema(_LATENCY_SCHEMA)
]
