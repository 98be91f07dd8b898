"""What changed between a provider's previous and new snapshot: cheaper, dearer, new, gone.

Offers are matched on what identifies them — data centre, GPU, cards, billing mode, SKU,
time-of-use rule, minimum units and currency — and compared on price. A first snapshot has
nothing to compare with and yields no changes.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Literal, Protocol

ChangeKind = Literal["cheaper", "dearer", "new", "gone"]
KINDS: tuple[ChangeKind, ...] = ("cheaper", "dearer", "new", "gone")
OfferKey = tuple[str, str, int, str, str, str, int, str]
#: the offer fields that identify an offer across snapshots, in :data:`OfferKey` order
KEY_FIELDS = ("region", "gpu", "cards", "billing", "sku", "time_of_use", "min_units", "currency")


class PricedOffer(Protocol):
    """What the diff reads; both ``OfferIn`` and ``OfferView`` have it."""

    @property
    def region(self) -> str: ...
    @property
    def gpu(self) -> str: ...
    @property
    def cards(self) -> int: ...
    @property
    def billing(self) -> str: ...
    @property
    def sku(self) -> str: ...
    @property
    def time_of_use(self) -> str: ...
    @property
    def min_units(self) -> int: ...
    @property
    def currency(self) -> str: ...
    @property
    def price(self) -> Decimal: ...


@dataclass(frozen=True)
class PriceChange:
    provider: str
    key: OfferKey
    kind: ChangeKind
    old_price: Decimal | None
    new_price: Decimal | None

    @property
    def change_pct(self) -> Decimal | None:
        if self.old_price is None or self.new_price is None:
            return None
        return ((self.new_price - self.old_price) / self.old_price * 100).quantize(Decimal("0.1"))

    def to_json(self) -> dict[str, object]:
        pct = self.change_pct
        return {
            "provider": self.provider,
            **dict(zip(KEY_FIELDS, self.key, strict=True)),
            "change": self.kind,
            "old_price": _text(self.old_price),
            "new_price": _text(self.new_price),
            "change_pct": None if pct is None else str(pct),
        }


def _text(price: Decimal | None) -> str | None:
    return None if price is None else format(price, "f")


KeyedPrice = tuple[OfferKey, Decimal]


def offer_key(offer: PricedOffer) -> OfferKey:
    return (
        offer.region,
        offer.gpu,
        offer.cards,
        offer.billing,
        offer.sku,
        offer.time_of_use,
        offer.min_units,
        offer.currency,
    )


def keyed_prices(offers: Iterable[PricedOffer]) -> list[KeyedPrice]:
    return [(offer_key(offer), offer.price) for offer in offers]


Prices = Decimal | list[Decimal]  # one offer's price, or the sorted prices of a repeated key


def _grouped(prices: Sequence[KeyedPrice]) -> dict[OfferKey, Prices]:
    groups: dict[OfferKey, list[Decimal]] = defaultdict(list)
    for key, price in prices:
        groups[key].append(price)
    return {key: sorted(group) for key, group in groups.items()}


def _as_list(prices: Prices | None) -> list[Decimal]:
    if prices is None:
        return []
    return prices if isinstance(prices, list) else [prices]


def diff_offers(
    provider: str, before: Iterable[KeyedPrice], after: Iterable[KeyedPrice]
) -> list[PriceChange]:
    """Changes from ``before`` to ``after`` (``(key, price)`` pairs, see :func:`keyed_prices`).

    Offers sharing a key are paired cheapest first.
    """
    before, after = list(before), list(after)
    old: dict[OfferKey, Prices] = dict(before)
    new: dict[OfferKey, Prices] = dict(after)
    if len(old) < len(before) or len(new) < len(after):  # a key repeats: compare sorted groups
        old, new = _grouped(before), _grouped(after)
    changes: list[PriceChange] = []
    for key, prices in new.items():
        previous = old.pop(key, None)
        if previous != prices:
            changes.extend(_pair(provider, key, _as_list(previous), _as_list(prices)))
    for key, prices in old.items():
        changes.extend(_pair(provider, key, _as_list(prices), []))
    return sort_changes(changes)


def _pair(
    provider: str, key: OfferKey, old: Sequence[Decimal], new: Sequence[Decimal]
) -> Iterable[PriceChange]:
    for i in range(max(len(old), len(new))):
        before = old[i] if i < len(old) else None
        after = new[i] if i < len(new) else None
        if before == after:
            continue
        if before is None:
            yield PriceChange(provider, key, "new", None, after)
        elif after is None:
            yield PriceChange(provider, key, "gone", before, None)
        else:
            kind: ChangeKind = "cheaper" if after < before else "dearer"
            yield PriceChange(provider, key, kind, before, after)


def sort_changes(changes: Iterable[PriceChange]) -> list[PriceChange]:
    """Biggest moves first within each kind; kinds in the order cheaper, dearer, new, gone."""

    def order(change: PriceChange) -> tuple[int, Decimal, OfferKey]:
        return KINDS.index(change.kind), -abs(change.change_pct or Decimal(0)), change.key

    return sorted(changes, key=order)


def count_changes(changes: Iterable[PriceChange]) -> dict[str, int]:
    counts: dict[str, int] = dict.fromkeys(KINDS, 0)
    for change in changes:
        counts[change.kind] += 1
    return counts
