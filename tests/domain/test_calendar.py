"""Time-of-use rules (billing.md) and the official Chinese holiday calendar."""

from __future__ import annotations

from datetime import date, datetime
from decimal import Decimal
from zoneinfo import ZoneInfo

import pytest

from comparator.domain.calendar import (
    factor_at,
    is_holiday,
    is_provisional,
    is_workday,
    parse_rule,
    parse_time_of_use,
    provisional_years,
    slot_factors,
)
from comparator.errors import CalendarError

SHANGHAI = ZoneInfo("Asia/Shanghai")


def at(text: str) -> datetime:
    return datetime.fromisoformat(text).replace(tzinfo=SHANGHAI)


def factor(rules: str, moment: str) -> Decimal:
    return factor_at(parse_time_of_use(rules), at(moment))


# --- grammar ---------------------------------------------------------------------------------
def test_the_billing_md_example_parses_into_three_rules() -> None:
    rules = parse_time_of_use("00:00-08:00*0.5; sat-sun*0.8; holiday*0.7")
    assert [r.factor for r in rules] == [Decimal("0.5"), Decimal("0.8"), Decimal("0.7")]
    assert rules[0].every_day and (rules[0].start_minute, rules[0].end_minute) == (0, 480)
    assert rules[1].weekdays == frozenset({5, 6}) and not rules[1].kinds
    assert rules[2].kinds == frozenset({"holiday"})


def test_day_lists_ranges_and_kinds_combine() -> None:
    rule = parse_rule("mon,wed-fri,workday 09:30-18:00*1.2")
    assert rule.weekdays == frozenset({0, 2, 3, 4})
    assert rule.kinds == frozenset({"workday"})
    assert (rule.start_minute, rule.end_minute) == (570, 1080)


def test_a_range_wrapping_the_week_and_24_00_end() -> None:
    assert parse_rule("fri-mon*0.9").weekdays == frozenset({4, 5, 6, 0})
    assert parse_rule("18:00-24:00*0.9").end_minute == 1440


def test_full_width_characters_case_and_spaces_are_accepted() -> None:
    rule = parse_rule("ＳＡＴ－ＳＵＮ  ００：００－０８：００ ＊ ０.５")
    assert rule.weekdays == frozenset({5, 6}) and rule.factor == Decimal("0.5")


def test_an_empty_cell_means_no_time_of_use() -> None:
    assert parse_time_of_use("") == ()
    assert parse_time_of_use("  ") == ()
    assert len(parse_time_of_use("sat*0.8;")) == 1


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("sunday*0.5", "a day among mon"),
        ("mon 25:00-26:00*0.5", "a time HH:MM from 00:00 to 23:59"),
        ("08:00-24:30*0.5", "from 00:00 to 24:00"),
        ("08:00-08:00*0.5", "start and end differ"),
        ("*0", "a positive decimal factor"),
        ("*-0.5", "a positive decimal factor"),
        ("sat*abc", "a positive decimal factor"),
        ("mon*", "[DAYS] [HH:MM-HH:MM] *FACTOR"),
        ("fri 22:00-08:00 0.5", "[DAYS] [HH:MM-HH:MM] *FACTOR"),
        ("mon,,tue*0.5", "day names separated by commas"),
    ],
)
def test_malformed_rules_name_the_rule_and_what_was_expected(text: str, expected: str) -> None:
    with pytest.raises(CalendarError) as caught:
        parse_time_of_use(f"sat*0.8; {text}", "prices.csv row 4, column time_of_use")
    message = str(caught.value)
    assert "prices.csv row 4, column time_of_use: rule 2" in message
    assert expected in message


# --- factors ---------------------------------------------------------------------------------
def test_the_lowest_matching_factor_wins_and_discounts_never_stack() -> None:
    rules = "00:00-08:00*0.5; sat-sun*0.8; holiday*0.7"
    assert factor(rules, "2026-12-05T03:00") == Decimal("0.5")  # Saturday night: 0.5, not 0.4
    assert factor(rules, "2026-12-05T12:00") == Decimal("0.8")  # Saturday noon
    assert factor(rules, "2026-12-02T12:00") == Decimal("1")  # Wednesday noon: no rule
    assert factor(rules, "2026-10-03T12:00") == Decimal("0.7")  # National Day, a Saturday


