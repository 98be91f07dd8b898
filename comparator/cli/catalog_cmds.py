"""Catalog commands: init, import, providers, offers."""

from __future__ import annotations

from itertools import chain, islice
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer
from rich import box
from rich.markup import escape

from comparator.cli._common import (
    JSON_OPTION,
    console,
    emit_json,
    emit_json_list,
    err_console,
    json_list,
    open_catalog,
    state,
    working,
)
from comparator.cli.helptext import HelpCommand
from comparator.cli.provider_facts import cheapest_fail_hint, verdict_cell
from comparator.cli.tables import TEXT, CliTable, Col, print_table
from comparator.domain import canonical_province, money_text, parse_billing, resolve_gpu
from comparator.errors import InputError, Msg, OptionError
from comparator.i18n import billing_label, msg_to_json, render, say, status_label

if TYPE_CHECKING:  # pandas and SQLAlchemy load when a command runs, not for --help
    from comparator.catalog import OfferRow
    from comparator.refresh import ImportResult


def register(app: typer.Typer) -> None:
    app.command("init", cls=HelpCommand)(init)
    app.command("import", cls=HelpCommand)(import_)
    app.command("providers", cls=HelpCommand)(providers)
    app.command("offers", cls=HelpCommand)(offers)


def init(
    ctx: typer.Context,
    demo: bool | None = typer.Option(
        None,
        "--demo/--no-demo",
        help="Load the bundled demo catalog (default: only into a new, empty DB).",
    ),
    json_out: bool = JSON_OPTION,
) -> None:
    """Create or upgrade the catalog schema (idempotent) and load the demo catalog.

    Example:  suanli init && suanli offers
    """
    from comparator.catalog import has_any_provider, upgrade_schema
    from comparator.refresh import load_demo

    st = state(ctx)
    engine = st.engine()
    upgrade_schema(engine)
    load = demo if demo is not None else not has_any_provider(engine)
    with working(say(st.lang, "Loading the demo catalog…"), quiet=json_out):
        result = load_demo(engine, timezone=st.settings.timezone) if load else None
    if json_out:
        emit_json(
            {
                "database": engine.url.render_as_string(hide_password=True),
                "demo": result.to_json() if result else None,
            }
        )
        return
    out = console()
    out.print(
        say(st.lang, "Catalog database ready: ") + engine.url.render_as_string(hide_password=True)
    )
    if result:
        _print_import(result, st.lang)


def import_(
    ctx: typer.Context,
    files: list[Path] = typer.Argument(
        None, help="Price sheets (.csv/.xlsx/.json) and profiles (.toml)."
    ),
    profile: list[Path] = typer.Option(
        [], "--profile", help="A provider profile (TOML); may repeat."
    ),
    decimal: str = typer.Option(
        ".", "--decimal", help='Decimal mark of the sheets\' numbers: "." or "," (1,5 = 1.5).'
    ),
    replace: bool = typer.Option(
        False,
        "--replace",
        help="Import a sheet even if it removes offers from the provider's current snapshot.",
    ),
    json_out: bool = JSON_OPTION,
) -> None:
    """Import provider profiles and price sheets as new snapshots.

    A sheet with any bad row is rejected whole; the message lists every bad row.
    Re-importing identical content creates no new snapshot. A sheet is the provider's whole
    price list: one that would remove offers from its current snapshot needs --replace.

    Example:  suanli import --profile acme.toml acme-prices.csv
    """
    from comparator.refresh import import_files, split_files

    st = state(ctx)
    profiles_in_files, sheets = split_files(files or [])
    profiles = [*profile, *profiles_in_files]
    if not profiles and not sheets:
        raise InputError(
            "suanli import: give at least one price sheet or --profile PROFILE.toml",
            hint=Msg(
                "give a sheet and its provider's profile: suanli import acme.csv --profile acme.toml"
            ),
        )
    if decimal not in (".", ","):
        raise OptionError(
            '--decimal: expected "." or ",", got {decimal!r}',
            decimal=decimal,
            hint=Msg('write "." (1.5) or "," (1,5) for the decimal mark'),
        )
    names = ", ".join(p.name for p in [*profiles, *sheets])
    with working(say(st.lang, "Importing {names} …", names=names), quiet=json_out):
        result = import_files(
            open_catalog(st),
            sheets,
            profiles,
            timezone=st.settings.timezone,
            decimal=None if decimal == "." else decimal,
            replace=replace,
        )
    for warning in result.warnings:
        shown = escape(render(warning, st.lang))
        err_console().print(f"[yellow]warning:[/] {shown}", soft_wrap=True)
    if json_out:  # the warnings in --lang, as on stderr, each with its message beside it
        emit_json(
            {
                **result.to_json(),
                "warnings": [render(w, st.lang) for w in result.warnings],
                "warning_msgs": [msg_to_json(w) for w in result.warnings],
            }
        )
    else:
        _print_import(result, st.lang)


