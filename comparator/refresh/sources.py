"""The sources file (TOML): the worker's schedule and the ``[[source]]`` entries to refresh.

Relative paths are relative to the sources file. Each provider appears at most once: a
refresh run is per provider and period. Keys an adapter does not declare are refused, so a
typo is an error instead of a silently ignored setting. The file is validated by its pydantic
models (:mod:`comparator.refresh.sources_model`); this module builds what the refresh reads.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

from pydantic import ValidationError

from comparator.domain.input_model import Loc, RowName, render_errors
from comparator.domain.toml_input import read_toml
from comparator.domain.zones import DEFAULT_TIMEZONE, DEFAULT_TIMEZONE_NAME
from comparator.errors import InputError, Msg
from comparator.refresh.report_config import ReportConfig, parse_report
from comparator.refresh.schedule import parse_cron
from comparator.refresh.sources_model import (
    DEFAULT_CRON,
    DEFAULT_MAX_IN_FLIGHT,
    DEFAULT_STOP_GRACE_S,
    SOURCES_FILE,
    SourcesDocument,
    SourceTable,
    WorkerTable,
)
from providers import FetchPolicy, SourceSpec, adapter_class, is_url


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
                hint=Msg(
                    "add a [[source]] for it to the sources file, or give --provider one of the known ids"
                ),
            )
        return tuple(known[p] for p in providers)


#: what to do about a sources file that cannot be read or checked
SOURCES_HINT = Msg(
    "`suanli schema sources` prints every key a sources file takes; "
    "examples/sources.toml shows each adapter"
)


def load_sources(path: str | Path) -> SourcesFile:
    """Read and check a sources file; InputError names the file, the entry and the key, and
    says what to do (:data:`SOURCES_HINT` unless the check knows better)."""
    file = Path(path).expanduser()
    try:
        data = read_toml(
            file,
            error=InputError,
            kind=Msg("sources file"),
            missing=Msg(
                "{file}: no such sources file (try --config examples/sources.toml)", file=file
            ),
        )
        return parse_sources(data, file)
    except InputError as exc:
        if exc.hint is not None or type(exc) is not InputError:
            raise
        raise InputError(exc.msg, hint=SOURCES_HINT) from None


def parse_sources(data: Mapping[str, Any], file: Path) -> SourcesFile:
    """The sources file from its TOML document (the checks: :mod:`.sources_model`)."""
    try:
        document = SOURCES_FILE.validate_python(data if isinstance(data, dict) else dict(data))
    except ValidationError as exc:
        raise render_errors(
            exc, SourcesDocument, str(file), InputError, _provider_of(data)
        ) from None
    worker = _worker(document.worker, f"{file} [worker]")
    sources = tuple(
        _source(entry, file, f"{file} [[source]] #{i} ({entry.provider})", worker.timezone)
        for i, entry in enumerate(document.source, 1)
    )
    report = (
        None if document.report is None else parse_report(document.report, file, f"{file} [report]")
    )
    return SourcesFile(str(file), worker, sources, report)


def _provider_of(data: Mapping[str, Any]) -> RowName:
    """The provider a ``[[source]]`` row names, for errors about that row."""

    def name(loc: Loc) -> str | None:
        rows = data.get("source")
        index = loc[-1]
        if loc[:1] != ("source",) or not isinstance(rows, list) or not isinstance(index, int):
            return None
        row = rows[index] if index < len(rows) else None
        provider = row.get("provider") if isinstance(row, dict) else None
        return provider.strip() if isinstance(provider, str) and provider.strip() else None

    return name


def _worker(table: WorkerTable, where: str) -> WorkerConfig:
    zone = ZoneInfo(table.timezone or DEFAULT_TIMEZONE_NAME)
    parse_cron(table.cron, zone, where=f"{where} cron")
    grace = min(table.stop_grace_s, 3600.0)
    return WorkerConfig(table.cron, zone, grace, table.max_in_flight, table.shared)


def _source(entry: SourceTable, file: Path, where: str, zone: ZoneInfo) -> SourceSpec:
    adapter = adapter_class(entry.adapter, where)
    options = entry.options
    adapter.check_options(options, where)
    location = entry.url if entry.url is not None else _resolve(entry.path or "", file)
    return SourceSpec(
        provider=entry.provider,
        adapter=adapter.name,
        location=location,
        profile=_resolve(entry.profile, file) if entry.profile is not None else None,
        policy=_policy(entry),
        options=options,
        origin=where,
        timezone=zone,
    )


def _resolve(value: str, file: Path) -> str:
    if is_url(value):
        return value
    path = Path(value).expanduser()
    return str(path if path.is_absolute() else (file.parent / path).resolve())


def _policy(entry: SourceTable) -> FetchPolicy:
    defaults = FetchPolicy()

    def given(value: float | None, default: float) -> float:
        return default if value is None else value

    max_mb = given(entry.max_body_mb, defaults.max_body_bytes / 2**20)
    return FetchPolicy(
        deadline_s=given(entry.timeout_s, defaults.deadline_s),
        connect_timeout_s=given(entry.connect_timeout_s, defaults.connect_timeout_s),
        read_timeout_s=given(entry.read_timeout_s, defaults.read_timeout_s),
        backoff_s=given(entry.backoff_s, defaults.backoff_s),
        retries=defaults.retries if entry.retries is None else entry.retries,
        max_body_bytes=int(min(max_mb, 4096) * 2**20),
        parse_timeout_s=given(entry.parse_timeout_s, defaults.parse_timeout_s),
        redirect_hosts=entry.redirect_hosts,
        headers=entry.headers,
        token_env=entry.token_env,
        public_params=entry.public_params,
    )
