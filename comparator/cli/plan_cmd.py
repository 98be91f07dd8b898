"""``suanli plan``: the provably cheapest compliant placement of one job (or several sharing
stock)."""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Mapping
from decimal import Decimal
from pathlib import Path
from typing import TYPE_CHECKING, Any
from zoneinfo import ZoneInfo

import typer
from rich import box
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from comparator.cli._common import (
    CALIBRATION_OPTION,
    JSON_OPTION,
    console,
    emit_json,
    open_catalog,
    parse_today,
    state,
    tr,
    working,
)
from comparator.cli.plan_extras import billing_cell, print_plan_notes
from comparator.cli.plan_figures import (
    print_assumptions,
    print_figures,
    print_gpu_table,
    print_hours_range,
    print_machines,
    print_utilisation,
)
from comparator.cli.tables import print_table
from comparator.domain import DEFAULT_TIMEZONE, money_str
from comparator.errors import InputError
from comparator.i18n import LABELS, label, render

if TYPE_CHECKING:  # the planner (numpy) loads when a plan is made, not for --help
    from comparator.plan import Plan, PlanResult, SharedPlan

EXCLUDED_SHOWN = 12
NO_FEASIBLE_PLAN = 4  # exit code: nothing feasible (the message names the binding constraint)


def register(app: typer.Typer) -> None:
    app.command("plan")(plan)


def plan(
    ctx: typer.Context,
    jobs: list[Path] = typer.Argument(..., help="Job file(s) (TOML); several share stock."),
    objective: str = typer.Option("cost", "--objective", help="cost (default) or time."),
    top: int | None = typer.Option(None, "--top", min=0, help="Alternatives shown (default 5)."),
    today: str | None = typer.Option(
        None, "--today", help="Judge licence validity and price age as of this date (YYYY-MM-DD)."
    ),
    time_limit: float = typer.Option(
        30.0, "--time-limit", help="Seconds HiGHS may spend on several jobs sharing stock."
    ),
    calibration: Path | None = CALIBRATION_OPTION,
    json_out: bool = JSON_OPTION,
) -> None:
    """Plan the cheapest compliant schedule: provider, data centre, GPU, cards, hours, billing.

    Example:  suanli plan examples/lora-7b-guangdong.toml --top 3
    """
    from comparator.services import plan_job_file, plan_jobs_files

    st = state(ctx)
    engine = open_catalog(st)
    day = parse_today(today)
    lang = st.lang
    planning = tr(lang, "正在规划…", "Planning…")
    if len(jobs) > 1 and calibration is not None:
        raise InputError("--calibration plans one job; put a [calibration] table in each job file")
    if len(jobs) > 1:
        with working(planning, quiet=json_out):
            shared = plan_jobs_files(
                engine, jobs, st.settings, objective=objective, top=top, today=day, lang=lang,
                time_limit_s=time_limit,
            )  # fmt: skip
        _show_shared(shared, lang, json_out)
        return
    started = time.perf_counter()
    with working(planning, quiet=json_out):
        result = plan_job_file(
            engine,
            jobs[0],
            st.settings,
            objective=objective,
            top=top,
            today=day,
            lang=lang,
            calibration=calibration,
        )
    if json_out:
        document = result.to_json()
        compat = st.settings.json_compat
        emit_json(document if compat else _one_job_json(result, time.perf_counter() - started))
    else:
        _print(result, lang)
    if not result.feasible:
        raise typer.Exit(NO_FEASIBLE_PLAN)


def _show_shared(shared: SharedPlan, lang: str, json_out: bool) -> None:
    """Several jobs sharing stock: their plans, and exit 4 when one has none."""
    if json_out:
        emit_json(shared.to_json())  # the one shape; one job has it too (`_one_job_json`)
    else:
        for result in shared.results:
            _print(result, lang)
        _print_shared(shared.optimal, shared.gap, lang, shared.dp_fallback)
    if not all(r.feasible for r in shared.results):
        raise typer.Exit(NO_FEASIBLE_PLAN)


def _one_job_json(result: PlanResult, seconds: float) -> dict[str, Any]:
    """One job in the document several jobs make: ``{"plans": [...], "optimal": …}``.

    One job is planned alone ("independent"), exactly: the lower bound is its cost. Before 0.2
    one job printed the bare plan document (``SUANLI_JSON_COMPAT=1`` until 0.3).
    """
    from comparator.plan import SharedPlan

    total = result.best.total_cost if result.best else Decimal(0)
    alone = SharedPlan(
        results=[result],
        optimal=result.optimal,
        gap=0.0,
        method="independent",
        total_cost=total,
        lower_bound=total if result.optimal and result.best else None,
        seconds=seconds,
    )
    document = alone.to_json()
    if result.best is None:
        document["total_cost"] = None
    return document


