"""The job's :class:`~comparator.domain.offer_filter.OfferFilter`: what the catalog may leave out.

Each condition mirrors a planner rule that excludes the offer whatever else holds
(docs/planner-pruning.md, rule 1):

* ``[requirements] provinces`` / ``cities`` — the location checks of
  :func:`comparator.compliance.job_rules.location_checks` fail for any data centre that is not a
  mainland one in those provinces / cities;
* ``[requirements] gpus`` and the spot rule — :func:`comparator.plan.screening.requirement_reason`;

and, for the grouped reads of the streamed walk, each GPU's card floor (rule 8): an offer whose
stock cannot give the fewest cards the job takes there, or whose node is smaller with no
network, fits no card count of any group (:meth:`comparator.plan.screening.OfferScreen.workable`).
"""

from __future__ import annotations

from collections.abc import Mapping

from comparator.domain.gpus import GPUS
from comparator.domain.job import Job
from comparator.domain.offer_filter import CardFloor, FilteredOffers, OfferFilter
from comparator.domain.provinces import canonical_city
from comparator.errors import JobFileError, Msg
from comparator.plan.candidates import least_cards
from comparator.plan.work import WorkTable, work_table
from comparator.plan.work_hours import node_group

UNFIT_REASONS = {
    "stock": Msg("stock: its stock cannot give the fewest cards the job takes on its GPU"),
    "network": Msg(
        "network: the job takes more cards on its GPU than one of its nodes holds, and it "
        "states no network (IB/RoCE needed)"
    ),
}


def job_offer_filter(job: Job) -> OfferFilter:
    """The offers that can matter to ``job``: those no location or requirement rule excludes."""
    req = job.requirements
    return OfferFilter(
        gpus=tuple(req.gpus),
        provinces=tuple(req.provinces),
        cities=tuple(canonical_city(c.split("-")[-1]) for c in req.cities),
        exclude_spot=not (req.spot and job.schedule.interruptible),
    )


def filtered_reasons(
    offer_filter: OfferFilter, by_place: int, by_offer: int
) -> list[FilteredOffers]:
    """What the catalog left out, by kind: ``by_place`` offers elsewhere, ``by_offer`` others."""
    out = []
    if by_place:
        where = "、".join([*offer_filter.provinces, *offer_filter.cities])
        reason = Msg(
            "location: data centre not in {where} ([requirements] provinces/cities)", where=where
        )
        out.append(FilteredOffers("compliance", reason, by_place))
    if by_offer:
        reason = Msg(
            "requirements: GPU not among [requirements] gpus, or a spot offer the job does not "
            "allow"
        )
        out.append(FilteredOffers("requirements", reason, by_offer))
    return out


def card_floors(table: WorkTable) -> tuple[CardFloor, ...]:
    """Per GPU the job has work on, the fewest cards any of its groups' counts takes (when
    more than one: a floor of one leaves out only offers of no stock, which the planner's
    checks list) and the cards its model-parallel group needs in one machine (rule 8)."""
    return tuple(
        CardFloor(gpu, least, node_group(work.layout))
        for gpu, work in sorted(table.work.items())
        if (least := least_cards(work)) > 1
    )


def job_works(job: Job, headroom: float) -> WorkTable | None:
    """The job's work on every GPU it may use: those of ``[requirements] gpus``, else every
    GPU of the registry (None when the estimator refuses the job: the planner then says why,
    on the catalog's GPUs)."""
    try:
        return work_table(job, job.requirements.gpus or GPUS, headroom=headroom)
    except JobFileError:
        return None


def job_card_floors(job: Job, headroom: float) -> tuple[CardFloor, ...]:
    """The job's card floor per GPU it may use (rule 8)."""
    works = job_works(job, headroom)
    return () if works is None else card_floors(works)


def unfit_reasons(counts: Mapping[str, int]) -> list[FilteredOffers]:
    """The offers the card floors left out (rule 8), counted by why."""
    return [
        FilteredOffers(kind, UNFIT_REASONS[kind], counts[kind])
        for kind in ("stock", "network")
        if counts.get(kind)
    ]
