"""The offers a job may use: compliance, the job's requirements, its price cap, and work on
the offer's GPU; every offer left out is kept with its reasons (pure)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from decimal import Decimal

from comparator.compliance.engine import evaluate_offers
from comparator.compliance.model import ProviderReport
from comparator.domain.job import Job
from comparator.domain.offer_view import OfferView
from comparator.domain.policy import JobPolicy
from comparator.domain.profile import ProviderProfile
from comparator.i18n import is_en
from comparator.plan.candidates import (
    CandidateSet,
)
from comparator.plan.context import PlanContext
from comparator.plan.grid import PriceBasis
from comparator.plan.result import ExcludedOffer
from comparator.plan.work import WorkTable


def exclusion(offer: OfferView, kind: str, reasons: Sequence[str]) -> ExcludedOffer:
    return ExcludedOffer(
        offer.provider, offer.offer_id, offer.region, offer.gpu, offer.billing, tuple(reasons), kind
    )


def _kind_of(reason: str) -> str:
    head = reason.split(":", 1)[0].strip()
    return {"time of use": "time-of-use"}.get(head, head)


def requirement_reason(job: Job, offer: OfferView, lang: str) -> str | None:
    req = job.requirements
    if req.gpus and offer.gpu not in req.gpus:
        allowed = ", ".join(req.gpus)
        if not is_en(lang):
            return f"requirements: 卡型 {offer.gpu} 不在 [requirements] gpus（{allowed}）之内"
        return f"requirements: GPU {offer.gpu} is not among [requirements] gpus ({allowed})"
    if offer.billing == "spot" and not (req.spot and job.schedule.interruptible):
        if not is_en(lang):
            return (
                "requirements: 竞价实例可能被抢占；任务须设 spot = true 且 "
                "interruptible = true 才能使用"
            )
        return (
            "requirements: spot offers may be pre-empted; the job needs spot = true and "
            "interruptible = true to use them"
        )
    return None


class OfferFilter:
    """Offers pass compliance, then the job's GPU/spot rules, then need work on their GPU."""

    def __init__(self, job: Job, context: PlanContext) -> None:
        self.job = job
        self.context = context
        self.policy = JobPolicy.of(job, timezone=context.timezone, today=context.today)
        self.excluded: list[ExcludedOffer] = []
        self.warnings: dict[str, list[str]] = {}
        self.reports: tuple[ProviderReport, ...] = ()

    def compliant(
        self, offers: Sequence[OfferView], profiles: Mapping[str, ProviderProfile]
    ) -> list[OfferView]:
        eligibility = evaluate_offers(
            offers,
            profiles,
            self.policy.requirements,
            today=self.policy.today,
            last_day=self.policy.last_day,
            freshness_days=self.context.freshness_days,
            lang=self.context.lang,
        )
        self.excluded += [exclusion(e.offer, "compliance", e.reasons) for e in eligibility.excluded]
        self.warnings = dict(eligibility.warnings)
        self.reports = tuple(eligibility.reports[pid] for pid in sorted(eligibility.reports))
        return list(eligibility.eligible)

    def allowed(self, offers: Sequence[OfferView]) -> list[OfferView]:
        kept = []
        for offer in offers:
            reason = requirement_reason(self.job, offer, self.context.lang)
            if reason:
                self.excluded.append(exclusion(offer, "requirements", [reason]))
            else:
                kept.append(offer)
        return kept

    def affordable(self, offers: Sequence[OfferView], basis: PriceBasis) -> list[OfferView]:
        """``[budget] max_price_per_card_hour``: offers above it (tax-inclusive, after the
        discount, before time of use) are excluded."""
        limit = self.job.max_price_per_card_hour
        if limit is None:
            return list(offers)
        kept = []
        for offer in offers:
            price = basis.unit_price(offer)
            per_card_hour = None if price is None else price / (offer.cards * offer.period_hours)
            if per_card_hour is not None and per_card_hour > limit:
                shown = per_card_hour.quantize(Decimal("0.0001"))
                reason = (
                    f"budget: 每卡时 {shown} {self.job.currency}，高于 [budget] "
                    f"max_price_per_card_hour {limit}"
                    if not is_en(self.context.lang)
                    else f"budget: {shown} {self.job.currency} per card-hour, above [budget] "
                    f"max_price_per_card_hour {limit}"
                )
                self.excluded.append(exclusion(offer, "price", [reason]))
            else:
                kept.append(offer)
        return kept

    def workable(self, offers: Sequence[OfferView], table: WorkTable) -> list[OfferView]:
        kept = []
        for offer in offers:
            if offer.gpu in table.work:
                kept.append(offer)
            elif offer.gpu in table.unusable:
                kind, reason = table.unusable[offer.gpu]
                self.excluded.append(exclusion(offer, kind, [reason]))
        return kept

    def unschedulable(
        self, offers: Sequence[OfferView], built: CandidateSet, used: set[str] | None = None
    ) -> None:
        if used is None:
            used = {offer_id for c in built.candidates for offer_id in c.offers}
        by_id = {o.offer_id: o for o in offers}
        for offer_id, reasons in built.reasons.items():
            if offer_id not in used and offer_id in by_id:
                self.excluded.append(exclusion(by_id[offer_id], _kind_of(reasons[0]), reasons))
