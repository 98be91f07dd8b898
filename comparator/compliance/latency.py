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
            f"任务要求距{origin}往返延迟 ≤ {limit} ms；此机房延迟未知（未给出实测值，位置无法估算）",
            f"job requires ≤ {limit} ms round trip from {origin}; this data centre's latency is "
            "unknown (no measured figure, no place to estimate from)",
            f"from={origin} unknown",
        )
    kind_zh = "实测" if found.measured else "估算"
    kind_en = "measured" if found.measured else "approximate"
    sign = "" if found.measured else "≈"
    said_zh = f"距{origin}往返延迟 {sign}{found.rtt_ms} ms（{kind_zh}）"
    said_en = f"round trip from {origin} {sign}{found.rtt_ms} ms ({kind_en})"
    if found.rtt_ms > limit:
        return check(
            "latency",
            FAIL,
            f"任务要求 ≤ {limit} ms；{said_zh}",
            f"job requires ≤ {limit} ms; {said_en}",
            found.evidence,
        )
    return check(
        "latency", PASS, f"{said_zh}，≤ {limit} ms", f"{said_en}, ≤ {limit} ms", found.evidence
    )
