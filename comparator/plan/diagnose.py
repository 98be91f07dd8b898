"""Why nothing is feasible: the binding constraint and what would make the job feasible."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal

from comparator.domain.job import Job
from comparator.domain.money import money_str
from comparator.domain.offer_filter import FilteredOffers
from comparator.i18n import is_en
from comparator.plan.candidates import Candidate
from comparator.plan.result import ExcludedOffer, Plan
from comparator.plan.solve import Selection


@dataclass(frozen=True)
class Diagnosis:
    binding: str  # catalog | compliance | requirements | memory | stock | deadline | budget
    message: str


def _top_reasons(
    excluded: Sequence[ExcludedOffer],
    kinds: set[str],
    limit: int = 3,
    filtered: Sequence[FilteredOffers] = (),
) -> str:
    counts = Counter(r for e in excluded if e.kind in kinds for r in e.reasons)
    counts.update({f.reason: f.count for f in filtered if f.kind in kinds})
    return "; ".join(f"{reason} (×{n})" for reason, n in counts.most_common(limit))


def _by_kind(excluded: Sequence[ExcludedOffer]) -> Counter[str]:
    return Counter(e.kind for e in excluded)


def _fastest(candidates: Sequence[Candidate]) -> Candidate:
    return min(candidates, key=lambda c: c.grid.at(c.run_hours))


def _say(lang: str, zh: str, en: str) -> str:
    return zh if not is_en(lang) else en


def _deadline(job: Job, candidates: Sequence[Candidate], lang: str) -> Diagnosis:
    fastest = _fastest(candidates)
    grid = fastest.grid
    earliest_finish = grid.at(fastest.run_hours)
    window = grid.deadline_slot
    where = f"{fastest.provider}/{fastest.region}, {fastest.cards} × {fastest.gpu}"
    return Diagnosis(
        "deadline",
        _say(
            lang,
            f"没有方案能在截止时间 {job.schedule.deadline.isoformat()} 前完成：最快的方案（{where}）"
            f"需要运行 {fastest.run_hours} 小时，而时间窗只有 {window} 个整小时。请把截止时间推迟到 "
            f"{earliest_finish.isoformat()} 或更晚、提前开始，或允许更多卡数/更多卡型",
            f"no placement finishes by the deadline {job.schedule.deadline.isoformat()}: the "
            f"fastest one ({fastest.provider}/{fastest.region}, {fastest.cards} × {fastest.gpu}) "
            f"needs {fastest.run_hours} h of run time and the window holds {window} whole hours. "
            f"Move the deadline to {earliest_finish.isoformat()} or later, start earlier, or allow "
            f"more cards / more GPU models",
        )
        + _limits(job, lang),
    )


def _limits(job: Job, lang: str) -> str:
    """The job's own limits on run hours, which push the finish past the whole-hour count."""
    schedule, limits = job.schedule, []
    if schedule.run_windows:
        limits.append("run_windows " + ", ".join(schedule.run_windows))
    if schedule.max_hours_per_day is not None:
        limits.append(f"max_hours_per_day = {schedule.max_hours_per_day}")
    if not limits:
        return ""
    named = "; ".join(limits)
    return _say(
        lang,
        f"；任务自身的限制（{named}）减少了可运行的小时，也可放宽它们",
        f"; the job's own limits ({named}) leave fewer hours to run in: loosen them too",
    )


def budget_diagnosis(job: Job, plan: Plan, lang: str) -> Diagnosis:
    """Over budget, naming the plan that ``plan`` without the budget returns."""
    cost = plan.total_cost
    limit = money_str(job.max_cost or Decimal(0))
    where = f"{plan.provider}/{plan.region}, {plan.cards} × {plan.gpu}"
    finish = plan.finish.isoformat()
    return Diagnosis(
        "budget",
        _say(
            lang,
            f"能按时完成的最便宜方案要 {money_str(cost)} {job.currency}（{where}，{finish} 完成），"
            f"超出 [budget] max_cost {limit}。请把 max_cost 提高到至少 {money_str(cost)}，或推迟"
            f"截止时间（截止时间越晚，费用不会更高）",
            f"the cheapest plan that meets the deadline costs {money_str(cost)} {job.currency} "
            f"({where}, finishing {finish}), above [budget] max_cost {limit}. Raise max_cost to "
            f"at least {money_str(cost)}, or move the deadline later (a later deadline never "
            f"costs more)",
        ),
    )


