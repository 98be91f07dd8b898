"""Settings are declared once, read from flags and the environment, and refused when bad."""

from __future__ import annotations

from decimal import Decimal

import pytest

from comparator.config import SETTINGS, load_settings
from comparator.errors import ConfigError


def test_defaults() -> None:
    settings = load_settings({})
    assert settings.timezone.key == "Asia/Shanghai"
    assert settings.currency == "CNY"
    assert settings.fx_rates["CNY"] == 1 and settings.fx_rates["USD"] > 0
    assert settings.db_url.startswith("sqlite:///") and settings.db_url.endswith("suanli.db")
    assert settings.price_freshness_days == 30


def test_environment_and_flags() -> None:
    env = {"SUANLI_DB": "sqlite:///env.db", "SUANLI_FX_RATES": "USD=7.5", "SUANLI_CURRENCY": "usd"}
    assert load_settings(env).db_url == "sqlite:///env.db"
    assert load_settings(env, db_url="sqlite:///flag.db").db_url == "sqlite:///flag.db"
    assert load_settings(env).fx_rates["USD"] == Decimal("7.5")
    assert load_settings(env).currency == "USD"


@pytest.mark.parametrize(
    ("env", "message"),
    [
        ({"SUANLI_FX_RATES": "USD"}, "SUANLI_FX_RATES"),
        ({"SUANLI_FX_RATES": "USD=-1"}, "SUANLI_FX_RATES"),
        ({"SUANLI_TIMEZONE": "Mars/Olympus"}, "SUANLI_TIMEZONE"),
        ({"SUANLI_FX_DATE": "yesterday"}, "SUANLI_FX_DATE"),
        ({"SUANLI_PRICE_FRESHNESS_DAYS": "soon"}, "SUANLI_PRICE_FRESHNESS_DAYS"),
        ({"SUANLI_HEADROOM": "1.5"}, "SUANLI_HEADROOM"),
    ],
)
def test_bad_settings_are_named(env: dict[str, str], message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        load_settings(env)


def test_every_setting_has_help_and_env() -> None:
    assert len({s.env for s in SETTINGS}) == len(SETTINGS)
    assert all(s.help and s.env.startswith("SUANLI_") for s in SETTINGS)
