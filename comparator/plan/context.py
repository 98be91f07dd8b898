"""What a plan depends on besides the job and the offers: dates, FX, efficiency, zone, the
holiday calendar and whether HiGHS may log: values the planner is given, never process state."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from decimal import Decimal
from zoneinfo import ZoneInfo

from comparator.domain.calendar import HolidaySupplement
from comparator.domain.money import FxTable
from comparator.domain.zones import DEFAULT_TIMEZONE

DEFAULT_TOP = 5


@dataclass(frozen=True)
class PlanContext:
    """Everything a plan depends on besides the job and the offers."""

    today: date
    fx: FxTable
    # SUANLI_MULTI_NODE_EFFICIENCY: None keeps the estimator's network model (docs/billing.md)
    multi_node_efficiency: Decimal | None = None
    headroom: float = 0.10
    freshness_days: int = 30
    objective: str = "cost"
    top: int = DEFAULT_TOP
    lang: str = "en"
    timezone: ZoneInfo = DEFAULT_TIMEZONE  # of "today" and of the job's last day
    solver_log: bool = False  # HiGHS's log on the console (shared plans); silent by default
    # Official holidays and 调休 workdays for years chinesecalendar lacks (SUANLI_HOLIDAYS_FILE):
    # what ``workday``/``holiday`` rules and run windows mean in those years.
    holidays: HolidaySupplement | None = None
