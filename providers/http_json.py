"""The ``http_json`` adapter: a provider's JSON price API, mapped declaratively in the sources file.

::

    [[source]]
    provider = "acme"
    adapter = "http_json"
    url = "https://api.acme.example/v1/gpu-prices"
    profile = "acme.toml"
    records = "data.items"           # dotted path to the list of price objects ("" = top level)
    [source.fields]                  # sheet column = dotted path inside one record
    gpu = "spec.gpuModel"
    region = "zone"
    price = "price.amount"
    billing = "chargeType"
    cards = "spec.gpuCount"
    [source.defaults]                # constants for columns the API does not carry
    currency = "CNY"
    [source.values.billing]          # API words → sheet words, per column
    POSTPAID_BY_HOUR = "hourly"

The mapped records go through the price-sheet validation (:func:`providers.sheet.parse.parse_sheet`),
so the rules and the messages are those of a JSON sheet; row numbers are record positions.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from comparator.catalog.models import OfferColumns
from comparator.domain.json_input import first_duplicate, json_object
from comparator.errors import InputError, Msg
from providers.base import Adapter, AdapterResult, SourceSpec
from providers.fetch import Validators
from providers.sheet.adapter import known_catalog
from providers.sheet.columns import COLUMNS
from providers.sheet.known import KnownCatalog
from providers.sheet.parse import parse_sheet_columns


@dataclass(frozen=True)
class JsonMapping:
    records: str
    fields: Mapping[str, str]
    defaults: Mapping[str, str]
    values: Mapping[str, Mapping[str, str]]

    @classmethod
    def parse(cls, options: Mapping[str, Any], where: str) -> JsonMapping:
        fields = _string_table(options.get("fields"), "fields", where)
        defaults = _string_table(options.get("defaults", {}), "defaults", where, required=False)
        values = options.get("values", {})
        if not isinstance(values, Mapping):
            raise InputError(
                "{where}: values: expected tables [source.values.<column>]",
                where=where,
                hint=Msg(
                    "`suanli schema sources` prints every key a sources file takes; "
                    "examples/sources.toml shows each adapter"
                ),
            )
        value_maps = {str(k): _string_table(v, f"values.{k}", where) for k, v in values.items()}
        for table, columns in (("fields", fields), ("defaults", defaults), ("values", value_maps)):
            _known_columns(columns, table, where)
        records = options.get("records", "")
        if not isinstance(records, str):
            raise InputError(
                '{where}: records: expected a dotted path such as "data.items"',
                where=where,
                hint=Msg(
                    "`suanli schema sources` prints every key a sources file takes; "
                    "examples/sources.toml shows each adapter"
                ),
            )
        return cls(records, fields, defaults, value_maps)

    def row(self, record: Mapping[str, Any], provider: str) -> dict[str, str]:
        """One sheet row from one API record."""
        row = {"provider": provider, **self.defaults}
        for column, path in self.fields.items():
            value = _text(dig(record, path))
            if value:
                row[column] = value
        for column, words in self.values.items():
            row[column] = words.get(row.get(column, ""), row.get(column, ""))
        return row


def _string_table(value: object, name: str, where: str, required: bool = True) -> dict[str, str]:
    if not isinstance(value, Mapping) or (required and not value):
        raise InputError(
            '{where}: {name}: expected a table [source.{name}] of column = "…"',
            where=where,
            name=name,
            hint=Msg(
                "`suanli schema sources` prints every key a sources file takes; "
                "examples/sources.toml shows each adapter"
            ),
        )
    return {str(k): str(v) for k, v in value.items()}


def _known_columns(columns: Mapping[str, object], table: str, where: str) -> None:
    unknown = sorted(set(columns) - set(COLUMNS))
    if unknown:
        raise InputError(
            "{where}: {table}: unknown column(s) {unknown}; expected price-sheet columns "
            "({columns})",
            where=where,
            table=table,
            unknown=", ".join(unknown),
            columns=", ".join(COLUMNS),
            hint=Msg(
                "`suanli schema sources` prints every key a sources file takes; "
                "examples/sources.toml shows each adapter"
            ),
        )


def dig(document: Any, path: str) -> Any:
    """The value at a dotted path (``data.items``, ``prices.0.amount``); None when absent."""
    value = document
    for key in filter(None, path.split(".")):
        if isinstance(value, Mapping):
            value = value.get(key)
        elif isinstance(value, list) and key.isdigit() and int(key) < len(value):
            value = value[int(key)]
        else:
            return None
    return value


def _text(value: Any) -> str:
    if value is None or isinstance(value, Mapping | list):
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def records_to_sheet(content: bytes, mapping: JsonMapping, source: SourceSpec) -> bytes:
    """The API document as a JSON price sheet (a list of objects with sheet columns)."""
    try:
        document = json.loads(
            content.decode("utf-8-sig"),
            parse_float=str,
            parse_int=str,
            object_pairs_hook=json_object,
        )
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise InputError(
            "{location}: not JSON ({reason})",
            location=source.shown,
            reason=str(exc),
            hint=Msg(
                "check the source's url and records path against what it answers; its last good snapshot stays current"
            ),
        ) from None
    records = dig(document, mapping.records)
    if not isinstance(records, list) or not all(isinstance(r, Mapping) for r in records):
        raise InputError(
            "{location}: records = {records!r}: expected a list of objects there",
            location=source.shown,
            records=mapping.records,
            hint=Msg(
                "check the source's url and records path against what it answers; its last good snapshot stays current"
            ),
        )
    _unique_keys(records, source)
    rows = [mapping.row(record, source.provider) for record in records]
    return json.dumps(rows, ensure_ascii=False).encode()


def _unique_keys(records: list[Any], source: SourceSpec) -> None:
    """No record has a key twice, at any depth: JSON would keep only the last value."""
    for number, record in enumerate(records, 1):
        found = first_duplicate(record)
        if found is not None:
            where, key = found
            raise InputError(
                "{location}: record {row}: the key {key!r} is given twice; expected each key "
                "once (JSON would keep only the last value)",
                location=source.shown,
                row=number,
                key=f"{where}.{key}" if where else key,
                hint=Msg(
                    "check the source's url and records path against what it answers; its last "
                    "good snapshot stays current"
                ),
            )


class HttpJsonAdapter(Adapter):
    """A JSON price API whose fields the sources file maps onto price-sheet columns."""

    name: ClassVar[str] = "http_json"
    option_help: ClassVar[Mapping[str, str]] = {
        "records": "dotted path to the list of price objects (default: the document itself)",
        "fields": "table: sheet column = dotted path inside one record",
        "defaults": "table: sheet column = constant value",
        "values": "tables [source.values.<column>]: API word = sheet word",
    }

    @classmethod
    def check_options(cls, options: Mapping[str, Any], where: str) -> None:
        JsonMapping.parse(options, where)

    async def fetch(self, since: Validators | None = None) -> AdapterResult:
        mapping = JsonMapping.parse(self.source.options, self.source.where)
        fetched = await self.fetch_profile()
        document = await self.download(self.source.location, since)
        if document.not_modified:
            return AdapterResult(fetched, [], document.validators, not_modified=True)
        known = known_catalog(self.source, self.known_profile(fetched))
        offers = await self.parse_within(self.parse, document.content, mapping, known)
        return AdapterResult(fetched, offers, document.validators)

    def parse(self, content: bytes, mapping: JsonMapping, known: KnownCatalog) -> OfferColumns:
        sheet = records_to_sheet(content, mapping, self.source)
        return parse_sheet_columns(
            sheet, f"{self.source.shown}#records.json", known, timezone=self.source.timezone
        )
