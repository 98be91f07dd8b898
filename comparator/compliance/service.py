"""The provider's service and company facts as checks, and credentials claimed without a
number (pure).

Every provider gets the five fact checks, whatever the job: what the profile says is the
evidence, and a fact it does not state is *unknown*. Without a requirement a fact check passes
(it only informs); a job's ``[requirements]`` (``own_datacenter``, ``support``,
``max_support_response_minutes``, ``elastic_scaling``) turn the first three into rules that fail
on a missing or an unknown fact, with that reason.
"""

from __future__ import annotations

from comparator.compliance.verdicts import FAIL, PASS, WARN, Check, check
from comparator.domain.job_service import ServiceRequirements, support_hours
from comparator.domain.profile import ProviderProfile

FACT_CHECKS = ("own-datacenter", "support", "elastic-scaling", "company", "contract-terms")
UNKNOWN_ZH, UNKNOWN_EN = "未说明", "unknown"
_YES = {True: ("是", "yes"), False: ("否", "no"), None: (UNKNOWN_ZH, UNKNOWN_EN)}


def _yes(value: bool | None) -> tuple[str, str]:
    return _YES[value]


def _evidence(**facts: object) -> str:
    return " ".join(f"{k}={_value(v)}" for k, v in facts.items())


def _value(value: object) -> str:
    if value is None:
        return UNKNOWN_EN
    return str(value).lower() if isinstance(value, bool) else str(value)


def service_checks(profile: ProviderProfile, req: ServiceRequirements | None) -> list[Check]:
    """The five fact checks of one provider, judged against the job's service requirements."""
    req = req or ServiceRequirements()
    return [
        _flag_check(
            "own-datacenter",
            profile.own_datacenter,
            req.own_datacenter,
            ("自有机房", "own data centre"),
            _evidence(own_datacenter=profile.own_datacenter),
        ),
        support_check(profile, req),
        _flag_check(
            "elastic-scaling",
            profile.terms.elastic_scaling,
            req.elastic_scaling,
            ("合约内弹性增减卡", "elastic scaling within a contract"),
            _evidence(elastic_scaling=profile.terms.elastic_scaling),
        ),
        company_check(profile),
        contract_terms_check(profile),
    ]


def _flag_check(
    id_: str, value: bool | None, required: bool, what: tuple[str, str], evidence: str
) -> Check:
    zh, en = _yes(value)
    if required and value is not True:
        reason_zh = "未说明" if value is None else "不提供"
        reason_en = "unknown (the profile does not say)" if value is None else "not offered"
        return check(
            id_,
            FAIL,
            f"任务要求{what[0]}，服务商{reason_zh}",
            f"job requires {what[1]}; provider: {reason_en}",
            evidence,
        )
    return check(id_, PASS, f"{what[0]}：{zh}", f"{what[1]}: {en}", evidence)


def support_check(profile: ProviderProfile, req: ServiceRequirements) -> Check:
    hours = support_hours(profile.support)
    minutes = profile.support_response_minutes
    evidence = _evidence(support=hours, support_response_minutes=minutes)
    said_zh = f"技术支持 {hours or UNKNOWN_ZH}，响应 " + (
        f"{minutes} 分钟" if minutes is not None else UNKNOWN_ZH
    )
    said_en = f"support {hours or UNKNOWN_EN}, response " + (
        f"{minutes} min" if minutes is not None else UNKNOWN_EN
    )
    problems_zh, problems_en = [], []
    if req.support and hours != req.support:
        problems_zh.append(f"任务要求 {req.support} 支持")
        problems_en.append(f"job requires {req.support} support")
    limit = req.max_support_response_minutes
    if limit is not None and (minutes is None or minutes > limit):
        problems_zh.append(f"任务要求 {limit} 分钟内响应")
        problems_en.append(f"job requires a response within {limit} min")
    if problems_zh:
        return check(
            "support",
            FAIL,
            "，".join(problems_zh) + f"；服务商：{said_zh}",
            "; ".join(problems_en) + f"; provider: {said_en}",
            evidence,
        )
    return check("support", PASS, said_zh, said_en, evidence)


def company_check(profile: ProviderProfile) -> Check:
    capital = profile.registered_capital_cny
    cnnic_zh, cnnic_en = _yes(profile.terms.cnnic_member)
    capital_zh = f"¥{capital:,}" if capital is not None else UNKNOWN_ZH
    capital_en = f"CNY {capital:,}" if capital is not None else UNKNOWN_EN
    return check(
        "company",
        PASS,
        f"注册资本 {capital_zh}；CNNIC 会员：{cnnic_zh}",
        f"registered capital {capital_en}; CNNIC member: {cnnic_en}",
        _evidence(registered_capital_cny=capital, cnnic_member=profile.terms.cnnic_member),
    )


def contract_terms_check(profile: ProviderProfile) -> Check:
    terms = profile.terms
    refund, maintenance = _yes(terms.hourly_refund), _yes(terms.free_maintenance)
    sla = f"{terms.sla_percent}%" if terms.sla_percent is not None else None
    deposit = f"¥{terms.deposit_cny:,}" if terms.deposit_cny is not None else None
    return check(
        "contract-terms",
        PASS,
        f"按小时退费：{refund[0]}；免费维护/换机：{maintenance[0]}；预付："
        f"{terms.prepayment or UNKNOWN_ZH}；押金：{deposit or UNKNOWN_ZH}；SLA：{sla or UNKNOWN_ZH}",
        f"hourly refund: {refund[1]}; free maintenance/replacement: {maintenance[1]}; "
        f"prepayment: {terms.prepayment or UNKNOWN_EN}; deposit: {deposit or UNKNOWN_EN}; "
        f"SLA: {sla or UNKNOWN_EN}",
        _evidence(
            hourly_refund=terms.hourly_refund,
            free_maintenance=terms.free_maintenance,
            prepayment=terms.prepayment,
            deposit_cny=terms.deposit_cny,
            sla_percent=terms.sla_percent,
        ),
    )


# --- claimed credentials --------------------------------------------------------------------
def claimed_items(profile: ProviderProfile) -> list[str]:
    """What the profile records as claimed without a number, each named as the provider does."""
    items = [f"{lic.name or 'licence'}" for lic in profile.licenses if lic.claimed]
    items += [
        f"{f.kind}" + (f" level {f.level}" if f.level else "") for f in profile.filings if f.claimed
    ]
    items += [c.name for c in profile.certifications if c.claimed]
    return items


def claimed_check(profile: ProviderProfile) -> Check | None:
    """A warning naming every claimed credential: claimed, number not given, unverified."""
    items = claimed_items(profile)
    if not items:
        return None
    named = "、".join(items)
    return check(
        "claimed",
        WARN,
        f"声称持有 {named}：未给出编号，未核实",
        f"claimed, number not given (unverified): {', '.join(items)}",
        "claimed=true " + ", ".join(items),
    )


def claimed_licence_checks(profile: ProviderProfile) -> list[Check]:
    """Rules 2 and 3 when the only licences on file are claimed ones: both fail."""
    names = "、".join(lic.name or "licence" for lic in profile.licenses if lic.claimed)
    zh = f"许可证仅为声称（{names}），未给出编号，不能满足需要编号的规则"
    en = f"licence only claimed ({names}), number not given; no rule that needs a number passes"
    evidence = f"claimed=true {names}"
    return [
        check("licence-valid", FAIL, zh, en, evidence),
        check("licence-scope", FAIL, zh, en, evidence),
    ]
