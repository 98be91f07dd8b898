"""``suanli report market``: the weekly market report (text, ``--json``, HTML and PDF)."""

from __future__ import annotations

import functools
import logging
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer
from rich import box
from rich.markup import escape

from comparator.cli._common import (
    JSON_OPTION,
    console,
    emit_json,
    open_catalog,
    parse_today,
    state,
    working,
)
from comparator.cli.helptext import HelpCommand, HelpGroup
from comparator.cli.tables import CliTable, print_table
from comparator.i18n import billing_label, label, normalize_lang, status_label

if TYPE_CHECKING:
    from sqlalchemy import Engine

    from comparator.config import Settings
    from comparator.refresh import RefreshReport, SourcesFile

log = logging.getLogger("suanli.worker")

report_app = typer.Typer(
    help="Reports over the catalog: the weekly market report.\n\n"
    "Example:  suanli report market -o market.html --pdf market.pdf",
    no_args_is_help=True,
    rich_markup_mode="rich",
    cls=HelpGroup,
)


def register(app: typer.Typer) -> None:
    app.add_typer(report_app, name="report")
    report_app.command("market", cls=HelpCommand)(market)


def market(
    ctx: typer.Context,
    output: Path | None = typer.Option(None, "-o", "--output", help="Write the HTML report."),
    pdf: Path | None = typer.Option(None, "--pdf", help="Write the PDF report (needs Pango)."),
    policy: Path | None = typer.Option(
        None, "--policy", help="Judge compliance for this job file (default: no requirements)."
    ),
    weeks: int = typer.Option(12, "--weeks", min=2, max=104, help="Weeks on record (2–104)."),
    today: str | None = typer.Option(
        None, "--today", help="Judge licences and price ages as of this date (YYYY-MM-DD)."
    ),
    json_out: bool = JSON_OPTION,
) -> None:
    """The weekly market report: price index per GPU and billing mode, and what changed.

    Example:  suanli report market -o market.html --pdf market.pdf
    """
    import comparator
    from comparator.report import check_outputs, write_market_report
    from comparator.services import market_report

    st = state(ctx)
    engine = open_catalog(st)
    database = engine.url.database
    protected = [Path(database)] if engine.dialect.name == "sqlite" and database else []
    check_outputs([output, pdf], protected)
    document = market_report(
        engine,
        st.settings,
        today=parse_today(today),
        weeks=weeks,
        policy_job=policy,
        software_version=comparator.__version__,
    )
    if output is not None or pdf is not None:
        with working(label(st.lang, "mk_title"), quiet=json_out):
            write_market_report(document, output, pdf, lang=normalize_lang(st.lang))
    if json_out:
        emit_json(document)
        return
    print_market(document, st.lang)


def _pct(moved: dict[str, str] | None) -> str:
    if moved is None:
        return "—"
    sign = "+" if not moved["pct"].startswith("-") else ""
    return f"{sign}{moved['pct']} %"


def _index_table(document: dict[str, Any], lang: str) -> CliTable:
    t = functools.partial(label, lang)
    title = f"{t('mk_index')} {document['week']}"
    table = CliTable(box=box.SIMPLE_HEAD, pad_edge=False, title=title)
    table.add_column(t("mk_gpu"))
    table.add_column(t("mk_billing"))
    for key in ("mk_providers", "mk_offers", "mk_min", "mk_median", "mk_p90"):
        table.add_column(t(key), justify="right", drop=2 if key == "mk_offers" else 0)
    table.add_column(t("mk_change_1w"), justify="right")
    table.add_column(t("mk_change_4w"), justify="right", drop=1)  # dropped first when narrow
    table.add_column(t("mk_cheapest"))
    for row in document["index"]:
        now = row["current"]
        if now is None:
            continue
        offer = row["cheapest_compliant"]
        cheapest = "—"
        if offer is not None:
            cheapest = f"{offer['price_card_hour']} {offer['provider']}@{offer['region']}"
            cheapest += f" #{offer['offer_id']}" + (f" ({t('mk_stale')})" if offer["stale"] else "")
        providers = str(now["providers"])
        if now["stale_providers"]:
            providers += f" ({now['stale_providers']} {t('mk_stale_count')})"
        table.add_row(
            escape(row["gpu"]),
            billing_label(lang, row["billing"]),
            providers,
            str(now["offers"]),
            now["min"],
            now["median"],
            now["p90"],
            _pct(row["change_1w"]),
            _pct(row["change_4w"]),
            escape(cheapest),
        )
    return table


