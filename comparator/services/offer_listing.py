"""`suanli offers`: the listing filtered and ranked by the database, judged place by place.

A verdict depends only on the offer's provider, data centre and when its price was read (the
default policy's checks, rule 9's age), and a job's eligibility on the provider and data centre
(the fail-level checks; its GPU and spot requirements are the job's SQL prefilter,
:func:`comparator.plan.job_offer_filter`). So each (provider, data centre, time, currency) of
the matching offers is judged once on its first offer, and the ranked stream keeps the offers
of the places that pass: no command holds every matching offer as an object.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Sequence
from dataclasses import dataclass
from datetime import date, datetime
from itertools import islice
from pathlib import Path

from sqlalchemy import Engine

from comparator.catalog import (
    OfferPlace,
    OfferRow,
    TopOffers,
    current_places,
    listing_filter,
    ranked_rows,
    top_offers,
)
from comparator.catalog.queries import offers_by_id
from comparator.config import Settings
from comparator.domain.money import FxTable
from comparator.domain.offer_filter import OfferFilter
from comparator.domain.offer_view import OfferView
from comparator.services.eligibility import default_verdicts, evaluate_for_job

PlaceKey = tuple[str, str, datetime]  # provider, data centre, observed_at
MAX_EXCLUDED = 1000  # (provider, data centre) pairs a ranking query leaves out by NOT IN


@dataclass
class OfferListing:
    """The ranked offers (a list for a table, a stream for ``--json``), how many matched,
    the currencies without an FX rate, and each listed offer's default verdict."""

    rows: Iterable[OfferRow]
    total: int
    unpriced: list[str]
    verdict: Callable[[OfferView], str | None]


@dataclass(frozen=True)
class ListingQuery:
    """What `suanli offers` asks: canonical filters, the job, the flags, how many to show."""

    gpu: str | None = None
    province: str | None = None
    provider: str | None = None
    billing: str | None = None
    compliant: bool = False
    compliant_for: Path | None = None
    shown: int | None = None  # None: every offer (``--json`` without ``--limit``)


def list_offers(
    engine: Engine, settings: Settings, ask: ListingQuery, *, today: date | None = None
) -> OfferListing:
    """The listing of ``ask``; only the rows shown are read when no compliance flag is set."""
    if ask.shown is not None and not ask.compliant and ask.compliant_for is None:
        top = top_offers(
            engine,
            settings,
            ask.shown,
            gpu=ask.gpu,
            province=ask.province,
            provider=ask.provider,
            billing=ask.billing,
        )
        verdicts = default_verdicts(engine, [row.offer for row in top.rows], settings, today=today)
        return OfferListing(top.rows, top.total, top.unpriced, _by_offer_id(verdicts))
    wanted = _wanted(ask)
    where = {"provider": ask.provider, "billing": ask.billing}
    places = [] if wanted is None else current_places(engine, wanted, **where)
    excluded: set[tuple[str, str]] = set()
    if ask.compliant_for is not None:
        eligible = _eligible_places(engine, places, ask.compliant_for, settings, today)
        excluded = {(p.provider, p.region) for p in places} - eligible
        places = [p for p in places if (p.provider, p.region) in eligible]
    fx = FxTable(settings.fx_rates, settings.fx_date)
    unpriced = sorted({p.currency for p in places if not fx.knows(p.currency)})
    judged = ask.compliant or ask.shown is None
    if not judged and wanted is not None and places and len(excluded) <= MAX_EXCLUDED:
        top = _first_rows(engine, settings, ask, wanted, excluded)  # --compliant-for's
        verdicts = default_verdicts(engine, [row.offer for row in top.rows], settings, today=today)
        return OfferListing(top.rows, top.total, unpriced, _by_offer_id(verdicts))
    by_place = place_verdicts(engine, places, settings, today=today) if judged else {}
    if ask.compliant:
        failing = {(p.provider, p.region) for p in places if by_place[_key_of(p)] == "fail"}
        places = [p for p in places if by_place[_key_of(p)] != "fail"]
        cut = excluded | failing
        mixed = failing & {(p.provider, p.region) for p in places}  # a stale price fails alone
        if ask.shown is not None and wanted is not None and not mixed and len(cut) <= MAX_EXCLUDED:
            top = _first_rows(engine, settings, ask, wanted, cut)  # --compliant's
            total = sum(p.offers for p in places)
            return OfferListing(top.rows, total, unpriced, _by_place(by_place))
    kept = {(p.provider, p.region, p.observed_at, p.currency) for p in places}
    rows: Iterable[OfferRow] = (
        ()
        if wanted is None or not places
        else ranked_rows(engine, settings, wanted, keep=_keeper(kept), **where)
    )
    total = sum(p.offers for p in places)
    if ask.shown is None:
        return OfferListing(rows, total, unpriced, _by_place(by_place))
    listed = list(islice(rows, ask.shown))
    if not judged:
        verdicts = default_verdicts(engine, [row.offer for row in listed], settings, today=today)
        return OfferListing(listed, total, unpriced, _by_offer_id(verdicts))
    return OfferListing(listed, total, unpriced, _by_place(by_place))


