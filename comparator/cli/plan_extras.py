"""What `suanli plan` prints beside the schedule: the best placement's round trip from the
job's city (measured or approximate) with the upload time, the bill's gaps, free-trial lines."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.console import Console
from rich.markup import escape

from comparator.i18n import billing_label, label, render

if TYPE_CHECKING:
    from comparator.plan import PlanResult, PlanSegment


def print_plan_notes(out: Console, result: PlanResult, lang: str) -> None:
    from comparator.plan import best_latency, plan_notes  # loaded with the planner, not --help

    """The best placement's latency and what the bill leaves out (no ``[data]``)."""
    latency = best_latency(result.best, result.compliance, lang)
    if latency:
        upload = latency["upload_hours"]
        upload_text = f" · {label(lang, 'upload_time')} {upload} h" if upload else ""
        line = f"{label(lang, 'latency')}: {escape(latency['message'])}{upload_text}"
        out.print(line, soft_wrap=True)
    for note in plan_notes(result.assumptions):
        out.print(f"[yellow]{escape(render(note, lang))}[/]")


def billing_cell(segment: PlanSegment, lang: str) -> str:
    """The billing mode, or the free trial as a line of its own: ``免费试用 N h``."""
    if segment.free_trial:
        return f"{label(lang, 'free_trial_line')} {segment.paid_hours} h"
    return billing_label(lang, segment.billing)
