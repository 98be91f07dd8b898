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

from comparator.cli._common import (
    CALIBRATION_OPTION,
    JSON_OPTION,
    check_objective,
    console,
    emit_json,
    open_catalog,
    parse_today,
    state,
    working,
)
from comparator.cli.helptext import HelpCommand
from comparator.cli.plan_extras import (
    billing_cell,
    plan_warnings,
    print_plan_notes,
    print_warnings,
)
from comparator.cli.plan_figures import (
    print_assumptions,
    print_figures,
    print_gpu_table,
    print_hours_range,
    print_machines,
    print_utilisation,
)
from comparator.cli.tables import TEXT, CliTable, Col, print_table
from comparator.domain import DEFAULT_TIMEZONE, money_str, money_text
from comparator.errors import InputError, Msg
from comparator.i18n import LABELS, label, render, say

if TYPE_CHECKING:  # the planner (numpy) loads when a plan is made, not for --help
    from comparator.plan import Plan, PlanResult, SharedPlan

EXCLUDED_SHOWN = 12
NO_FEASIBLE_PLAN = 4  # exit code: nothing feasible (the message names the binding constraint)


def register(app: typer.Typer) -> None:
    app.command("plan", cls=HelpCommand)(plan)


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
    check_objective(objective)
    day = parse_today(today, st.settings.today)
    engine = open_catalog(st)
    lang = st.lang
    planning = say(lang, "Planning…")
    if len(jobs) > 1 and calibration is not None:
        raise InputError(
            "--calibration plans one job; put a [calibration] table in each job file",
            hint=Msg(
                "plan the jobs one at a time with --calibration, or put a [calibration] table in each job file"
            ),
        )
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
        _print_total(shared, lang)
    if not all(r.feasible for r in shared.results):
        raise typer.Exit(NO_FEASIBLE_PLAN)


def _print_total(shared: SharedPlan, lang: str) -> None:
    """The jobs' combined cost (the JSON's ``total_cost``): every plan's line items and bill."""
    planned = [r.best for r in shared.results if r.best is not None]
    currencies = sorted({best.currency for best in planned})
    if not planned:
        return
    amount = sum((b.total_cost for b in planned), Decimal(0))
    total = (
        money_text(amount, currencies[0])
        if len(currencies) == 1
        else f"{money_str(amount)} {'/'.join(currencies)}"
    )
    console().print(
        say(
            lang,
            "[bold]Total of {planned} of {count} jobs[/]: [bold green]{total}[/]",
            planned=len(planned),
            count=len(shared.results),
            total=total,
        )
    )


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
    goal = say(lang, "cheapest") if result.objective == "cost" else say(lang, "earliest finish")
    out.print(f"[bold]{say(lang, 'Plan')}: {escape(result.job_name)}[/]  ({goal})")
    if result.calendar_warning:
        warning = render(result.calendar_warning, lang)
        out.print(f"[yellow]{say(lang, 'Warning')}: {escape(warning)}[/]")
    if result.best is None:
        message = render(result.message, lang) if result.message else ""
        out.print(
            f"[bold red]{say(lang, 'No feasible plan')}[/] "
            f"({escape(result.binding or '')}): {escape(message)}"
        )
        if result.cheapest_without_budget is not None:
            out.print(say(lang, "The cheapest plan without the budget:"))
            _print_best(out, result.cheapest_without_budget, lang)
    else:
        _print_best(out, result.best, lang)
        print_warnings(out, lang, plan_warnings(result, lang))
        print_plan_notes(out, result, lang)
        print_utilisation(out, result, lang)
        _print_alternatives(out, result, lang)
    _print_excluded(out, result, lang)
    print_gpu_table(out, result, lang)
    print_assumptions(out, result, lang)


def _rate_text(price: Decimal, currency: str) -> str:
    """A unit price: to the cent, unless it is below one (¥0.0004 per GB stays visible)."""
    if price == 0 or abs(price) >= Decimal("0.01"):
        return money_text(price, currency)
    return money_text(0, currency).replace("0.00", f"{price.normalize():f}")


def _signed_money(amount: Decimal, currency: str) -> str:
    return ("+" if amount >= 0 else "") + money_text(amount, currency)


def _print_best(out: Console, best: Plan, lang: str) -> None:
    from comparator.plan import mix_text

    where = " ".join(x for x in (best.province, best.city) if x)
    out.print(
        f"{say(lang, 'Best')}: [bold]{escape(best.provider_name)}[/] "
        f"({escape(best.provider)}) · {escape(best.region_name)} {escape(where)} · "
        f"{best.cards} × {best.gpu} · [bold green]{money_text(best.total_cost, best.currency)}[/]"
    )
    if best.oversized_contract:
        out.print(
            say(
                lang,
                (
                    "[yellow]Note: a contract pays for more than 3× the hours it runs; still "
                    "the cheapest[/]"
                ),
            )
        )
    out.print(f"{say(lang, 'Billing mix')}: {escape(mix_text(best, lang))}")
    print_machines(out, best, lang)
    out.print(
        f"{say(lang, 'Start')} {best.start:%Y-%m-%d %H:%M} → "
        f"{say(lang, 'finish')} {best.finish:%Y-%m-%d %H:%M} · "
        f"{say(lang, 'run')} {best.run_hours} h "
        f"({say(lang, 'restart overhead')} {best.overhead_hours} h)"
    )
    print_figures(out, best, lang)
    print_hours_range(out, best, lang)
    table = _segment_table(best, lang)
    print_table(out, table)
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