def _first_rows(
    engine: Engine,
    settings: Settings,
    ask: ListingQuery,
    wanted: OfferFilter,
    excluded: Collection[tuple[str, str]],
) -> TopOffers:
    """The first rows shown, cut by the database, without the ``excluded`` (provider, data
    centre) pairs."""
    return top_offers(
        engine,
        settings,
        ask.shown or 0,
        provider=ask.provider,
        billing=ask.billing,
        offer_filter=wanted,
        excluded=excluded,
    )


def _wanted(ask: ListingQuery) -> OfferFilter | None:
    """The SQL filter: the options', within the job's prefilter; None when nothing can match."""
    wanted = listing_filter(ask.gpu, ask.province)
    if ask.compliant_for is None:
        return wanted
    from comparator.domain.job import load_job  # the job model (pydantic): --compliant-for
    from comparator.plan import job_offer_filter  # the planner loads only for --compliant-for

    job = job_offer_filter(load_job(ask.compliant_for))
    gpus = _within(wanted.gpus, job.gpus)
    provinces = _within(wanted.provinces, job.provinces)
    if gpus is None or provinces is None:
        return None
    return OfferFilter(gpus, provinces, job.cities, job.exclude_spot)


def _within(option: tuple[str, ...], job: tuple[str, ...]) -> tuple[str, ...] | None:
    """The values both allow (an empty tuple allows any); None when they share none."""
    if not option or not job:
        return option or job
    both = tuple(v for v in job if v in option)
    return both or None


def _eligible_places(
    engine: Engine,
    places: Sequence[OfferPlace],
    job_path: Path,
    settings: Settings,
    today: date | None,
) -> set[tuple[str, str]]:
    """(provider, data centre) of the places whose offers pass the job's fail-level checks."""
    firsts = offers_by_id(engine, [p.first_offer_id for p in places])
    eligible = evaluate_for_job(engine, firsts, job_path, settings, today=today).eligible
    return {(o.provider, o.region) for o in eligible}


def place_verdicts(
    engine: Engine, places: Sequence[OfferPlace], settings: Settings, *, today: date | None = None
) -> dict[PlaceKey, str]:
    """The default policy's verdict of each place's offers, judged on its first offer."""
    firsts = offers_by_id(engine, [p.first_offer_id for p in places])
    verdicts = default_verdicts(engine, firsts, settings, today=today)
    return {(o.provider, o.region, o.observed_at): verdicts[o.offer_id] for o in firsts}


def _key_of(place: OfferPlace) -> PlaceKey:
    return (place.provider, place.region, place.observed_at)


def _keeper(kept: set[tuple[str, str, datetime, str]]) -> Callable[[OfferView], bool]:
    def keep(o: OfferView) -> bool:
        return (o.provider, o.region, o.observed_at, o.currency) in kept

    return keep


def _by_offer_id(verdicts: dict[str, str]) -> Callable[[OfferView], str | None]:
    return lambda o: verdicts.get(o.offer_id)


def _by_place(verdicts: dict[PlaceKey, str]) -> Callable[[OfferView], str | None]:
    return lambda o: verdicts.get((o.provider, o.region, o.observed_at))
