"""Which slots a plan may rent, and at what: not before the upload is done, only inside the
job's run windows (``[schedule] run_windows``, the time-of-use grammar without a factor), at
most ``max_hours_per_day`` run hours a day of the job's time zone, and the offers' free trial
hours first when the job allows them."""

from __future__ import annotations

from collections.abc import Sequence
from decimal import Decimal
from functools import lru_cache
from zoneinfo import ZoneInfo

from comparator.domain.job import window_rules
from comparator.domain.offer_view import OfferView
from comparator.plan.dp.grid import SlotGrid
from comparator.plan.dp.problem import ContractRate, HourlyRate

TRIAL = "~trial"

Mask = tuple[bool, ...] | None


@lru_cache(maxsize=1024)
def rentable(grid: SlotGrid, blocked: int, windows: tuple[str, ...]) -> Mask:
    """Per slot ``t`` before the grid's deadline: after ``blocked`` upload slots and inside a
    run window; None when every slot may be rented. One mask per distinct grid, upload and
    windows: every candidate of a provider's zone shares it."""
    if not blocked and not windows:
        return None
    rules = window_rules(windows) if windows else ()
    return tuple(
        t >= blocked and (not rules or any(r.matches(grid.at(t), grid.holidays) for r in rules))
        for t in range(grid.deadline_slot)
    )


@lru_cache(maxsize=1024)
def daily_cap(grid: SlotGrid, hours: int | None, zone: ZoneInfo) -> tuple[int, tuple[int, ...]]:
    """(cap in slots, the local day of every slot ``t ≤`` the grid's deadline in ``zone``) for
    ``max_hours_per_day``; (0, ()) without a cap. One per distinct grid and zone."""
    if not hours:
        return 0, ()
    days = (grid.at(t).astimezone(zone).date().toordinal() for t in range(grid.deadline_slot + 1))
    return hours, tuple(days)


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
