"""Catalog commands: init, import, providers, offers."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer
from rich.markup import escape
from rich.table import Table

from comparator.cli._common import (
    JSON_OPTION,
    State,
    console,
    emit_json,
    err_console,
    json_list,
    open_catalog,
    state,
    tr,
    working,
)
from comparator.cli.provider_facts import cheapest_fail_hint, offer_verdicts, verdict_cell
from comparator.cli.tables import print_table
from comparator.domain import canonical_province, parse_billing, resolve_gpu
from comparator.errors import InputError
from comparator.i18n import billing_label, label, render, status_label

if TYPE_CHECKING:  # pandas and SQLAlchemy load when a command runs, not for --help
    from sqlalchemy import Engine

    from comparator.catalog import OfferRow
    from comparator.refresh import ImportResult


def register(app: typer.Typer) -> None:
    app.command("init")(init)
    app.command("import")(import_)
    app.command("providers")(providers)
    app.command("offers")(offers)


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
    with working(tr(st.lang, "正在载入演示目录…", "Loading the demo catalog…"), quiet=json_out):
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
        tr(st.lang, "目录数据库已就绪：", "Catalog database ready: ")
        + engine.url.render_as_string(hide_password=True)
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
        raise InputError("suanli import: give at least one price sheet or --profile PROFILE.toml")
    if decimal not in (".", ","):
        raise InputError('--decimal: expected "." or ",", got {decimal!r}', decimal=decimal)
    names = ", ".join(p.name for p in [*profiles, *sheets])
    with working(tr(st.lang, f"正在导入 {names} …", f"Importing {names} …"), quiet=json_out):
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
    if json_out:
        emit_json(result.to_json())
    else:
        _print_import(result, st.lang)


def _print_import(result: ImportResult, lang: str) -> None:
    out = console()
    for pid, raw in result.profiles:
        status = status_label(lang, raw)
        out.print(tr(lang, f"服务商 {pid}：{status}", f"provider {pid}: {status}"))
    for name, r in result.snapshots:
        status = status_label(lang, r.status)
        out.print(
            tr(
                lang,
                f"{name} → {r.provider}：快照 {r.snapshot_id}（{status}，{r.offers} 条报价）",
                f"{name} → {r.provider}: snapshot {r.snapshot_id} ({status}, {r.offers} offers)",
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

    table = Table(title=tr(st.lang, "服务商", "Providers"))
    facts_header = label(st.lang, "service_facts")
    for column in (
        tr(st.lang, "编号", "ID"),
        tr(st.lang, "名称", "Name"),
        tr(st.lang, "许可证", "Licences"),
        tr(st.lang, "认证", "Certifications"),
        facts_header,
        tr(st.lang, "机房", "Data centres"),
    ):
        wraps = column in (
            tr(st.lang, "名称", "Name"),
            tr(st.lang, "认证", "Certifications"),
            facts_header,
        )
        table.add_column(column, overflow="fold" if wraps else "ellipsis")
    for p in profiles.values():
        table.add_row(
            p.id + (" (demo)" if p.demo else ""),
            p.name,
            licences_cell(p, st.lang),
            ", ".join(c.name for c in p.certifications) or "—",
            facts_cell(p, st.lang),
            "\n".join(
                f"{d.id} {d.province or d.country}{'·' + d.city if d.city else ''}"
                for d in p.datacenters
            ),
        )
    print_table(console(), table, drop=[tr(st.lang, "认证", "Certifications"), facts_header])


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
    with working(tr(st.lang, "正在读取报价…", "Reading offers…"), quiet=json_out):
        engine = open_catalog(st)
        ranked, total, unpriced = _ranked_offers(
            engine, st, None if compliant else shown, compliant_for, provider=provider, **filters
        )
        judged = ranked if compliant or shown is None else ranked[:shown]
        verdicts = offer_verdicts(engine, st, judged)
        if compliant:
            ranked = [row for row in ranked if verdicts.get(row.offer.offer_id) != "fail"]
            total = len(ranked)
    for currency in unpriced:
        err_console().print(
            tr(
                st.lang,
                f"warning: 没有 {currency} 的汇率（设置 SUANLI_FX_RATES），排在最后。",
                f"warning: no FX rate for {currency}; set SUANLI_FX_RATES. Listed last.",
            )
        )
    if not ranked:
        from comparator.cli.hints import empty_offers_hint

        hint = empty_offers_hint(engine, st.lang, gpu=gpu, provider=provider, filters=filters)
        err_console().print(f"[bold]hint:[/] {escape(hint)}", soft_wrap=True)
    cheapest_fail_hint(ranked, verdicts, st.lang)
    if json_out:
        rows = [
            {**row.to_json(st.settings.timezone), "compliance": verdicts.get(row.offer.offer_id)}
            for row in ranked[:limit]
        ]
        emit_json(json_list(st, "offers", rows))
        return
    if not ranked:
        console().print(tr(st.lang, "没有符合条件的报价。", "No offers match."))
        return
    _print_offers(ranked, limit or 30, st.lang, st.settings.currency, total, verdicts)


def _ranked_offers(
    engine: Engine,
    st: State,
    shown: int | None,
    compliant_for: Path | None,
    **filters: str | None,
) -> tuple[list[OfferRow], int, list[str]]:
    """The offers to show (the first ``shown``, or all), how many matched, unpriced currencies.
    Only the first ``shown`` are read when no job filters them (``top_offers``)."""
    from comparator.catalog import current_offers, rank_offers, top_offers

    if shown is not None and compliant_for is None:
        top = top_offers(engine, st.settings, shown, **filters)
        return top.rows, top.total, top.unpriced
    views = current_offers(engine, **filters)
    if compliant_for is not None:
        from comparator.services import eligible_for_job

        views = eligible_for_job(engine, views, compliant_for, st.settings)
    ranked, unpriced = rank_offers(views, st.settings)
    return ranked, len(ranked), unpriced


def _offer_filters(
    gpu: str | None, province: str | None, billing: str | None
) -> dict[str, str | None]:
    mode = None
    if billing is not None:
        mode = parse_billing(billing)
        if mode is None:
            raise InputError(
                "--billing: expected hourly, spot, daily, weekly, monthly, yearly; got {billing!r}",
                billing=billing,
            )
    canonical = None
    if province is not None:
        canonical = canonical_province(province)
        if canonical is None:
            raise InputError(
                "--province: expected a mainland province such as 广东 or 粤, got {province!r}",
                province=province,
            )
    return {"gpu": resolve_gpu(gpu).name if gpu else None, "province": canonical, "billing": mode}


_OFFER_HEADERS = (
    ("ID", "ID"),
    ("服务商/机房", "Provider/region"),
    ("地区", "Location"),
    ("GPU×卡", "GPU×cards"),
    ("计费", "Billing"),
    ("单价", "Price"),
    ("卡时价", "Card-hour"),
    ("闲时", "Time of use"),
    ("库存", "Stock"),
)


# low-value columns, dropped in this order when the terminal is too narrow
_OFFER_DROP = (("库存", "Stock"), ("地区", "Location"), ("单价", "Price"))


def _print_offers(
    rows: list[OfferRow],
    limit: int,
    lang: str,
    currency: str,
    total: int,
    verdicts: dict[str, str],
) -> None:
    title = tr(
        lang,
        f"报价（每卡时 {currency}，最便宜在前）",
        f"Offers ({currency}/card-hour, cheapest first)",
    )
    table = Table(title=title, show_lines=False)
    for zh, en in _OFFER_HEADERS:
        table.add_column(tr(lang, zh, en), overflow="fold" if zh == "地区" else "ellipsis")
    table.add_column(label(lang, "compliance_verdict"), justify="center", no_wrap=True)
    for row in rows[:limit]:
        cells = row.cells()
        cells[4] = billing_label(lang, cells[4])
        verdict = verdict_cell(verdicts.get(row.offer.offer_id))
        table.add_row(*(escape(c) for c in cells), verdict)
    out = console()
    print_table(out, table, drop=[tr(lang, zh, en) for zh, en in _OFFER_DROP])
    if total > limit:
        out.print(
            tr(
                lang,
                f"共 {total} 条，显示 {limit} 条；用 --limit 查看更多。",
                f"{total} offers, {limit} shown; use --limit for more.",
            )
        )
