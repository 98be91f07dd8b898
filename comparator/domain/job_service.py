"""``[requirements]`` on the provider's service and network: own data centre, support hours
and response time, elastic scaling, and the round-trip time from a city (pure)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal

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
