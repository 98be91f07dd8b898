"""What compliance checks produce: one verdict per check, grouped per provider and data centre."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from comparator.domain.offer_view import OfferView
from comparator.errors import Msg
from comparator.i18n import render

PASS, WARN, FAIL = "pass", "warn", "fail"
_RANK = {PASS: 0, WARN: 1, FAIL: 2}


def worst(statuses: Iterable[str]) -> str:
    """The worst of some statuses (``pass`` when there are none)."""
    return max(statuses, key=_RANK.__getitem__, default=PASS)


@dataclass(frozen=True)
class Check:
    """One rule's verdict with its reason (a message of the catalogue, its Chinese in
    :mod:`comparator.i18n.messages_compliance`) and the evidence it looked at."""

    id: str
    status: str
    reason_msg: Msg
    evidence: str = ""

    def message(self, lang: str = "zh") -> str:
        return render(self.reason_msg, lang)

    @property
    def message_zh(self) -> str:
        return self.message("zh")

    @property
    def message_en(self) -> str:
        return self.message("en")

    def reason(self, lang: str = "zh") -> str:
        """``id: message [evidence]`` — one line for an exclusion table."""
        evidence = f" [{self.evidence}]" if self.evidence else ""
        return f"{self.id}: {self.message(lang)}{evidence}"

    def to_json(self, lang: str = "zh") -> dict[str, Any]:
        return {
            "id": self.id,
            "status": self.status,
            "message": self.message(lang),
            "message_zh": self.message_zh,
            "message_en": self.message_en,
            "evidence": self.evidence,
        }


def check(id_: str, status: str, reason: Msg, evidence: object = "") -> Check:
    return Check(id_, status, reason, "" if evidence is None else str(evidence))


@dataclass(frozen=True)
class DatacenterReport:
    id: str
    name: str
    checks: tuple[Check, ...]

    @property
    def status(self) -> str:
        return worst(c.status for c in self.checks)

    def to_json(self, lang: str = "zh") -> dict[str, Any]:
        return {
            "id": self.id,
            "name": self.name,
            "status": self.status,
            "checks": [c.to_json(lang) for c in self.checks],
        }


@dataclass(frozen=True)
class ProviderReport:
    """A provider's own checks and its data centres'; status is the worst of them all."""

    provider: str
    name: str
    checks: tuple[Check, ...]
    datacenters: tuple[DatacenterReport, ...]

    @property
    def status(self) -> str:
        return worst([c.status for c in self.checks] + [d.status for d in self.datacenters])

    def datacenter(self, datacenter_id: str) -> DatacenterReport | None:
        return next((d for d in self.datacenters if d.id == datacenter_id), None)

    def failures_for(self, datacenter_id: str) -> list[Check]:
        """Fail-level checks that stop offers in one data centre (the provider's own included)."""
        report = self.datacenter(datacenter_id)
        own = [c for c in self.checks if c.status == FAIL]
        return own + ([c for c in report.checks if c.status == FAIL] if report else [])

    def to_json(self, lang: str = "zh") -> dict[str, Any]:
        return {
            "provider": self.provider,
            "name": self.name,
            "status": self.status,
            "checks": [c.to_json(lang) for c in self.checks],
            "datacenters": [d.to_json(lang) for d in self.datacenters],
        }


@dataclass(frozen=True)
class Exclusion:
    """An offer that fails a fail-level check; ``reasons`` are one line per failing check."""

    offer: OfferView
    reasons: list[str]
    checks: list[Check] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {
            "provider": self.offer.provider,
            "offer_id": self.offer.offer_id,
            "region": self.offer.region,
            "reasons": list(self.reasons),
        }


@dataclass(frozen=True)
class Eligibility:
    """Offers that pass every fail-level check, the excluded ones, and warnings per offer id."""

    eligible: list[OfferView]
    excluded: list[Exclusion]
    warnings: dict[str, list[str]] = field(default_factory=dict)
    reports: dict[str, ProviderReport] = field(default_factory=dict)  # provider id → report

    @property
    def eligible_ids(self) -> list[str]:
        return [offer.offer_id for offer in self.eligible]
