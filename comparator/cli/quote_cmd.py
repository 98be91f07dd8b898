"""``suanli quote``: plan a job, freeze the result as a numbered quote, render HTML and PDF."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer
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
from comparator.cli.plan_extras import print_warnings
from comparator.domain import collector_paused
from comparator.errors import InputError, Interrupted, Msg, RenderError
from comparator.i18n import normalize_lang, say, stored_text

if TYPE_CHECKING:  # the catalog and Jinja load when a quote is made
    from sqlalchemy import Engine

    from comparator.quote import StoredQuote


NO_FEASIBLE_PLAN = 4


def register(app: typer.Typer) -> None:
    app.command("quote", cls=HelpCommand)(quote)


def quote(
    ctx: typer.Context,
    job: Path | None = typer.Argument(None, help="Job file (TOML); not needed with --show."),
    output: Path | None = typer.Option(None, "-o", "--output", help="Write the HTML report."),
    pdf: Path | None = typer.Option(None, "--pdf", help="Write the PDF report (needs Pango)."),
    show: str | None = typer.Option(
        None, "--show", help="Re-render the stored quote NUMBER (e.g. Q-2026-000123)."
    ),
    objective: str = typer.Option("cost", "--objective", help="cost (default) or time."),
    top: int | None = typer.Option(
        None, "--top", min=0, help="Keep at most N alternatives (default 5)."
    ),
    today: str | None = typer.Option(
        None, "--today", help="Judge licences and price ages as of this date (YYYY-MM-DD)."
    ),
    calibration: Path | None = CALIBRATION_OPTION,
    json_out: bool = JSON_OPTION,
) -> None:
    """Plan a job, save it as a numbered quote and render the comparison report.

    Example:  suanli quote examples/lora-7b-guangdong.toml -o quote.html --pdf quote.pdf
    """
    # the planner's heap, the document: no collection walks them, nor after (the command ends)
    with collector_paused(examine=False):
        _quote(ctx, job, output, pdf, show, objective, top, today, calibration, json_out)


def _quote(
    ctx: typer.Context,
    job: Path | None,
    output: Path | None,
    pdf: Path | None,
    show: str | None,
    objective: str,
    top: int | None,
    today: str | None,
    calibration: Path | None,
    json_out: bool,
) -> None:
    from comparator.quote import load_quote  # the store only: --show loads no planner

    st = state(ctx)
    check_objective(objective)
    day = parse_today(today, st.settings.today)
    engine = open_catalog(st)
    _check_outputs(engine, output, pdf)  # before anything is planned or saved
    if show is not None:
        stored = load_quote(engine, show)
    elif job is None:
        raise InputError(
            "suanli quote: give a job file (JOB.toml) or --show NUMBER",
            hint=Msg(
                "suanli quote examples/lora-7b-guangdong.toml makes a quote; suanli quote "
                "--show Q-2026-000123 shows a stored one"
            ),
        )
    else:
        from comparator.services import make_quote  # the planner's imports only when quoting

        with working(say(st.lang, "Planning and saving the quote…"), quiet=json_out):
            stored = make_quote(
                engine,
                job,
                st.settings,
                lang=normalize_lang(st.lang),
                objective=objective,
                top=top,
                today=day,
                calibration=calibration,
            )
    try:
        with working(say(st.lang, "Rendering the report…"), quiet=json_out):
            _render(stored, output, pdf, _render_lang(ctx, show, st.lang))
    except KeyboardInterrupt:
        raise Interrupted(
            "interrupted: quote {number} is saved, its report is not written",
            number=stored.number,
            hint=Msg(
                "`suanli quote --show {number} -o quote.html` renders it again",
                number=stored.number,
            ),
        ) from None
    if json_out:
        emit_json(_json(stored, output, pdf))
    else:
        _print(stored, output, pdf, st.lang, saved=show is None)
    if show is None and _best(stored) is None:
        raise typer.Exit(NO_FEASIBLE_PLAN)  # saved and rendered, but nothing can be ordered


def _check_outputs(engine: Engine, output: Path | None, pdf: Path | None) -> None:
    if output is None and pdf is None:
        return  # nothing to write: the renderer (Jinja) need not load
    from comparator.report import check_outputs

    database = engine.url.database if engine.dialect.name == "sqlite" else None
    protected = [Path(f"{database}{end}") for end in ("", "-wal", "-shm")] if database else []
    check_outputs([output, pdf], protected)


def _render_lang(ctx: typer.Context, show: str | None, lang: str) -> str | None:
    """A stored quote keeps its own language unless --lang was given explicitly."""
    source = ctx.find_root().get_parameter_source("lang")
    explicit = source is not None and source.name != "DEFAULT"
    return normalize_lang(lang) if show is None or explicit else None


def _render(stored: StoredQuote, output: Path | None, pdf: Path | None, lang: str | None) -> None:
    if output is None and pdf is None:
        return
    from comparator.report import write_report

    html_written = False
    try:
        if output is not None:
            write_report(stored.document, output, None, lang=lang)
            html_written = True
        if pdf is not None:
            write_report(stored.document, None, pdf, lang=lang)
    except RenderError as exc:
        hint = Msg(
            "`suanli quote --show {number} -o quote.html` renders it again", number=stored.number
        )
        if html_written:
            raise RenderError(
                "{reason} (quote {number} is saved; HTML written to {path})",
                hint=hint,
                reason=exc.msg,
                number=stored.number,
                path=output,
            ) from None
        raise RenderError(
            "{reason} (quote {number} is saved)",
            hint=hint,
            reason=exc.msg,
            number=stored.number,
        ) from None


def _best(stored: StoredQuote) -> dict[str, Any] | None:
    best = stored.document["plan"].get("best")
    return dict(best) if best else None


def _json(stored: StoredQuote, output: Path | None, pdf: Path | None) -> dict[str, Any]:
    best = _best(stored)
    return {
        "quote": stored.number,
        "html": str(output) if output else None,
        "pdf": str(pdf) if pdf else None,
        "total_cost": best["total_cost"] if best else None,
        "plan": stored.document["plan"],
    }


def _print(
    stored: StoredQuote, output: Path | None, pdf: Path | None, lang: str, *, saved: bool
) -> None:
    out = console()
    if saved:
        out.print(say(lang, "Quote [bold]{number}[/] saved", number=stored.number))
    else:
        created = stored.document["created_at"]
        out.print(
            say(
                lang,
                "Quote [bold]{number}[/] (created {created})",
                number=stored.number,
                created=created,
            )
        )
    best = _best(stored)
    if best:
        currency = stored.document["plan"]["currency"]
        names = stored.document.get("providers") or {}
        name = (names.get(best["provider"]) or {}).get("name", best["provider"])
        from comparator.report import format_money

        total = format_money(best["total_cost"], currency)
        out.print(
            f"{say(lang, 'Best')}: {escape(str(name))} · {escape(best['region'])} · "
            f"{best['gpu']} × {best['cards']} — [bold]{total}[/]"
        )
        from comparator.report import best_warnings

        shown = best_warnings(stored.document, lang)
        print_warnings(out, lang, [(f.status, f.provider, f.message) for f in shown])
    else:
        plan = stored.document["plan"]
        message = stored_text(plan, "message", lang) or ""  # in --lang, whatever it was made in
        out.print(
            f"{say(lang, 'No feasible plan')} "
            f"({escape(str(plan.get('binding') or ''))}): {escape(message)}"
        )
    for label, path in (("HTML", output), ("PDF", pdf)):
        if path:
            out.print(f"{label}: {escape(str(path))}")
    if not output and not pdf:
        out.print(
            say(
                lang,
                "Render it with: suanli quote --show {number} -o quote.html",
                number=stored.number,
            )
        )
