"""A list of offers in memory as an :class:`~comparator.domain.offer_source.OfferSource` (pure).

What httpx's ``MockTransport`` is to its client: the planner asks it what it would ask the
catalog, and it answers from the list, by the same rules as the SQL of
:mod:`comparator.catalog.queries_groups` and :mod:`comparator.catalog.current_offers` (the
same floors, in floats, the same counts). For tests and library callers that hold offers
without a database.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from decimal import Decimal
from typing import Any

from comparator.domain.billing import HOURLY_MODES, PERIOD_HOURS
from comparator.domain.group_list import ListStream
from comparator.domain.offer_filter import GroupSummary, OfferFilter, unfit_kind
from comparator.domain.offer_source import GroupPricing, GroupSummaries, OfferCensus
from comparator.domain.offer_view import OfferView
from comparator.domain.profile import ProviderProfile
from comparator.domain.profile_plan import ProviderTerms, terms_of

GroupKey = tuple[str, str, str, int, str | None, str | None]


def in_places(offer: OfferView, wanted: OfferFilter) -> bool:
    """Whether ``offer``'s data centre is in ``wanted``'s places (any, when it names none)."""
    if not wanted.by_place:
        return True
    if not offer.mainland:
        return False
    if wanted.provinces and offer.province not in wanted.provinces:
        return False
    return not wanted.cities or offer.city in wanted.cities


def kept(offer: OfferView, wanted: OfferFilter) -> bool:
    """Whether ``wanted`` keeps ``offer`` (its places, GPUs and the spot rule)."""
    if wanted.gpus and offer.gpu not in wanted.gpus:
        return False
    if wanted.exclude_spot and offer.billing == "spot":
        return False
    return in_places(offer, wanted)


def _unfit(offer: OfferView, wanted: OfferFilter) -> str | None:
    """Why ``wanted``'s card floors leave ``offer`` out (rule 8), or None."""
    if not wanted.card_floors:
        return None
    o = offer
    return unfit_kind(wanted.card_floors, o.gpu, o.node_cards, o.cards, o.stock, o.network)


def group_key(offer: OfferView) -> GroupKey:
    return (
        offer.provider,
        offer.region,
        offer.gpu,
        offer.node_cards,
        offer.interconnect,
        offer.network,
    )


def _factor(offer: OfferView, pricing: GroupPricing) -> float:
    """``m`` of an offer (see :class:`GroupPricing`), as the catalog computes it in SQL."""
    if offer.billing in HOURLY_MODES:
        return pricing.factors.get(offer.time_of_use, 0.0) if pricing.factors else 0.0
    periods = pricing.periods or {}
    held = {b: max(1, periods.get(b, h)) for b, h in PERIOD_HOURS.items()}
    period = 1.0 / held.get(offer.billing, 1)
    per_runs = float(offer.min_units) / pricing.runs
    return period if period >= per_runs else per_runs


def _least_per_card(offer: OfferView, rates: Mapping[str, float], per_card: float) -> float | None:
    rate = rates.get(offer.currency.upper())
    if rate is None:
        return None
    tax = 1.0 if offer.tax_inclusive else 1.0 + float(offer.vat_rate)
    return float(offer.price) * tax * rate * per_card


def _summary(key: GroupKey, offers: list[OfferView], pricing: GroupPricing) -> GroupSummary:
    fx, currency = pricing.fx, pricing.currency
    rates = {code: float(fx.rate(code, currency)) for code in fx.rates_cny}
    per_cards = [_factor(o, pricing) / o.cards for o in offers]
    least = [_least_per_card(o, rates, m) for o, m in zip(offers, per_cards, strict=True)]
    priced = [v for v in least if v is not None]
    return GroupSummary(
        *key,
        offers=len(offers),
        first_offer_id=min(int(o.offer_id) for o in offers),
        least_per_card=min(priced) if priced else None,
        most_factor_per_card=max(per_cards),
        free_trial=any(o.free_trial_hours for o in offers),
        **_parts(offers, least, rates),
    )


