"""SUANLI_HOLIDAYS_FILE: official schedules for years chinesecalendar does not cover yet."""

from __future__ import annotations

from datetime import date, datetime
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from comparator.domain.calendar import (
    is_holiday,
    is_provisional,
    is_workday,
    slot_factors,
)
from comparator.domain.holidays import load_holidays_file
from comparator.errors import CalendarError
from tests.support.factories import SHANGHAI

SCHEDULE_2027 = """
# a made-up schedule in the State Council's shape (the real notice is not in the repo)
[2027]
holidays = ["2027-01-01", "2027-02-05..2027-02-11"]
workdays = [2027-02-20]
"""
JOB_2027 = """
name = "January 2027"
[workload]
card_hours = 64
gpu = "4090"
cards = 8
[schedule]
earliest_start = 2027-01-04T00:00:00+08:00
deadline = 2027-01-09T00:00:00+08:00
interruptible = true
[requirements]
provinces = ["广东"]
"""


@pytest.fixture
def schedule_file(tmp_path: Path) -> Path:
    path = tmp_path / "holidays.toml"
    path.write_text(SCHEDULE_2027, encoding="utf-8")
    return path


def test_years_without_data_fail_loudly_and_name_the_setting() -> None:
    assert is_holiday(date(2027, 1, 1))  # 2027: provisional, from the holidays package
    with pytest.raises(CalendarError, match="SUANLI_HOLIDAYS_FILE"):
        is_holiday(date(1900, 1, 1))


def test_the_file_answers_for_its_years(schedule_file: Path) -> None:
    given = load_holidays_file(schedule_file)
    assert is_holiday(date(2027, 1, 1), given) and is_holiday(date(2027, 2, 8), given)
    assert not is_workday(date(2027, 2, 8), given)  # a Monday inside the break
    assert is_workday(date(2027, 2, 20), given)  # a make-up Saturday
    assert is_workday(date(2027, 1, 4), given) and not is_holiday(date(2027, 1, 4), given)
    saturday = date(2027, 1, 9)
    assert not is_workday(saturday, given) and not is_holiday(saturday, given)
    assert is_workday(date(2026, 12, 31), given)  # other years still come from chinesecalendar
    monday = datetime(2027, 2, 8, 10, tzinfo=SHANGHAI)
    assert slot_factors("holiday*0.7", monday, 1, SHANGHAI, given) == (Decimal("0.7"),)
    assert not is_provisional(2027, given)


def test_the_calendar_is_a_value_never_process_state(schedule_file: Path) -> None:
    """The file answers where it is given, and nowhere else: no call changes another's."""
    given = load_holidays_file(schedule_file)
    make_up = datetime(2027, 2, 20, 10, tzinfo=SHANGHAI)  # a Saturday the file makes a workday
    assert slot_factors("workday*0.5", make_up, 1, SHANGHAI, given) == (Decimal("0.5"),)
    assert slot_factors("workday*0.5", make_up, 1, SHANGHAI) == (Decimal(1),)
    assert is_workday(date(2027, 2, 20), given) and not is_workday(date(2027, 2, 20))
    assert is_provisional(2027)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('[2027]\nholidays = ["2027-13-01"]\n', r"\[2027\] holidays: expected YYYY-MM-DD"),
        ('[2027]\nholidays = ["2026-12-30..2027-01-02"]\n', r"\[2027\] holidays: .* not a range"),
        ("[next]\nholidays = []\n", r"\[next\]: expected a table per year"),
        ("[2027]\nworkdays = 3\n", r"\[2027\] workdays: expected a list"),
        ("[2027\n", "not valid TOML"),
    ],
)
def test_a_bad_file_names_the_file_and_field(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "bad.toml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(CalendarError, match=message) as info:
        load_holidays_file(path)
    assert "bad.toml" in str(info.value)


def calendar_exclusions(document: dict[str, Any]) -> list[dict[str, Any]]:
    return [e for e in document["excluded"] if any("2027" in r for r in e["reasons"])]


@pytest.mark.slow
def test_plan_uses_holiday_rules_in_2027_once_the_file_is_given(
    cli: Any, demo_db_url: str, schedule_file: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    job = tmp_path / "job.toml"
    job.write_text(JOB_2027, encoding="utf-8")
    without = cli("plan", str(job), "--today", "2026-12-20", "--json", db=demo_db_url)
    assert without.code == 0, without.err
    assert (
        calendar_exclusions(without.json()["plans"][0]) == []
    )  # planned on the provisional calendar
    assert without.json()["plans"][0]["calendar"]["provisional_years"] == [2027]
    assert "2027" in without.json()["plans"][0]["calendar"]["warning"]
    monkeypatch.setenv("SUANLI_HOLIDAYS_FILE", str(schedule_file))
    with_file = cli("plan", str(job), "--today", "2026-12-20", "--json", db=demo_db_url)
    assert with_file.code == 0, with_file.err
    assert calendar_exclusions(with_file.json()["plans"][0]) == []
    assert with_file.json()["plans"][0]["best"] is not None
    calendar = with_file.json()["plans"][0]["calendar"]
    assert calendar["provisional_years"] == [] and calendar["warning"] is None
    assert calendar["warning_msg"] is None


def test_a_bad_file_is_one_clear_cli_error(cli: Any, tmp_path: Path, monkeypatch) -> None:
    path = tmp_path / "bad.toml"
    path.write_text('[2027]\nholidays = ["soon"]\n', encoding="utf-8")
    monkeypatch.setenv("SUANLI_HOLIDAYS_FILE", str(path))
    result = cli("offers", lang="en")
    assert result.code == 1 and "bad.toml: [2027] holidays" in result.err
    assert "Traceback" not in result.err
