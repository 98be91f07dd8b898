"""A text timeline of a plan: one line per day, one character per hour (provider time)."""

from __future__ import annotations

import unicodedata
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

from comparator.domain.billing import HOURLY_MODES
from comparator.errors import Msg
from comparator.i18n import render, say
from comparator.plan.result import Plan

RUN_HOURLY = "█"
RUN_CONTRACT = "▓"
PAID_IDLE = "░"
IDLE = "·"
HOUR = timedelta(hours=1)
_LEGEND = Msg(
    "{hourly} running (hourly)  {contract} running (contract)  {paid} paid, not running  "
    "{idle} idle",
    hourly=RUN_HOURLY,
    contract=RUN_CONTRACT,
    paid=PAID_IDLE,
    idle=IDLE,
)
_WEEKDAYS = "weekday names\x04Mon Tue Wed Thu Fri Sat Sun"


def _hour_marks(plan: Plan, zone: ZoneInfo) -> dict[datetime, str]:
    marks: dict[datetime, str] = {}
    for segment in plan.segments:
        running = RUN_HOURLY if segment.billing in HOURLY_MODES else RUN_CONTRACT
        moment = segment.start
        while moment < segment.end:
            marks[moment.astimezone(zone)] = PAID_IDLE
            moment += HOUR
        for block in segment.run_blocks:
            moment = block.start
            while moment < block.end:
                marks[moment.astimezone(zone)] = running
                moment += HOUR
    return marks


def timeline_lines(
    plan: Plan, zone: ZoneInfo, *, lang: str = "zh", max_days: int = 40
) -> list[str]:
    """Lines ``Tue 12-01 │24 marks│ N h`` (zh ``12-01 周二``); long plans keep their first
    and last days."""
    marks = _hour_marks(plan, zone)
    if not marks:
        return []
    first = min(marks).replace(hour=0)
    last = max(marks).replace(hour=0)
    days = []
    day = first
    while day <= last:
        days.append(day)
        day = (day + timedelta(days=1)).replace(hour=0)
    lines = [_day_line(d, marks, lang) for d in days]
    if len(lines) > max_days:
        keep = max_days // 2
        skipped = len(lines) - 2 * keep
        gap = say(lang, "… {skipped} days …", skipped=skipped)
        lines = [*lines[:keep], gap, *lines[-keep:]]
    scale = "0     6     12    18    "
    label = lines[0].split("│", 1)[0]  # "Tue 12-01 " / "12-01 周二 ": the header pads to it
    header = f"{'':{_cells(label)}}│{scale}│"
    return [header, *lines, render(_LEGEND, lang)]


def _cells(text: str) -> int:
    """Terminal cells of ``text``: wide (CJK) characters take two."""
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)


def _day_line(day: datetime, marks: dict[datetime, str], lang: str) -> str:
    cells = []
    running = 0
    for hour in range(24):
        mark = marks.get(day.replace(hour=hour), IDLE)
        running += mark in (RUN_HOURLY, RUN_CONTRACT)
        cells.append(mark)
    weekday = say(lang, _WEEKDAYS).split()[day.weekday()]
    label = say(lang, "{weekday} {date}", weekday=weekday, date=f"{day:%m-%d}")
    return f"{label} │{''.join(cells)}│ {running:>2} h"
