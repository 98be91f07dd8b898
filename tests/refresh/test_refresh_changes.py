"""The change report's diff (pure logic: keyed prices in, changes out)."""

from __future__ import annotations

from decimal import Decimal

from comparator.catalog.changes import KeyedPrice, count_changes, diff_offers, offer_key


def price(
    gpu: str, value: str, cards: int = 1, currency: str = "USD", billing: str = "hourly"
) -> KeyedPrice:
    return (("sg-1", gpu, cards, billing, f"{gpu}-{cards}", "", 1, currency), Decimal(value))


def kinds(before: list[KeyedPrice], after: list[KeyedPrice]) -> list[tuple[str, str, str | None]]:
    return [
        (c.key[1], c.kind, None if c.change_pct is None else str(c.change_pct))
        for c in diff_offers("acme", before, after)
    ]


def test_cheaper_dearer_new_and_gone_biggest_moves_first() -> None:
    before = [
        price("H100", "2.00"),
        price("A100", "1.00"),
        price("L4", "0.50"),
        price("T4", "0.20"),
        price("V100", "0.80"),
    ]
    after = [
        price("H100", "1.50"),
        price("A100", "1.10"),
        price("L4", "0.45"),
        price("T4", "0.20"),
        price("B200", "5.00"),
    ]
    assert kinds(before, after) == [
        ("H100", "cheaper", "-25.0"),
        ("L4", "cheaper", "-10.0"),
        ("A100", "dearer", "10.0"),
        ("B200", "new", None),
        ("V100", "gone", None),
    ]


def test_equal_prices_written_differently_are_no_change() -> None:
    assert diff_offers("acme", [price("H100", "2.0")], [price("H100", "2.00")]) == []


def test_a_currency_change_is_a_new_offer_and_a_gone_one() -> None:
    changes = kinds(
        [price("H100", "2.00", currency="USD")], [price("H100", "14.00", currency="CNY")]
    )
    assert sorted(changes) == [("H100", "gone", None), ("H100", "new", None)]


def test_repeated_keys_are_paired_cheapest_first() -> None:
    before = [price("H100", "3.00"), price("H100", "2.00")]
    after = [price("H100", "2.00"), price("H100", "2.50"), price("H100", "4.00")]
    changes = diff_offers("acme", before, after)
    pairs = [(c.kind, c.old_price, c.new_price) for c in changes]
    assert pairs == [("cheaper", Decimal("3.00"), Decimal("2.50")), ("new", None, Decimal("4.00"))]
    assert count_changes(changes) == {"cheaper": 1, "dearer": 0, "new": 1, "gone": 0}


def test_change_json_names_the_offer_and_keeps_price_digits() -> None:
    [change] = diff_offers(
        "acme", [price("H100", "2.490", cards=8)], [price("H100", "2.2900", cards=8)]
    )
    assert change.to_json() == {
        "provider": "acme",
        "region": "sg-1",
        "gpu": "H100",
        "cards": 8,
        "billing": "hourly",
        "sku": "H100-8",
        "time_of_use": "",
        "min_units": 1,
        "currency": "USD",
        "change": "cheaper",
        "old_price": "2.490",
        "new_price": "2.2900",
        "change_pct": "-8.0",
    }


def test_offer_key_reads_offer_objects() -> None:
    class Offer:
        region, gpu, cards, billing, sku = "sg-1", "H100", 8, "spot", "x"
        time_of_use, min_units, currency, price = "", 1, "USD", Decimal(1)

    assert offer_key(Offer()) == ("sg-1", "H100", 8, "spot", "x", "", 1, "USD")
