"""Refresh commands: refresh (once), history (prices over snapshots), worker (on a schedule)."""

from __future__ import annotations

import functools
import heapq
import logging
import os
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from itertools import islice
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from comparator.cli._common import (
    JSON_OPTION,
    console,
    emit_json,
    emit_json_items,
    err_console,
    open_catalog,
    state,
    working,
)
from comparator.cli.helptext import HelpCommand
from comparator.cli.tables import TEXT, CliTable, Col, print_table
from comparator.domain import money_text, resolve_gpu
from comparator.i18n import billing_label, render, say, status_label, yes_no

if TYPE_CHECKING:  # adapters (pandas) and the catalog load when a command runs
    from comparator.catalog import OfferHistory, PriceChange
    from comparator.refresh import RefreshReport, SourceOutcome

T = TypeVar("T")
CONFIG_OPTION = typer.Option(
    Path("sources.toml"),
    "--config",
    "-c",
    envvar="SUANLI_SOURCES",
    help="Sources file (TOML); env SUANLI_SOURCES. See examples/sources.toml.",
)


def register(app: typer.Typer) -> None:
    app.command("refresh", cls=HelpCommand)(refresh)
    app.command("history", cls=HelpCommand)(history)
    app.command("worker", cls=HelpCommand)(worker)


def refresh(
    ctx: typer.Context,
    config: Path = CONFIG_OPTION,
    provider: list[str] = typer.Option([], "--provider", help="Only this provider; may repeat."),
    due: bool = typer.Option(
        False, "--due", help="Only sources without a good run this period (what the worker does)."
    ),
    json_out: bool = JSON_OPTION,
) -> None:
    """Run the provider adapters once (the weekly job's body) and report price changes.

    Sources run concurrently, each within its own deadline; a failing source keeps its last
    good snapshot. Exits 1 when every source that ran failed.

    Example:  suanli refresh --config examples/sources.toml --provider lambda
    """
    st = state(ctx)
    from comparator.refresh import load_sources, run_refresh

    sources = load_sources(config)
    engine = open_catalog(st)
    # the run's log lines are the worker's (English, for operators); here each source's line
    # and the report say it in --lang, so the logger stays quiet unless logging is configured
    logging.getLogger("suanli").addHandler(logging.NullHandler())
    count = len(sources.select(provider))
    with _progress_bar(count, st.lang, quiet=json_out) as on_done:
        report = run_refresh(engine, sources, provider, only_if_due=due, progress=on_done)
    if json_out:
        emit_json(report.to_json())
    else:
        _print_report(report, st.lang)
    if report.all_failed:
        raise typer.Exit(1)


@contextmanager
def _progress_bar(total: int, lang: str, quiet: bool) -> Iterator[Callable[[SourceOutcome], None]]:
    """A bar on stderr that advances as sources finish (a line per source when not a TTY)."""
    out = err_console()
    columns = (
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
    )
    with Progress(*columns, console=out, transient=True, disable=quiet) as bar:
        task = bar.add_task(say(lang, "refreshing"), total=total)

        def done(outcome: SourceOutcome) -> None:
            if not quiet:
                error = _error(outcome, lang) if outcome.status == "failed" else None
                line = f"  {outcome.provider}: {_status(outcome.status, lang)}"
                bar.console.print(line + (f" — {error}" if error else ""), markup=False)
            bar.advance(task)

        yield done


def _status(status: str, lang: str) -> str:
    return status_label(lang, status)


def _error(run: SourceOutcome, lang: str) -> str | None:
    """What went wrong with a source, in ``lang`` when it is a message of the catalogue."""
    return render(run.error_msg, lang) if run.error_msg is not None else run.error


def _print_report(report: RefreshReport, lang: str) -> None:
    out = console()
    title = say(
        lang, "Refresh {period} ({seconds:.1f} s)", period=report.period, seconds=report.seconds
    )
    table = CliTable(title=title)
    table.add_columns(lang, _REPORT_COLUMNS)
    for run in report.runs:
        table.add_row(
            run.provider,
            _status(run.status, lang),
            str(run.offers),
            str(run.snapshot_id or "—"),
            _change_summary(run, lang),
            _error(run, lang) or "\n".join(run.notes[:3]),
        )
    print_table(out, table)
    if report.changes:
        _print_changes(report.changes, lang)


_REPORT_COLUMNS = (
    Col("Provider"),
    Col("Status"),
    Col("Offers"),
    Col("Snapshot"),
    Col("Changes"),
    Col("Details", TEXT),
)


def _change_summary(run: SourceOutcome, lang: str) -> str:
    if run.first_snapshot:
        return say(lang, "first snapshot")
    from comparator.catalog import count_changes

    counts = count_changes(run.changes)
    return " ".join(f"{status_label(lang, k)} {n}" for k, n in counts.items() if n) or "—"


