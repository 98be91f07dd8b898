"""The sources file as pydantic models: every key, its type and its check, and the JSON Schema
(``suanli schema sources``).

:func:`comparator.refresh.sources.parse_sources` validates a parsed TOML document with
:data:`SOURCES_FILE` and builds the :class:`~providers.SourceSpec` of each ``[[source]]``;
errors name the file, the source (``[[source]] #2 (acme) url``) and the key in the catalogue's
words (:mod:`comparator.domain.input_model`). A ``[[source]]`` takes the keys every source has
(:class:`SourceTable`) and its adapter's options (``Adapter.option_help``), and no other: the
schema has one model per adapter, each :class:`SourceTable` with that adapter's options.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from functools import cache
from typing import Annotated, Any, Literal, Union

from pydantic import (
    AfterValidator,
    BeforeValidator,
    ConfigDict,
    Field,
    TypeAdapter,
    WithJsonSchema,
    create_model,
    model_validator,
)

from comparator.domain.ids import id_problem
from comparator.domain.input_model import FileTable, bad
from comparator.domain.profile_values import Timezone
from comparator.errors import Msg
from providers import ADAPTERS, is_url

DEFAULT_CRON = "mon 03:00"
DEFAULT_STOP_GRACE_S = 30.0
DEFAULT_MAX_IN_FLIGHT = 32
COMMON_KEYS: Mapping[str, str] = {
    "provider": "provider id the offers belong to",
    "adapter": "adapter name (sheet, skypilot, http_json)",
    "url": "URL of the price data",
    "path": "file of the price data (relative to the sources file)",
    "profile": "provider profile TOML (path or URL)",
    "timeout_s": "total deadline for fetching this source, connect to last byte (60)",
    "connect_timeout_s": "connect timeout per attempt (10)",
    "read_timeout_s": "longest silence while reading (30)",
    "retries": "extra attempts after a 429/5xx/network error (3)",
    "backoff_s": "first backoff between attempts, doubling (1)",
    "max_body_mb": "largest body accepted, on the wire and decompressed, in MiB (64)",
    "parse_timeout_s": "longest time parsing the fetched data may take (60)",
    "redirect_hosts": 'other hosts redirects may lead to (["cdn.example.com"]; ["*"]: any)',
    "headers": 'extra request headers, e.g. { Accept = "text/csv" } (not for secrets)',
    "token_env": "environment variable whose value is sent as Authorization: Bearer …",
    "public_params": 'query parameters of url shown unmasked, e.g. ["page", "region"]',
}


# --- value checks -------------------------------------------------------------------------


def _name(value: object) -> str:
    text = value.strip() if isinstance(value, str) else ""
    if not text or any(ch.isspace() for ch in text):
        raise bad(Msg("a name without spaces"), value)
    return text


def _provider(value: object) -> str:
    name = _name(value)
    problem = id_problem(name)
    if problem is not None:
        raise bad(problem, name)
    return name


def _adapter(value: object) -> str:
    name = _name(value)
    if name not in ADAPTERS:
        raise bad(Msg("one of {names}", names=", ".join(sorted(ADAPTERS))), name)
    return name


def _url(value: object) -> str:
    if not isinstance(value, str) or not is_url(value):
        raise bad(Msg("an http(s) URL"), value)
    return value


def _place(value: object) -> str:
    if not isinstance(value, str) or not value.strip() or "\x00" in value:  # no NUL in a path
        raise bad(Msg("a path or URL"), value)
    return value


def _seconds(minimum: float) -> BeforeValidator:
    def check(value: object) -> float:
        if (
            isinstance(value, bool)
            or not isinstance(value, int | float)
            or not math.isfinite(value)  # nan is not below the minimum, and no limit
            or value < minimum
        ):
            raise bad(Msg("a number ≥ {minimum:g} (seconds)", minimum=minimum), value)
        return float(value) + 0.0  # -0.0 + 0.0 is 0.0: no signed zero kept

    return BeforeValidator(check)


def _whole(low: int, high: int) -> BeforeValidator:
    def check(value: object) -> int:
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            raise bad(Msg("a whole number from {low} to {high}", low=low, high=high), value)
        return value

    return BeforeValidator(check)


def _flag(value: object) -> bool:
    if not isinstance(value, bool):
        raise bad(Msg("true or false"), value)
    return value


def _hosts(value: object) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
        raise bad(Msg("a list of host names"), value)
    return tuple(v.lower() for v in value)


def _headers(value: object) -> tuple[tuple[str, str], ...]:
    ok = isinstance(value, dict) and all(
        isinstance(v, str) and k.isascii() and "\n" not in v and "\r" not in v
        for k, v in value.items()
    )
    if not ok:
        raise bad(Msg('a table of text, e.g. { Accept = "text/csv" }'))
    assert isinstance(value, dict)
    return tuple((str(k), str(v)) for k, v in value.items())


def _env_name(value: object) -> str:
    if not isinstance(value, str) or not value.isidentifier():
        raise bad(Msg("the name of an environment variable"), value)
    return value


def _public_params(value: object) -> tuple[str, ...]:
    """Names of query parameters whose values may be stored and printed."""
    ok = isinstance(value, list) and all(
        isinstance(v, str) and v and v.isprintable() and not set(v) & set("&=#?% ") for v in value
    )
    if not ok:
        raise bad(Msg('a list of query parameter names, e.g. ["page", "region"]'), value)
    assert isinstance(value, list)
    return tuple(dict.fromkeys(value))


def _cron(value: object) -> str:
    if not isinstance(value, str) or not value.strip():
        raise bad(Msg('text like "mon 03:00" or "0 3 * * mon"'), value)
    return value.strip()


Seconds = Annotated[float | None, _seconds(0.001)]
_HEADERS_SCHEMA = {"type": "object", "additionalProperties": {"type": "string"}}


# --- the tables ---------------------------------------------------------------------------


class WorkerTable(FileTable):
    """``[worker]``: when ``suanli refresh --worker`` runs the sources, and how many at once."""

    cron: Annotated[str, BeforeValidator(_cron)] = Field(
        DEFAULT_CRON, description='"mon 03:00" or a crontab line "0 3 * * mon"'
    )
    timezone: Timezone = Field("Asia/Shanghai", description="IANA time zone of cron")
    stop_grace_s: Annotated[float, _seconds(0)] = Field(
        DEFAULT_STOP_GRACE_S, description="on SIGTERM, how long sources may finish"
    )
    max_in_flight: Annotated[int, _whole(1, 1024)] = Field(
        DEFAULT_MAX_IN_FLIGHT, description="sources fetched at the same time"
    )
    shared: Annotated[bool, BeforeValidator(_flag)] = Field(
        False, description="several workers share the sources"
    )


class SourceTable(FileTable):
    """``[[source]]``: one provider's price data, its profile and how to fetch them; the
    adapter's own options beside (checked against ``option_help``)."""

    model_config = ConfigDict(extra="allow")

    provider: Annotated[str, BeforeValidator(_provider)] = Field(
        description=COMMON_KEYS["provider"]
    )
    adapter: Annotated[str, BeforeValidator(_adapter)] = Field(description=COMMON_KEYS["adapter"])
    url: Annotated[str | None, BeforeValidator(_url)] = Field(None, description=COMMON_KEYS["url"])
    path: Annotated[str | None, BeforeValidator(_place)] = Field(
        None, description=COMMON_KEYS["path"]
    )
    profile: Annotated[str | None, BeforeValidator(_place)] = Field(
        None, description=COMMON_KEYS["profile"]
    )
    timeout_s: Seconds = Field(None, description=COMMON_KEYS["timeout_s"])
    connect_timeout_s: Seconds = Field(None, description=COMMON_KEYS["connect_timeout_s"])
    read_timeout_s: Seconds = Field(None, description=COMMON_KEYS["read_timeout_s"])
    retries: Annotated[int | None, _whole(0, 10)] = Field(None, description=COMMON_KEYS["retries"])
    backoff_s: Annotated[float | None, _seconds(0)] = Field(
        None, description=COMMON_KEYS["backoff_s"]
    )
    max_body_mb: Seconds = Field(None, description=COMMON_KEYS["max_body_mb"])
    parse_timeout_s: Seconds = Field(None, description=COMMON_KEYS["parse_timeout_s"])
    redirect_hosts: Annotated[tuple[str, ...], BeforeValidator(_hosts)] = Field(
        (), description=COMMON_KEYS["redirect_hosts"]
    )
    headers: Annotated[
        tuple[tuple[str, str], ...], BeforeValidator(_headers), WithJsonSchema(_HEADERS_SCHEMA)
    ] = Field((), description=COMMON_KEYS["headers"])
    token_env: Annotated[str | None, BeforeValidator(_env_name)] = Field(
        None, description=COMMON_KEYS["token_env"]
    )
    public_params: Annotated[tuple[str, ...], BeforeValidator(_public_params)] = Field(
        (), description=COMMON_KEYS["public_params"]
    )

    @model_validator(mode="after")
    def _one_location_and_the_adapters_options(self) -> SourceTable:
        if (self.url is None) == (self.path is None):
            raise bad(Msg('exactly one of url = "https://…" or path = "…"'), field=("url",))
        options = ADAPTERS[self.adapter].option_help
        for key in self.model_extra or {}:
            if key not in options:
                names = ", ".join([*COMMON_KEYS, *options])
                raise bad(Msg("one of {names}", names=names), key, field=(key,))
        return self

    @property
    def options(self) -> dict[str, Any]:
        """The adapter's options this source sets."""
        return dict(self.model_extra or {})