def _parts(
    offers: list[OfferView], least: list[float | None], rates: Mapping[str, float]
) -> dict[str, Any]:
    """The hourly offers' one rule and least floor, the contracts' least price of their
    fewest periods per card and their least floor (as the catalog's ``MIN``/``MAX`` compute
    them)."""
    hourly = [(o, v) for o, v in zip(offers, least, strict=True) if o.billing in HOURLY_MODES]
    rules = {o.time_of_use for o, _ in hourly}
    floors = [v for _, v in hourly if v is not None]
    minima = [
        _least_per_card(o, rates, o.min_units / o.cards)
        for o in offers
        if o.billing not in HOURLY_MODES
    ]
    known = [v for v in minima if v is not None]
    contracts = [v for o, v in zip(offers, least, strict=True) if o.billing not in HOURLY_MODES]
    priced = [v for v in contracts if v is not None]
    return {
        "hourly_rules": (min(rules), max(rules)) if rules else None,
        "least_hourly_per_card": min(floors) if floors else None,
        "least_minimum_per_card": min(known) if known else None,
        "least_contract_per_card": min(priced) if priced else None,
    }


class OfferList:
    """``offers`` (the current ones) and ``profiles`` in memory, asked as the catalog is."""

    def __init__(
        self,
        offers: Iterable[OfferView],
        profiles: Mapping[str, ProviderProfile] | None = None,
    ) -> None:
        self._offers = sorted(offers, key=lambda o: int(o.offer_id))
        self._profiles = dict(profiles or {})

    def profiles(self, providers: Collection[str] | None = None) -> dict[str, ProviderProfile]:
        if providers is None:
            return dict(sorted(self._profiles.items()))
        return {p: self._profiles[p] for p in sorted(providers) if p in self._profiles}

    def provider_terms(self, providers: Collection[str]) -> dict[str, ProviderTerms]:
        return {p: terms_of(self._profiles[p], p) for p in sorted(providers) if p in self._profiles}

    def provider_discounts(self, providers: Collection[str]) -> dict[str, Decimal]:
        profiles = self.profiles(providers)
        return {p: d for p, profile in profiles.items() if (d := profile.discount) is not None}

    def census(self, wanted: OfferFilter) -> OfferCensus:
        unfit: dict[str, int] = {}
        if wanted.card_floors:
            for offer in self.offers(wanted):
                if (kind := _unfit(offer, wanted)) is not None:
                    unfit[kind] = unfit.get(kind, 0) + 1
        places = self.count(wanted) if wanted.by_place else 0
        return OfferCensus(self.rules(wanted), places, unfit)

    def group_stream(
        self, wanted: OfferFilter, pricing: GroupPricing, census: OfferCensus | None = None
    ) -> ListStream:
        unfit = (self.census(wanted) if census is None else census).unfit
        return ListStream(self.summaries(wanted, pricing).groups, unfit)

    def rules(self, wanted: OfferFilter) -> list[str]:
        hourly = {o.time_of_use for o in self.offers(wanted) if o.billing in HOURLY_MODES}
        return sorted(hourly)

    def summaries(self, wanted: OfferFilter, pricing: GroupPricing) -> GroupSummaries:
        groups: dict[GroupKey, list[OfferView]] = {}
        for offer in self.offers(wanted):
            if _unfit(offer, wanted) is None:
                groups.setdefault(group_key(offer), []).append(offer)
        summaries = [_summary(key, offers, pricing) for key, offers in groups.items()]
        places = self.count(wanted) if wanted.by_place else None
        return GroupSummaries(summaries, places)

    def read(self, wanted: OfferFilter, groups: Sequence[GroupSummary]) -> list[OfferView]:
        keys = {tuple(g[:6]) for g in groups}
        return [
            o for o in self.offers(wanted) if group_key(o) in keys and _unfit(o, wanted) is None
        ]

    def offers(self, wanted: OfferFilter) -> list[OfferView]:
        return [o for o in self._offers if kept(o, wanted)]

    def count(self, wanted: OfferFilter | None = None) -> int:
        if wanted is None or not wanted.by_place:
            return len(self._offers)
        return sum(1 for o in self._offers if in_places(o, wanted))