def test_a_range_wrapping_midnight_belongs_to_the_day_it_starts() -> None:
    rules = "fri 22:00-08:00*0.5"
    assert factor(rules, "2026-12-04T21:00") == 1  # Friday 21:00
    assert factor(rules, "2026-12-04T22:00") == Decimal("0.5")  # Friday 22:00
    assert factor(rules, "2026-12-05T07:00") == Decimal("0.5")  # Saturday 07:00, from Friday
    assert factor(rules, "2026-12-05T08:00") == 1
    assert factor(rules, "2026-12-05T23:00") == 1  # Saturday night is not Friday's
    assert factor(rules, "2026-12-04T03:00") == 1  # Friday 03:00 belongs to Thursday


def test_a_slot_matches_by_its_start_time() -> None:
    rules = "08:30-09:30*0.5"
    assert factor(rules, "2026-12-02T08:00") == 1  # the 08:00 slot starts before 08:30
    assert factor(rules, "2026-12-02T09:00") == Decimal("0.5")


def test_slot_factors_follow_the_provider_time_zone() -> None:
    first = datetime(2026, 12, 1, 16, tzinfo=ZoneInfo("UTC"))  # 00:00 in Shanghai
    factors = slot_factors("00:00-08:00*0.5", first, 10, SHANGHAI)
    assert factors == (Decimal("0.5"),) * 8 + (Decimal(1),) * 2
    utc = slot_factors("00:00-08:00*0.5", first, 10, ZoneInfo("UTC"))
    assert utc == (Decimal(1),) * 8 + (Decimal("0.5"),) * 2


# --- the official calendar -------------------------------------------------------------------
def test_make_up_workdays_are_workdays_and_not_holidays() -> None:
    make_up = date(2026, 10, 10)  # a Saturday worked for National Day 2026 (调休)
    assert make_up.weekday() == 5
    assert is_workday(make_up) and not is_holiday(make_up)
    assert factor("workday*1.2", "2026-10-10T12:00") == Decimal("1.2")
    assert factor("sat-sun*0.8", "2026-10-10T12:00") == Decimal("0.8")  # weekday names literal


def test_holiday_breaks_and_ordinary_days() -> None:
    assert is_holiday(date(2026, 10, 1)) and not is_workday(date(2026, 10, 1))
    assert is_holiday(date(2026, 10, 4))  # Sunday inside the National Day break
    assert not is_holiday(date(2026, 12, 5)) and not is_workday(date(2026, 12, 5))  # weekend
    assert is_workday(date(2026, 12, 2)) and not is_holiday(date(2026, 12, 2))


def test_a_wrapped_holiday_rule_checks_the_day_it_starts() -> None:
    rules = "holiday 20:00-08:00*0.6"
    assert factor(rules, "2026-10-08T02:00") == Decimal("0.6")  # from the night of Oct 7
    assert factor(rules, "2026-10-09T02:00") == 1


def test_years_beyond_chinesecalendar_are_provisional_and_years_nobody_knows_fail_loudly() -> None:
    assert is_provisional(2099) and not is_provisional(2026)
    assert provisional_years(date(2026, 12, 1), date(2028, 1, 1)) == (2027, 2028)
    assert is_holiday(date(2099, 1, 1)) and not is_workday(date(2099, 1, 1))
    first = datetime(2099, 1, 1, tzinfo=SHANGHAI)
    assert slot_factors("holiday*0.7", first, 2, SHANGHAI) == (Decimal("0.7"),) * 2
    with pytest.raises(CalendarError, match="no Chinese holiday calendar for 1900"):
        is_workday(date(1900, 1, 1))
    old = datetime(1900, 1, 1, tzinfo=SHANGHAI)
    with pytest.raises(CalendarError, match="SUANLI_HOLIDAYS_FILE"):
        slot_factors("holiday*0.7", old, 2, SHANGHAI)
    assert slot_factors("sat-sun*0.7", old, 2, SHANGHAI) == (Decimal(1), Decimal(1))


def test_spring_festival_2027_is_a_provisional_holiday_without_make_up_workdays() -> None:
    for day in range(5, 11):  # 除夕 to the observed days: Feb 5–10, 2027
        assert is_holiday(date(2027, 2, day)) and not is_workday(date(2027, 2, day))
    assert is_workday(date(2027, 2, 15)) and not is_workday(date(2027, 2, 20))  # no 调休 yet
    monday = datetime(2027, 2, 8, 10, tzinfo=SHANGHAI)
    assert slot_factors("workday*0.8", monday, 1, SHANGHAI) == (Decimal(1),)
    later = datetime(2027, 2, 15, 10, tzinfo=SHANGHAI)
    assert slot_factors("workday*0.8", later, 1, SHANGHAI) == (Decimal("0.8"),)
