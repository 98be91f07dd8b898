"""What the quote templates show, derived from a frozen quote document (pure, no I/O).

The templates stay simple: every comparison, lookup and chart geometry is made here.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from comparator.domain.report_bounds import (
    EXCLUDED_PER_KIND,
    SNAPSHOT_RANGES,
    id_ranges,
    listed_exclusions,
)
from comparator.i18n import LABELS, is_en, label, normalize_lang, stored_text, stored_texts
from comparator.report import charts, cost_bars
from comparator.report.facts_view import (
    FACT_IDS,
    data_left_out,
    provider_facts,
    service_requirement_items,
)

STATUS_RANK = {"pass": 0, "warn": 1, "fail": 2}
# official invoice terms, kept in Chinese and glossed (the English report's requirements)
INVOICE_GLOSS = {"专票": "专票 (special VAT invoice)", "普票": "普票 (ordinary VAT invoice)"}


@dataclass(frozen=True)
class RankedPlan:
    """A feasible plan with its rank (1 = best) and its extra cost over the best plan."""

    rank: int
    plan: Mapping[str, Any]
    difference: Decimal | None
    percent: Decimal | None


@dataclass(frozen=True)
class OfferRef:
    """An offer as a report names it: id and what it rents (any part may be unknown)."""

    offer_id: str
    region: str
    gpu: str
    cards: int | None
    billing: str

    @property
    def tag(self) -> str:
        """``#59`` for the catalog's numeric ids, the id itself otherwise."""
        return f"#{self.offer_id}" if self.offer_id.isdigit() else self.offer_id


@dataclass(frozen=True)
class ExcludedGroup:
    """Offers of one provider excluded for the same reasons (one table row)."""

    provider: str
    offers: tuple[OfferRef, ...]
    reasons: tuple[str, ...]


@dataclass(frozen=True)
class MatrixRow:
    provider: str
    name: str
    datacenter: str
    status: str
    cells: tuple[str, ...]


@dataclass(frozen=True)
class Finding:
    provider: str
    datacenter: str
    check: str
    status: str
    message: str
    evidence: str


@dataclass(frozen=True)
class ComplianceMatrix:
    columns: tuple[str, ...]
    rows: tuple[MatrixRow, ...]
    findings: tuple[Finding, ...]
    omitted: int = 0  # providers judged but not in the document (national scale)
    omitted_by_status: tuple[tuple[str, int], ...] = ()


def provider_names(document: Mapping[str, Any]) -> dict[str, str]:
    """Provider id → display name (the id itself when the document has no name)."""
    names = document.get("providers") or {}
    return {pid: str(entry.get("name") or pid) for pid, entry in names.items()}


def ranked_plans(
    best: Mapping[str, Any] | None, alternatives: Sequence[Mapping[str, Any]]
) -> list[RankedPlan]:
    """The alternatives ranked after the best plan, each with its cost difference."""
    best_cost = Decimal(best["total_cost"]) if best else None
    ranked = []
    for index, plan in enumerate(alternatives, start=2 if best else 1):
        difference = percent = None
        if best_cost is not None:
            difference = Decimal(plan["total_cost"]) - best_cost
            if best_cost > 0:
                percent = (difference * 100 / best_cost).quantize(Decimal("0.1"))
        ranked.append(RankedPlan(index, plan, difference, percent))
    return ranked


def offer_ref(
    offer_id: str, entry: Mapping[str, Any] | None, fallback: Mapping[str, Any] | None = None
) -> OfferRef:
    """What the document knows about an offer: its price-age entry, else the exclusion row."""
    info = entry or fallback or {}
    cards = info.get("cards")
    return OfferRef(
        str(offer_id),
        str(info.get("region") or ""),
        str(info.get("gpu") or ""),
        int(cards) if cards is not None else None,
        str(info.get("billing") or ""),
    )


def bill_line_texts(lang: str, line: Mapping[str, Any]) -> dict[str, str]:
    """A data bill line's unit and note in the report language (as stored in quotes that
    predate ``texts``)."""
    texts = (line.get("texts") or {}).get(normalize_lang(lang))
    if texts:
        return {"unit": str(texts["unit"]), "note": str(texts["note"])}
    return {"unit": str(line.get("unit") or ""), "note": str(line.get("note") or "")}


