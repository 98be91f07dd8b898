"""Quotes: the frozen document a report is rendered from (:mod:`.document`, pure) and its
numbered, append-only store in the catalog (:mod:`.quote_store`)."""

from comparator.quote.document import QuoteParts, assemble_document
from comparator.quote.quote_store import (
    StoredQuote,
    format_number,
    freeze_quote,
    load_quote,
    parse_number,
)

__all__ = [
    "QuoteParts",
    "StoredQuote",
    "assemble_document",
    "format_number",
    "freeze_quote",
    "load_quote",
    "parse_number",
]
