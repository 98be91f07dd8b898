"""Plain objects for tests of the pure core: an offer with plausible defaults."""

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
