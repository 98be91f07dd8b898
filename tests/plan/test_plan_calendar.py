"""The calendar ahead: a plan reaching 2027 prices workday/holiday rules on the provisional
calendar (statutory holidays from the holidays package, no 调休 yet) and says so."""

from __future__ import annotations

from datetime import date, datetime, timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

from comparator.domain.job import Job, Requirements, Schedule, Workload
from comparator.domain.money import FxTable
from comparator.domain.profile import load_profile
from comparator.plan import PlanContext, plan_job
from comparator.plan.candidates import PriceBasis
from tests.support.factories import make_offer
from tests.support.plan_validate import ValidationContext, validate_plan

D = Decimal
SHANGHAI = ZoneInfo("Asia/Shanghai")
DEMO = Path(__file__).resolve().parents[2] / "providers" / "demo"
SPRING_FESTIVAL_2027 = {date(2027, 2, d) for d in range(5, 11)}
NEW_YEAR_2027 = {date(2027, 1, 1)}


def test_a_winter_job_in_guangdong_prices_spring_festival_2027_at_the_holiday_rule() -> None:
    start = datetime(2026, 12, 1, tzinfo=SHANGHAI)
    job = Job(
        name="winter",
        schedule=Schedule(start, datetime(2027, 2, 28, tzinfo=SHANGHAI), False, 0),
        workload=Workload(D(2100 * 8), "A100-SXM4-80GB", 8),
        requirements=Requirements(provinces=("广东",)),
        source="winter.toml",
    )
    offer = make_offer(
        "workday",
        "hourly",
        "64",
        provider="demo-nanshan",
        region="gd-sz-1",
        cards=8,
        time_of_use="workday*0.8",
    )
    profile = load_profile(DEMO / "demo-nanshan.toml")
    context = PlanContext(today=date(2026, 12, 1), fx=FxTable({"CNY": D(1)}, date(2026, 11, 27)))
    result = plan_job(job, [offer], {"demo-nanshan": profile}, context)
    assert result.best is not None, result.message
    assert result.provisional_years == (2027,)
    assert result.calendar_warning and "2027" in str(result.calendar_warning)
    assert result.to_json()["calendar"]["provisional_years"] == [2027]
    best = result.best
    check = ValidationContext(job, {"workday": offer}, PriceBasis("CNY", context.fx), D("0.9"))
    assert validate_plan(best, check) == []
    # by hand: 0.8 on working days; 1 on weekends, 2027-01-01 and Spring Festival 2027
    expected = D(0)
    hour = best.start
    while hour < best.segments[-1].end:
        day = hour.astimezone(SHANGHAI).date()
        off = day.weekday() >= 5 or day in NEW_YEAR_2027 | SPRING_FESTIVAL_2027
        expected += D(64) * (D(1) if off else D("0.8"))
        hour += timedelta(hours=1)
    assert best.total_cost == expected.quantize(D("0.01"))
    assert len(best.segments) == 1 and best.start <= datetime(2027, 2, 5, tzinfo=SHANGHAI)
    assert best.finish >= datetime(2027, 2, 11, tzinfo=SHANGHAI)


def test_the_quote_carries_the_provisional_calendar_warning() -> None:
    import json

    from comparator.report import render as report
    from tests.report.test_report_html import DATA

    document = json.loads((DATA / "quote_document.json").read_text(encoding="utf-8"))
    warning = "the holiday calendar of 2027 is provisional: …"
    document["plan"]["calendar"] = {"provisional_years": [2027], "warning": warning}
    html = report.render_html(document, lang="en")
    assert "Provisional holiday calendar" in html and "calendar of 2027 is provisional" in html
    document["plan"].pop("calendar")
    assert "calendar-warning" not in report.render_html(document, lang="en")


WINTER_JOB = """
name = "winter"
[workload]
card_hours = 16800
gpu = "A100-80G"
cards = 8
[schedule]
earliest_start = 2026-12-01T00:00:00+08:00
deadline = 2027-02-28T00:00:00+08:00
[requirements]
provinces = ["广东"]
gpus = ["A100-80G"]
"""
WINTER_SHEET = (
    "服务商,机房,卡型,卡数,单机卡数,计费方式,单价,币种,闲时,库存,起租,卡间互联,节点网络,报价日期,来源\n"
    "demo-nanshan,gd-sz-1,A100 80G,8,8,按量,64,CNY,workday*0.8,4,1,nvlink,,"
    "2026-11-25T10:00:00+08:00,winter\n"
)


def test_the_winter_job_plans_and_quotes_from_the_command_line(
    cli: Any, demo_db_url: str, tmp_path: Path
) -> None:
    """Today (2026-12-01) to 2027-02-28 in 广东 with a workday*0.8 offer: `plan` and `quote`
    both plan it, warn that the 2027 calendar is provisional, and price it as by hand."""
    sheet = tmp_path / "winter.csv"
    sheet.write_text(WINTER_SHEET, encoding="utf-8")
    imported = cli("import", "--replace", str(sheet), db=demo_db_url, lang="en")
    assert imported.code == 0, imported.err
    job = tmp_path / "winter.toml"
    job.write_text(WINTER_JOB, encoding="utf-8")
    plan = cli("plan", str(job), "--today", "2026-12-01", "--json", db=demo_db_url, lang="en")
    assert plan.code == 0, plan.err
    document = plan.json()["plans"][0]
    assert document["calendar"]["provisional_years"] == [2027]
    assert "2027" in document["calendar"]["warning"]
    best = document["best"]
    start = datetime.fromisoformat(best["start"])
    end = datetime.fromisoformat(best["segments"][-1]["end"])
    expected, hour = D(0), start
    while hour < end:
        day = hour.astimezone(SHANGHAI).date()
        off = day.weekday() >= 5 or day in NEW_YEAR_2027 | SPRING_FESTIVAL_2027
        expected += D(64) * (D(1) if off else D("0.8"))  # ¥64 an hour for the 8-card unit
        hour += timedelta(hours=1)
    assert D(best["total_cost"]) == expected.quantize(D("0.01"))
    assert start.date() <= date(2027, 2, 5) and end.date() >= date(2027, 2, 11)
    html = tmp_path / "winter.html"
    quote = cli("quote", str(job), "--today", "2026-12-01", "-o", str(html), db=demo_db_url)
    assert quote.code == 0, quote.err
    text = html.read_text(encoding="utf-8")
    assert "calendar-warning" in text and "2027" in text
