"""What a plan orders, in a few words: its billing mix, e.g. ``包周 ×1 + 按量 12 h``."""

from __future__ import annotations

from comparator.i18n import is_en
from comparator.plan.result import Plan

HOURLY = ("hourly", "spot")
NAMES = {
    "hourly": ("按量", "hourly"),
    "spot": ("竞价", "spot"),
    "daily": ("包日", "daily"),
    "weekly": ("包周", "weekly"),
    "monthly": ("包月", "monthly"),
    "yearly": ("包年", "yearly"),
}


def mix_part(billing: str, count: int, lang: str = "en") -> str:
    """``按量 12 h`` for hours of an hourly mode, ``包周 ×1`` for contract periods."""
    zh, en = NAMES.get(billing, (billing, billing))
    name = zh if not is_en(lang) else en
    return f"{name} {count} h" if billing in HOURLY else f"{name} ×{count}"


def mix_text(plan: Plan, lang: str = "en") -> str:
    return " + ".join(mix_part(b, n, lang) for b, n in plan.billing_counts.items())
