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
from comparator.errors import Msg

FACT_CHECKS = ("own-datacenter", "support", "elastic-scaling", "company", "contract-terms")
UNKNOWN_EN = "unknown"
_YES = {True: Msg("yes"), False: Msg("no"), None: Msg("unknown (the profile does not say)")}


def _yes(value: bool | None) -> Msg:
    return _YES[value]


def _said(value: object) -> object:
    """A stated value as it is, an unstated one as *unknown* in the reader's language."""
    return _YES[None] if value is None else value


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
            Msg("own data centre"),
            _evidence(own_datacenter=profile.own_datacenter),
        ),
        support_check(profile, req),
        _flag_check(
            "elastic-scaling",
            profile.terms.elastic_scaling,
            req.elastic_scaling,
            Msg("elastic scaling within a contract"),
            _evidence(elastic_scaling=profile.terms.elastic_scaling),
        ),
        company_check(profile),
        contract_terms_check(profile),
    ]


def _flag_check(id_: str, value: bool | None, required: bool, what: Msg, evidence: str) -> Check:
    if required and value is not True:
        reason = _YES[None] if value is None else Msg("not offered")
        message = Msg("job requires {what}; provider: {reason}", what=what, reason=reason)
        return check(id_, FAIL, message, evidence)
    return check(id_, PASS, Msg("{what}: {answer}", what=what, answer=_yes(value)), evidence)


def support_check(profile: ProviderProfile, req: ServiceRequirements) -> Check:
    hours = support_hours(profile.support)
    minutes = profile.support_response_minutes
    evidence = _evidence(support=hours, support_response_minutes=minutes)
    said = Msg(
        "support {hours}, response {minutes}",
        hours=_said(hours),
        minutes=_YES[None] if minutes is None else Msg("{minutes} min", minutes=minutes),
    )
    problems: list[Msg] = []
    if req.support and hours != req.support:
        problems.append(Msg("job requires {hours} support", hours=req.support))
    limit = req.max_support_response_minutes
    if limit is not None and (minutes is None or minutes > limit):
        problems.append(Msg("job requires a response within {limit} min", limit=limit))
    if problems:
        joined = (
            problems[0]
            if len(problems) == 1
            else Msg("{first}; {second}", first=problems[0], second=problems[1])
        )
        return check(
            "support",
            FAIL,
            Msg("{problems}; provider: {said}", problems=joined, said=said),
            evidence,
        )
    return check("support", PASS, said, evidence)


def company_check(profile: ProviderProfile) -> Check:
    capital = profile.registered_capital_cny
    return check(
        "company",
        PASS,
        Msg(
            "registered capital {capital}; CNNIC member: {cnnic}",
            capital=_YES[None] if capital is None else f"¥{capital:,}",
            cnnic=_yes(profile.terms.cnnic_member),
        ),
        _evidence(registered_capital_cny=capital, cnnic_member=profile.terms.cnnic_member),
    )


def contract_terms_check(profile: ProviderProfile) -> Check:
    terms = profile.terms
    sla = f"{terms.sla_percent}%" if terms.sla_percent is not None else None
    deposit = f"¥{terms.deposit_cny:,}" if terms.deposit_cny is not None else None
    return check(
        "contract-terms",
        PASS,
        Msg(
            "hourly refund: {refund}; free maintenance/replacement: {maintenance}; "
            "prepayment: {prepayment}; deposit: {deposit}; SLA: {sla}",
            refund=_yes(terms.hourly_refund),
            maintenance=_yes(terms.free_maintenance),
            prepayment=_said(terms.prepayment),
            deposit=_said(deposit),
            sla=_said(sla),
        ),
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
    return check(
        "claimed",
        WARN,
        Msg("claimed, number not given (unverified): {items}", items=", ".join(items)),
        "claimed=true " + ", ".join(items),
    )


def claimed_licence_checks(profile: ProviderProfile) -> list[Check]:
    """Rules 2 and 3 when the only licences on file are claimed ones: both fail."""
    names = ", ".join(lic.name or "licence" for lic in profile.licenses if lic.claimed)
    reason = Msg(
        "licence only claimed ({names}), number not given; no rule that needs a number passes",
        names=names,
    )
    evidence = f"claimed=true {names}"
    return [
        check("licence-valid", FAIL, reason, evidence),
        check("licence-scope", FAIL, reason, evidence),
    ]