def _budget(job: Job, selection: Selection, lang: str) -> Diagnosis:
    on_time = selection.meets_deadline
    cheapest = min(on_time, key=lambda e: e.cheapest_cents or 0)
    cost = Decimal(cheapest.cheapest_cents or 0) / 100
    c = cheapest.candidate
    limit = money_str(job.max_cost or Decimal(0))
    return Diagnosis(
        "budget",
        _say(
            lang,
            f"能按时完成的最便宜方案要 {money_str(cost)} {job.currency}（{c.provider}/{c.region}，"
            f"{c.cards} × {c.gpu}），超出 [budget] max_cost {limit}。请把 max_cost 提高到至少 "
            f"{money_str(cost)}，或推迟截止时间（截止时间越晚，费用不会更高）",
            f"the cheapest plan that meets the deadline costs {money_str(cost)} {job.currency} "
            f"({c.provider}/{c.region}, {c.cards} × {c.gpu}), above [budget] max_cost {limit}. "
            f"Raise max_cost to at least {money_str(cost)}, or move the deadline later (a later "
            f"deadline never costs more)",
        ),
    )


def diagnose(
    job: Job,
    offer_count: int,
    excluded: Sequence[ExcludedOffer],
    candidates: Sequence[Candidate],
    selection: Selection,
    lang: str = "en",
    *,
    filtered: Sequence[FilteredOffers] = (),
) -> Diagnosis:
    """The first constraint that left nothing feasible, with what would lift it.

    ``filtered`` offers (left out by the catalog) count as excluded offers of their kind."""
    kinds = _by_kind(excluded)
    kinds.update({f.kind: f.count for f in filtered})
    offer_count += sum(f.count for f in filtered)
    if offer_count == 0:
        return Diagnosis(
            "catalog",
            _say(
                lang,
                "目录里没有当前报价：请运行 `suanli init`（演示目录）或 `suanli import` 导入价目表",
                "the catalog has no current offers: run `suanli init` (demo catalog) or "
                "`suanli import` price sheets",
            ),
        )
    if kinds["compliance"] == offer_count:
        reasons = _top_reasons(excluded, {"compliance"}, filtered=filtered)
        return Diagnosis(
            "compliance",
            _say(
                lang,
                f"全部 {offer_count} 个报价都不满足本任务的合规要求：{reasons}。请放宽 "
                f"[requirements]，或导入满足要求的服务商",
                f"all {offer_count} offers fail compliance for this job: {reasons}. Relax "
                f"[requirements] or import providers that satisfy them",
            ),
        )
    if not candidates:
        return _no_candidates(excluded, kinds, lang, filtered)
    if not selection.meets_deadline:
        return _deadline(job, candidates, lang)
    return _budget(job, selection, lang)


_ADVICE = {
    "memory": (
        "改用 LoRA/QLoRA、ZeRO-3、更小的模型，或允许显存更大的卡型",
        "use LoRA/QLoRA, ZeRO-3, a smaller model, or allow GPUs with more memory",
    ),
    "requirements": (
        "放宽 [requirements] gpus，或允许竞价实例（spot = true 且 interruptible = true）",
        "widen [requirements] gpus, or allow spot offers (spot = true with interruptible = true)",
    ),
    "stock": ("减少卡数，或等待库存", "fix fewer cards, or wait for stock"),
    "price": (
        "提高 [budget] max_price_per_card_hour",
        "raise [budget] max_price_per_card_hour",
    ),
    "network": (
        "选择带 IB/RoCE 组网的报价，或减少卡数（单机）",
        "choose offers with an IB/RoCE network, or fewer cards (one node)",
    ),
    "throughput": (
        "改用有吞吐数据的参考卡型给出卡时",
        "give card-hours on a GPU with a known throughput",
    ),
    "currency": (
        "为该币种设置汇率（SUANLI_FX_RATES）",
        "set an FX rate for the offer's currency (SUANLI_FX_RATES)",
    ),
    "time-of-use": (
        "修正报价的闲时规则，或升级 chinesecalendar",
        "fix the offer's time-of-use rules or update chinesecalendar",
    ),
}


def _no_candidates(
    excluded: Sequence[ExcludedOffer],
    kinds: Counter[str],
    lang: str,
    filtered: Sequence[FilteredOffers] = (),
) -> Diagnosis:
    """Nothing survived the filters: the most common non-compliance reason binds."""
    planner_kinds = Counter({k: n for k, n in kinds.items() if k != "compliance"})
    kind = planner_kinds.most_common(1)[0][0] if planner_kinds else "compliance"
    zh, en = _ADVICE.get(kind, ("放宽 [requirements]", "relax [requirements]"))
    reasons = _top_reasons(excluded, {kind}, filtered=filtered)
    return Diagnosis(
        kind,
        _say(
            lang,
            f"没有报价能承接该任务：{reasons}。{zh}",
            f"no offer can take the job: {reasons}. {en}",
        ),
    )