def print_market(document: dict[str, Any], lang: str) -> None:
    """The report as text: the basis, the index table, what changed and failed sources."""
    out = console()
    t = functools.partial(label, lang)
    colon = label(lang, "colon")
    out.print(f"[bold]{t('mk_title')}[/] {document['week']} · {t('mk_today')} {document['today']}")
    semicolon = label(lang, "semicolon")
    out.print(
        f"{t('mk_basis')}{colon}{t('mk_basis_text')} {document['currency']}{semicolon}"
        f"{t('mk_fx')} {document['fx']['date']}{semicolon}{t('mk_reference_week')} "
        f"{document['reference_week']['start']} – {document['reference_week']['end']}"
    )
    if not document["index"]:
        out.print(t("mk_no_offers"))
    else:
        print_table(out, _index_table(document, lang))
    for line in change_lines(document, lang):
        out.print(escape(line))  # wraps between words: an id, date or amount stays whole


def _places(items: list[dict[str, str]]) -> str:
    return ", ".join(f"{i['provider']}/{i['region']}" for i in items)


def change_lines(document: dict[str, Any], lang: str) -> list[str]:
    """What changed and which sources failed, one line each (plain text)."""
    t = functools.partial(label, lang)
    colon, none = label(lang, "colon"), t("mk_none")
    ch = document["changes"]
    lines = [
        t("mk_changes"),
        f"  {t('mk_providers_new')}{colon}{', '.join(ch['providers_new']) or none}",
        f"  {t('mk_providers_gone')}{colon}{', '.join(ch['providers_gone']) or none}",
        f"  {t('mk_datacenters_new')}{colon}{_places(ch['datacenters_new']) or none}",
        f"  {t('mk_datacenters_gone')}{colon}{_places(ch['datacenters_gone']) or none}",
        f"  {t('mk_offers_added')}{colon}{ch['offers_added']}  "
        f"{t('mk_offers_removed')}{colon}{ch['offers_removed']}",
    ]
    for move in ch["price_moves"]:
        lines.append(
            f"  {t('mk_moves')}{colon}{move['provider']}/{move['region']} {move['gpu']}×"
            f"{move['cards']} {billing_label(lang, move['billing'])} {move['old_price']} → "
            f"{move['new_price']} {move['currency']} ({move['change_pct']} %)"
        )
    for item in ch["stock_to_zero"]:
        lines.append(
            f"  {t('mk_stock_zero')}{colon}{item['provider']}/{item['region']} {item['gpu']}×"
            f"{item['cards']} {billing_label(lang, item['billing'])}"
        )
    for item in ch["expiring"]:
        lines.append(
            f"  {t('mk_expiring')}{colon}{item['provider']} {t('mk_kind_' + item['kind'])} "
            f"{item['name']} {t('mk_valid_until')} {item['valid_until']} "
            f"({t('mk_days_left')} {item['days_left']})"
        )
    for item in ch["verdict_changes"]:
        lines.append(
            f"  {t('mk_verdicts')}{colon}{item['provider']} {status_label(lang, item['before'])}"
            f" → {status_label(lang, item['after'])}"
        )
    for item in document["failed_sources"]:
        lines.append(
            f"{t('mk_failed')}{colon}{item['provider']} ({item['period']}) {item['error']}; "
            f"{t('mk_last_good')} {item['last_good_at'] or none} ({t('mk_stale')})"
        )
    return lines


def report_after_refresh(
    engine: Engine, settings: Settings, sources: SourcesFile, refresh: RefreshReport
) -> None:
    """The worker's step after each scheduled refresh: the dated market report in the
    ``[report]`` folder of the sources file (nothing without that table)."""
    import comparator
    from comparator.report import write_dated_report
    from comparator.services import market_report

    config = sources.report
    if config is None:
        return
    document = market_report(
        engine, settings, weeks=config.weeks, software_version=comparator.__version__
    )
    written = write_dated_report(
        document, config.folder, keep=config.keep, lang=config.lang, pdf=config.pdf
    )
    log.info("market report of %s written: %s", refresh.period, ", ".join(map(str, written)))
