"""Every setting in one declared place: name, environment variable, default and help.

The README lists each of them (a test checks). Global CLI flags (``--db``) override the
environment, which overrides the defaults.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, fields
from datetime import date
from decimal import Decimal, InvalidOperation
from functools import cache
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

import platformdirs

from comparator.domain.zones import DEFAULT_TIMEZONE_NAME
from comparator.errors import ConfigError


@dataclass(frozen=True)
class Setting:
    name: str
    env: str
    default: str
    help: str


@cache
def software_version() -> str:
    """The installed distribution's version (read once, on first use: importlib.metadata is
    slow to import)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("suanli")
    except PackageNotFoundError:  # running from a source tree that was never installed
        return "0.0.0+source"


DEFAULT_DB = "sqlite:///<user data dir>/suanli.db"


def default_db_url() -> str:
    data_dir = Path(platformdirs.user_data_dir("suanli", appauthor=False))
    return f"sqlite:///{data_dir / 'suanli.db'}"


Parse = Callable[[str, Setting], Any]


def setting(env: str, default: str, help: str, parse: Parse) -> dict[str, Any]:
    """The metadata of a field of :class:`Settings`: its environment variable, its default as
    written there, its help (the README lists it) and how its text becomes the value."""
    return {"env": env, "default": default, "help": help, "parse": parse}


def parse_fx_rates(text: str, env: str = "SUANLI_FX_RATES") -> dict[str, Decimal]:
    rates: dict[str, Decimal] = {"CNY": Decimal(1)}
    for item in filter(None, (part.strip() for part in text.split(","))):
        code, sep, value = item.partition("=")
        try:
            rate = Decimal(value)
        except InvalidOperation:
            rate = Decimal(0)
        if not sep or len(code.strip()) != 3 or rate <= 0:
            raise ConfigError(
                "{env}: expected CODE=RATE items like USD=7.12, got {item!r}", env=env, item=item
            )
        rates[code.strip().upper()] = rate
    return rates


def _number(text: str, setting: Setting, kind: type[int] | type[float]) -> float:
    try:
        value = kind(text)
    except ValueError:
        raise ConfigError(
            "{env}: expected a number, got {text!r}", env=setting.env, text=text
        ) from None
    if value < 0:
        raise ConfigError(
            "{env}: expected a non-negative number, got {text!r}", env=setting.env, text=text
        )
    return value


def _db_url(text: str, _: Setting) -> str:
    return text if text != DEFAULT_DB else default_db_url()


def _zone(text: str, _: Setting) -> ZoneInfo:
    try:
        return ZoneInfo(text)
    except (ZoneInfoNotFoundError, ValueError, OSError):  # OSError: a name too long for a path
        raise ConfigError("SUANLI_TIMEZONE: unknown time zone {raw!r}", raw=text) from None


def _date(text: str, _: Setting) -> date:
    try:
        return date.fromisoformat(text)
    except ValueError:
        raise ConfigError("SUANLI_FX_DATE: expected YYYY-MM-DD, got {raw!r}", raw=text) from None


def _optional_day(text: str, _: Setting) -> date | None:
    if not text.strip():
        return None
    try:
        return date.fromisoformat(text.strip())
    except ValueError:
        raise ConfigError("SUANLI_TODAY: expected YYYY-MM-DD, got {raw!r}", raw=text) from None


def _fraction(text: str, setting: Setting) -> float:
    return _number(text, setting, float)


def _optional_fraction(text: str, setting: Setting) -> float | None:
    return _number(text, setting, float) if text.strip() else None


