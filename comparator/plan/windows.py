"""Which slots a plan may rent, and at what: not before the upload is done, only inside the
job's run windows (``[schedule] run_windows``, the time-of-use grammar without a factor), at
most ``max_hours_per_day`` run hours a day of the job's time zone, and the offers' free trial
hours first when the job allows them."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime
from decimal import Decimal
from zoneinfo import ZoneInfo

from comparator.domain.job import window_rules
from comparator.domain.offer_view import OfferView
from comparator.plan.problem import ContractRate, HourlyRate

TRIAL = "~trial"

Mask = tuple[bool, ...] | None


def rentable(
    at: Callable[[int], datetime], slots: int, blocked: int, windows: tuple[str, ...]
) -> Mask:
    """Per slot ``t < slots`` (local start ``at(t)``): after ``blocked`` upload slots and inside
    a run window; None when every slot may be rented."""
    if not blocked and not windows:
        return None
    rules = window_rules(windows) if windows else ()
    return tuple(
        t >= blocked and (not rules or any(r.matches(at(t)) for r in rules)) for t in range(slots)
    )


def daily_cap(
    at: Callable[[int], datetime], slots: int, hours: int | None, zone: ZoneInfo
) -> tuple[int, tuple[int, ...]]:
    """(cap in slots, the local day of every slot ``t ≤ slots`` in ``zone``) for
    ``max_hours_per_day``; (0, ()) without a cap."""
    if not hours:
        return 0, ()
    return hours, tuple(at(t).astimezone(zone).date().toordinal() for t in range(slots + 1))


def free_trials(
    offers: Sequence[OfferView], rates: Sequence[HourlyRate | ContractRate]
) -> dict[str, tuple[HourlyRate, str]]:
    """A zero-cost trial rate for every hourly offer with ``free_trial_hours`` (its units, its
    machine and slots); the DP allows one only as the plan's first segment (once per provider)."""
    trials: dict[str, tuple[HourlyRate, str]] = {}
    by_key = {r.key: r for r in rates}
    for offer in offers:
        rate = by_key.get(offer.offer_id)
        if offer.free_trial_hours > 0 and isinstance(rate, HourlyRate):
            key = offer.offer_id + TRIAL
            zero = (Decimal(0),) * len(rate.slot_costs)
            trial = HourlyRate(key, zero, 1, rate.available, rate.machine, offer.free_trial_hours)
            trials[key] = (trial, offer.offer_id)
    return trials
