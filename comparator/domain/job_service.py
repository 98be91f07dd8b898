"""``[requirements]`` on the provider's service and network: own data centre, support hours
and response time, elastic scaling, and the round-trip time from a city (pure)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from comparator.domain.geo import CITY_COORDINATES, known_city
from comparator.domain.job_fields import FieldReader
from comparator.errors import Msg

SERVICE_REQUIREMENT_KEYS = (
    "own_datacenter",
    "support",
    "max_support_response_minutes",
    "elastic_scaling",
    "max_latency_ms",
    "latency_from",
)
_ROUND_THE_CLOCK = re.compile(r"^(7\s*[x×*]\s*24|24\s*[x×*/]\s*7|24/7|全天候|全年无休)$", re.I)


def support_hours(text: str | None) -> str | None:
    """``"7x24"`` for every way of writing round-the-clock support, else the text as given."""
    if text is None:
        return None
    cleaned = text.strip()
    return "7x24" if _ROUND_THE_CLOCK.match(cleaned) else cleaned


@dataclass(frozen=True)
class ServiceRequirements:
    """What the job asks of the provider's service; ``None``/``False``: nothing asked."""

    own_datacenter: bool = False
    support: str | None = None  # "7x24"
    max_support_response_minutes: int | None = None
    elastic_scaling: bool = False
    max_latency_ms: Decimal | None = None
    latency_from: str | None = None  # a city of geo.CITY_COORDINATES

    @property
    def any(self) -> bool:
        return any(
            (
                self.own_datacenter,
                self.support,
                self.max_support_response_minutes is not None,
                self.elastic_scaling,
            )
        )


def service_requirements(
    reader: FieldReader, data: Mapping[str, Any], where: str
) -> ServiceRequirements:
    support = support_hours(reader.text(data, "support", where))
    if support is not None and support != "7x24":
        raise reader.fail(where + "support", '"7x24" (round-the-clock support)', support)
    latency = reader.positive(data, "max_latency_ms", where)
    origin = reader.text(data, "latency_from", where)
    city = known_city(origin) if origin else None
    if origin is not None and city is None:
        names = Msg("a city such as {names}", names="、".join(list(CITY_COORDINATES)[:8]) + "…")
        raise reader.fail(where + "latency_from", names, origin)
    if latency is not None and city is None:
        raise reader.fail(where + "latency_from", "the city max_latency_ms is measured from")
    return ServiceRequirements(
        own_datacenter=reader.flag(data, "own_datacenter", where, False),
        support=support,
        max_support_response_minutes=reader.whole(data, "max_support_response_minutes", where, 1),
        elastic_scaling=reader.flag(data, "elastic_scaling", where, False),
        max_latency_ms=latency,
        latency_from=city,
    )
