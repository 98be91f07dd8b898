"""Keep a verification verdict in the catalog, attached to a quote's record (``verify --quote``)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import Engine, insert, select

from comparator.catalog.db import write_transaction
from comparator.catalog.models import Quote, Verification, table_of
from comparator.errors import CatalogError
from comparator.verify.acceptance import VerifyResult

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
