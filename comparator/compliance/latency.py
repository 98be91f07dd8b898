"""The round-trip time from the job's city to a data centre, and the rule ``max_latency_ms``
(pure). A latency the data centre states to that city is *measured*; otherwise it is
*approximate*, from the great-circle distance (:mod:`comparator.domain.geo`)."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from comparator.compliance.verdicts import FAIL, PASS, Check, check
from comparator.domain.geo import approximate_rtt_ms, great_circle_km, known_city, place_of
from comparator.domain.job_service import ServiceRequirements
from comparator.domain.profile import DataCenter
from comparator.errors import Msg


@dataclass(frozen=True)
class Latency:
    """A round-trip time from ``origin``; ``distance_km`` only on an estimate."""

    origin: str
    rtt_ms: Decimal
    measured: bool
    distance_km: int | None = None
    via: str | None = None  # the place the estimate measured from (a capital for no city)

    @property
    def evidence(self) -> str:
        if self.measured:
            return f"from={self.origin} rtt_ms={self.rtt_ms} measured"
        return (
            f"from={self.origin} to={self.via} distance_km={self.distance_km} "
            f"rtt_ms={self.rtt_ms} approximate"
        )


def latency_to(dc: DataCenter, origin: str) -> Latency | None:
    """The stated latency from ``origin``, else an estimate; None when the place is unknown."""
    measured = dc.network.measured_ms(origin)
    if measured is not None:
        return Latency(origin, measured, True)
    start = place_of(None, known_city(origin))
    there = place_of(dc.province, dc.city) if dc.mainland else None
    if start is None or there is None:
        return None
    km = great_circle_km(start, there)
    return Latency(origin, approximate_rtt_ms(km), False, round(km), there.name)


def latency_check(dc: DataCenter, req: ServiceRequirements) -> Check | None:
    """``max_latency_ms`` from ``latency_from``: fails over the limit or when unknown."""
    if req.max_latency_ms is None or req.latency_from is None:
        return None
    limit, origin = req.max_latency_ms, req.latency_from
    found = latency_to(dc, origin)
    if found is None:
        return check(
            "latency",
            FAIL,
            Msg(
                "job requires ≤ {limit} ms round trip from {origin}; this data centre's latency "
                "is unknown (no measured figure, no place to estimate from)",
                limit=limit,
                origin=origin,
            ),
            f"from={origin} unknown",
        )
    said = Msg(
        "round trip from {origin} {sign}{rtt} ms ({kind})",
        origin=origin,
        sign="" if found.measured else "≈",
        rtt=found.rtt_ms,
        kind=Msg("measured") if found.measured else Msg("approximate"),
    )
    if found.rtt_ms > limit:
        message = Msg("job requires ≤ {limit} ms; {said}", limit=limit, said=said)
        return check("latency", FAIL, message, found.evidence)
    return check(
        "latency", PASS, Msg("{said}, ≤ {limit} ms", said=said, limit=limit), found.evidence
    )