@dataclass(frozen=True)
class Settings:
    """Every setting, declared once: its field here names its environment variable, default,
    help and parser (:data:`SETTINGS` and :func:`load_settings` are read off these fields)."""

    db_url: str = field(
        metadata=setting(
            "SUANLI_DB",
            DEFAULT_DB,
            "SQLAlchemy URL of the catalog database (`--db`); SQLite runs in WAL mode; "
            "PostgreSQL as postgresql+psycopg://user:pass@host/db",
            _db_url,
        )
    )
    timezone: ZoneInfo = field(
        metadata=setting(
            "SUANLI_TIMEZONE", DEFAULT_TIMEZONE_NAME, "time zone of slots and output", _zone
        )
    )
    currency: str = field(
        metadata=setting(
            "SUANLI_CURRENCY", "CNY", "quote currency (ISO 4217)", lambda t, _: t.upper()
        )
    )
    fx_rates: dict[str, Decimal] = field(
        metadata=setting(
            "SUANLI_FX_RATES",
            "USD=7.12,EUR=7.53,HKD=0.915,SGD=5.33,JPY=0.0472",
            "price of one unit of each currency in CNY, comma-separated CODE=RATE",
            lambda t, _: parse_fx_rates(t),
        )
    )
    fx_date: date = field(
        metadata=setting("SUANLI_FX_DATE", "2026-11-27", "the date the FX rates were read", _date)
    )
    price_freshness_days: int = field(
        metadata=setting(
            "SUANLI_PRICE_FRESHNESS_DAYS",
            "30",
            "prices older than this many days warn in `check` and in quotes",
            lambda t, s: int(_number(t, s, int)),
        )
    )
    headroom: float = field(
        metadata=setting(
            "SUANLI_HEADROOM",
            "0.10",
            "fraction of GPU memory kept free when deciding whether a job fits",
            _fraction,
        )
    )
    holidays_file: str = field(
        metadata=setting(
            "SUANLI_HOLIDAYS_FILE",
            "",
            "TOML file with official holidays and 调休 workdays for years chinesecalendar lacks",
            lambda t, _: t,
        )
    )
    multi_node_efficiency: float | None = field(  # None: the estimator's network model
        metadata=setting(
            "SUANLI_MULTI_NODE_EFFICIENCY",
            "",
            "unset: the estimator's network model prices the multi-node loss; set (0–1]: it "
            "replaces that model (one node's card-hours ÷ it across nodes) and divides a "
            "[workload] job's card-hours across nodes (0.90 when unset)",
            _optional_fraction,
        )
    )
    lock_timeout_s: float = field(
        metadata=setting(
            "SUANLI_LOCK_TIMEOUT_S",
            "30",
            "seconds a write (import, refresh) waits for another process's write lock before failing",
            lambda t, s: min(_number(t, s, float), 86400),
        )
    )
    today: date | None = field(  # None: the real date in SUANLI_TIMEZONE
        metadata=setting(
            "SUANLI_TODAY",
            "",
            "the day `plan`, `quote` and `check` judge as today when `--today` is not given "
            "(windows in the past, licences, price ages); unset: the real date",
            _optional_day,
        )
    )
    json_compat: bool = field(
        metadata=setting(
            "SUANLI_JSON_COMPAT",
            "",
            "deprecated: 1 prints the bare JSON lists of suanli 0.1 for `offers`/`providers --json` "
            'instead of {"offers": [...]}; deprecated in 0.2.0, removed in 0.3.0',
            lambda t, _: t.strip() == "1",
        )
    )


SETTINGS: tuple[Setting, ...] = tuple(
    Setting(f.name, f.metadata["env"], f.metadata["default"], f.metadata["help"])
    for f in fields(Settings)
)
_PARSERS: dict[str, Parse] = {f.name: f.metadata["parse"] for f in fields(Settings)}


def _raw(env: Mapping[str, str], setting: Setting, override: str | None) -> str:
    if override is not None:
        return override
    return env.get(setting.env, setting.default)


def load_settings(env: Mapping[str, str] | None = None, **overrides: str | None) -> Settings:
    """Settings from ``overrides`` (CLI flags), then ``env`` (os.environ), then the defaults."""
    env = os.environ if env is None else env
    values = {s.name: _PARSERS[s.name](_raw(env, s, overrides.get(s.name)), s) for s in SETTINGS}
    settings = Settings(**values)
    efficiency = settings.multi_node_efficiency
    if settings.headroom >= 1 or (efficiency is not None and not 0 < efficiency <= 1):
        raise ConfigError("SUANLI_HEADROOM must be < 1 and SUANLI_MULTI_NODE_EFFICIENCY in (0, 1]")
    return settings
