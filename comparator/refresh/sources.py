"""The sources file (TOML): the worker's schedule and the ``[[source]]`` entries to refresh.

Relative paths are relative to the sources file. Each provider appears at most once: a
refresh run is per provider and period. Keys an adapter does not declare are refused, so a
typo is an error instead of a silently ignored setting.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from comparator.domain.ids import id_problem
from comparator.domain.toml_input import read_toml
from comparator.domain.zones import DEFAULT_TIMEZONE, DEFAULT_TIMEZONE_NAME
from comparator.errors import InputError, Msg
from comparator.refresh.report_config import ReportConfig, parse_report
from comparator.refresh.schedule import parse_cron
from providers import FetchPolicy, SourceSpec, adapter_class, is_url

DEFAULT_CRON = "mon 03:00"
_COMMON_KEYS: Mapping[str, str] = {
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
_WORKER_KEYS = ("cron", "timezone", "stop_grace_s", "max_in_flight", "shared")
DEFAULT_STOP_GRACE_S = 30.0
DEFAULT_MAX_IN_FLIGHT = 32


@dataclass(frozen=True)
class WorkerConfig:
    cron: str = DEFAULT_CRON
    timezone: ZoneInfo = DEFAULT_TIMEZONE
    stop_grace_s: float = DEFAULT_STOP_GRACE_S  # SIGTERM: how long running sources may finish
    max_in_flight: int = DEFAULT_MAX_IN_FLIGHT  # sources fetched at the same time
    shared: bool = False  # several workers share the sources (per-source claims, no lease)


@dataclass(frozen=True)
class SourcesFile:
    path: str
    worker: WorkerConfig
    sources: tuple[SourceSpec, ...]
    report: ReportConfig | None = None  # [report]: where the worker writes the market report

    def select(self, providers: Sequence[str]) -> tuple[SourceSpec, ...]:
        """The sources of ``providers`` (all when empty); InputError for an unknown one."""
        if not providers:
            return self.sources
        known = {s.provider: s for s in self.sources}
        unknown = [p for p in providers if p not in known]
        if unknown:
            raise InputError(
                "{path}: no [[source]] for provider(s) {unknown}; known: {names}",
                path=self.path,
                unknown=", ".join(unknown),
                names=", ".join(sorted(known)),
            )
        return tuple(known[p] for p in providers)


def load_sources(path: str | Path) -> SourcesFile:
    """Read and check a sources file; InputError names the file, the entry and the key."""
    file = Path(path).expanduser()
    data = read_toml(
        file,
        error=InputError,
        kind=Msg("sources file"),
        missing=Msg("{file}: no such sources file (try --config examples/sources.toml)", file=file),
    )
    return parse_sources(data, file)


def parse_sources(data: Mapping[str, Any], file: Path) -> SourcesFile:
    _only(data, ("worker", "source", "report"), str(file))
    worker = _worker(data.get("worker", {}), f"{file} [worker]")
    entries = data.get("source", [])
    if not isinstance(entries, list) or not entries:
        raise InputError("{file}: expected at least one [[source]] table", file=file)
    sources = tuple(
        _source(entry, file, f"{file} [[source]] #{i}", worker.timezone)
        for i, entry in enumerate(entries, 1)
    )
    _unique_providers(sources, file)
    report = (
        None if "report" not in data else parse_report(data["report"], file, f"{file} [report]")
    )
    return SourcesFile(str(file), worker, sources, report)


def _only(table: Mapping[str, Any], allowed: Sequence[str], where: str) -> None:
    for key in table:
        if key not in allowed:
            raise InputError(
                "{where}: unknown key {key!r}; expected one of {allowed}",
                where=where,
                key=key,
                allowed=", ".join(allowed),
            )


def _worker(table: object, where: str) -> WorkerConfig:
    if not isinstance(table, Mapping):
        raise InputError("{where}: expected a table", where=where)
    _only(table, _WORKER_KEYS, where)
    cron = table.get("cron", DEFAULT_CRON)
    zone_name = table.get("timezone", DEFAULT_TIMEZONE_NAME)
    if not isinstance(cron, str) or not cron.strip():
        raise InputError(
            '{where} cron: expected text like "mon 03:00" or "0 3 * * mon"', where=where
        )
    try:
        zone = ZoneInfo(str(zone_name))
    except (ZoneInfoNotFoundError, ValueError, OSError):  # OSError: a name too long for a path
        raise InputError(
            "{where} timezone: expected an IANA zone such as Asia/Shanghai, got {zone_name!r}",
            where=where,
            zone_name=zone_name,
        ) from None
    parse_cron(cron, zone, where=f"{where} cron")
    grace = _number(table, "stop_grace_s", DEFAULT_STOP_GRACE_S, where, minimum=0)
    in_flight = table.get("max_in_flight", DEFAULT_MAX_IN_FLIGHT)
    if isinstance(in_flight, bool) or not isinstance(in_flight, int) or not 1 <= in_flight <= 1024:
        raise InputError(
            "{where} max_in_flight: expected a whole number 1–1024, got {in_flight!r}",
            where=where,
            in_flight=in_flight,
        )
    shared = table.get("shared", False)
    if not isinstance(shared, bool):
        raise InputError(
            "{where} shared: expected true or false, got {shared!r}", where=where, shared=shared
        )
    return WorkerConfig(cron.strip(), zone, min(grace, 3600.0), in_flight, shared)


def _source(entry: object, file: Path, where: str, zone: ZoneInfo) -> SourceSpec:
    if not isinstance(entry, Mapping):
        raise InputError("{where}: expected a table", where=where)
    provider = _text(entry, "provider", where)
    problem = id_problem(provider)
    if problem is not None:
        raise InputError(
            "{where}: provider: expected {expected}, got {value!r}",
            where=where,
            expected=problem,
            value=provider,
        )
    where = f"{where} ({provider})"
    adapter = adapter_class(_text(entry, "adapter", where), where)
    _only(entry, (*_COMMON_KEYS, *adapter.option_help), where)
    options = {k: v for k, v in entry.items() if k in adapter.option_help}
    adapter.check_options(options, where)
    return SourceSpec(
        provider=provider,
        adapter=adapter.name,
        location=_location(entry, file, where),
        profile=_resolve(entry["profile"], file) if "profile" in entry else None,
        policy=_policy(entry, where),
        options=options,
        origin=where,
        timezone=zone,
    )


def _text(entry: Mapping[str, Any], key: str, where: str) -> str:
    value = entry.get(key)
    if not isinstance(value, str) or not value.strip() or any(c.isspace() for c in value.strip()):
        raise InputError(
            "{where}: {key}: expected a name without spaces, got {value!r}",
            where=where,
            key=key,
            value=value,
        )
    return value.strip()


def _location(entry: Mapping[str, Any], file: Path, where: str) -> str:
    if ("url" in entry) == ("path" in entry):
        raise InputError(
            '{where}: expected exactly one of url = "https://…" or path = "…"', where=where
        )
    if "url" in entry:
        url = entry["url"]
        if not isinstance(url, str) or not is_url(url):
            raise InputError(
                "{where}: url: expected an http(s) URL, got {url!r}", where=where, url=url
            )
        return url
    return _resolve(entry["path"], file)


def _resolve(value: object, file: Path) -> str:
    if not isinstance(value, str) or not value.strip() or "\x00" in value:  # no NUL in a path
        raise InputError("{file}: expected a path or URL, got {value!r}", file=file, value=value)
    if is_url(value):
        return value
    path = Path(value).expanduser()
    return str(path if path.is_absolute() else (file.parent / path).resolve())


def _policy(entry: Mapping[str, Any], where: str) -> FetchPolicy:
    defaults = FetchPolicy()
    numbers = {
        "deadline_s": _number(entry, "timeout_s", defaults.deadline_s, where),
        "connect_timeout_s": _number(entry, "connect_timeout_s", defaults.connect_timeout_s, where),
        "read_timeout_s": _number(entry, "read_timeout_s", defaults.read_timeout_s, where),
        "backoff_s": _number(entry, "backoff_s", defaults.backoff_s, where, minimum=0),
    }
    retries = entry.get("retries", defaults.retries)
    if isinstance(retries, bool) or not isinstance(retries, int) or not 0 <= retries <= 10:
        raise InputError(
            "{where}: retries: expected a whole number 0–10, got {retries!r}",
            where=where,
            retries=retries,
        )
    max_mb = _number(entry, "max_body_mb", defaults.max_body_bytes / 2**20, where)
    return FetchPolicy(
        retries=retries,
        max_body_bytes=int(min(max_mb, 4096) * 2**20),
        parse_timeout_s=_number(entry, "parse_timeout_s", defaults.parse_timeout_s, where),
        redirect_hosts=_strings(entry, "redirect_hosts", where),
        headers=_headers(entry, where),
        token_env=_env_name(entry, where),
        public_params=_public_params(entry, where),
        **numbers,
    )


def _strings(entry: Mapping[str, Any], key: str, where: str) -> tuple[str, ...]:
    value = entry.get(key, [])
    if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
        raise InputError(
            "{where}: {key}: expected a list of host names, got {value!r}",
            where=where,
            key=key,
            value=value,
        )
    return tuple(v.lower() for v in value)


def _headers(entry: Mapping[str, Any], where: str) -> tuple[tuple[str, str], ...]:
    value = entry.get("headers", {})
    ok = isinstance(value, Mapping) and all(
        isinstance(v, str) and k.isascii() and "\n" not in v and "\r" not in v
        for k, v in value.items()
    )
    if not ok:
        raise InputError(
            '{where}: headers: expected a table of text, e.g. {{ Accept = "text/csv" }}',
            where=where,
        )
    return tuple((str(k), str(v)) for k, v in value.items())


def _public_params(entry: Mapping[str, Any], where: str) -> tuple[str, ...]:
    """``public_params``: names of query parameters whose values may be stored and printed."""
    value = entry.get("public_params", [])
    ok = isinstance(value, list) and all(
        isinstance(v, str) and v and v.isprintable() and not set(v) & set("&=#?% ") for v in value
    )
    if not ok:
        raise InputError(
            "{where}: public_params: expected a list of query parameter names, e.g. "
            '["page", "region"], got {value!r}',
            where=where,
            value=value,
        )
    return tuple(dict.fromkeys(value))


def _env_name(entry: Mapping[str, Any], where: str) -> str | None:
    value = entry.get("token_env")
    if value is not None and (not isinstance(value, str) or not value.isidentifier()):
        raise InputError(
            "{where}: token_env: expected the name of an environment variable, got {value!r}",
            where=where,
            value=value,
        )
    return value


def _number(
    entry: Mapping[str, Any], key: str, default: float, where: str, minimum: float = 0.001
) -> float:
    value = entry.get(key, default)
    if (
        isinstance(value, bool)
        or not isinstance(value, int | float)
        or not math.isfinite(value)  # nan is not below the minimum, and no limit
        or value < minimum
    ):
        raise InputError(
            "{where}: {key}: expected a number ≥ {minimum:g} (seconds), got {value!r}",
            where=where,
            key=key,
            minimum=minimum,
            value=value,
        )
    return float(value) + 0.0  # -0.0 + 0.0 is 0.0: no signed zero kept


def _unique_providers(sources: Sequence[SourceSpec], file: Path) -> None:
    seen: set[str] = set()
    for source in sources:
        if source.provider in seen:
            raise InputError(
                "{origin}: provider {provider!r} already has a [[source]]; one source per provider",
                origin=source.origin,
                provider=source.provider,
            )
        seen.add(source.provider)
