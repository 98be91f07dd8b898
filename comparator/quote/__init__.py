"""Quotes: the frozen document a report is rendered from (:mod:`.document`, pure) and its
numbered, append-only store in the catalog (:mod:`.quote_store`).

Each name loads its module on first use (:mod:`comparator.domain.lazy`): `suanli quote --show`
reads a stored quote without loading the planner that :mod:`.document` reads results of."""

from typing import TYPE_CHECKING

from comparator.domain.lazy import lazy_names

if TYPE_CHECKING:
    from comparator.quote.document import QuoteParts, assemble_document
    from comparator.quote.quote_store import (
        StoredQuote,
        format_number,
        freeze_quote,
        load_quote,
        parse_number,
    )

_HOME: dict[str, tuple[str, ...]] = {
    "document": ("QuoteParts", "assemble_document"),
    "quote_store": ("StoredQuote", "format_number", "freeze_quote", "load_quote", "parse_number"),
}
__getattr__ = lazy_names(__name__, _HOME)

__all__ = [
    "QuoteParts",
    "StoredQuote",
    "assemble_document",
    "format_number",
    "freeze_quote",
    "load_quote",
    "parse_number",
]