def _one_source_per_provider(sources: list[SourceTable]) -> list[SourceTable]:
    seen: set[str] = set()
    for index, source in enumerate(sources):
        if source.provider in seen:
            expected = Msg(
                "one [[source]] per provider ({provider!r} has one already)",
                provider=source.provider,
            )
            raise bad(expected, field=(index, "provider"))
        seen.add(source.provider)
    return sources


class SourcesDocument(FileTable):
    """A sources file: the [worker] schedule and one [[source]] per provider."""

    worker: WorkerTable = Field(default_factory=WorkerTable, description="a table")
    source: Annotated[list[SourceTable], AfterValidator(_one_source_per_provider)] = Field(
        min_length=1, description="at least one [[source]] table"
    )
    report: dict[str, Any] | None = Field(
        None, description="where the worker writes the weekly market report"
    )


# built once (the adapters are known at import): every read of a sources file uses it
SOURCES_FILE: TypeAdapter[SourcesDocument] = TypeAdapter(SourcesDocument)


class _ClosedSource(SourceTable):
    model_config = ConfigDict(extra="forbid")


def _source_model(adapter: str, options: Mapping[str, str]) -> type[SourceTable]:
    """:class:`SourceTable` with one adapter's options declared (and no other key): the
    schema's model of that adapter's sources."""
    fields: dict[str, Any] = {
        "adapter": (Literal[adapter], Field(description=COMMON_KEYS["adapter"])),
        **{key: (Any, Field(None, description=text)) for key, text in options.items()},
    }
    name = "".join(part.capitalize() for part in adapter.split("_")) + "Source"
    return create_model(name, __base__=_ClosedSource, **fields)


@cache
def source_models() -> tuple[type[SourceTable], ...]:
    """One ``[[source]]`` model per adapter (built on first use: the CLI seldom needs them)."""
    return tuple(
        _source_model(name, dict(adapter.option_help)) for name, adapter in sorted(ADAPTERS.items())
    )


@cache
def sources_file_model() -> type[SourcesDocument]:
    """:class:`SourcesDocument` whose ``[[source]]`` is one of :func:`source_models` (the schema)."""
    source: Any = Union[source_models()]  # noqa: UP007 (a union of a runtime tuple)
    return create_model(
        "SourcesFile",
        __base__=SourcesDocument,
        __doc__=SourcesDocument.__doc__,
        source=(list[source], Field(min_length=1, description="at least one [[source]] table")),
    )


def sources_schema() -> dict[str, Any]:
    """The JSON Schema of a sources file."""
    schema = sources_file_model().model_json_schema()
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    return schema