def excluded_reasons(item: Mapping[str, Any], lang: str, document_lang: str) -> list[str]:
    """An exclusion's reasons in the report language: rendered from its messages
    (``reason_msgs``); in quotes that predate them, as stored when that is the quote's own
    language (or the quote predates ``reason_texts`` too), else the stored other language."""
    rendered = stored_texts(item.get("reason_msgs"), lang)
    if rendered is not None:
        return rendered
    texts = item.get("reason_texts") or {}
    wanted = normalize_lang(lang)
    if wanted == normalize_lang(document_lang) or wanted not in texts:
        return [str(r) for r in item.get("reasons") or ()]
    return [str(r) for r in texts[wanted]]


def excluded_groups(
    excluded: Sequence[Mapping[str, Any]],
    offers: Mapping[str, Any],
    names: Mapping[str, str],
    lang: str = "zh-CN",
    document_lang: str = "zh-CN",
) -> list[ExcludedGroup]:
    """Exclusions grouped by provider and identical reasons, in order of first appearance."""
    groups: dict[tuple[str, tuple[str, ...]], list[OfferRef]] = {}
    for item in excluded:
        key = (str(item["provider"]), tuple(excluded_reasons(item, lang, document_lang)))
        offer_id = str(item.get("offer_id") or "")
        refs = groups.setdefault(key, [])
        if offer_id:
            refs.append(offer_ref(offer_id, offers.get(offer_id), item))
    return [
        ExcludedGroup(names.get(provider, provider), tuple(refs), reasons)
        for (provider, reasons), refs in groups.items()
    ]


def excluded_kinds(excluded: Sequence[Mapping[str, Any]], lang: str) -> list[tuple[str, int]]:
    """(why in words, how many) of the excluded offers, most first: non-compliant offers
    apart from those short of stock and the others (none for quotes stored before kinds)."""
    counts = Counter(str(item.get("kind") or "") for item in excluded)
    if set(counts) == {""}:
        return []
    shown: Counter[str] = Counter()
    for kind, count in counts.items():
        key = f"excluded_{kind}" if f"excluded_{kind}" in LABELS else "excluded_other"
        shown[label(lang, key)] += count
    return shown.most_common()


def not_loaded(plan: Mapping[str, Any], lang: str) -> list[tuple[int, str]]:
    """(count, reason) of the offers the planner never read (``stats.filtered_in_catalog``:
    left out in the catalog, or on a GPU that cannot take the job), in the report language."""
    return [
        (int(item.get("count") or 0), stored_text(item, "reason", lang) or "")
        for item in (plan.get("stats") or {}).get("filtered_in_catalog") or []
    ]


def _check_statuses(checks: Sequence[Mapping[str, Any]]) -> dict[str, str]:
    """Check id → its worst status (an id may appear more than once)."""
    statuses: dict[str, str] = {}
    for check in checks:
        current = statuses.get(check["id"], "pass")
        statuses[check["id"]] = max(current, check["status"], key=STATUS_RANK.__getitem__)
    return statuses


def check_message(check: Mapping[str, Any], lang: str) -> str:
    """The check's message in the report language when the document has both, else as stored."""
    localized = check.get("message_en" if is_en(lang) else "message_zh")
    return str(localized or check.get("message") or "")


def _findings(
    provider: str, datacenter: str, checks: Sequence[Mapping[str, Any]], lang: str
) -> list[Finding]:
    return [
        Finding(
            provider,
            datacenter,
            c["id"],
            c["status"],
            check_message(c, lang),
            str(c.get("evidence") or ""),
        )
        for c in checks
        if c["status"] != "pass"
    ]


def _column(check: Mapping[str, Any]) -> bool:
    """Service facts are columns only where a job's requirement made one fail or warn."""
    return check["id"] not in FACT_IDS or check["status"] != "pass"


