"""The ``sheet`` adapter: a price sheet (CSV/XLSX/JSON, path or URL) and its provider profile.

Parsing and validation are :func:`providers.sheet.parse.parse_sheet`'s; this adapter fetches the
bytes, knows which provider the source belongs to, and refuses rows of any other provider.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from comparator.catalog.models import OfferColumns
from comparator.domain.profile import ProviderProfile
from comparator.errors import InputError, Msg, SourceError
from providers.base import Adapter, AdapterResult, SourceSpec
from providers.fetch import Validators, document_name
from providers.sheet.known import KnownCatalog
from providers.sheet.parse import parse_sheet_columns

SHEET_FORMATS = ("csv", "tsv", "xlsx", "json")


def known_catalog(source: SourceSpec, profile: ProviderProfile | None) -> KnownCatalog:
    """What rows of this source may name: its provider and that provider's data centres."""
    if profile is None:
        raise SourceError(
            '{where}: provider {provider!r} has no profile; give `profile = "….toml"` in '
            "the source or import one first",
            where=source.where,
            provider=source.provider,
        )
    if profile.id != source.provider:
        raise SourceError(
            "{where}: the profile is for provider {id!r}, but the source says provider = "
            "{provider!r}",
            where=source.where,
            id=profile.id,
            provider=source.provider,
        )
    regions = {dc.name: dc.id for dc in profile.datacenters}
    regions.update({dc.id: dc.id for dc in profile.datacenters})
    return KnownCatalog({profile.id: regions})


def sheet_filename(source: SourceSpec) -> str:
    """The name parse_sheet sees: it picks the format by suffix (``format`` overrides it)."""
    fmt = source.options.get("format")
    name = document_name(source.location)
    return f"{name}.{fmt}" if fmt and not name.endswith(f".{fmt}") else name


class SheetAdapter(Adapter):
    """A price sheet in the billing.md format, English or Chinese headers, UTF-8 or a detected
    GB18030/Big5/Shift-JIS."""

    name: ClassVar[str] = "sheet"
    option_help: ClassVar[Mapping[str, str]] = {
        "format": "csv, tsv, xlsx or json when the URL does not end in one",
        "decimal": 'the decimal mark of the sheet\'s numbers: "." (default) or ","',
    }

    @classmethod
    def check_options(cls, options: Mapping[str, Any], where: str) -> None:
        fmt = options.get("format")
        if fmt is not None and fmt not in SHEET_FORMATS:
            raise InputError(
                "{where}: format: expected one of {names}, got {fmt!r}",
                where=where,
                names=", ".join(SHEET_FORMATS),
                fmt=fmt,
                hint=Msg(
                    "`suanli schema sources` prints every key a sources file takes; "
                    "examples/sources.toml shows each adapter"
                ),
            )
        if options.get("decimal", ".") not in (".", ","):
            raise InputError(
                '{where}: decimal: expected "." or ",", got {value!r}',
                where=where,
                value=options["decimal"],
                hint=Msg(
                    "`suanli schema sources` prints every key a sources file takes; "
                    "examples/sources.toml shows each adapter"
                ),
            )

    async def fetch(self, since: Validators | None = None) -> AdapterResult:
        fetched = await self.fetch_profile()
        document = await self.download(self.source.location, since)
        if document.not_modified:
            return AdapterResult(fetched, [], document.validators, not_modified=True)
        known = known_catalog(self.source, self.known_profile(fetched))
        offers = await self.parse_within(self.parse, document.content, known)
        return AdapterResult(fetched, offers, document.validators)

    def parse(self, content: bytes, known: KnownCatalog) -> OfferColumns:
        return parse_sheet_columns(
            content,
            sheet_filename(self.source),
            known,
            timezone=self.source.timezone,
            decimal=self.source.options.get("decimal"),
        )