def _print_import(result: ImportResult, lang: str) -> None:
    out = console()
    for pid, raw in result.profiles:
        status = status_label(lang, raw)
        out.print(say(lang, "provider {pid}: {status}", pid=pid, status=status))
    for name, r in result.snapshots:
        status = status_label(lang, r.status)
        out.print(
            say(
                lang,
                "{name} → {provider}: snapshot {snapshot_id} ({status}, {offers} offers)",
                name=name,
                provider=r.provider,
                snapshot_id=r.snapshot_id,
                status=status,
                offers=r.offers,
            )
        )


def providers(ctx: typer.Context, json_out: bool = JSON_OPTION) -> None:
    """Providers with their credentials summary and data centres.

    Example:  suanli providers --json
    """
    from comparator.catalog import load_profiles

    st = state(ctx)
    profiles = load_profiles(open_catalog(st))
    if json_out:
        emit_json(json_list(st, "providers", [_provider_json(p) for p in profiles.values()]))
        return
    from comparator.cli.provider_facts import facts_cell, licences_cell

    table = CliTable(title=say(st.lang, "Providers"))
    table.add_columns(st.lang, _PROVIDER_COLUMNS)
    for p in profiles.values():
        table.add_row(
            p.id + (f" ({say(st.lang, 'demo')})" if p.demo else ""),
            p.name,
            licences_cell(p, st.lang),
            ", ".join(c.name for c in p.certifications) or "—",
            facts_cell(p, st.lang),
            "\n".join(
                f"{d.id} {d.province or d.country}{'·' + d.city if d.city else ''}"
                for d in p.datacenters
            ),
        )
    print_table(console(), table)


_PROVIDER_COLUMNS = (
    Col("ID"),
    Col("Name", TEXT),
    Col("Licences"),
    Col("Certifications", TEXT, drop=1),
    Col("Service and company facts", TEXT, drop=2),
    Col("Data centres"),
)


def _provider_json(p: Any) -> dict[str, Any]:
    from comparator.cli.provider_facts import facts_json

    return {
        "id": p.id,
        "name": p.name,
        "legal_name": p.legal_name,
        "country": p.country,
        "demo": p.demo,
        "uscc": p.uscc,
        "licenses": [x.number for x in p.licenses if not x.claimed],
        "filings": [x.number or f"{x.kind}:{x.level}" for x in p.filings],
        "certifications": [x.name for x in p.certifications],
        "datacenters": [
            {
                "id": d.id,
                "name": d.name,
                "country": d.country,
                "province": d.province,
                "city": d.city,
                "mainland": d.mainland,
                **d.network.to_json(),
            }
            for d in p.datacenters
        ],
        **facts_json(p),
    }