def compliance_matrix(
    compliance: Mapping[str, Any] | None, names: Mapping[str, str], lang: str = "zh-CN"
) -> ComplianceMatrix:
    """Providers (and their data centres) × check ids, plus every non-passing finding."""
    providers = (compliance or {}).get("providers") or []
    columns: dict[str, None] = {}
    entries: list[tuple[str, str, str, dict[str, str]]] = []
    findings: list[Finding] = []
    for report in providers:
        pid = report["provider"]
        # the provider's status in this quote (quotes stored before it: the check's status)
        status = report.get("quote_status") or report["status"]
        units = [("", status, report.get("checks") or [])]
        units += [
            (dc["id"], dc["status"], dc.get("checks") or [])
            for dc in report.get("datacenters") or []
        ]
        for datacenter, status, checks in units:
            columns.update(dict.fromkeys(c["id"] for c in checks if _column(c)))
            entries.append((pid, datacenter, status, _check_statuses(checks)))
            findings += _findings(names.get(pid, pid), datacenter, checks, lang)
    rows = tuple(
        MatrixRow(
            pid,
            names.get(pid, pid),
            dc,
            status,
            tuple(statuses.get(column, "") for column in columns),
        )
        for pid, dc, status, statuses in entries
    )
    omitted = (compliance or {}).get("omitted") or {}
    by_status = tuple((k, int(v)) for k, v in (omitted.get("by_status") or {}).items())
    return ComplianceMatrix(
        tuple(columns), rows, tuple(findings), int(omitted.get("providers") or 0), by_status
    )


def best_warnings(document: Mapping[str, Any], lang: str = "zh-CN") -> list[Finding]:
    """What a manager must see about the recommended plan: its provider's and data centre's
    warnings and failures (a licence about to expire), worst first."""
    best = document["plan"].get("best")
    if not best:
        return []
    names = provider_names(document)
    found: list[Finding] = []
    for report in (document.get("compliance") or {}).get("providers") or []:
        if report["provider"] != best["provider"]:
            continue
        name = names.get(report["provider"], report["provider"])
        found += _findings(name, "", report.get("checks") or [], lang)
        for dc in report.get("datacenters") or []:
            if dc["id"] == best["region"]:
                found += _findings(name, dc["id"], dc.get("checks") or [], lang)
    return sorted(found, key=lambda f: -STATUS_RANK.get(f.status, 0))


def shown_ages(
    document: Mapping[str, Any], listed: Sequence[Mapping[str, Any]]
) -> list[Mapping[str, Any]]:
    """The price ages the report shows: of the plans' offers and the listed exclusions' (a
    quote stored before the bound kept every excluded offer's age too)."""
    plan = document["plan"]
    plans = [p for p in [plan.get("best"), *(plan.get("alternatives") or [])] if p]
    named = {str(s["offer_id"]) for p in plans for s in p.get("segments") or []}
    named |= {str(item.get("offer_id") or "") for item in listed}
    return [age for age in document.get("price_ages") or [] if str(age["offer_id"]) in named]


def snapshot_runs(ids: Sequence[str]) -> dict[str, Any]:
    """The quote's snapshot ids as runs of consecutive ids (``snapshot_runs``), at most
    :data:`SNAPSHOT_RANGES`, and how many ids the runs not shown hold (``snapshots_unlisted``)."""
    runs = id_ranges([str(i) for i in ids])
    unlisted = runs[SNAPSHOT_RANGES:]
    return {
        "snapshot_count": len(set(ids)),
        "snapshot_runs": runs[:SNAPSHOT_RANGES],
        "snapshots_unlisted": sum(_run_length(first, last) for first, last in unlisted),
    }


def _run_length(first: str, last: str) -> int:
    return int(last) - int(first) + 1 if first != last else 1


def _memory_chart(document: Mapping[str, Any]) -> charts.Sized[charts.MemoryChart] | None:
    estimate = document.get("estimate")
    if not estimate or not estimate.get("memory_gib"):
        return None
    headroom = float((document.get("assumptions") or {}).get("headroom") or 0.10)
    return charts.memory_charts(
        estimate["memory_gib"], float(estimate["gpu"]["memory_gib"]), headroom
    )


