"""Offers ranked for `suanli offers`: cheapest per card-hour in the quote currency first."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any
from zoneinfo import ZoneInfo

from sqlalchemy import Engine

from comparator.catalog.current_offers import (
    approximate_card_hour_price,
    current_offers,
    ranking_keys,
)
from comparator.catalog.queries import offers_by_id
from comparator.config import Settings
from comparator.domain.money import FxTable, money_str
from comparator.domain.offer_filter import OfferFilter
from comparator.domain.offer_view import OfferView


@dataclass(frozen=True)
class OfferRow:
    offer: OfferView
    card_hour_quote: Decimal | None  # per card-hour in the quote currency; None without FX rate
    quote_currency: str

    def to_json(self, zone: ZoneInfo) -> dict[str, Any]:
        o = self.offer
        return {
            "offer_id": o.offer_id,
            "provider": o.provider,
            "provider_name": o.provider_name,
            "region": o.region,
            "region_name": o.region_name,
            "country": o.country,
            "province": o.province,
            "city": o.city,
            "gpu": o.gpu,
            "cards": o.cards,
            "node_cards": o.node_cards,
            "billing": o.billing,
            "price": str(o.price),
            "currency": o.currency,
            "card_hour_price": money_str(o.card_hour_price),
            "card_hour_price_quote": None
            if self.card_hour_quote is None
            else money_str(self.card_hour_quote),
            "quote_currency": self.quote_currency,
            "time_of_use": o.time_of_use,
            "stock": o.stock,
            "min_units": o.min_units,
            "interconnect": o.interconnect,
            "network": o.network,
            "tax_inclusive": o.tax_inclusive,
            "sku": o.sku,
            "observed_at": o.observed_at.astimezone(zone).isoformat(),
            "snapshot_id": o.snapshot_id,
        }

    def cells(self) -> list[str]:
        """Cells of the `offers` table, in the order of its headers."""
        o = self.offer
        place = " ".join(x for x in (o.province or o.country, o.city) if x)
        quote = "?" if self.card_hour_quote is None else money_str(self.card_hour_quote)
        return [
            o.offer_id,
            f"{o.provider}\n{o.region}",
            place,
            f"{o.gpu}×{o.cards}",
            o.billing,
            f"{o.price} {o.currency}",
            quote,
            o.time_of_use,
            "∞" if o.stock is None else str(o.stock),
        ]


def fx_table(settings: Settings) -> FxTable:
    return FxTable(settings.fx_rates, settings.fx_date)


def rank_offers(
    offers: Sequence[OfferView], settings: Settings
) -> tuple[list[OfferRow], list[str]]:
    """Offers cheapest per card-hour first (ties: provider, offer id), and unknown currencies."""
    fx = fx_table(settings)
    quote = settings.currency
    rows = [
        OfferRow(
            o,
            fx.convert(o.card_hour_price, o.currency, quote) if fx.knows(o.currency) else None,
            quote,
        )
        for o in offers
    ]
    rows.sort(
        key=lambda r: (
            r.card_hour_quote is None,
            r.card_hour_quote or 0,
            r.offer.provider,
            int(r.offer.offer_id),
        )
    )
    unpriced = sorted({r.offer.currency for r in rows if r.card_hour_quote is None})
    return rows, unpriced


@dataclass(frozen=True)
class TopOffers:
    """The first ``limit`` offers of :func:`rank_offers`, how many matched, and the currencies
    without an FX rate among them."""

    rows: list[OfferRow]
    total: int
    unpriced: list[str]


def top_offers(
    engine: Engine,
    settings: Settings,
    limit: int,
    *,
    gpu: str | None = None,
    provider: str | None = None,
    province: str | None = None,
    billing: str | None = None,
) -> TopOffers:
    """``rank_offers(current_offers(...))[:limit]`` without reading every matching offer.

    The database computes each offer's card-hour price as a float (relative error below
    1e-15, FX included); only offers whose float is within 1e-9 of the ``limit``-th smallest
    are read and ranked exactly. Every offer of the exact top ``limit`` is among them: its
    float is at most ``(1 + 1e-15)`` times the ``limit``-th exact price, which is at most
    ``(1 + 1e-15) / (1 - 1e-15)`` times the ``limit``-th float. With fewer priced offers than
    ``limit``, every matching offer is ranked."""
    fx = fx_table(settings)
    wanted = OfferFilter(
        gpus=() if gpu is None else (gpu,), provinces=() if province is None else (province,)
    )
    key = approximate_card_hour_price(fx, settings.currency)
    keyed = ranking_keys(engine, wanted, key, provider=provider, billing=billing)
    unpriced = sorted({currency for _, k, currency in keyed if k is None})
    priced = sorted(k for _, k, _ in keyed if k is not None)
    if len(priced) < limit:
        filters = {"gpu": gpu, "province": province, "billing": billing}
        rows, _ = rank_offers(current_offers(engine, provider=provider, **filters), settings)
        return TopOffers(rows[:limit], len(keyed), unpriced)
    cut = priced[limit - 1] * (1 + 1e-9) + 1e-12
    ids = sorted(i for i, k, _ in keyed if k is not None and k <= cut)
    rows, _ = rank_offers(offers_by_id(engine, ids), settings)
    return TopOffers(rows[:limit], len(keyed), unpriced)
