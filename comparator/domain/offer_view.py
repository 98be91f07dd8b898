"""The plain offer the pure core consumes: an offer of a current snapshot with its place.

Kept apart from the SQLModel tables so that ``compliance``, ``plan`` and ``verify`` never load
the database stack.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal

from comparator.domain.billing import PERIOD_HOURS


@dataclass(frozen=True)
class OfferView:
    """A current offer joined with its data centre: what compliance and the planner consume."""

    offer_id: str
    snapshot_id: str
    provider: str
    provider_name: str
    region: str
    region_name: str
    country: str
    province: str | None
    city: str | None
    mainland: bool
    gpu: str
    cards: int
    node_cards: int
    billing: str
    price: Decimal
    currency: str
    time_of_use: str
    stock: int | None
    min_units: int
    interconnect: str | None
    network: str | None
    tax_inclusive: bool
    vat_rate: Decimal
    observed_at: datetime
    source: str
    sku: str = ""
    free_trial_hours: int = 0

    @property
    def period_hours(self) -> int:
        return PERIOD_HOURS[self.billing]

    @property
    def card_hour_price(self) -> Decimal:
        """Price per GPU per hour of the billing period, offer currency, before time of use."""
        return self.price / (self.cards * self.period_hours)
