"""Provider adapters and their registry: adapter name → class.

Nothing outside this package imports a specific adapter or module; it asks
:func:`adapter_class` and uses the names below (``__all__``): the adapter interface
(:mod:`.base`), HTTP fetching with its limits and validators (:mod:`.fetch`) and sheet
parsing for ``suanli import`` (:mod:`.sheet`).
To add one: subclass :class:`providers.base.Adapter`, set ``name``, list it in ``_ADAPTERS``
and give it a ``tests/test_adapters_<name>.py`` (a test checks both).
"""

from __future__ import annotations

from comparator.errors import InputError, Msg
from providers.base import PARSE_ON_LOOP, Adapter, AdapterResult, SourceSpec
from providers.fetch import FetchPolicy, Validators
from providers.h11_transport import H11Transport
from providers.http_json import HttpJsonAdapter
from providers.phase_clock import PhaseClock, clock_in_use, phase
from providers.sheet import KnownCatalog, parse_sheet_columns, read_sheet_file
from providers.sheet.adapter import SheetAdapter
from providers.skypilot.adapter import SkypilotAdapter
from providers.urls import is_url, mask_url

_ADAPTERS: tuple[type[Adapter], ...] = (SheetAdapter, SkypilotAdapter, HttpJsonAdapter)
ADAPTERS: dict[str, type[Adapter]] = {adapter.name: adapter for adapter in _ADAPTERS}


def adapter_class(name: str, where: str = "source") -> type[Adapter]:
    """The adapter registered as ``name``; InputError listing the known names otherwise."""
    try:
        return ADAPTERS[name]
    except KeyError:
        known = ", ".join(sorted(ADAPTERS))
        raise InputError(
            "{where}: adapter: expected one of {known}, got {name!r}",
            where=where,
            known=known,
            name=name,
            hint=Msg(
                "`suanli schema sources` prints every key a sources file takes; "
                "examples/sources.toml shows each adapter"
            ),
        ) from None


__all__ = [
    "ADAPTERS",
    "PARSE_ON_LOOP",
    "Adapter",
    "AdapterResult",
    "FetchPolicy",
    "H11Transport",
    "KnownCatalog",
    "PhaseClock",
    "SourceSpec",
    "Validators",
    "adapter_class",
    "clock_in_use",
    "is_url",
    "mask_url",
    "parse_sheet_columns",
    "phase",
    "read_sheet_file",
]
