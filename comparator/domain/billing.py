"""Billing modes and their periods (billing.md), with the Chinese words sheets use."""

from __future__ import annotations

import unicodedata

PERIOD_HOURS: dict[str, int] = {
    "hourly": 1,
    "spot": 1,
    "daily": 24,
    "weekly": 168,
    "monthly": 720,
    "yearly": 8760,
}
BILLING_MODES: tuple[str, ...] = tuple(PERIOD_HOURS)
CONTRACT_MODES: tuple[str, ...] = ("daily", "weekly", "monthly", "yearly")
HOURLY_MODES: tuple[str, ...] = ("hourly", "spot")  # billed per started hour, no contract

_WORDS: dict[str, str] = {
    "hourly": "hourly",
    "hour": "hourly",
    "按量": "hourly",
    "按小时": "hourly",
    "按需": "hourly",
    "按时": "hourly",
    "按量付费": "hourly",
    "on-demand": "hourly",
    "ondemand": "hourly",
    "spot": "spot",
    "竞价": "spot",
    "抢占式": "spot",
    "竞价实例": "spot",
    "preemptible": "spot",
    "daily": "daily",
    "day": "daily",
    "包日": "daily",
    "按天": "daily",
    "按日": "daily",
    "weekly": "weekly",
    "week": "weekly",
    "包周": "weekly",
    "按周": "weekly",
    "monthly": "monthly",
    "month": "monthly",
    "包月": "monthly",
    "按月": "monthly",
    "yearly": "yearly",
    "year": "yearly",
    "annual": "yearly",
    "包年": "yearly",
    "按年": "yearly",
}


def parse_billing(word: str) -> str | None:
    """The canonical billing mode of an English or Chinese word, or ``None`` if unknown."""
    key = unicodedata.normalize("NFKC", word).strip().lower().replace(" ", "")
    return _WORDS.get(key)
