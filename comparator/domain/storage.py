"""Storage, upload and egress terms of a data centre, and what they cost a job (pure).

A provider profile's ``[[datacenters]]`` table may state (all optional; docs/billing.md):

* ``storage_price_gb_month`` or ``storage_price_gb_day`` — the data disk, per GB, tax-inclusive,
  in ``storage_currency`` (default CNY). A month is 720 h, a day 24 h.
* ``free_storage_gb`` — storage included with the rental (default 0).
* ``upload_gbps`` — the link a dataset is uploaded over, Gbit/s (default: 1 Gbit/s, assumed).
* ``egress_price_gb`` — downloading the checkpoints at the end, per GB (default 0).

The dataset is uploaded to the data disk in the whole hours just before the first run hour; the
machine is not rented yet, so no GPU hour is billed for it. Storage is billed every hour from
the start of the upload to the end of the job, paused hours included, at
``round_half_up(billable GB × price per GB-hour, 0.01)`` per hour, so that the line is a whole
number of cents per hour times the hours and adds up by hand.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from decimal import Decimal

from comparator.domain.money import round_money

DEFAULT_UPLOAD_GBPS = Decimal(1)
HOURS_PER_MONTH = 720
HOURS_PER_DAY = 24


@dataclass(frozen=True)
class StorageTerms:
    """What one data centre charges for data besides the GPUs (None: not stated)."""

    price_gb_month: Decimal | None = None
    price_gb_day: Decimal | None = None
    free_gb: Decimal = Decimal(0)
    upload_gbps: Decimal | None = None
    egress_price_gb: Decimal | None = None
    currency: str = "CNY"

    @property
    def price_gb_hour(self) -> Decimal | None:
        """The storage price per GB-hour (exact), or None when the data centre states none."""
        if self.price_gb_month is not None:
            return self.price_gb_month / HOURS_PER_MONTH
        if self.price_gb_day is not None:
            return self.price_gb_day / HOURS_PER_DAY
        return None

    def to_json(self) -> dict[str, object]:
        values = {
            "storage_price_gb_month": self.price_gb_month,
            "storage_price_gb_day": self.price_gb_day,
            "free_storage_gb": self.free_gb or None,
            "upload_gbps": self.upload_gbps,
            "egress_price_gb": self.egress_price_gb,
            "storage_currency": None if self.currency == "CNY" else self.currency,
        }
        # a price of 0 is stated (free), unlike None: only None and the defaults are left out
        return {
            k: str(v) if isinstance(v, Decimal) else v for k, v in values.items() if v is not None
        }


def upload_hours(dataset_gb: Decimal, gbps: Decimal) -> Decimal:
    """Hours to upload ``dataset_gb`` (decimal GB) over a ``gbps`` Gbit/s link, 2 decimals."""
    return (dataset_gb * 8 / gbps / 3600).quantize(Decimal("0.01"))


def upload_slots(dataset_gb: Decimal, gbps: Decimal) -> int:
    """Whole hours the upload occupies (rounded up)."""
    return math.ceil(dataset_gb * 8 / gbps / 3600) if dataset_gb > 0 else 0


def billable_gb(stored_gb: Decimal, terms: StorageTerms) -> Decimal:
    return max(stored_gb - terms.free_gb, Decimal(0))


def storage_per_hour(stored_gb: Decimal, price_gb_hour: Decimal | None) -> Decimal:
    """The hourly storage charge, rounded once to the cent (0 when no price is stated)."""
    if price_gb_hour is None or stored_gb <= 0:
        return Decimal("0.00")
    return round_money(stored_gb * price_gb_hour)


def egress_cost(checkpoint_gb: Decimal, price_gb: Decimal | None) -> Decimal:
    return round_money(checkpoint_gb * (price_gb or Decimal(0)))
