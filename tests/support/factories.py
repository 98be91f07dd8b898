"""The one offer builder of the tests: an offer with plausible defaults (:func:`offer_view`),
and the planner tests' shorthand for it (:func:`make_offer`)."""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal
from typing import Any
from zoneinfo import ZoneInfo

from comparator.domain.offer_view import OfferView

SHANGHAI = ZoneInfo("Asia/Shanghai")

_DEFAULTS: dict[str, Any] = {
    "offer_id": "1",
    "snapshot_id": "1",
    "provider": "acme",
    "provider_name": "阿克米",
    "region": "gd-sz-1",
    "region_name": "深圳一区",
    "country": "CN",
    "province": "广东",
    "city": "深圳",
    "mainland": True,
    "gpu": "A100-SXM4-80GB",
    "cards": 8,
    "node_cards": 8,
    "billing": "hourly",
    "price": Decimal("64.00"),
    "currency": "CNY",
    "time_of_use": "",
    "stock": None,
    "min_units": 1,
    "interconnect": "nvlink",
    "network": "ib-200g",
    "tax_inclusive": True,
    "vat_rate": Decimal("0.06"),
    "observed_at": datetime(2026, 11, 25, 10, tzinfo=SHANGHAI),
    "source": "demo",
}


def offer_view(**fields: Any) -> OfferView:
    """An 8×A100 hourly offer in 深圳 unless ``fields`` say otherwise."""
    return OfferView(**{**_DEFAULTS, **fields})


START = datetime(2026, 12, 1, tzinfo=SHANGHAI)


def make_offer(
    offer_id: str,
    billing: str = "hourly",
    price: str = "10",
    *,
    provider: str = "p",
    region: str = "r",
    gpu: str = "A100-SXM4-80GB",
    cards: int = 1,
    node_cards: int = 8,
    stock: int | None = None,
    min_units: int = 1,
    time_of_use: str = "",
    network: str | None = "ib-200g",
    currency: str = "CNY",
    tax_inclusive: bool = True,
    province: str | None = "广东",
    country: str = "CN",
) -> OfferView:
    mainland = country == "CN"
    return offer_view(
        offer_id=offer_id,
        provider=provider,
        provider_name=provider,
        region=region,
        region_name=region,
        country=country,
        province=province if mainland else None,
        city=None,
        mainland=mainland,
        gpu=gpu,
        cards=cards,
        node_cards=node_cards,
        billing=billing,
        price=Decimal(price),
        currency=currency,
        time_of_use=time_of_use,
        stock=stock,
        min_units=min_units,
        network=network,
        tax_inclusive=tax_inclusive,
        observed_at=START,
        source="test",
    )