_SEGMENT_COLUMNS = (  # the periods, then the average paid, go when the terminal is narrow
    Col("Offer"),
    Col("Billing"),
    Col("Start"),
    Col("End"),
    Col("Units"),
    Col("Periods", drop=1),
    Col("Unit price"),
    Col("Avg paid", drop=2),
    Col("Cost"),
)


def _segment_table(best: Plan, lang: str) -> CliTable:
    """The best plan's line items, then its bill (upload, storage, egress)."""
    table = CliTable(box=box.SIMPLE)
    table.add_columns(lang, _SEGMENT_COLUMNS)
    for s in best.segments:
        runs = say(
            lang, "runs {run_hours}/{paid_hours} h", run_hours=s.run_hours, paid_hours=s.paid_hours
        )
        table.add_row(
            s.offer_id,
            billing_cell(s, lang) + (f" ({runs})" if s.pays_idle else ""),
            f"{s.start:%m-%d %H:%M}",
            f"{s.end:%m-%d %H:%M}",
            str(s.units),
            str(s.periods),
            money_text(s.unit_price, best.currency),
            money_text(s.average_unit_price, best.currency),
            money_text(s.cost, best.currency),
        )
    for item in best.bill:
        table.add_row(
            escape(label(lang, "bill_short_" + item.kind)),
            escape(f"{item.quantity} {item.texts(lang)['unit']}"),
            f"{item.start:%m-%d %H:%M}",
            f"{item.end:%m-%d %H:%M}",
            "",
            "",
            _rate_text(item.unit_price, best.currency),
            "",
            money_text(item.cost, best.currency),
        )
    return table


def _print_alternatives(out: Console, result: PlanResult, lang: str) -> None:
    from comparator.plan import mix_text

    if not result.alternatives or result.best is None:
        return
    table = CliTable(
        title=say(lang, "Alternatives (best per provider and GPU)"),
        box=box.SIMPLE,
    )
    table.add_columns(lang, _ALTERNATIVE_COLUMNS)
    for rank, alt in enumerate(result.alternatives, start=2):
        delta = alt.total_cost - result.best.total_cost
        table.add_row(
            str(rank),
            alt.provider,
            alt.region,
            alt.gpu,
            str(alt.cards),
            mix_text(alt, lang),
            money_text(alt.total_cost, alt.currency),
            f"{alt.start:%m-%d %H:%M}",
            f"{alt.finish:%m-%d %H:%M}",
            _signed_money(delta, alt.currency),
        )
    print_table(out, table)


_ALTERNATIVE_COLUMNS = (  # the finish, then the region, go when the terminal is narrow
    Col("#"),
    Col("Provider"),
    Col("Region", drop=2),
    Col("GPU"),
    Col("Cards"),
    Col("Billing mix"),
    Col("Cost"),
    Col("Start"),
    Col("Finish", drop=1),
    Col("Δ"),
)


_EXCLUDED_KINDS = {  # an exclusion's kind → its message id (in context: "memory" is short)
    "compliance": "excluded\x04compliance",
    "requirements": "excluded\x04requirements",
    "memory": "excluded\x04memory",
    "stock": "excluded\x04stock",
    "network": "excluded\x04network",
    "throughput": "excluded\x04throughput",
    "currency": "excluded\x04currency",
    "time-of-use": "excluded\x04time of use",
}


def _excluded_kind(lang: str, kind: str) -> str:
    known = _EXCLUDED_KINDS.get(kind)
    return say(lang, known) if known else kind


def _print_excluded(out: Console, result: PlanResult, lang: str) -> None:
    """Excluded offers grouped by provider and reason (every offer is in --json)."""
    for item in result.stats.get("filtered_in_catalog") or []:
        label = say(lang, "Offers not loaded")
        out.print(f"{label}: {item['count']} ({escape(item['reason'])})")
    if not result.excluded:
        return
    kinds = Counter(e.kind for e in result.excluded)
    summary = ", ".join(f"{_excluded_kind(lang, k)} {n}" for k, n in kinds.most_common())
    out.print(f"{say(lang, 'Excluded offers')}: {len(result.excluded)} ({summary})")
    said: dict[int, str] = {}  # offers of one data centre share their reason objects
    for first in (e.reasons[0] for e in result.excluded if e.reasons):
        if id(first) not in said:
            said[id(first)] = render(first, lang)
    groups = Counter((e.provider, said[id(e.reasons[0])]) for e in result.excluded if e.reasons)
    table = CliTable(box=box.SIMPLE)
    table.add_column(say(lang, "Provider"))
    table.add_column(say(lang, "Offers"))
    table.add_column(say(lang, "Reason"), kind=TEXT)
    for (provider, reason), count in groups.most_common(EXCLUDED_SHOWN):
        table.add_row(provider, str(count), escape(reason))
    print_table(out, table)
    hidden = len(groups) - EXCLUDED_SHOWN
    if hidden > 0:
        out.print(say(lang, "… {hidden} more reasons, see --json", hidden=hidden))


def _print_shared(optimal: bool, gap: float, lang: str, fallback: Mapping[str, list[str]]) -> None:
    verdict = say(lang, "proven optimal" if optimal else "not proven optimal")
    shown = say(lang, "{verdict}, gap {gap}", verdict=verdict, gap=f"{gap:.2%}")
    console().print(f"[bold]{say(lang, 'Jobs sharing stock')}[/]: {shown}")
    for name, reasons in fallback.items():
        said = (label(lang, f"fallback_{r}") if f"fallback_{r}" in LABELS else r for r in reasons)
        why = say(lang, ", ").join(said)
        console().print(
            escape(
                say(
                    lang,
                    (
                        "{name}: the MILP does not model {why}; planned by the exact per-job "
                        "DP on the stock the other jobs leave"
                    ),
                    name=name,
                    why=why,
                )
            )
        )
