"""Every setting in one declared place: name, environment variable, default and help.

The README lists each of them (a test checks). Global CLI flags (``--db``) override the
environment, which overrides the defaults.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date
from decimal import Decimal, InvalidOperation
from functools import cache
from pathlib import Path
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


def default_db_url() -> str:
    data_dir = Path(platformdirs.user_data_dir("suanli", appauthor=False))
    return f"sqlite:///{data_dir / 'suanli.db'}"


SETTINGS: tuple[Setting, ...] = (
    Setting(
        "db_url",
        "SUANLI_DB",
        "sqlite:///<user data dir>/suanli.db",
        "SQLAlchemy URL of the catalog database (`--db`); SQLite runs in WAL mode; "
        "PostgreSQL as postgresql+psycopg://user:pass@host/db",
    ),
    Setting("timezone", "SUANLI_TIMEZONE", DEFAULT_TIMEZONE_NAME, "time zone of slots and output"),
    Setting("currency", "SUANLI_CURRENCY", "CNY", "quote currency (ISO 4217)"),
    Setting(
        "fx_rates",
        "SUANLI_FX_RATES",
        "USD=7.12,EUR=7.53,HKD=0.915,SGD=5.33,JPY=0.0472",
        "price of one unit of each currency in CNY, comma-separated CODE=RATE",
    ),
    Setting("fx_date", "SUANLI_FX_DATE", "2026-11-27", "the date the FX rates were read"),
    Setting(
        "price_freshness_days",
        "SUANLI_PRICE_FRESHNESS_DAYS",
        "30",
        "prices older than this many days warn in `check` and in quotes",
    ),
    Setting(
        "headroom",
        "SUANLI_HEADROOM",
        "0.10",
        "fraction of GPU memory kept free when deciding whether a job fits",
    ),
    Setting(
        "holidays_file",
        "SUANLI_HOLIDAYS_FILE",
        "",
        "TOML file with official holidays and 调休 workdays for years chinesecalendar lacks",
    ),
    Setting(
        "multi_node_efficiency",
        "SUANLI_MULTI_NODE_EFFICIENCY",
        "0.90",
        "scaling efficiency when a job spans several nodes (1 within one node)",
    ),
    Setting(
        "lock_timeout_s",
        "SUANLI_LOCK_TIMEOUT_S",
        "30",
        "seconds a write (import, refresh) waits for another process's write lock before failing",
    ),
    Setting(
        "json_compat",
        "SUANLI_JSON_COMPAT",
        "",
        "deprecated: 1 prints the bare JSON lists of suanli 0.1 for `offers`/`providers --json` "
        'instead of {"offers": [...]}; removed in 0.3',
    ),
)


@dataclass(frozen=True)
class Settings:
    db_url: str
    timezone: ZoneInfo
    currency: str
    fx_rates: dict[str, Decimal]
    fx_date: date
    price_freshness_days: int
    headroom: float
    multi_node_efficiency: float
    holidays_file: str = ""
    lock_timeout_s: float = 30.0
    json_compat: bool = False


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


def _raw(env: Mapping[str, str], setting: Setting, override: str | None) -> str:
    if override is not None:
        return override
    return env.get(setting.env, setting.default)


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


def load_settings(env: Mapping[str, str] | None = None, **overrides: str | None) -> Settings:
    """Settings from ``overrides`` (CLI flags), then ``env`` (os.environ), then the defaults."""
    env = os.environ if env is None else env
    raw = {s.name: _raw(env, s, overrides.get(s.name)) for s in SETTINGS}
    by_name = {s.name: s for s in SETTINGS}
    db_url = raw["db_url"] if raw["db_url"] != by_name["db_url"].default else default_db_url()
    try:
        zone = ZoneInfo(raw["timezone"])
    except (ZoneInfoNotFoundError, ValueError):
        raise ConfigError(
            "SUANLI_TIMEZONE: unknown time zone {raw!r}", raw=raw["timezone"]
        ) from None
    try:
        fx_date = date.fromisoformat(raw["fx_date"])
    except ValueError:
        raise ConfigError(
            "SUANLI_FX_DATE: expected YYYY-MM-DD, got {raw!r}", raw=raw["fx_date"]
        ) from None
    headroom = _number(raw["headroom"], by_name["headroom"], float)
    efficiency = _number(raw["multi_node_efficiency"], by_name["multi_node_efficiency"], float)
    if headroom >= 1 or not 0 < efficiency <= 1:
        raise ConfigError("SUANLI_HEADROOM must be < 1 and SUANLI_MULTI_NODE_EFFICIENCY in (0, 1]")
    return Settings(
        db_url=db_url,
        timezone=zone,
        currency=raw["currency"].upper(),
        fx_rates=parse_fx_rates(raw["fx_rates"]),
        fx_date=fx_date,
        price_freshness_days=int(
            _number(raw["price_freshness_days"], by_name["price_freshness_days"], int)
        ),
        headroom=headroom,
        multi_node_efficiency=efficiency,
        holidays_file=raw["holidays_file"],
        lock_timeout_s=min(_number(raw["lock_timeout_s"], by_name["lock_timeout_s"], float), 86400),
        json_compat=raw["json_compat"].strip() == "1",
    )