def _print_changes(changes: list[PriceChange], lang: str, limit: int = 20) -> None:
    table = CliTable(title=say(lang, "Price changes"))
    for header in (
        "Provider",
        "Region",
        "GPU",
        "Cards",
        "Billing",
        "SKU",
        "price\x04Change",
        "Old",
        "New",
        "%",
    ):
        table.add_column(say(lang, header))
    for change in changes[:limit]:
        doc = change.to_json()
        table.add_row(
            change.provider,
            str(doc["region"]),
            str(doc["gpu"]),
            str(doc["cards"]),
            str(doc["billing"]),
            str(doc["sku"]),
            status_label(lang, change.kind),
            f"{doc['old_price'] or '—'}",
            f"{doc['new_price'] or '—'}",
            f"{doc['change_pct'] or ''}",
            style=_style(change),
        )
    out = console()
    print_table(out, table)
    if len(changes) > limit:
        out.print(
            say(lang, "{value} more changes (all of them with --json)", value=len(changes) - limit)
        )


def _style(change: PriceChange) -> str:
    return {"cheaper": "green", "dearer": "red"}.get(change.kind, "")


def history(
    ctx: typer.Context,
    provider: str | None = typer.Option(None, "--provider", help="Provider id."),
    gpu: str | None = typer.Option(None, "--gpu", help="GPU model, any alias (H100, 4090…)."),
    limit: int | None = typer.Option(None, "--limit", min=1, help="At most N offers (table: 30)."),
    json_out: bool = JSON_OPTION,
) -> None:
    """Each offer's price over the snapshots: did it get cheaper?

    Example:  suanli history --provider lambda --gpu H100
    """
    st = state(ctx)
    canonical = resolve_gpu(gpu).name if gpu else None
    from comparator.catalog import iter_price_history

    engine = open_catalog(st)
    offers = _Counted(iter_price_history(engine, provider=provider, gpu=canonical))
    if json_out:  # written as they are read: 1M offers are never held at once
        zone = st.settings.timezone
        emit_json_items("offers", (offer.to_json(zone) for offer in islice(offers, limit)))
    else:
        with working(say(st.lang, "Reading price history…")):
            shown = heapq.nsmallest(limit or 30, offers, key=_biggest_drop_first)
        _print_history(shown, offers.count, st.lang)
    if offers.count == 0:
        from comparator.cli.hints import empty_offers_hint

        filters: dict[str, str | None] = {"gpu": canonical, "province": None, "billing": None}
        hint = empty_offers_hint(engine, st.lang, gpu=gpu, provider=provider, filters=filters)
        err_console().print(f"[bold]hint:[/] {hint}", soft_wrap=True)


def _biggest_drop_first(offer: OfferHistory) -> tuple[Any, ...]:
    return (offer.change_pct, offer.provider, offer.key)


class _Counted(Iterator[T]):
    """``items`` as they come, counted."""

    def __init__(self, items: Iterator[T]) -> None:
        self.items, self.count = items, 0

    def __next__(self) -> T:
        item = next(self.items)
        self.count += 1
        return item


_HISTORY_COLUMNS = (
    Col("Provider"),
    Col("Offer", TEXT),
    Col("First → last"),
    Col("Change %"),
    Col("Points"),
    Col("Current"),
)


def _print_history(offers: list[OfferHistory], total: int, lang: str) -> None:
    """The table of ``offers`` (the biggest drops of ``total``)."""
    if not offers:
        console().print(say(lang, "No price history matches."))
        return
    table = CliTable(title=say(lang, "Price history (biggest drops first)"))
    table.add_columns(lang, _HISTORY_COLUMNS)
    for offer in offers:
        region, gpu, cards, billing, sku, _, _, currency = offer.key
        table.add_row(
            offer.provider,
            f"{gpu} ×{cards} {billing_label(lang, billing)} {region} {sku}".strip(),
            f"{money_text(offer.first_price, currency)} → {money_text(offer.last_price, currency)}",
            str(offer.change_pct),
            str(len(offer.points)),
            yes_no(lang, offer.current),
        )
    out = console()
    print_table(out, table)
    if total > len(offers):
        out.print(say(lang, "{value} more (--limit / --json)", value=total - len(offers)))


def worker(ctx: typer.Context, config: Path = CONFIG_OPTION) -> None:
    """Run the refresh on the sources file's cron until SIGTERM (default Monday 03:00).

    At start it catches up every source without a good run in the current period. A lease
    keeps a second worker from running the same refresh. Logs go to stderr.

    Example:  suanli worker --config /etc/suanli/sources.toml
    """
    from comparator.refresh import run_worker

    st = state(ctx)
    from comparator.refresh import ZonedFormatter

    handler = logging.StreamHandler(sys.stderr)  # times in SUANLI_TIMEZONE, with the offset
    handler.setFormatter(
        ZonedFormatter("%(asctime)s %(levelname)s %(name)s: %(message)s", st.settings.timezone)
    )
    logging.basicConfig(level=logging.INFO, handlers=[handler])
    for noisy in ("apscheduler", "httpx", "alembic"):
        logging.getLogger(noisy).setLevel(logging.WARNING)
    from comparator.cli.report_cmd import report_after_refresh

    engine = open_catalog(st)
    after = functools.partial(report_after_refresh, engine, st.settings)
    if not run_worker(engine, config, after=after):
        os._exit(1)  # a refresh thread is stuck past the grace: do not wait for it at exit
