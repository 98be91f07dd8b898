"""Slot-price arrays computed once per distinct (price, time-of-use rule, calendar) and shared.

Every candidate of a group, and every group whose offers share a price and a rule, used to
build its own tuple of slot costs; the same tuple object is now shared (memory grows with the
distinct prices, not with the candidates). A float copy of each shared tuple is kept for the
lower bounds (:func:`float_costs`).
"""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal
from functools import lru_cache
from zoneinfo import ZoneInfo

import numpy as np
from numpy.typing import NDArray

from comparator.domain.calendar import HolidaySupplement, slot_factors

_FLOATS: dict[int, tuple[tuple[Decimal, ...], NDArray[np.float64]]] = {}


@lru_cache(maxsize=4096)
def shared_factors(
    rule: str,
    first: datetime,
    horizon: int,
    timezone: ZoneInfo,
    holidays: HolidaySupplement | None = None,
) -> tuple[Decimal, ...]:
    """:func:`comparator.domain.calendar.slot_factors`, once per distinct argument."""
    return slot_factors(rule, first, horizon, timezone, holidays)


@lru_cache(maxsize=4096)
def least_factor(
    rule: str,
    first: datetime,
    horizon: int,
    timezone: ZoneInfo,
    holidays: HolidaySupplement | None = None,
) -> float:
    """The smallest factor of :func:`shared_factors` (as a float, for the bounds), once per
    distinct argument: a group's bound needs it for each of its offers."""
    return float(min(shared_factors(rule, first, horizon, timezone, holidays)))


@lru_cache(maxsize=4096)
def least_factor_within(
    rule: str,
    first: datetime,
    horizon: int,
    timezone: ZoneInfo,
    allowed: tuple[bool, ...] | None,
    holidays: HolidaySupplement | None = None,
) -> float:
    """:func:`least_factor` over the slots ``allowed`` marks (all of them when None or when it
    marks none: still a floor), once per distinct argument."""
    factors = shared_factors(rule, first, horizon, timezone, holidays)
    kept = [f for f, ok in zip(factors, allowed, strict=False) if ok] if allowed else []
    return float(min(kept)) if kept else least_factor(rule, first, horizon, timezone, holidays)


@lru_cache(maxsize=1 << 16)
def _costs(
    unit_cost: tuple[int, tuple[int, ...], int],
    rule: str,
    first: datetime,
    horizon: int,
    timezone: ZoneInfo,
    holidays: HolidaySupplement | None,
) -> tuple[Decimal, ...]:
    cost = Decimal(unit_cost)  # keyed by its exact digits and exponent
    costs = tuple(cost * f for f in shared_factors(rule, first, horizon, timezone, holidays))
    if len(_FLOATS) > 1 << 16:
        _FLOATS.clear()
    _FLOATS[id(costs)] = (costs, np.array(costs, dtype=float))
    return costs


def shared_slot_costs(
    unit_cost: Decimal,
    rule: str,
    first: datetime,
    horizon: int,
    timezone: ZoneInfo,
    holidays: HolidaySupplement | None = None,
) -> tuple[Decimal, ...]:
    """``unit_cost × factor`` of every slot of the horizon, one shared tuple per distinct input."""
    sign, digits, exponent = unit_cost.as_tuple()
    return _costs((sign, digits, int(exponent)), rule, first, horizon, timezone, holidays)


def float_costs(costs: tuple[Decimal, ...]) -> NDArray[np.float64]:
    """The float copy of a shared tuple (computed here when it is not one)."""
    held = _FLOATS.get(id(costs))
    if held is not None and held[0] is costs:
        return held[1]
    return np.array(costs, dtype=float)
