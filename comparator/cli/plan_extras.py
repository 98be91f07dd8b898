"""What `suanli plan` prints beside the schedule: the best placement's round trip from the
job's city (measured or approximate) with the upload time, the bill's gaps, free-trial lines."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.console import Console
from rich.markup import escape

from comparator.i18n import billing_label, label, render, say

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


def print_warnings(out: Console, lang: str, findings: list[tuple[str, str, str]]) -> None:
    """The recommended provider's warnings and failures, as the quote's attention box shows
    them (a licence that expires during or soon after the job): ``(status, provider, text)``."""
    if not findings:
        return
    out.print(f"[bold yellow]{escape(say(lang, 'Attention (recommended provider)'))}[/]")
    for status, provider, text in findings:
        mark = "✗" if status == "fail" else "!"
        out.print(f"[yellow]{mark} {escape(provider)}: {escape(text)}[/]", soft_wrap=False)


def plan_warnings(result: PlanResult, lang: str) -> list[tuple[str, str, str]]:
    """The warnings and failures of the best plan's provider and data centre, worst first."""
    best = result.best
    if best is None:
        return []
    found = []
    for report in result.compliance:
        if report.provider != best.provider:
            continue
        datacenter = report.datacenter(best.region)
        checks = [*report.checks, *(datacenter.checks if datacenter else ())]
        found += [(c.status, report.name, c.message(lang)) for c in checks if c.status != "pass"]
    return sorted(found, key=lambda f: f[0] != "fail")


def billing_cell(segment: PlanSegment, lang: str) -> str:
    """The billing mode, or the free trial as a line of its own: ``免费试用 N h``."""
    if segment.free_trial:
        return f"{label(lang, 'free_trial_line')} {segment.paid_hours} h"
    return billing_label(lang, segment.billing)
