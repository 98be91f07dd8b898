"""The market index's pure arithmetic (comparator.domain.price_index): continuous percentiles as
PostgreSQL's percentile_cont defines them, the streamed summary, week-over-week change and the
reference week's off-peak factor."""

from __future__ import annotations

import random
import statistics
from datetime import datetime
from decimal import Decimal
from zoneinfo import ZoneInfo

import pytest

from comparator.domain.price_index import (
    Change,
    change,
    percentile_cont,
    summarise,
    summarise_ordered,
    to_cent,
    week_factor_sum,
)

D = Decimal


@pytest.mark.parametrize(
    ("values", "fraction", "expected"),
    [
        (["7"], "0.5", "7"),
        (["7"], "0.9", "7"),
        (["1", "2"], "0.5", "1.5"),
        (["10", "11", "12"], "0.9", "11.8"),
        (["10.40", "10.68", "11.50"], "0.9", "11.336"),
        (["1", "2", "3", "4"], "0.5", "2.5"),
        (["1", "2", "3", "4"], "0.9", "3.7"),
        (["1", "2", "3", "4"], "0", "1"),
        (["1", "2", "3", "4"], "1", "4"),
    ],
)
def test_percentile_cont_by_hand(values: list[str], fraction: str, expected: str) -> None:
    assert percentile_cont([D(v) for v in values], D(fraction)) == D(expected)


def test_the_median_agrees_with_the_statistics_module() -> None:
    rng = random.Random(7)
    for size in range(1, 40):
        values = sorted(D(rng.randint(100, 99_999)) / 100 for _ in range(size))
        assert percentile_cont(values, D("0.5")) == statistics.median(values)


def test_no_values_or_a_bad_fraction_is_refused() -> None:
    with pytest.raises(ValueError):
        percentile_cont([], D("0.5"))
    with pytest.raises(ValueError):
        percentile_cont([D(1)], D("1.5"))


def test_a_half_cent_rounds_up_once() -> None:
    stats = summarise([D("1.00"), D("1.01")], offers=2)
    assert stats.median_price == D("1.005")
    assert stats.rounded().median_price == D("1.01")  # exact Decimal: no binary 1.00499…


def test_ordered_rows_are_valued_only_where_the_index_needs_them() -> None:
    """Rows in price order (the database's inexact order); the exact value is asked only for
    the minimum and the one or two rows around each percentile."""
    rows = [("r0", D("10")), ("r1", D("11")), ("r2", D("12")), ("r3", D("13")), ("r4", D("20"))]
    asked: list[str] = []

    def exact(row: tuple[str, Decimal]) -> Decimal:
        asked.append(row[0])
        return row[1]

    stats = summarise_ordered(rows, exact, offers=9, stale_providers=1)
    assert (stats.providers, stats.offers, stats.stale_providers) == (5, 9, 1)
    assert (stats.min_price, stats.median_price, stats.p90_price) == (D(10), D(12), D("17.2"))
    assert sorted(set(asked)) == ["r0", "r2", "r3", "r4"]  # never r1
    assert stats == summarise([r[1] for r in reversed(rows)], offers=9, stale_providers=1)


def test_change_is_rounded_to_the_cent_then_compared() -> None:
    assert change(D("10.60"), D("10.68")) == Change(D("-0.08"), D("-0.7"))
    assert change(D("11.336"), D("11.00")) == Change(D("0.34"), D("3.1"))
    assert change(None, D(1)) is None and change(D(1), None) is None
    assert to_cent(D("2.345")) == D("2.35")


def test_the_reference_week_prices_an_off_peak_rule_at_its_mean() -> None:
    zone = ZoneInfo("Asia/Shanghai")
    monday = datetime(2026, 11, 30, tzinfo=zone)
    assert week_factor_sum("", monday, zone) == 168
    assert week_factor_sum("00:00-08:00*0.5", monday, zone) == D(140)  # 56 h at half price
    assert week_factor_sum("sat-sun*0.8", monday, zone) == D("158.4")  # 48 h at 0.8
