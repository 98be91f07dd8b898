"""Each shown plan with the figures that priced it, and the GPU table they make (pure; the
figures themselves: :mod:`comparator.plan.figures`)."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from decimal import Decimal
from typing import Any

from comparator.domain.job import Job
from comparator.domain.money import money_str
from comparator.domain.offer_view import OfferView
from comparator.errors import Msg
from comparator.estimate.estimator import Estimate
from comparator.i18n import msg_to_json
from comparator.plan.figures import model_figures, workload_figures
from comparator.plan.groups import link_key
from comparator.plan.result import Plan
from comparator.plan.work import WorkTable, placement_estimate
from comparator.plan.work_hours import work_run_hours


def plan_link(best: Plan | None, offers: Sequence[OfferView]) -> str:
    """The link key of a plan's offers (one group: they share it)."""
    if best is None or not best.segments:
        return "|"
    by_id = {o.offer_id: o for o in offers}
    offer = by_id.get(best.segments[0].offer_id)
    return link_key(offer) if offer is not None else "|"


def with_figures(
    plan: Plan,
    job: Job,
    table: WorkTable,
    offers: Sequence[OfferView],
    headroom: float,
    reference_card_hours: Decimal | None,
    estimate: Estimate | None = None,
) -> Plan:
    """``plan`` with the figures that priced it (:mod:`comparator.plan.figures`)."""
    if job.workload.card_hours is not None:
        work = table.work.get(plan.gpu)
        converted = work.card_hours if work is not None else plan.card_hours
        figures = workload_figures(
            plan.gpu,
            plan.cards,
            plan.card_hours,
            plan.work_hours,
            converted,
            job.workload.card_hours if reference_card_hours is None else reference_card_hours,
        )
    else:
        if estimate is None:
            link = plan_link(plan, offers)
            estimate = placement_estimate(job, (plan.gpu, plan.cards), headroom=headroom, link=link)
        figures = model_figures(
            plan.gpu, plan.cards, plan.card_hours, plan.work_hours, estimate, reference_card_hours
        )
    return dataclasses.replace(plan, figures=figures)


def figure_rows(
    plans: Sequence[Plan], job: Job, table: WorkTable, reference_card_hours: Decimal | None
) -> list[dict[str, Any]]:
    """The GPU table (``assumptions.throughput``, the quote's 卡型算力表): the figures of every
    plan shown, then each other usable GPU on its fewest cards; the same figures, rounded once."""
    rows: list[dict[str, Any]] = []
    for plan in plans:
        row = plan.figures.to_json() if plan.figures else None
        if row is not None and row not in rows:
            rows.append(row)
    shown = {row["gpu"] for row in rows}
    for gpu, work in sorted(table.work.items()):
        if gpu in shown:
            continue
        cards = work.fixed_cards or work.min_cards
        hours = work_run_hours(work, cards, cards, None)
        if job.workload.card_hours is not None:
            reference = reference_card_hours or job.workload.card_hours
            figures = workload_figures(
                gpu, cards, work.card_hours, hours, work.card_hours, reference
            )
        else:
            estimate = table.estimates.get(gpu)
            figures = model_figures(
                gpu, cards, work.card_hours, hours, estimate, reference_card_hours
            )
        rows.append(figures.to_json())
    return rows


def fit_advice(best: Plan | None, alternatives: Sequence[Plan]) -> dict[str, Any] | None:
    """The seeds' utilisation rules on the best plan (memory in the 85–95 % band, each card
    at ≥ 60 % of one card's throughput): its shares and, when it misses either, the cheapest
    shown plan that meets both, with its cost (``utilisation`` in ``plan --json``)."""
    if best is None or best.figures is None:
        return None
    shown = best.figures.to_json()
    if shown["memory_band"] is None:
        return None
    advice: dict[str, Any] = {
        "memory_share": shown["memory_share"],
        "memory_band": shown["memory_band"],
        "compute_share": shown["compute_share"],
        "compute_ok": shown["compute_ok"],
        "better": None,
    }
    if shown["memory_band"] == "healthy" and shown["compute_ok"] is not False:
        return _with_texts(advice, best.currency)
    for plan in sorted(alternatives, key=lambda p: p.total_cost):
        row = plan.figures.to_json() if plan.figures else None
        if row and row["memory_band"] == "healthy" and row["compute_ok"] is not False:
            advice["better"] = {
                "provider": plan.provider,
                "region": plan.region,
                "gpu": plan.gpu,
                "cards": plan.cards,
                "total_cost": str(plan.total_cost),
                "difference": str(plan.total_cost - best.total_cost),
                "memory_share": row["memory_share"],
                "compute_share": row["compute_share"],
            }
            break
    return _with_texts(advice, best.currency)


BAND_WORDS = {
    "waste": "waste: below 70 %",
    "low": "below the band",
    "healthy": "in the band",
    "high": "above the band",
    "oom_risk": "OOM risk: above 98 %",
}


def _percent(share: float | None) -> str:
    return "—" if share is None else f"{share * 100:.0f} %"


def _with_texts(advice: dict[str, Any], currency: str) -> dict[str, Any]:
    """The advice with its sentences as messages (``text_msgs``), for the text and the quote."""
    messages = [
        Msg(
            "memory in use {memory} of each card (aim 85–95 %: {band}); each card at {compute} "
            "of one card's throughput (rule ≥ 60 %: {verdict})",
            memory=_percent(advice["memory_share"]),
            band=Msg(BAND_WORDS[advice["memory_band"]]),
            compute=_percent(advice["compute_share"]),
            verdict=Msg("met" if advice["compute_ok"] is not False else "missed"),
        )
    ]
    better = advice["better"]
    if better is not None:
        messages.append(
            Msg(
                "a better fit: {cards} × {gpu} at {provider}, {cost} {currency} ({difference}), "
                "memory {memory}, each card at {compute}",
                cards=better["cards"],
                gpu=better["gpu"],
                provider=better["provider"],
                cost=money_str(Decimal(better["total_cost"])),
                currency=currency,
                difference=f"{Decimal(better['difference']):+,.2f}",
                memory=_percent(better["memory_share"]),
                compute=_percent(better["compute_share"]),
            )
        )
    return {**advice, "text_msgs": [msg_to_json(m) for m in messages]}
