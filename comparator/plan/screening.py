"""The offers a job may use: compliance, the job's requirements, its price cap, and work on
the offer's GPU; every offer left out is kept with its reasons (pure)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from decimal import Decimal

from comparator.compliance.engine import evaluate_offers, judge_offers, provider_reports
from comparator.compliance.verdicts import Check, ProviderReport
from comparator.domain.job import Job
from comparator.domain.offer_view import OfferView
from comparator.domain.policy import JobPolicy
from comparator.domain.profile import ProviderProfile
from comparator.errors import Msg
from comparator.i18n import Bilingual
from comparator.plan.candidates import (
    CandidateSet,
    GpuWork,
    fits,
    least_cards,
)
from comparator.plan.context import PlanContext
from comparator.plan.dp.grid import PriceBasis
from comparator.plan.figures import layout_msg
from comparator.plan.result import ExcludedOffer
from comparator.plan.work import WorkTable
from comparator.plan.work_hours import node_group


def exclusion(offer: OfferView, kind: str, reasons: Sequence[Msg]) -> ExcludedOffer:
    return ExcludedOffer(
        offer.provider, offer.offer_id, offer.region, offer.gpu, offer.billing, tuple(reasons), kind
    )


def _kind_of(reason: Msg) -> str:
    head = reason.text.split(":", 1)[0].strip()
    return {"time of use": "time-of-use"}.get(head, head)


def requirement_reason(job: Job, offer: OfferView) -> Msg | None:
    req = job.requirements
    if req.gpus and offer.gpu not in req.gpus:
        return Msg(
            "requirements: GPU {gpu} is not among [requirements] gpus ({allowed})",
            gpu=offer.gpu,
            allowed=", ".join(req.gpus),
        )
    if offer.billing == "spot" and not (req.spot and job.schedule.interruptible):
        return Msg(
            "requirements: spot offers may be pre-empted; the job needs spot = true and "
            "interruptible = true to use them"
        )
    return None


def _check_reasons(failures: Sequence[Check]) -> list[Msg]:
    """A compliance exclusion's reasons, each check's message in both languages."""
    return [
        Msg(
            "{check}: {message}{evidence}",
            check=c.id,
            message=Bilingual(c.message_en, c.message_zh),
            evidence=f" [{c.evidence}]" if c.evidence else "",
        )
        for c in failures
    ]


class OfferScreen:
    """Offers pass compliance, then the job's GPU/spot rules, then need work on their GPU."""

    def __init__(self, job: Job, context: PlanContext) -> None:
        self.job = job
        self.context = context
        self.policy = JobPolicy.of(job, timezone=context.timezone, today=context.today)
        self.excluded: list[ExcludedOffer] = []
        self.warnings: dict[str, list[str]] = {}
        self.reports: tuple[ProviderReport, ...] = ()

    def compliant(
        self,
        offers: Sequence[OfferView],
        profiles: Mapping[str, ProviderProfile],
        known: dict[str, ProviderReport] | None = None,
    ) -> list[OfferView]:
        """The offers that pass compliance; ``known``: reports already made of providers (on
        other offers), reused where they cover the offers' data centres and completed here
        (the streamed walk checks each provider once, not once per batch it reads)."""
        if known is None:
            eligibility = evaluate_offers(
                offers,
                profiles,
                self.policy.requirements,
                today=self.policy.today,
                last_day=self.policy.last_day,
                freshness_days=self.context.freshness_days,
                lang=self.context.lang,
            )
        else:
            eligibility = judge_offers(
                offers,
                self._reports(offers, profiles, known),
                today=self.policy.today,
                freshness_days=self.context.freshness_days,
                lang=self.context.lang,
            )
        said: dict[int, list[Msg]] = {}  # offers of one data centre share their failures
        for e in eligibility.excluded:
            reasons = said.get(id(e.checks))
            if reasons is None:
                reasons = said[id(e.checks)] = _check_reasons(e.checks)
            self.excluded.append(exclusion(e.offer, "compliance", reasons))
        self.warnings = dict(eligibility.warnings)
        self.reports = tuple(eligibility.reports[pid] for pid in sorted(eligibility.reports))
        return list(eligibility.eligible)

    def _reports(
        self,
        offers: Sequence[OfferView],
        profiles: Mapping[str, ProviderProfile],
        known: dict[str, ProviderReport],
    ) -> dict[str, ProviderReport]:
        """The reports of the providers of ``offers``: from ``known`` where its report lists
        each of their data centres (a verdict reads only the profile, the job and the day:
        a data centre's price age only warns), else made on these offers (into ``known``)."""
        missing = {
            o.provider
            for o in offers
            if (report := known.get(o.provider)) is None or report.datacenter(o.region) is None
        }
        if missing:
            known.update(
                provider_reports(
                    [o for o in offers if o.provider in missing],
                    {p: profiles[p] for p in missing if p in profiles},
                    self.policy.requirements,
                    today=self.policy.today,
                    last_day=self.policy.last_day,
                    freshness_days=self.context.freshness_days,
                )
            )
        return {p: known[p] for p in {o.provider for o in offers}}

    def allowed(self, offers: Sequence[OfferView]) -> list[OfferView]:
        kept = []
        for offer in offers:
            reason = requirement_reason(self.job, offer)
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
                reason = Msg(
                    "budget: {price} {currency} per card-hour, above [budget] "
                    "max_price_per_card_hour {limit}",
                    price=str(shown),
                    currency=self.job.currency,
                    limit=str(limit),
                )
                self.excluded.append(exclusion(offer, "price", [reason]))
            else:
                kept.append(offer)
        return kept

    def workable(self, offers: Sequence[OfferView], table: WorkTable) -> list[OfferView]:
        kept = []
        for offer in offers:
            work = table.work.get(offer.gpu)
            if work is not None and offer.node_cards < node_group(work.layout):
                self.excluded.append(exclusion(offer, "memory", [_layout_reason(offer, work)]))
            elif work is not None and (why := fits(offer, least_cards(work))) is not None:
                # it fits no card count of any group (rule 8): stock or network
                self.excluded.append(exclusion(offer, _kind_of(why), [why]))
            elif work is not None:
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


def _layout_reason(offer: OfferView, work: GpuWork) -> Msg:
    """Why an offer's machines are too small for the job's model-parallel layout."""
    assert work.layout is not None
    tp, cp, pp = work.layout
    return Msg(
        "memory: data parallelism cannot hold the job on {gpu}; the layout that fits "
        "({layout}) needs {group} cards in one machine, this offer's machines have {node_cards}",
        gpu=offer.gpu,
        layout=layout_msg(tp, cp, pp, work.min_cards),
        group=node_group(work.layout),
        node_cards=offer.node_cards,
    )
