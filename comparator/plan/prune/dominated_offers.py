"""Offers of one machine that can never be worth renting (docs/planner-pruning.md, rule 4).

Within a group (provider, data centre, GPU, node size), offer A *strictly dominates* offer B
when both bill alike (same billing mode, same cards per unit), A can rent whatever B can (stock
at least B's, an RDMA network if B has one, a minimum no longer than B's), and A costs at least
one cent less per unit in every slot B could be paid for (per period, for contracts). Replacing
B by A in any schedule then saves at least a cent per replaced segment, which covers the cent
a merge of adjacent segments may add in rounding: B is dropped. Pure.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from decimal import Decimal

from comparator.domain.billing import HOURLY_MODES
from comparator.domain.offer_view import OfferView
from comparator.estimate.throughput import is_rdma
from comparator.plan.dp.grid import SlotGrid
from comparator.plan.dp.slot_prices import shared_factors

CENT = Decimal("0.01")


def _can_rent_all_of(a: OfferView, b: OfferView) -> bool:
    stock = a.stock is None or (b.stock is not None and a.stock >= b.stock)
    network = is_rdma(a.network) or not is_rdma(b.network)
    return stock and network and a.min_units <= b.min_units


def _cheaper_everywhere(
    a: OfferView, b: OfferView, prices: Mapping[str, Decimal], grid: SlotGrid
) -> bool:
    pa, pb = prices[a.offer_id], prices[b.offer_id]
    if a.billing not in HOURLY_MODES:
        return pa + CENT <= pb
    horizon = grid.deadline_slot + b.min_units - 1
    fb = shared_factors(b.time_of_use, grid.first, horizon, grid.timezone, grid.holidays)
    if a.time_of_use == b.time_of_use:
        return (pb - pa) * min(fb, default=Decimal(1)) >= CENT
    fa = shared_factors(a.time_of_use, grid.first, horizon, grid.timezone, grid.holidays)
    if pa * max(fa, default=Decimal(1)) + CENT <= pb * min(fb, default=Decimal(1)):
        return True
    return all(pa * x + CENT <= pb * y for x, y in zip(fa, fb, strict=True))


def dominates(a: OfferView, b: OfferView, prices: Mapping[str, Decimal], grid: SlotGrid) -> bool:
    """Whether ``a`` strictly dominates ``b`` (same group assumed)."""
    return (
        a.billing == b.billing
        and a.cards == b.cards
        and _can_rent_all_of(a, b)
        and _cheaper_everywhere(a, b, prices, grid)
    )


def undominated_offers(
    offers: Sequence[OfferView], prices: Mapping[str, Decimal], grid: SlotGrid
) -> list[OfferView]:
    """``offers`` without those some other offer strictly dominates (order kept).

    Strict dominance is transitive and never mutual, so every dropped offer has an undropped
    dominator; comparing against all offers (not only the kept ones) is therefore exact."""
    buckets: dict[tuple[str, int], list[OfferView]] = {}
    for offer in offers:
        buckets.setdefault((offer.billing, offer.cards), []).append(offer)
    dropped: set[str] = set()
    for bucket in buckets.values():
        if len(bucket) < 2:
            continue
        ranked = sorted(bucket, key=lambda o: prices[o.offer_id])
        for i, b in enumerate(ranked):
            cheaper = (a for a in ranked[:i] if prices[a.offer_id] + CENT <= prices[b.offer_id])
            if any(dominates(a, b, prices, grid) for a in cheaper):
                dropped.add(b.offer_id)
    return [o for o in offers if o.offer_id not in dropped]
