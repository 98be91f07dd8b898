"""What a plan says beside its schedule: the bill's gaps (no ``[data]``) and the best
placement's network round trip from the job's city, with the upload time (pure)."""

from __future__ import annotations

from collections.abc import Sequence
from decimal import Decimal
from typing import Any, Protocol

from comparator.compliance import ProviderReport
from comparator.errors import Msg


class _Line(Protocol):
    @property
    def kind(self) -> str: ...
    @property
    def quantity(self) -> Decimal: ...


class Placed(Protocol):
    """What this module reads of a plan (:class:`comparator.plan.result.Plan`)."""

    @property
    def provider(self) -> str: ...
    @property
    def region(self) -> str: ...
    @property
    def bill(self) -> Sequence[_Line]: ...


NO_DATA_NOTE = Msg("storage, upload and egress not included: add `[data]`")


def plan_notes(assumptions: dict[str, Any]) -> list[Msg]:
    """Notes of the whole plan: a job without ``[data]`` leaves the data bill out."""
    return [NO_DATA_NOTE] if assumptions.get("data_included") is False else []


def best_latency(
    best: Placed | None, reports: Sequence[ProviderReport], lang: str
) -> dict[str, Any] | None:
    """The best placement's latency check (``max_latency_ms``), its figure, whether it was
    measured, and the upload time of the dataset over the data centre's bandwidth."""
    if best is None:
        return None
    report = next((r for r in reports if r.provider == best.provider), None)
    place = report.datacenter(best.region) if report else None
    found = next((c for c in place.checks if c.id == "latency"), None) if place else None
    if found is None:
        return None
    facts = dict(t.split("=", 1) for t in found.evidence.split() if "=" in t)
    upload = next((line for line in best.bill if line.kind == "upload"), None)
    rtt = facts.get("rtt_ms")
    return {
        "from": facts.get("from"),
        "rtt_ms": None if rtt is None else str(Decimal(rtt)),
        "measured": found.evidence.endswith(" measured"),
        "status": found.status,
        "message": found.message(lang),
        "upload_hours": None if upload is None else str(upload.quantity),
    }
