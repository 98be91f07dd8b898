"""The slot grid of a job (whole hours of a provider's time zone) and the price basis that
puts every offer's price in the job's currency, tax-inclusive, after negotiated discounts."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from decimal import Decimal
from functools import lru_cache
from zoneinfo import ZoneInfo

from comparator.domain.calendar import HolidaySupplement
from comparator.domain.money import FxTable
from comparator.domain.offer_view import OfferView

PRICE_PLACES = Decimal("0.0001")
UTC = ZoneInfo("UTC")


@dataclass(frozen=True)
class SlotGrid:
    """Whole-hour slots of one time zone covering the job's window."""

    first: datetime
    deadline_slot: int
    timezone: ZoneInfo
    holidays: HolidaySupplement | None = None  # the calendar its workday/holiday rules read

    def at(self, slot: int) -> datetime:
        return _slot_time(self.first, self.timezone, slot)


@lru_cache(maxsize=16384)
def _slot_time(first: datetime, timezone: ZoneInfo, slot: int) -> datetime:
    """The start of ``slot`` on a grid from ``first`` in ``timezone`` (asked for every card
    count's earliest finish as the walk keys it: each grid's few hundred slots once)."""
    return (first.astimezone(UTC) + timedelta(hours=slot)).astimezone(timezone)


@lru_cache(maxsize=256)
def slot_grid(
    earliest: datetime,
    deadline: datetime,
    timezone: ZoneInfo,
    holidays: HolidaySupplement | None = None,
) -> SlotGrid:
    """Slot 0 = the first whole local hour at or after ``earliest`` (one grid per distinct
    window and zone: every group of a provider's zone shares it)."""
    local = earliest.astimezone(timezone)
    first = local.replace(minute=0, second=0, microsecond=0)
    if first < local:
        first = (first.astimezone(UTC) + timedelta(hours=1)).astimezone(timezone)
    hours = math.floor((deadline - first).total_seconds() / 3600)
    return SlotGrid(first, max(hours, 0), timezone, holidays)


@dataclass(frozen=True)
class PriceBasis:
    """Unit prices in the quote currency, tax-inclusive, after the provider's negotiated
    discount factor (its profile's ``discount``)."""

    currency: str
    fx: FxTable
    discounts: Mapping[str, Decimal] = field(default_factory=dict)

    def unit_price(self, offer: OfferView) -> Decimal | None:
        price = offer.price
        discount = self.discounts.get(offer.provider)
        if discount is not None:
            price = price * discount
        if not offer.tax_inclusive:
            price = price * (1 + offer.vat_rate)
        if offer.currency.upper() != self.currency:
            if not (self.fx.knows(offer.currency) and self.fx.knows(self.currency)):
                return None
            price = self.fx.convert(price, offer.currency, self.currency)
        if price != offer.price:
            price = price.quantize(PRICE_PLACES)
        return price
