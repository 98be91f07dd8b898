"""Verify a rented machine against the offer that was bought, and keep the verdict.

:func:`verify_machine` is ``suanli verify``'s work where it meets the catalog: the offer to
judge against (``--offer``), the pure checks (:func:`comparator.verify.evaluate`) and the
verdict stored beside its quote (``--quote``). The CLI reads the machine and formats.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import Engine, insert, select

from comparator.catalog import get_offer
from comparator.catalog.db import write_transaction
from comparator.catalog.models import Quote, Verification, table_of
from comparator.domain import OfferView
from comparator.errors import CatalogError
from comparator.verify import MachineReport, Measurements, VerifyResult, evaluate

VERIFICATION = table_of(Verification)
QUOTE = table_of(Quote)


@dataclass(frozen=True)
class StoredVerification:
    id: int
    created_at: datetime
    quote_number: str | None
    offer_id: str | None
    status: str
    result: dict[str, object]


@dataclass(frozen=True)
class Verified:
    """A machine's verdict, and where it was stored (None: not stored)."""

    result: VerifyResult
    stored_id: int | None = None
    quote_number: str | None = None
    created_at: datetime | None = None


def offer_to_verify(catalog: Callable[[], Engine], offer_id: str | None) -> OfferView | None:
    """The offer ``offer_id`` of the catalog a machine is judged against (None: no offer)."""
    return get_offer(catalog(), offer_id) if offer_id else None


def verify_machine(
    report: MachineReport,
    catalog: Callable[[], Engine],
    *,
    offer_id: str | None,
    cards: int | None,
    measure: Callable[[], Measurements],
    lang: str,
    quote_number: str | None,
    created_at: datetime,
) -> Verified:
    """Judge ``report`` against offer ``offer_id`` of the catalog (none: the machine alone),
    with what ``measure`` measures (called once the offer is found), and store the verdict
    beside quote ``quote_number`` when given. ``catalog`` opens the catalog, only when an
    offer or a quote names it."""
    engine = catalog() if offer_id or quote_number is not None else None
    offer = get_offer(engine, offer_id) if engine is not None and offer_id else None
    result = evaluate(report, offer, cards=cards, measurements=measure(), lang=lang)
    if engine is None or quote_number is None:
        return Verified(result)
    stored = store_verification(engine, result, quote_number=quote_number, created_at=created_at)
    return Verified(result, stored, quote_number, created_at)


def store_verification(
    engine: Engine, result: VerifyResult, *, quote_number: str | None, created_at: datetime
) -> int:
    """Store ``result`` (its ``--json`` document); CatalogError when the quote does not exist."""
    if created_at.tzinfo is None:
        raise ValueError("created_at must be timezone-aware")
    with write_transaction(engine) as conn:
        if quote_number is not None:
            found = conn.execute(select(QUOTE.c.id).where(QUOTE.c.number == quote_number)).first()
            if found is None:
                raise CatalogError(
                    "--quote {quote_number}: no such quote (see `suanli quote`)",
                    quote_number=quote_number,
                )
        row = {
            "created_at": created_at,
            "quote_number": quote_number,
            "offer_id": result.expected.offer_id,
            "status": result.status,
            "result_json": json.dumps(result.to_json(), ensure_ascii=False, sort_keys=True),
        }
        key = conn.execute(insert(VERIFICATION).values(**row)).inserted_primary_key
    return int(key[0]) if key else 0


def verifications_of_quote(engine: Engine, quote_number: str) -> list[StoredVerification]:
    """The verdicts attached to a quote, oldest first."""
    query = (
        select(VERIFICATION)
        .where(VERIFICATION.c.quote_number == quote_number)
        .order_by(VERIFICATION.c.id)
    )
    with engine.connect() as conn:
        rows = conn.execute(query).all()
    return [
        StoredVerification(
            id=row.id,
            created_at=row.created_at,
            quote_number=row.quote_number,
            offer_id=row.offer_id,
            status=row.status,
            result=json.loads(row.result_json),
        )
        for row in rows
    ]
