"""The sources file as pydantic models, for its JSON Schema (``suanli schema sources``).

The file is still *validated* by :func:`comparator.refresh.sources.load_sources`. A
``[[source]]`` table's keys are built here from the reader's own tables: the keys every source
has (with their help as descriptions) and each adapter's options, so the schema lists exactly
what the reader accepts (an adapter's options are valid only with that adapter: one schema per
adapter, chosen by ``adapter``).
"""

from __future__ import annotations

from functools import cache
from typing import Any, Literal, Union

from pydantic import BaseModel, ConfigDict, Field, create_model

from comparator.refresh.sources import _COMMON_KEYS, DEFAULT_CRON, DEFAULT_MAX_IN_FLIGHT
from providers import ADAPTERS

_NUMBERS = {
    "timeout_s",
    "connect_timeout_s",
    "read_timeout_s",
    "backoff_s",
    "max_body_mb",
    "parse_timeout_s",
}
_TYPES: dict[str, Any] = {
    **dict.fromkeys(_NUMBERS, float | None),
    "retries": int | None,
    "redirect_hosts": list[str] | str | None,
    "public_params": list[str] | None,
    "headers": dict[str, str] | None,
}


class WorkerTable(BaseModel):
    """``[worker]``: when ``suanli refresh --worker`` runs the sources, and how many at once."""

    model_config = ConfigDict(extra="forbid")

    cron: str = Field(DEFAULT_CRON, description='"mon 03:00" or a crontab line "0 3 * * mon"')
    timezone: str = Field("Asia/Shanghai", description="IANA time zone of cron")
    stop_grace_s: float = Field(30, ge=0, description="on SIGTERM, how long sources may finish")
    max_in_flight: int = Field(DEFAULT_MAX_IN_FLIGHT, ge=1, le=1024)
    shared: bool = Field(False, description="several workers share the sources")


def _source_model(adapter: str, options: dict[str, str]) -> type[BaseModel]:
    fields: dict[str, Any] = {
        "provider": (str, Field(description=_COMMON_KEYS["provider"])),
        "adapter": (Literal[adapter], Field(description=_COMMON_KEYS["adapter"])),
    }
    for key, help_text in _COMMON_KEYS.items():
        if key not in fields:
            fields[key] = (_TYPES.get(key, str | None), Field(None, description=help_text))
    for key, help_text in options.items():
        fields[key] = (Any, Field(None, description=help_text))
    name = "".join(part.capitalize() for part in adapter.split("_")) + "Source"
    return create_model(name, __config__=ConfigDict(extra="forbid"), **fields)


@cache
def source_models() -> tuple[type[BaseModel], ...]:
    """One ``[[source]]`` model per adapter (built on first use: the CLI seldom needs them)."""
    return tuple(
        _source_model(name, dict(adapter.option_help)) for name, adapter in sorted(ADAPTERS.items())
    )


@cache
def sources_file_model() -> type[BaseModel]:
    """The whole sources file: ``[worker]`` and the ``[[source]]`` tables."""
    source: Any = Union[source_models()]  # noqa: UP007 (a union of a runtime tuple)
    return create_model(
        "SourcesFile",
        __config__=ConfigDict(extra="forbid"),
        __doc__="A sources file: the [worker] schedule and one [[source]] per provider.",
        worker=(WorkerTable | None, None),
        source=(list[source], Field(min_length=1)),
    )


def sources_schema() -> dict[str, Any]:
    """The JSON Schema of a sources file."""
    schema = sources_file_model().model_json_schema()
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    return schema