def offers(
    ctx: typer.Context,
    gpu: str | None = typer.Option(
        None, "--gpu", help="GPU model, any alias (A100-80G, 4090, 910B…)."
    ),
    provider: str | None = typer.Option(None, "--provider", help="Provider id."),
    province: str | None = typer.Option(
        None, "--province", help="Province of the data centre (广东, 粤…)."
    ),
    billing: str | None = typer.Option(
        None, "--billing", help="hourly, spot, daily, weekly, monthly, yearly (or 按量, 包月…)."
    ),
    limit: int | None = typer.Option(
        None, "--limit", min=1, help="At most N offers (table default 30)."
    ),
    compliant_for: Path | None = typer.Option(
        None, "--compliant-for", help="Only offers eligible for this job file."
    ),
    compliant: bool = typer.Option(
        False, "--compliant", help="Only offers that pass the default compliance checks."
    ),
    json_out: bool = JSON_OPTION,
) -> None:
    """Offers of the current snapshots, cheapest per card-hour first (in the quote currency).

    Example:  suanli offers --gpu A100-80G --province 广东 --billing monthly
    """
    st = state(ctx)
    filters = _offer_filters(gpu, province, billing)
    shown = None if json_out and limit is None else (limit or 30)
    from comparator.services import ListingQuery, list_offers

    ask = ListingQuery(
        **filters,
        provider=provider,
        compliant=compliant,
        compliant_for=compliant_for,
        shown=shown,
    )
    with working(say(st.lang, "Reading offers…"), quiet=json_out):
        engine = open_catalog(st)
        listing = list_offers(engine, st.settings, ask)
        rows = iter(listing.rows)
        first = next(rows, None)
    for currency in listing.unpriced:
        err_console().print(
            say(
                st.lang,
                "warning: no FX rate for {currency}; set SUANLI_FX_RATES. Listed last.",
                currency=currency,
            )
        )
    if first is None:
        from comparator.cli.hints import empty_offers_hint

        hint = empty_offers_hint(engine, st.lang, gpu=gpu, provider=provider, filters=filters)
        err_console().print(f"[bold]hint:[/] {escape(hint)}", soft_wrap=True)
        ranked: list[OfferRow] = []
    else:
        ranked = [first]
    cheapest_fail_hint(
        ranked, {r.offer.offer_id: listing.verdict(r.offer) for r in ranked}, st.lang
    )
    if json_out:
        zone = st.settings.timezone
        listed = islice(chain(ranked, rows), limit)
        items = ({**row.to_json(zone), "compliance": listing.verdict(row.offer)} for row in listed)
        emit_json_list(st, "offers", items)
        return
    if first is None:
        console().print(say(st.lang, "No offers match."))
        return
    ranked += rows
    verdicts = {row.offer.offer_id: listing.verdict(row.offer) for row in ranked}
    _print_offers(ranked, limit or 30, st.lang, st.settings.currency, listing.total, verdicts)


def _offer_filters(
    gpu: str | None, province: str | None, billing: str | None
) -> dict[str, str | None]:
    mode = None
    if billing is not None:
        mode = parse_billing(billing)
        if mode is None:
            raise OptionError(
                "--billing: expected hourly, spot, daily, weekly, monthly, yearly; got {billing!r}",
                billing=billing,
                hint=Msg(
                    "write hourly, spot, daily, weekly, monthly or yearly; `suanli offers` "
                    "shows each offer's billing mode"
                ),
            )
    canonical = None
    if province is not None:
        canonical = canonical_province(province)
        if canonical is None:
            raise OptionError(
                "--province: expected a mainland province such as 广东 or 粤, got {province!r}",
                province=province,
                hint=Msg(
                    "write a mainland province by its name or short name, or leave --province "
                    "out; `suanli offers` shows each offer's province"
                ),
            )
    return {"gpu": resolve_gpu(gpu).name if gpu else None, "province": canonical, "billing": mode}


# the low-value columns (stock, location, price) are dropped in this order when too narrow
_OFFER_COLUMNS = (
    Col("offer\x04ID"),
    Col("Provider/region"),
    Col("Location", TEXT, drop=2),
    Col("GPU×cards"),
    Col("Billing"),
    Col("Price", drop=3),
    Col("Card-hour"),
    Col("Time of use", key="T"),
    Col("Stock", drop=1),
    Col("Compliance", justify="center"),
)


def _offer_cells(row: OfferRow, lang: str) -> list[str]:
    """The cells of one offer, in the order of ``_OFFER_COLUMNS``; money as ``¥1,234.50``."""
    o = row.offer
    place = " ".join(x for x in (o.province or o.country, o.city) if x)
    quote = (
        "?" if row.card_hour_quote is None else money_text(row.card_hour_quote, row.quote_currency)
    )
    return [
        o.offer_id,
        f"{o.provider}\n{o.region}",
        place,
        f"{o.gpu}×{o.cards}",
        billing_label(lang, o.billing),
        money_text(o.price, o.currency),
        quote,
        o.time_of_use,
        "∞" if o.stock is None else str(o.stock),
    ]


def _print_offers(
    rows: list[OfferRow],
    limit: int,
    lang: str,
    currency: str,
    total: int,
    verdicts: dict[str, str | None],
) -> None:
    title = say(lang, "Offers ({currency}/card-hour, cheapest first)", currency=currency)
    table = CliTable(title=title, box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False)
    table.add_columns(lang, _OFFER_COLUMNS)
    for row in rows[:limit]:
        verdict = verdict_cell(verdicts.get(row.offer.offer_id))
        table.add_row(*(escape(c) for c in _offer_cells(row, lang)), verdict)
    out = console()
    print_table(out, table)
    if total > limit:
        out.print(
            say(
                lang,
                "{total} offers, {limit} shown; use --limit for more.",
                total=total,
                limit=limit,
            )
        )
