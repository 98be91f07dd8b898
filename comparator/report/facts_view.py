"""The quote's view of each plan provider's service and company facts beside its licences,
the best placement's latency, and the lines that say what the bill leaves out."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from comparator.i18n import CHECKS, is_en

FACT_IDS = tuple(cid for cid, c in CHECKS.items() if c.scope == "facts")
SERVICE_REQUIREMENTS = ("max_support_response_minutes", "max_latency_ms")
SERVICE_FLAGS = ("own_datacenter", "elastic_scaling")


@dataclass(frozen=True)
class ProviderFacts:
    """One provider of the plans shown: its licence evidence and each fact's check."""

    provider: str
    name: str
    licences: tuple[str, ...]
    facts: tuple[tuple[str, str, str], ...]  # (check id, status, message)


def _message(check: Mapping[str, Any], lang: str) -> str:
    """The check's message in ``lang`` when the document has both (as ``check_message``)."""
    localized = check.get("message_en" if is_en(lang) else "message_zh")
    return str(localized or check.get("message") or "")


def plan_providers(document: Mapping[str, Any]) -> list[str]:
    plan = document.get("plan") or {}
    plans = ([plan["best"]] if plan.get("best") else []) + list(plan.get("alternatives") or [])
    return list(dict.fromkeys(str(p["provider"]) for p in plans))


def provider_facts(
    document: Mapping[str, Any], names: Mapping[str, str], lang: str
) -> list[ProviderFacts]:
    """The facts of every provider the quote's compliance section holds (at most 50): the
    best plan's and the alternatives' first."""
    reports = {r["provider"]: r for r in (document.get("compliance") or {}).get("providers") or []}
    rows = []
    shown = plan_providers(document)
    for pid in [*shown, *(p for p in reports if p not in shown)]:
        report = reports.get(pid)
        if report is None:
            continue
        checks: Sequence[Mapping[str, Any]] = report.get("checks") or []
        licences = tuple(
            f"{_message(c, lang)} [{c.get('evidence')}]" if c.get("evidence") else _message(c, lang)
            for c in checks
            if c["id"] in ("licence-valid", "claimed")
        )
        facts = tuple(
            (str(c["id"]), str(c["status"]), _message(c, lang))
            for c in checks
            if c["id"] in FACT_IDS
        )
        if facts:  # quotes stored before the facts were judged render as they did
            rows.append(ProviderFacts(pid, names.get(pid, pid), licences, facts))
    return rows


def service_requirement_items(requirements: Mapping[str, Any] | None) -> list[tuple[str, str]]:
    """(label key, value) of the service and network requirements the job sets."""
    req = requirements or {}
    items = [(key, "") for key in SERVICE_FLAGS if req.get(key)]
    if req.get("support"):
        items.append(("support_hours", str(req["support"])))
    items += [(key, str(req[key])) for key in SERVICE_REQUIREMENTS if req.get(key)]
    if req.get("latency_from"):
        items.append(("latency_from", str(req["latency_from"])))
    return items


def data_left_out(document: Mapping[str, Any]) -> bool:
    """Whether the job had no ``[data]``: the bill leaves storage, upload and egress out."""
    assumptions = (document.get("plan") or {}).get("assumptions") or {}
    return assumptions.get("data_included") is False
