"""What `providers`, `check` and `offers` show of a provider beyond its credential numbers:
the service and company facts (unknown when unstated), claimed credentials, and each offer's
verdict under the default policy."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from rich.console import Console
from rich.markup import escape

from comparator.cli._common import err_console, print_lines
from comparator.i18n import check_label, label

if TYPE_CHECKING:
    from comparator.catalog import OfferRow
    from comparator.compliance import ProviderReport
    from comparator.domain import ProviderProfile

VERDICT_MARK = {"pass": "[green]✓[/]", "warn": "[yellow]![/]", "fail": "[red]✗[/]"}


def facts_json(profile: ProviderProfile) -> dict[str, Any]:
    """Every service and company fact (``null``: not stated, shown as unknown) and the
    credentials recorded as claimed, without a number."""
    terms = profile.terms
    capital = profile.registered_capital_cny
    facts = {
        "own_datacenter": profile.own_datacenter,
        "support": profile.support,
        "support_response_minutes": profile.support_response_minutes,
        "registered_capital_cny": None if capital is None else str(capital),
        "cnnic_member": terms.cnnic_member,
        "elastic_scaling": terms.elastic_scaling,
        "hourly_refund": terms.hourly_refund,
        "free_maintenance": terms.free_maintenance,
        "prepayment": terms.prepayment,
        "deposit_cny": None if terms.deposit_cny is None else str(terms.deposit_cny),
        "sla_percent": None if terms.sla_percent is None else str(terms.sla_percent),
    }
    return {
        "facts": facts,
        "unknown_facts": [key for key, value in facts.items() if value is None],
        "claimed": claimed_json(profile),
    }


def claimed_json(profile: ProviderProfile) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = [
        {"kind": "licence", "name": lic.name, "number": lic.number or None, "claimed": True}
        for lic in profile.licenses
        if lic.claimed
    ]
    items += [
        {"kind": f.kind, "level": f.level, "number": f.number, "claimed": True}
        for f in profile.filings
        if f.claimed
    ]
    items += [
        {"kind": "certification", "name": c.name, "claimed": True}
        for c in profile.certifications
        if c.claimed
    ]
    return items


def licences_cell(profile: ProviderProfile, lang: str) -> str:
    """The licence numbers, and each claimed licence marked as such."""
    lines = [lic.number for lic in profile.licenses if not lic.claimed]
    mark = label(lang, "claimed_no_number")
    lines += [f"{lic.name or '?'} ({mark})" for lic in profile.licenses if lic.claimed]
    return "\n".join(lines) or "—"


def facts_cell(profile: ProviderProfile, lang: str) -> str:
    """The service facts, one per line, in the words of their checks (unknown when unstated)."""
    from comparator.compliance import service_checks

    return "\n".join(c.message(lang) for c in service_checks(profile, None))


def print_facts(out: Console, reports: list[ProviderReport], lang: str) -> None:
    """`suanli check`: every provider's service and company facts, with their evidence."""
    from comparator.compliance import FACT_CHECKS, PASS

    out.print(f"[bold]{escape(label(lang, 'service_facts'))}[/]")
    print_lines(
        out,
        (
            f"{VERDICT_MARK[item.status] if item.status != PASS else '·'} "
            f"{escape(report.provider)} {escape(check_label(lang, item.id))}: "
            f"{escape(item.message(lang))} [dim]({escape(item.evidence)})[/]"
            for report in reports
            for item in report.checks
            if item.id in FACT_CHECKS
        ),
    )


def verdict_cell(status: str | None) -> str:
    return "?" if status is None else VERDICT_MARK[status]


def cheapest_fail_hint(rows: list[OfferRow], verdicts: Mapping[str, str | None], lang: str) -> None:
    """A hint when the cheapest offers listed fail the default checks."""
    if rows and verdicts.get(rows[0].offer.offer_id) == "fail":
        err_console().print(f"[bold]hint:[/] {escape(label(lang, 'cheapest_fail_hint'))}")
