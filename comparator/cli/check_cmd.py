"""``suanli check``: compliance per provider and data centre, as a providers × checks matrix."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import date
from pathlib import Path

import typer
from rich import box
from rich.markup import escape

from comparator.cli._common import (
    JSON_OPTION,
    console,
    emit_json,
    open_catalog,
    parse_today,
    print_lines,
    state,
    working,
)
from comparator.cli.helptext import HelpCommand
from comparator.cli.provider_facts import print_facts
from comparator.cli.tables import CliTable, natural_width, print_table
from comparator.compliance import FAIL, PASS, WARN, ProviderReport
from comparator.i18n import CHECKS, check_label, say, status_label

PROVIDER_COLUMNS = [cid for cid, c in CHECKS.items() if c.scope in ("provider", "facts")]
FACT_COLUMNS = {cid for cid, c in CHECKS.items() if c.scope == "facts"}
DATACENTER_COLUMNS = [cid for cid, c in CHECKS.items() if c.scope == "datacenter"]
_CELL = {PASS: "[green]✓[/]", WARN: "[yellow]![/]", FAIL: "[red]✗[/]"}


def register(app: typer.Typer) -> None:
    app.command("check", cls=HelpCommand)(check)


def check(
    ctx: typer.Context,
    provider_ids: list[str] = typer.Argument(None, help="Provider ids (default: all)."),
    job: Path | None = typer.Option(None, "--job", help="Job file whose requirements apply."),
    today: str | None = typer.Option(
        None, "--today", help="Judge as of this date (YYYY-MM-DD); default: today."
    ),
    strict: bool = typer.Option(False, "--strict", help="Exit 3 when any provider fails."),
    json_out: bool = JSON_OPTION,
) -> None:
    """Compliance report per provider (and per data centre): licences, filings, job rules.

    Example:  suanli check demo-nanshan --job examples/lora-7b-guangdong.toml --today 2026-11-29
    """
    st = state(ctx)
    from comparator.services import check_catalog  # loads the database stack

    with working(say(st.lang, "Checking compliance…"), quiet=json_out):
        result = check_catalog(
            open_catalog(st),
            st.settings,
            provider_ids=provider_ids or [],
            job_path=job,
            today=parse_today(today, st.settings.today),
        )
    reports = result.reports
    if json_out:
        emit_json(
            {
                "today": result.today,
                "last_day": result.last_day,
                "job": str(job) if job else None,
                "providers": [
                    {**r.to_json(st.lang), "claimed": any(c.id == "claimed" for c in r.checks)}
                    for r in reports
                ],
            }
        )
    else:
        _print_matrix(reports, st.lang, result.today)
        _print_findings(reports, st.lang)
        print_facts(console(), reports, st.lang)
    if strict and any(r.status == FAIL for r in reports):
        raise typer.Exit(3)


def _columns(reports: list[ProviderReport]) -> tuple[list[str], list[str]]:
    # a service fact is a column only where a job's requirement made it more than information
    own = {c.id for r in reports for c in r.checks if c.id not in FACT_COLUMNS or c.status != PASS}
    dcs = {c.id for r in reports for d in r.datacenters for c in d.checks}
    return ([c for c in PROVIDER_COLUMNS if c in own], [c for c in DATACENTER_COLUMNS if c in dcs])


def _cell(statuses: list[str]) -> str:
    if not statuses:
        return "—"
    return _CELL[max(statuses, key=[PASS, WARN, FAIL].index)]


def _print_matrix(reports: list[ProviderReport], lang: str, day: date) -> None:
    """One matrix when the terminal is wide enough, else provider and data-centre halves."""
    own_cols, dc_cols = _columns(reports)
    title = say(lang, "Compliance checks ({day})", day=day)
    out = console()
    table = _matrix(reports, lang, title, own_cols, dc_cols, dc_rows=True)
    if natural_width(out, table) <= out.width:
        print_table(out, table)
        return
    print_table(out, _matrix(reports, lang, title, own_cols, [], dc_rows=False))
    print_table(out, _matrix(reports, lang, say(lang, "Data centres"), [], dc_cols, dc_rows=True))


def _matrix(
    reports: list[ProviderReport],
    lang: str,
    title: str,
    own_cols: list[str],
    dc_cols: list[str],
    *,
    dc_rows: bool,
) -> CliTable:
    table = CliTable(
        title=title,
        box=box.SIMPLE_HEAD,
        padding=(0, 1),
        pad_edge=False,
        collapse_padding=True,
        show_edge=False,
        caption=_legend(lang),
    )
    table.add_column(say(lang, "Provider / DC"))
    table.add_column(say(lang, "Verdict"))
    for cid in [*own_cols, *dc_cols]:
        table.add_column(check_label(lang, cid, short=True), justify="center")
    for report in reports:
        table.add_row(*_provider_row(report, own_cols, dc_cols, lang))
        for dc in report.datacenters if dc_rows else ():
            cells = [_cell([c.status for c in dc.checks if c.id == cid]) for cid in dc_cols]
            blanks = [""] * len(own_cols)
            table.add_row(f"  └ {escape(dc.id)}", _verdict(dc.status, lang), *blanks, *cells)
    return table


def _provider_row(
    report: ProviderReport, own_cols: list[str], dc_cols: list[str], lang: str
) -> list[str]:
    own = [_cell([c.status for c in report.checks if c.id == cid]) for cid in own_cols]
    dcs = [
        _cell([c.status for d in report.datacenters for c in d.checks if c.id == cid])
        for cid in dc_cols
    ]
    return [f"[bold]{escape(report.provider)}[/]", _verdict(report.status, lang), *own, *dcs]


def _legend(lang: str) -> str:
    return say(lang, "✓ pass  ! warn  ✗ fail  — not applicable; reasons and evidence below")


def _verdict(status: str, lang: str) -> str:
    colour = {PASS: "green", WARN: "yellow", FAIL: "red"}[status]
    return f"[{colour}]{status_label(lang, status)}[/]"


def _print_findings(reports: list[ProviderReport], lang: str) -> None:
    """Every warn/fail check with its reason and evidence, under the matrix."""
    print_lines(console(), (line for report in reports for line in _findings(report, lang)))


def _findings(report: ProviderReport, lang: str) -> Iterator[str]:
    scoped = [("", c) for c in report.checks]
    scoped += [(f"{d.id} ", c) for d in report.datacenters for c in d.checks]
    for scope, item in scoped:
        if item.status == PASS:
            continue
        evidence = f" [dim]({escape(item.evidence)})[/]" if item.evidence else ""
        yield (
            f"{_CELL[item.status]} {escape(report.provider)} {escape(scope)}{item.id}: "
            f"{escape(item.message(lang))}{evidence}"
        )
