"""Offers ranked for `suanli offers`: cheapest per card-hour in the quote currency first."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any
from zoneinfo import ZoneInfo

from comparator.config import Settings
from comparator.domain.money import FxTable, money_str
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