def _print(result: PlanResult, lang: str) -> None:
    out = console()
    goal = (
        tr(lang, "成本最低", "cheapest")
        if result.objective == "cost"
        else tr(lang, "最早完成", "earliest finish")
    )
    out.print(f"[bold]{tr(lang, '计划', 'Plan')}: {escape(result.job_name)}[/]  ({goal})")
    if result.calendar_warning:
        warning = render(result.calendar_warning, lang)
        out.print(f"[yellow]{tr(lang, '注意', 'Warning')}: {escape(warning)}[/]")
    if result.best is None:
        message = render(result.message, lang) if result.message else ""
        out.print(
            f"[bold red]{tr(lang, '没有可行方案', 'No feasible plan')}[/] "
            f"({escape(result.binding or '')}): {escape(message)}"
        )
        if result.cheapest_without_budget is not None:
            out.print(tr(lang, "不限预算时的最便宜方案：", "The cheapest plan without the budget:"))
            _print_best(out, result.cheapest_without_budget, lang)
    else:
        _print_best(out, result.best, lang)
        print_plan_notes(out, result, lang)
        print_utilisation(out, result, lang)
        _print_alternatives(out, result, lang)
    _print_excluded(out, result, lang)
    print_gpu_table(out, result, lang)
    print_assumptions(out, result, lang)


def _price_text(price: Decimal) -> str:
    """Two decimals when exact to the cent, else the four the average carries."""
    return money_str(price) if price == price.quantize(Decimal("0.01")) else str(price)


def _print_best(out: Console, best: Plan, lang: str) -> None:
    from comparator.plan import mix_text

    where = " ".join(x for x in (best.province, best.city) if x)
    out.print(
        f"{tr(lang, '最优', 'Best')}: [bold]{escape(best.provider_name)}[/] "
        f"({escape(best.provider)}) · {escape(best.region_name)} {escape(where)} · "
        f"{best.cards} × {best.gpu} · [bold green]{money_str(best.total_cost)} "
        f"{best.currency}[/]"
    )
    if best.oversized_contract:
        out.print(
            tr(
                lang,
                "[yellow]注意：合约付费时长超过实际运行时长的 3 倍，但仍是最便宜的方案[/]",
                "[yellow]Note: a contract pays for more than 3× the hours it runs; still the "
                "cheapest[/]",
            )
        )
    out.print(f"{tr(lang, '计费组合', 'Billing mix')}: {escape(mix_text(best, lang))}")
    print_machines(out, best, lang)
    out.print(
        f"{tr(lang, '开始', 'Start')} {best.start:%Y-%m-%d %H:%M} → "
        f"{tr(lang, '完成', 'finish')} {best.finish:%Y-%m-%d %H:%M} · "
        f"{tr(lang, '运行', 'run')} {best.run_hours} h "
        f"({tr(lang, '其中重启开销', 'restart overhead')} {best.overhead_hours} h)"
    )
    print_figures(out, best, lang)
    print_hours_range(out, best, lang)
    table = _segment_table(best, lang)
    print_table(out, table, drop=[tr(lang, "周期", "Periods"), tr(lang, "实付均价", "Avg paid")])
    for item in best.bill:
        if not item.stated:  # billed at 0 or assumed: say it plainly, not dimmed
            what = f"{label(lang, 'bill_' + item.kind)}: {label(lang, 'unstated_' + item.kind)}"
            out.print(f"[yellow]{escape(what)}[/]")
        elif item.note:
            note = item.texts(lang)["note"]
            out.print(f"[dim]{escape(label(lang, 'bill_' + item.kind))}: {escape(note)}[/]")
    zone = best.start.tzinfo if isinstance(best.start.tzinfo, ZoneInfo) else DEFAULT_TIMEZONE
    from comparator.plan import timeline_lines

    for line in timeline_lines(best, zone, lang=lang):
        out.print(escape(line))


def _segment_table(best: Plan, lang: str) -> Table:
    """The best plan's line items, then its bill (upload, storage, egress)."""
    table = Table(box=box.SIMPLE)
    for header in (
        tr(lang, "报价", "Offer"),
        tr(lang, "计费", "Billing"),
        tr(lang, "开始", "Start"),
        tr(lang, "结束", "End"),
        tr(lang, "数量", "Units"),
        tr(lang, "周期", "Periods"),
        tr(lang, "单价", "Unit price"),
        tr(lang, "实付均价", "Avg paid"),
        tr(lang, "费用", "Cost"),
    ):
        table.add_column(header)
    for s in best.segments:
        runs = tr(
            lang, f"运行 {s.run_hours}/{s.paid_hours} 小时", f"runs {s.run_hours}/{s.paid_hours} h"
        )
        table.add_row(
            s.offer_id,
            billing_cell(s, lang) + (f" ({runs})" if s.pays_idle else ""),
            f"{s.start:%m-%d %H:%M}",
            f"{s.end:%m-%d %H:%M}",
            str(s.units),
            str(s.periods),
            str(s.unit_price),
            _price_text(s.average_unit_price),
            money_str(s.cost),
        )
    for item in best.bill:
        table.add_row(
            escape(label(lang, "bill_short_" + item.kind)),
            escape(f"{item.quantity} {item.texts(lang)['unit']}"),
            f"{item.start:%m-%d %H:%M}",
            f"{item.end:%m-%d %H:%M}",
            "",
            "",
            str(item.unit_price),
            "",
            money_str(item.cost),
        )
    return table


