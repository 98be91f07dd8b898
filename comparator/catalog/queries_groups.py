"""The catalog as the planner's :class:`~comparator.domain.offer_source.OfferSource`: a job's
current offers summarised per group in SQL, and read group by group.

The planner's walk (:mod:`comparator.plan.prune.streamed`) needs, before it reads any offer, one row
per (provider, data centre, GPU, node size, interconnect, network) of the job's offers: how
many, the first offer id and a floor of their prices (``GROUP BY`` in the database); it then
reads the offers of the groups it reaches (docs/planner-pruning.md, rule 5).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Collection, Mapping, Sequence
from typing import Any

from sqlalchemy import Engine, Float, case, cast, func, true, tuple_
from sqlalchemy.sql.elements import ColumnElement

from comparator.catalog.current_offers import (
    count_current,
    current_query,
    job_offers,
    offer_condition,
    stream_offers,
)
from comparator.catalog.queries import OFFER, load_profiles, load_provider_terms
from comparator.domain.billing import HOURLY_MODES, PERIOD_HOURS
from comparator.domain.offer_filter import GroupSummary, OfferFilter
from comparator.domain.offer_source import GroupPricing, GroupSummaries
from comparator.domain.offer_view import OfferView
from comparator.domain.profile import ProviderProfile
from comparator.domain.profile_plan import ProviderTerms

READ_CHUNK = 200  # groups per IN list


class CatalogGroups:
    """The current offers and provider profiles behind ``engine``, as the planner asks for them
    (:class:`~comparator.domain.offer_source.OfferSource`)."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    def profiles(self, providers: Collection[str] | None = None) -> dict[str, ProviderProfile]:
        return load_profiles(self.engine, providers)

    def provider_terms(self, providers: Collection[str]) -> dict[str, ProviderTerms]:
        return load_provider_terms(self.engine, providers)

    def offers(self, wanted: OfferFilter) -> list[OfferView]:
        return job_offers(self.engine, wanted)

    def count(self, wanted: OfferFilter | None = None) -> int:
        return count_current(self.engine, wanted)

    def rules(self, wanted: OfferFilter) -> list[str]:
        """The distinct time-of-use rules of the job's hourly offers."""
        query = current_query(wanted, columns=(OFFER.c.time_of_use,))
        query = query.where(OFFER.c.billing.in_(HOURLY_MODES)).distinct()
        with self.engine.connect() as conn:
            return sorted(str(r) for r in conn.execute(query).scalars())

    def _factor(
        self, factors: Mapping[str, float], runs: int, periods: Mapping[str, int] | None
    ) -> ColumnElement[Any]:
        """``m`` of an offer: its rule's least factor (hourly; 0 for a rule not given) or
        ``max(1/M, min_units/runs)`` (contracts; ``M`` the run slots one period can hold, per
        billing mode in ``periods``, else the period)."""
        hourly = case(factors, value=OFFER.c.time_of_use, else_=0.0) if factors else 0.0
        held = {b: max(1, (periods or {}).get(b, h)) for b, h in PERIOD_HOURS.items()}
        period = 1.0 / case(held, value=OFFER.c.billing, else_=1)
        per_runs = cast(OFFER.c.min_units, Float) / runs
        contract = case((period >= per_runs, period), else_=per_runs)
        return case((OFFER.c.billing.in_(HOURLY_MODES), hourly), else_=contract)

    def _own_runs(
        self, priced: ColumnElement[Any], factor: ColumnElement[Any]
    ) -> tuple[ColumnElement[Any], ...]:
        """What rule 7 reads of a group (before the job's condition): the least and greatest
        rule of its hourly offers (in code-point order on both databases), their least floor
        per card, and its contracts' least price of their fewest periods per card."""
        hourly = OFFER.c.billing.in_(HOURLY_MODES)
        rule: ColumnElement[Any] = OFFER.c.time_of_use
        if self.engine.dialect.name == "postgresql":
            rule = rule.collate("C")
        least_minimum = priced * cast(OFFER.c.min_units, Float)
        return (
            case((hourly, rule)),
            case((hourly, rule)),
            case((hourly, priced * factor)),
            case((hourly, None), else_=least_minimum),
        )

    def summaries(self, wanted: OfferFilter, pricing: GroupPricing) -> GroupSummaries:
        """One row per group of the job's offers (``wanted`` keeps them), floored by
        ``pricing``, and how many offers the filter's places hold (the job's or not: one scan
        for both)."""
        fx, currency = pricing.fx, pricing.currency
        rates = {code: float(fx.rate(code, currency)) for code in fx.rates_cny}
        rate = case(rates, value=func.upper(OFFER.c.currency), else_=None)
        tax = case((OFFER.c.tax_inclusive, 1.0), else_=1.0 + cast(OFFER.c.vat_rate, Float))
        factor = self._factor(pricing.factors, pricing.runs, pricing.periods)
        per_card = factor / OFFER.c.cards
        keys = (
            OFFER.c.provider,
            OFFER.c.region,
            OFFER.c.gpu,
            OFFER.c.node_cards,
            OFFER.c.interconnect,
            OFFER.c.network,
        )
        places = wanted
        job: ColumnElement[bool] = true()
        if places.by_place:  # the places' other offers too (NULL in the job's aggregates)
            job = offer_condition(places)
            places = dataclasses.replace(places, gpus=(), exclude_spot=False)

        def of_job(value: ColumnElement[Any]) -> ColumnElement[Any]:
            return case((job, value), else_=None)

        columns: tuple[ColumnElement[Any], ...] = (
            *keys,
            func.count(of_job(OFFER.c.id)),
            func.min(of_job(OFFER.c.id)),
            func.min(of_job(cast(OFFER.c.price, Float) * tax * rate * per_card)),
            func.max(of_job(per_card)),
            func.max(of_job(OFFER.c.free_trial_hours)),
            func.count(OFFER.c.id),
        )
        if pricing.own_runs:  # the floors on each group's own run slots (rule 7)
            priced = cast(OFFER.c.price, Float) * tax * rate / OFFER.c.cards
            least, greatest, hourly, minimum = self._own_runs(priced, factor)
            columns += (
                func.min(of_job(least)),
                func.max(of_job(greatest)),
                func.min(of_job(hourly)),
                func.min(of_job(minimum)),
            )
        query = current_query(places, columns=columns).group_by(*keys)
        with self.engine.connect() as conn:
            rows = conn.execute(query).all()
        groups = [_summary_of(r) for r in rows if r[6]]  # the drivers give ints, strs, floats
        in_places = sum(int(r[11]) for r in rows) if places is not wanted else None
        return GroupSummaries(groups, in_places)

    def read(self, wanted: OfferFilter, groups: Sequence[GroupSummary]) -> list[OfferView]:
        """The job's offers of ``groups``, by offer id."""
        keys = {
            (g.provider, g.region, g.gpu, g.node_cards, g.interconnect, g.network) for g in groups
        }
        machines = sorted({key[:4] for key in keys})
        columns = (OFFER.c.provider, OFFER.c.region, OFFER.c.gpu, OFFER.c.node_cards)
        out: list[OfferView] = []
        with self.engine.connect() as conn:
            for start in range(0, len(machines), READ_CHUNK):
                chunk = machines[start : start + READ_CHUNK]
                providers = sorted({m[0] for m in chunk})  # their current snapshots only
                query = current_query(wanted, providers=providers)
                query = query.where(tuple_(*columns).in_(chunk))
                out += (
                    o
                    for o in stream_offers(conn, query)
                    if (o.provider, o.region, o.gpu, o.node_cards, o.interconnect, o.network)
                    in keys
                )
        out.sort(key=lambda o: int(o.offer_id))
        return out


def _summary_of(r: Any) -> GroupSummary:
    """One row of :meth:`CatalogGroups.summaries`' query as a summary."""
    return GroupSummary(
        r[0],
        r[1],
        r[2],
        r[3],
        r[4],
        r[5],
        r[6],
        r[7],
        r[8],
        r[9] or 0.0,
        bool(r[10]),
        *_own_runs(r),
    )


def _own_runs(row: Any) -> tuple[Any, ...]:
    """A summary's hourly rules (least, greatest), least hourly floor and least contract
    minimum, when the row has them."""
    if len(row) < 16:
        return (None, None, None)
    return (None if row[12] is None else (row[12], row[13]), row[14], row[15])
