"""A library caller of ``make_quote`` gets SUANLI_HOLIDAYS_FILE: the calendar is in the context."""

from __future__ import annotations

from datetime import date
from pathlib import Path

from comparator.catalog.db import make_engine
from comparator.config import load_settings
from comparator.services import make_quote
from tests.domain.test_holidays_file import JOB_2027, SCHEDULE_2027


def test_make_quote_reads_the_holidays_file_of_its_settings(
    demo_db_url: str, tmp_path: Path
) -> None:
    job = tmp_path / "job.toml"
    job.write_text(JOB_2027, encoding="utf-8")
    schedule = tmp_path / "holidays.toml"
    schedule.write_text(SCHEDULE_2027, encoding="utf-8")
    engine = make_engine(demo_db_url)
    day = date(2026, 12, 20)
    without = make_quote(engine, job, load_settings({}), lang="en", today=day)
    given = load_settings({"SUANLI_HOLIDAYS_FILE": str(schedule)})
    with_file = make_quote(engine, job, given, lang="en", today=day)
    assert without.document["plan"]["calendar"]["provisional_years"] == [2027]
    assert with_file.document["plan"]["calendar"]["provisional_years"] == []
    assert with_file.document["plan"]["calendar"]["warning"] is None
    again = make_quote(engine, job, load_settings({}), lang="en", today=day)  # nothing left over
    assert again.document["plan"]["calendar"]["provisional_years"] == [2027]