def _print_alternatives(out: Console, result: PlanResult, lang: str) -> None:
    from comparator.plan import mix_text

    if not result.alternatives or result.best is None:
        return
    table = Table(
        title=tr(
            lang, "备选（每个服务商与卡型的最优）", "Alternatives (best per provider and GPU)"
        ),
        box=box.SIMPLE,
    )
    for header in (
        "#",
        tr(lang, "服务商", "Provider"),
        tr(lang, "机房", "Region"),
        "GPU",
        tr(lang, "卡数", "Cards"),
        tr(lang, "计费组合", "Billing mix"),
        tr(lang, "费用", "Cost"),
        tr(lang, "开始", "Start"),
        tr(lang, "完成", "Finish"),
        tr(lang, "差额", "Δ"),
    ):
        table.add_column(header)
    for rank, alt in enumerate(result.alternatives, start=2):
        delta = alt.total_cost - result.best.total_cost
        table.add_row(
            str(rank),
            alt.provider,
            alt.region,
            alt.gpu,
            str(alt.cards),
            mix_text(alt, lang),
            money_str(alt.total_cost),
            f"{alt.start:%m-%d %H:%M}",
            f"{alt.finish:%m-%d %H:%M}",
            f"+{money_str(delta)}" if delta >= 0 else money_str(delta),
        )
    print_table(out, table, drop=[tr(lang, "完成", "Finish"), tr(lang, "机房", "Region")])


_EXCLUDED_KINDS = {
    "compliance": ("合规", "compliance"),
    "requirements": ("任务要求", "requirements"),
    "memory": ("显存不足", "memory"),
    "stock": ("库存不足", "stock"),
    "network": ("组网", "network"),
    "throughput": ("无吞吐数据", "throughput"),
    "currency": ("无汇率", "currency"),
    "time-of-use": ("闲时规则", "time of use"),
}


def _excluded_kind(lang: str, kind: str) -> str:
    zh, en = _EXCLUDED_KINDS.get(kind, (kind, kind))
    return tr(lang, zh, en)


def _print_excluded(out: Console, result: PlanResult, lang: str) -> None:
    """Excluded offers grouped by provider and reason (every offer is in --json)."""
    for item in result.stats.get("filtered_in_catalog") or []:
        label = tr(lang, "未载入的报价", "Offers not loaded")
        out.print(f"{label}: {item['count']} ({escape(item['reason'])})")
    if not result.excluded:
        return
    kinds = Counter(e.kind for e in result.excluded)
    summary = ", ".join(f"{_excluded_kind(lang, k)} {n}" for k, n in kinds.most_common())
    out.print(f"{tr(lang, '排除的报价', 'Excluded offers')}: {len(result.excluded)} ({summary})")
    said: dict[int, str] = {}  # offers of one data centre share their reason objects
    for first in (e.reasons[0] for e in result.excluded if e.reasons):
        if id(first) not in said:
            said[id(first)] = render(first, lang)
    groups = Counter((e.provider, said[id(e.reasons[0])]) for e in result.excluded if e.reasons)
    table = Table(box=box.SIMPLE)
    table.add_column(tr(lang, "服务商", "Provider"))
    table.add_column(tr(lang, "报价数", "Offers"))
    table.add_column(tr(lang, "原因", "Reason"), overflow="fold")
    for (provider, reason), count in groups.most_common(EXCLUDED_SHOWN):
        table.add_row(provider, str(count), escape(reason))
    print_table(out, table)
    hidden = len(groups) - EXCLUDED_SHOWN
    if hidden > 0:
        out.print(
            tr(
                lang,
                f"…另有 {hidden} 类原因，用 --json 查看全部",
                f"… {hidden} more reasons, see --json",
            )
        )


def _print_shared(optimal: bool, gap: float, lang: str, fallback: Mapping[str, list[str]]) -> None:
    verdict = tr(
        lang,
        "已证明最优" if optimal else "未证明最优",
        "proven optimal" if optimal else "not proven optimal",
    )
    console().print(
        f"[bold]{tr(lang, '多任务共享库存', 'Jobs sharing stock')}[/]: {verdict}, gap {gap:.4%}"
    )
    for name, reasons in fallback.items():
        said = (label(lang, f"fallback_{r}") if f"fallback_{r}" in LABELS else r for r in reasons)
        why = tr(lang, "、", ", ").join(said)
        console().print(
            escape(
                tr(
                    lang,
                    f"{name}：混合整数规划不计 {why}，改用单任务精确规划（在其他任务剩余库存上）",
                    f"{name}: the MILP does not model {why}; planned by the exact "
                    f"per-job DP on the stock the other jobs leave",
                )
            )
        )