def _budget(document: Mapping[str, Any], best: Mapping[str, Any] | None) -> dict[str, Any] | None:
    max_cost = (document.get("job") or {}).get("max_cost")
    if max_cost is None or best is None:
        return None
    return {"max_cost": max_cost, "within": Decimal(best["total_cost"]) <= Decimal(max_cost)}


def requirement_items(
    requirements: Mapping[str, Any] | None, lang: str = "zh-CN"
) -> list[tuple[str, str]]:
    """(label key, value) of each requirement the job sets; flags have an empty value."""
    req = requirements or {}
    items: list[tuple[str, str]] = []
    for key in ("gpus", "provinces", "cities", "certifications"):
        if req.get(key):
            items.append((key, ", ".join(str(v) for v in req[key])))
    for key in ("mlps_level", "invoice"):
        if req.get(key):
            value = str(req[key])
            gloss = key == "invoice" and is_en(lang)
            items.append((key, INVOICE_GLOSS.get(value, value) if gloss else value))
    for key in ("contains_personal_info", "spot"):
        if req.get(key):
            items.append((key, ""))
    return items + service_requirement_items(req)


def build_view(document: Mapping[str, Any], lang: str = "zh-CN") -> dict[str, Any]:
    """Everything the templates need beyond the document itself."""
    plan = document["plan"]
    best = plan.get("best")
    alternatives = plan.get("alternatives") or []
    names = provider_names(document)
    ranked = ranked_plans(best, alternatives)
    segments = best["segments"] if best else []
    offers = {str(entry["offer_id"]): entry for entry in document.get("price_ages") or []}
    excluded = plan.get("excluded") or []
    kinds = [str(item.get("kind") or "") for item in excluded]
    listed = [excluded[i] for i in listed_exclusions(kinds)]
    return {
        "names": names,
        "offers": offers,
        "refs": {offer_id: offer_ref(offer_id, entry) for offer_id, entry in offers.items()},
        "excluded": excluded_groups(listed, offers, names, lang, str(document.get("lang") or "zh")),
        "excluded_unlisted": len(excluded) - len(listed),
        "excluded_per_kind": EXCLUDED_PER_KIND,
        "excluded_kinds": excluded_kinds(excluded, lang),
        "ages": shown_ages(document, listed),
        **snapshot_runs(document.get("snapshot_ids") or []),
        "not_loaded": not_loaded(plan, lang),
        "best": best,
        "machines": stored_text((best or {}).get("machines") or {}, "text", lang),
        "utilisation": stored_texts((plan.get("utilisation") or {}).get("text_msgs"), lang) or [],
        "layout": stored_text(
            ((best or {}).get("figures") or {}).get("layout") or {}, "text", lang
        ),
        "message": stored_text(plan, "message", lang),
        "calibration": stored_text(
            (plan.get("assumptions") or {}).get("calibration") or {}, "text", lang
        ),
        "calendar_warning": stored_text(plan.get("calendar") or {}, "warning", lang),
        "ranked": ranked,
        "runner_up": ranked[0] if ranked and best else None,
        "budget": _budget(document, best),
        "requirements": requirement_items((document.get("job") or {}).get("requirements"), lang),
        "memory_chart": _memory_chart(document),
        "timeline": charts.timeline_charts(
            document["job"], segments, document.get("price_curve") or [], label(lang, "plan")
        )
        if best
        else None,
        "cost_chart": cost_bars.cost_charts(best, alternatives, names),
        "compliance": compliance_matrix(document.get("compliance"), names, lang),
        "warnings": best_warnings(document, lang),
        "provider_facts": provider_facts(document, names, lang),
        "latency": plan.get("latency"),
        "data_left_out": data_left_out(document),
        "unstated": [
            line for line in (best or {}).get("bill") or [] if not line.get("stated", True)
        ],
        "stale_best": [
            offers[s["offer_id"]]
            for s in segments
            if s["offer_id"] in offers and offers[s["offer_id"]].get("stale")
        ],
    }
