"""A parsed provider profile as the catalog keeps it beside the profile document: the
:class:`~comparator.domain.profile.ProviderProfile` exactly as
:func:`~comparator.domain.profile.parse_profile` built it at import, read back without
validating it again.

Validating a profile (pydantic, the provinces, time zones and credential numbers) costs about
half a millisecond; at 10,000 providers that was most of ``offers --compliant-for`` and a third
of a quote (issue #29). The import validates each profile once and stores this record in the
same transaction as the document (``provider.profile_record``); the readers build the
dataclasses straight from it.

A record is a JSON array ``[version, profile]``: each dataclass as the list of its fields'
values in declaration order, tuples as lists, ``Decimal`` as its string (exponent kept), dates
as ISO strings. The version joins :data:`PARSE_REVISION` with a hash of the dataclasses' layout
(class, field names and types), so a record written by another layout is never read as this
one: the reader answers None and the caller parses the document instead (always correct, only
slower). Bump :data:`PARSE_REVISION` when ``parse_profile`` gives other values for the same
document (a new canonical city, say); a migration that re-derives the records then restores
the fast path (migration ``0010``).
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import types
import typing
from collections.abc import Callable
from datetime import date
from decimal import Decimal
from typing import Any

from comparator.domain.profile import DataCenter, ProviderProfile
from comparator.domain.profile_plan import DataCenterTerms, ProviderTerms
from comparator.domain.storage import StorageTerms

PARSE_REVISION = 1  # bump when parse_profile's values change for the same document
Decode = Callable[[list[Any]], Any]


class _Decoders:
    """One decoding function per dataclass, generated from its fields' types (as
    :mod:`dataclasses` generates ``__init__``): a JSON list of field values → the object, built
    by its constructor from the values converted in place (no checks: they were checked when
    the profile was parsed). Generated code reads a record in about half the time a loop over
    per-field converters takes (27 µs a profile against 52 µs, 3,000 records)."""

    def __init__(self) -> None:
        self.names: dict[str, Any] = {"Decimal": Decimal, "day": date.fromisoformat}
        self.serial = 0

    def of(self, cls: type) -> Decode:
        name = f"decode_{cls.__name__}"
        if name not in self.names:
            self.names[name] = None  # a dataclass that holds itself refers to its name
            hints = typing.get_type_hints(cls)
            values = ", ".join(
                self.expression(hints[f.name], f"v[{i}]")
                for i, f in enumerate(dataclasses.fields(cls))
            )
            self.names[f"class_{cls.__name__}"] = cls
            source = f"def {name}(v):\n    return class_{cls.__name__}({values})\n"
            exec(source, self.names)  # code built from our own dataclasses' fields
        decode: Decode = self.names[name]
        return decode

    def variable(self) -> str:
        self.serial += 1
        return f"x{self.serial}"

    def expression(self, hint: Any, source: str) -> str:
        """Python code that turns the JSON value ``source`` into a value of type ``hint``."""
        origin, args = typing.get_origin(hint), typing.get_args(hint)
        if hint in (str, bool, int):
            return source
        if hint is Decimal:
            return f"Decimal({source})"
        if hint is date:
            return f"day({source})"
        if origin in (typing.Union, types.UnionType):
            (inner,) = (a for a in args if a is not type(None))
            name = self.variable()
            value = self.expression(inner, name)
            return (
                source if value == name else f"(None if ({name} := {source}) is None else {value})"
            )
        if origin is tuple and len(args) == 2 and args[1] is Ellipsis:
            name = self.variable()
            value = self.expression(args[0], name)
            return (
                f"tuple({source})" if value == name else f"tuple([{value} for {name} in {source}])"
            )
        if origin is tuple:
            name = self.variable()
            parts = "".join(f"{self.expression(a, f'{name}[{i}]')}, " for i, a in enumerate(args))
            return f"next(({parts}) for {name} in [{source}])"
        if isinstance(hint, type) and dataclasses.is_dataclass(hint):
            self.of(hint)
            return f"decode_{hint.__name__}({source})"
        raise TypeError(f"a profile record cannot hold {hint!r}")


def _encode(value: Any) -> Any:
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return [_encode(getattr(value, f.name)) for f in dataclasses.fields(value)]
    if isinstance(value, tuple):
        return [_encode(v) for v in value]
    if isinstance(value, Decimal):
        return str(value)
    if isinstance(value, date):
        return value.isoformat()
    return value


def _layout(cls: type, seen: dict[str, list[str]]) -> dict[str, list[str]]:
    """Each dataclass reachable from ``cls``: its fields and their types, by name."""
    if cls.__qualname__ in seen:
        return seen
    hints = typing.get_type_hints(cls)
    seen[cls.__qualname__] = [f"{f.name}:{hints[f.name]}" for f in dataclasses.fields(cls)]
    for hint in hints.values():
        for part in (hint, *typing.get_args(hint), *_nested_args(hint)):
            if isinstance(part, type) and dataclasses.is_dataclass(part):
                _layout(part, seen)
    return seen


def _nested_args(hint: Any) -> list[Any]:
    return [inner for arg in typing.get_args(hint) for inner in typing.get_args(arg)]


def _version() -> str:
    layout = json.dumps(_layout(ProviderProfile, {}), sort_keys=True)
    return f"{PARSE_REVISION}:{hashlib.sha256(layout.encode()).hexdigest()[:12]}"


RECORD_VERSION = _version()
RECORD_PREFIX = json.dumps([RECORD_VERSION])[:-1] + ","  # how a current record's text begins
RECORD_PREFIX_CHARS = len(RECORD_PREFIX)  # enough of a record to tell whether it is current
_DECODERS = _Decoders()
_PROFILE = _DECODERS.of(ProviderProfile)
_STORAGE = _DECODERS.of(StorageTerms)
_FIELDS = {f.name: i for i, f in enumerate(dataclasses.fields(ProviderProfile))}
_DC_FIELDS = {f.name: i for i, f in enumerate(dataclasses.fields(DataCenter))}


def profile_record(profile: ProviderProfile) -> str:
    """The record of a parsed profile (what the catalog stores beside its document)."""
    return json.dumps([RECORD_VERSION, _encode(profile)], ensure_ascii=False, separators=(",", ":"))


def record_is_current(record: str | None) -> bool:
    """Whether ``record`` was written in this layout (else the document must be parsed)."""
    return record is not None and record.startswith(RECORD_PREFIX)


def profile_from_record(record: str | None) -> ProviderProfile | None:
    """The profile a current record holds, or None (no record, or another layout)."""
    if not record_is_current(record):
        return None
    profile: ProviderProfile = _PROFILE(json.loads(record)[1])  # type: ignore[arg-type]
    return profile


def terms_from_record(record: str | None) -> ProviderTerms | None:
    """The planning terms a current record holds (only those are built), or None."""
    if not record_is_current(record):
        return None
    values = json.loads(record)[1]  # type: ignore[arg-type]
    dc_id, dc_storage = _DC_FIELDS["id"], _DC_FIELDS["storage"]
    return ProviderTerms(
        values[_FIELDS["id"]],
        values[_FIELDS["timezone"]],
        values[_FIELDS["converts_billing"]],
        None if values[_FIELDS["discount"]] is None else Decimal(values[_FIELDS["discount"]]),
        tuple(
            DataCenterTerms(dc[dc_id], _STORAGE(dc[dc_storage]))
            for dc in values[_FIELDS["datacenters"]]
        ),
    )
