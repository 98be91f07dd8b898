"""The market index's arithmetic, pure: percentiles over ordered prices, week-over-week change,
the off-peak factor of a reference week, and the summary of a group's ordered rows.

The streamed computation (:func:`summarise_ordered`) takes a group's providers in price order
and values exactly only the items the minimum and the percentiles need. The index method
(docs/market-report.md): per GPU and billing mode, each provider counts once
with its cheapest card-hour price; the index is the minimum, the median and the 90th
percentile of those prices. Percentiles are *continuous* (linear interpolation between the
two nearest ranks), exactly as PostgreSQL's ``percentile_cont``, so the streamed computation
used on SQLite and the SQL aggregate used on PostgreSQL give the same numbers.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from decimal import ROUND_HALF_UP, Decimal
from typing import TypeVar
from zoneinfo import ZoneInfo

from comparator.domain.calendar import slot_factors

T = TypeVar("T")
CENT = Decimal("0.01")
PCT_PLACES = Decimal("0.1")
MEDIAN = Decimal("0.5")
P90 = Decimal("0.9")
WEEK_HOURS = 168


def percentile_position(count: int, fraction: Decimal) -> tuple[int, Decimal]:
    """Where the ``fraction`` percentile of ``count`` ascending values lies: the index of the
    value below it and the weight of the next one (0 when it is a value itself)."""
    if count < 1:
        raise ValueError("percentile of no values")
    if not Decimal(0) <= fraction <= Decimal(1):
        raise ValueError(f"fraction {fraction} is outside 0…1")
    position = fraction * (count - 1)
    below = int(position)  # floor: position ≥ 0
    return below, position - below


def percentile_cont(ordered: Sequence[Decimal], fraction: Decimal) -> Decimal:
    """The ``fraction`` percentile of ascending ``ordered`` values, interpolated linearly.

    As PostgreSQL's ``percentile_cont``: the value at position ``fraction × (n − 1)`` counted
    from 0, between the two nearest values. ``ordered`` must not be empty.
    """
    return percentile_of(ordered, fraction, lambda value: value)


def percentile_of(
    ordered: Sequence[T], fraction: Decimal, exact: Callable[[T], Decimal]
) -> Decimal:
    """:func:`percentile_cont` of items in ascending order whose exact values ``exact`` gives:
    only the one or two items around the position are valued."""
    below, weight = percentile_position(len(ordered), fraction)
    low = exact(ordered[below])
    if weight == 0:
        return low
    return low + (exact(ordered[below + 1]) - low) * weight


@dataclass(frozen=True)
class IndexStats:
    """One GPU × billing mode in one week: who counted and the price index (card-hour)."""

    providers: int
    offers: int
    min_price: Decimal
    median_price: Decimal
    p90_price: Decimal
    stale_providers: int = 0

    def rounded(self) -> IndexStats:
        """The prices rounded once to 0.01, half up (as every amount the report shows)."""
        return IndexStats(
            self.providers,
            self.offers,
            to_cent(self.min_price),
            to_cent(self.median_price),
            to_cent(self.p90_price),
            self.stale_providers,
        )


def to_cent(amount: Decimal) -> Decimal:
    return amount.quantize(CENT, rounding=ROUND_HALF_UP)


def summarise(
    provider_prices: Iterable[Decimal], offers: int, stale_providers: int = 0
) -> IndexStats:
    """The index of one group from each provider's cheapest card-hour price (any order)."""
    return summarise_ordered(sorted(provider_prices), lambda price: price, offers, stale_providers)


def summarise_ordered(
    ordered: Sequence[T], exact: Callable[[T], Decimal], offers: int, stale_providers: int = 0
) -> IndexStats:
    """The index of one group from its providers' items in ascending price order, valuing only
    the items the minimum and the percentiles need (a database that orders by an inexact price
    hands the exact one over for those few)."""
    return IndexStats(
        providers=len(ordered),
        offers=offers,
        min_price=exact(ordered[0]),
        median_price=percentile_of(ordered, MEDIAN, exact),
        p90_price=percentile_of(ordered, P90, exact),
        stale_providers=stale_providers,
    )


@dataclass(frozen=True)
class Change:
    """How a week's median moved against an earlier week's: amount and percent."""

    amount: Decimal
    pct: Decimal


def change(now: Decimal | None, before: Decimal | None) -> Change | None:
    """The change from ``before`` to ``now`` (both rounded to the cent first), or None when
    either week has no index."""
    if now is None or before is None or before == 0:
        return None
    now_cent, before_cent = to_cent(now), to_cent(before)
    pct = ((now_cent - before_cent) / before_cent * 100).quantize(
        PCT_PLACES, rounding=ROUND_HALF_UP
    )
    return Change(now_cent - before_cent, pct)


def week_factor_sum(time_of_use: str, week_start: datetime, zone: ZoneInfo) -> Decimal:
    """The sum of an off-peak rule's factors over the 168 hours of the reference week.

    The rule's mean factor is this sum / 168; kept as the sum so SQL can multiply exactly.
    ``week_start`` is the reference week's Monday 00:00 in ``zone``.
    """
    return sum(slot_factors(time_of_use, week_start, WEEK_HOURS, zone), Decimal(0))
