"""What a plan orders, in a few words: its billing mix, e.g. ``weekly ×1 + hourly 12 h``."""

from __future__ import annotations

from comparator.i18n import billing_label
from comparator.plan.result import Plan

HOURLY = ("hourly", "spot")


def mix_part(billing: str, count: int, lang: str = "en") -> str:
    """``hourly 12 h`` for hours of an hourly mode, ``weekly ×1`` for contract periods (the
    mode's label in ``lang``)."""
    name = billing_label(lang, billing)
    return f"{name} {count} h" if billing in HOURLY else f"{name} ×{count}"


def mix_text(plan: Plan, lang: str = "en") -> str:
    return " + ".join(mix_part(b, n, lang) for b, n in plan.billing_counts.items())
