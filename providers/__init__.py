"""Provider adapters and their registry: adapter name → class.

Nothing outside this package imports a specific adapter; it asks :func:`adapter_class`.
To add one: subclass :class:`providers.base.Adapter`, set ``name``, list it in ``_ADAPTERS``
and give it a ``tests/test_adapters_<name>.py`` (a test checks both).
"""

from __future__ import annotations

from comparator.errors import InputError
from providers.base import Adapter, AdapterResult, SourceSpec
from providers.http_json import HttpJsonAdapter
from providers.sheet.adapter import SheetAdapter
from providers.skypilot.adapter import SkypilotAdapter

_ADAPTERS: tuple[type[Adapter], ...] = (SheetAdapter, SkypilotAdapter, HttpJsonAdapter)
ADAPTERS: dict[str, type[Adapter]] = {adapter.name: adapter for adapter in _ADAPTERS}


def adapter_class(name: str, where: str = "source") -> type[Adapter]:
    """The adapter registered as ``name``; InputError listing the known names otherwise."""
    try:
        return ADAPTERS[name]
    except KeyError:
        known = ", ".join(sorted(ADAPTERS))
        raise InputError(f"{where}: adapter: expected one of {known}, got {name!r}") from None


__all__ = ["ADAPTERS", "Adapter", "AdapterResult", "SourceSpec", "adapter_class"]
