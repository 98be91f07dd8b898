"""The whole bill of a placement besides its GPU line items: upload, storage and egress.

A job's ``[data]`` (dataset and checkpoints) meets its data centre's
:class:`~comparator.domain.storage.StorageTerms`: the upload takes whole hours before the first
run hour (at the stated link, or 1 Gbit/s assumed), storage is billed per hour from the start of
the upload to the job's finish (paused hours included) and the checkpoints' download at the end
is billed per GB. Every amount is in the job's currency; what a data centre does not state is
named, never guessed silently.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from decimal import Decimal
from functools import cached_property
from typing import Any

from comparator.domain.job import DataNeeds
from comparator.domain.money import FxTable, money_str, round_money
from comparator.domain.storage import (
    DEFAULT_UPLOAD_GBPS,
    StorageTerms,
    billable_gb,
    egress_cost,
    storage_per_hour,
    upload_hours,
    upload_slots,
)
from comparator.errors import Msg

ZERO = Decimal("0.00")


@dataclass(frozen=True)
class DataBill:
    """What one data centre charges one job for its data (job currency)."""

    upload_slots: int = 0
    upload_hours: Decimal = Decimal(0)
    upload_gbps: Decimal = DEFAULT_UPLOAD_GBPS
    upload_assumed: bool = False
    billable_gb: Decimal = Decimal(0)
    storage_per_hour: Decimal = ZERO
    storage_stated: bool = True
    checkpoint_gb: Decimal = Decimal(0)
    egress: Decimal = ZERO
    egress_stated: bool = True
    dataset_gb: Decimal = Decimal(0)

    @property
    def active(self) -> bool:
        return self.dataset_gb > 0 or self.checkpoint_gb > 0

    @cached_property
    def fixed_cents(self) -> int:
        """Storage during the upload, and the egress: the same for every schedule (computed
        once: the walk's keys read it for every group)."""
        return int((self.storage_per_hour * self.upload_slots + self.egress) * 100)

    @cached_property
    def storage_cents(self) -> int:
        """Storage per slot in whole cents (the schedule problem's ``storage_per_slot``)."""
        return int(self.storage_per_hour * 100)

    def least_cents(self, run_slots: int) -> int:
        """The least this bill adds to a plan that runs at least ``run_slots`` slots: storage
        is billed from the first run slot to the finish, so for every run slot at least, and
        the fixed part always (docs/planner-pruning.md, rule 6)."""
        return self.storage_cents * run_slots + self.fixed_cents


NO_DATA = DataBill()  # the bill of a job that keeps no data (frozen: shared)


def data_bill(data: DataNeeds, terms: StorageTerms, currency: str, fx: FxTable) -> DataBill:
    """The data bill of ``data`` on a data centre with ``terms``, in ``currency``."""
    if data.stored_gb <= 0:
        return NO_DATA
    rate = Decimal(1)
    same = terms.currency.upper() == currency.upper()
    if not same and fx.knows(terms.currency) and fx.knows(currency):
        rate = fx.convert(Decimal(1), terms.currency, currency)
    priced = same or (fx.knows(terms.currency) and fx.knows(currency))
    gbps = terms.upload_gbps or DEFAULT_UPLOAD_GBPS
    per_gb_hour = terms.price_gb_hour
    stored = billable_gb(data.stored_gb, terms)
    hourly = storage_per_hour(stored, per_gb_hour * rate if per_gb_hour and priced else None)
    egress_price = terms.egress_price_gb * rate if terms.egress_price_gb and priced else None
    return DataBill(
        upload_slots=upload_slots(data.dataset_gb, gbps),
        upload_hours=upload_hours(data.dataset_gb, gbps),
        upload_gbps=gbps,
        upload_assumed=terms.upload_gbps is None and data.dataset_gb > 0,
        billable_gb=stored,
        storage_per_hour=hourly,
        storage_stated=per_gb_hour is not None and priced,
        checkpoint_gb=data.checkpoint_gb,
        egress=egress_cost(data.checkpoint_gb, egress_price),
        egress_stated=terms.egress_price_gb is not None and priced,
        dataset_gb=data.dataset_gb,
    )


@dataclass(frozen=True)
class BillLine:
    """One line of the bill that is not a GPU rental: upload, storage or egress."""

    kind: str  # upload | storage | egress
    start: datetime
    end: datetime
    quantity: Decimal
    unit: Msg
    unit_price: Decimal
    cost: Decimal
    note: Msg | None = None
    stated: bool = True  # False: the data centre states no price (billed at 0) or bandwidth

    def texts(self, lang: str) -> dict[str, str]:
        """The unit and the note in ``lang``."""
        from comparator.i18n.messages import render

        return {
            "unit": render(self.unit, lang),
            "note": render(self.note, lang) if self.note else "",
        }

    def to_json(self) -> dict[str, Any]:
        from comparator.i18n import REPORT_LANGS

        return {
            "kind": self.kind,
            "start": self.start.isoformat(),
            "end": self.end.isoformat(),
            "quantity": str(self.quantity),
            "unit_price": str(self.unit_price),
            "cost": money_str(self.cost),
            **self.texts("en"),
            "texts": {lang: self.texts(lang) for lang in REPORT_LANGS},
            "stated": self.stated,
        }


UNSTATED_EGRESS = Msg("not stated: the data centre states no egress price, billed at 0")
UNSTATED_STORAGE = Msg("not stated: the data centre states no storage price, billed at 0")
UPLOAD_NOTE = Msg("before the first run hour, no GPU rented")
UPLOAD_ASSUMED_NOTE = Msg(
    "before the first run hour, no GPU rented (assumed: the data centre states no upload bandwidth)"
)


def bill_lines(bill: DataBill, first_run: datetime, finish: datetime) -> tuple[BillLine, ...]:
    """The data lines of a plan whose first run hour starts at ``first_run``."""
    if not bill.active:
        return ()
    upload_start = first_run - timedelta(hours=bill.upload_slots)
    hours = int((finish - upload_start).total_seconds() // 3600)
    lines = []
    if bill.dataset_gb > 0:
        lines.append(
            BillLine(
                "upload",
                upload_start,
                first_run,
                bill.upload_hours,
                Msg("h ({gb} GB at {gbps} Gbit/s)", gb=bill.dataset_gb, gbps=bill.upload_gbps),
                ZERO,
                ZERO,
                UPLOAD_ASSUMED_NOTE if bill.upload_assumed else UPLOAD_NOTE,
                not bill.upload_assumed,
            )
        )
    storage_note = Msg(
        "{gb} GB billable, upload start to finish, paused hours included", gb=bill.billable_gb
    )
    if not bill.storage_stated:
        storage_note = UNSTATED_STORAGE
    lines.append(
        BillLine(
            "storage",
            upload_start,
            finish,
            Decimal(hours),
            Msg("h"),
            bill.storage_per_hour,
            round_money(bill.storage_per_hour * hours),
            storage_note,
            bill.storage_stated,
        )
    )
    if bill.checkpoint_gb > 0:
        egress_note = None if bill.egress_stated else UNSTATED_EGRESS
        unit_price = bill.egress / bill.checkpoint_gb if bill.checkpoint_gb else ZERO
        lines.append(
            BillLine(
                "egress",
                finish,
                finish,
                bill.checkpoint_gb,
                Msg("GB"),
                unit_price.quantize(Decimal("0.0001")),
                bill.egress,
                egress_note,
                bill.egress_stated,
            )
        )
    return tuple(lines)
