"""Frozen quotes in the catalog database: numbered ``Q-<year>-<6-digit sequence>`` per year.

A quote row holds the whole quote document as JSON; ``suanli quote --show`` renders from that
alone, so a stored quote looks the same whatever has been refreshed since.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import Connection, Engine, insert, select
from sqlalchemy.exc import IntegrityError

from comparator.catalog.db import write_transaction
from comparator.catalog.models import Quote
from comparator.errors import CatalogError, InputError, Msg

QUOTE = Quote.__table__  # type: ignore[attr-defined]
NUMBER_PATTERN = re.compile(r"^Q-(\d{4})-(\d{6})$")
_ATTEMPTS = 5


@dataclass(frozen=True)
class StoredQuote:
    """A quote as stored: its number and the frozen document (which carries the number too)."""

    number: str
    document: dict[str, Any]


def format_number(year: int, sequence: int) -> str:
    return f"Q-{year:04d}-{sequence:06d}"


def parse_number(text: str) -> tuple[int, int]:
    """``Q-2026-000123`` → ``(2026, 123)``; anything else is an InputError."""
    match = NUMBER_PATTERN.match(text.strip())
    if not match:
        raise InputError(
            "quote number: expected Q-<year>-<6 digits> like Q-2026-000123, got {text!r}",
            text=text,
            hint=Msg("give the number a quote printed when it was made, such as Q-2026-000123"),
        )
    return int(match.group(1)), int(match.group(2))


def next_number(conn: Connection, year: int) -> str:
    """The next free number of ``year`` (one more than the highest stored)."""
    prefix = f"Q-{year:04d}-"
    highest = conn.execute(
        select(QUOTE.c.number)
        .where(QUOTE.c.number.like(f"{prefix}%"))
        .order_by(QUOTE.c.number.desc())
        .limit(1)
    ).scalar()
    sequence = parse_number(highest)[1] + 1 if highest else 1
    return format_number(year, sequence)


def _row(document: Mapping[str, Any], number: str, created_at: datetime) -> dict[str, Any]:
    return {
        "number": number,
        "created_at": created_at,
        "job_name": str(document["job"]["name"]),
        "input_sha256": str(document["input_sha256"]),
        "snapshot_ids": json.dumps(document["snapshot_ids"], ensure_ascii=False),
        "software_version": str(document["software_version"]),
        "lang": str(document["lang"]),
        "document_json": json.dumps(document, ensure_ascii=False, sort_keys=True),
    }


def freeze_quote(engine: Engine, document: Mapping[str, Any]) -> StoredQuote:
    """Number the document and store it (one transaction; retried if a number was taken).

    The transaction takes the write lock before it reads the highest number, so writers in
    other processes wait their turn (bounded by SUANLI_LOCK_TIMEOUT_S) instead of failing.
    """
    created_at = datetime.fromisoformat(document["created_at"])
    for _ in range(_ATTEMPTS):
        try:
            with write_transaction(engine, "quote-numbers") as conn:
                number = next_number(conn, created_at.year)
                row = _row({**document, "number": number}, number, created_at)
                conn.execute(insert(QUOTE).values(**row))
            return StoredQuote(number, json.loads(row["document_json"]))
        except IntegrityError:
            continue  # another process took the number first: take the next one
    raise CatalogError(
        "could not allocate a quote number for {year} after {attempts} attempts; is "
        "another process storing quotes?",
        year=created_at.year,
        attempts=_ATTEMPTS,
    )


def load_quote(engine: Engine, number: str) -> StoredQuote:
    """The stored quote ``number`` (CatalogError naming it when there is none)."""
    parse_number(number)
    with engine.connect() as conn:
        text = conn.execute(
            select(QUOTE.c.document_json).where(QUOTE.c.number == number.strip())
        ).scalar()
    if text is None:
        raise CatalogError("no quote {number} in this catalog database", number=number.strip())
    document = json.loads(text)
    return StoredQuote(str(document["number"]), document)
