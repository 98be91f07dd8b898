"""The default time zone: mainland China's, where our users rent and are billed."""

from __future__ import annotations

from zoneinfo import ZoneInfo

DEFAULT_TIMEZONE_NAME = "Asia/Shanghai"
DEFAULT_TIMEZONE = ZoneInfo(DEFAULT_TIMEZONE_NAME)
