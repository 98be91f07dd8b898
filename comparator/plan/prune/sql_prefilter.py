"""The job's :class:`~comparator.domain.offer_filter.OfferFilter`: what the catalog may leave out.

Each condition mirrors a planner rule that excludes the offer whatever else holds
(docs/planner-pruning.md, rule 1):

* ``[requirements] provinces`` / ``cities`` — the location checks of
  :func:`comparator.compliance.job_rules.location_checks` fail for any data centre that is not a
  mainland one in those provinces / cities;
* ``[requirements] gpus`` and the spot rule — :func:`comparator.plan.screening.requirement_reason`.
"""

from __future__ import annotations

from comparator.domain.job import Job
from comparator.domain.offer_filter import FilteredOffers, OfferFilter
from comparator.domain.provinces import canonical_city
from comparator.errors import Msg


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
