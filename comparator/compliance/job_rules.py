"""Rules 8 and 9 of compliance.md: a job's requirements (等保 level, certifications, invoice,
provinces/cities, personal-information residency) and price freshness. Pure."""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import date, datetime
from typing import TYPE_CHECKING

from comparator.compliance.latency import latency_check
from comparator.compliance.verdicts import FAIL, PASS, WARN, Check, check
from comparator.domain.profile import DataCenter, ProviderProfile
from comparator.domain.provinces import canonical_city
from comparator.errors import Msg

if TYPE_CHECKING:  # the job model (pydantic) loads only where a job file is read
    from comparator.domain.job import Requirements

MLPS_REASSESSMENT_DAYS = 365
# how the English messages name the official invoice kinds (glossed once)
INVOICE_EN = {"专票": "special VAT invoices (专票)", "普票": "ordinary VAT invoices (普票)"}
_INVOICE_WORDS = {
    "专票": ("专票", "专用发票", "增值税专用发票", "special", "vat_special", "vat-special"),
    "普票": ("普票", "普通发票", "增值税普通发票", "general", "ordinary", "vat_general"),
}


# --- provider-level requirements ------------------------------------------------------------
def requirement_checks(profile: ProviderProfile, req: Requirements, last_day: date) -> list[Check]:
    checks: list[Check] = []
    if req.mlps_level is not None:
        checks.append(mlps_check(profile, req.mlps_level, last_day))
    checks += [certification_check(profile, name, last_day) for name in req.certifications]
    if req.invoice:
        checks.append(invoice_check(profile, req.invoice))
    return checks


def mlps_check(profile: ProviderProfile, level: int, last_day: date) -> Check:
    filings = sorted(
        (f for f in profile.filings if f.kind == "mlps" and f.level and not f.claimed),
        key=lambda f: f.level or 0,
        reverse=True,
    )
    high_enough = [f for f in filings if (f.level or 0) >= level]
    if not high_enough:
        best = Msg("level {level}", level=filings[0].level) if filings else Msg("none")
        return check(
            "mlps",
            FAIL,
            Msg(
                "job needs MLPS level {level}; provider's filing: {best}",
                level=level,
                best=best,
            ),
            f"level={filings[0].level}" if filings else "",  # evidence is data, in no language
        )
    filing = high_enough[0]
    evidence = f"level {filing.level} assessed_on={filing.assessed_on}"
    if (filing.level or 0) >= 3:
        return _assessment_check(filing.assessed_on, last_day, evidence)
    return check(
        "mlps",
        PASS,
        Msg("MLPS level {level} filing meets level {level2}", level=filing.level, level2=level),
        evidence,
    )


def _assessment_check(assessed_on: date | None, last_day: date, evidence: str) -> Check:
    if assessed_on is None:
        return check(
            "mlps",
            FAIL,
            Msg("MLPS level 3+ is re-assessed yearly; assessment date not recorded"),
            evidence,
        )
    age_days = (last_day - assessed_on).days
    if age_days > MLPS_REASSESSMENT_DAYS:
        return check(
            "mlps",
            FAIL,
            Msg(
                (
                    "MLPS assessment of {assessed_on} is over 365 days before the job's last day "
                    "{last_day}"
                ),
                assessed_on=assessed_on,
                last_day=last_day,
            ),
            evidence,
        )
    return check(
        "mlps",
        PASS,
        Msg("MLPS assessed {assessed_on}, within 365 days", assessed_on=assessed_on),
        evidence,
    )


def certification_key(name: str) -> str:
    """``ISO/IEC 27001:2022`` and ``iso 27001`` both → ``ISO27001``."""
    compact = re.sub(r"[\s_\-/]|IEC", "", name.upper())
    return re.sub(r":\d{4}$", "", compact)


def certification_check(profile: ProviderProfile, name: str, last_day: date) -> Check:
    key = certification_key(name)
    named = [c for c in profile.certifications if certification_key(c.name) == key]
    held = [c for c in named if not c.claimed]
    if named and not held:
        return check(
            "certification",
            FAIL,
            Msg("job requires {name}; provider only claims it, number not given", name=name),
            f"{name} claimed=true",
        )
    if not held:
        return check(
            "certification",
            FAIL,
            Msg("job requires {name}; provider has none on file", name=name),
            name,
        )
    cert = max(held, key=lambda c: c.valid_until or date.min)
    evidence = f"{cert.name} {cert.certifier or ''} valid_until={cert.valid_until}".replace(
        "  ", " "
    )
    if cert.valid_until is None:
        return check(
            "certification", WARN, Msg("{name} validity not recorded", name=cert.name), evidence
        )
    if cert.valid_until < last_day:
        return check(
            "certification",
            FAIL,
            Msg(
                "{name} expires {valid_until}, before the job's last day {last_day}",
                name=cert.name,
                valid_until=cert.valid_until,
                last_day=last_day,
            ),
            evidence,
        )
    return check(
        "certification",
        PASS,
        Msg("{name} valid until {valid_until}", name=cert.name, valid_until=cert.valid_until),
        evidence,
    )


def canonical_invoice(word: str) -> str:
    cleaned = word.strip().lower()
    for canonical, words in _INVOICE_WORDS.items():
        if cleaned in words:
            return canonical
    return cleaned


def invoice_check(profile: ProviderProfile, invoice: str) -> Check:
    wanted = canonical_invoice(invoice)
    offered = ",".join(profile.invoice_types) or "-"
    known = INVOICE_EN.get(wanted or "")
    named = Msg(known) if known else Msg("{word} invoices", word=invoice)
    if any(canonical_invoice(t) == wanted for t in profile.invoice_types):
        return check("invoice", PASS, Msg("issues {invoice}", invoice=named), offered)
    return check(
        "invoice",
        FAIL,
        Msg("job needs {invoice}; provider issues: {offered}", invoice=named, offered=offered),
        offered,
    )


# --- data-centre-level requirements ---------------------------------------------------------
def location_checks(dc: DataCenter, req: Requirements) -> list[Check]:
    checks: list[Check] = []
    if req.provinces:
        checks.append(_province_check(dc, req.provinces))
    if req.cities:
        checks.append(_city_check(dc, req.cities))
    if req.contains_personal_info:
        checks.append(residency_check(dc, req.export_basis))
    latency = latency_check(dc, req.service)
    return [*checks, latency] if latency else checks


def _where(dc: DataCenter) -> str:
    if not dc.mainland:
        return f"{dc.country} {dc.region or dc.name}"
    return f"{dc.province}-{dc.city}" if dc.city else str(dc.province)


def _province_check(dc: DataCenter, provinces: Sequence[str]) -> Check:
    allowed = "、".join(provinces)
    if dc.mainland and dc.province in provinces:
        return check(
            "location", PASS, Msg("data centre in {province}", province=dc.province), _where(dc)
        )
    return check(
        "location",
        FAIL,
        Msg(
            "job requires a data centre in {allowed}; this one is in {where}",
            allowed=allowed,
            where=_where(dc),
        ),
        _where(dc),
    )


def _city_check(dc: DataCenter, cities: Sequence[str]) -> Check:
    wanted = [canonical_city(c.split("-")[-1]) for c in cities]
    allowed = "、".join(wanted)
    if dc.mainland and dc.city in wanted:
        return check("location-city", PASS, Msg("data centre in {city}", city=dc.city), _where(dc))
    return check(
        "location-city",
        FAIL,
        Msg(
            "job requires a data centre in {allowed}; this one is in {where}",
            allowed=allowed,
            where=_where(dc),
        ),
        _where(dc),
    )


def residency_check(dc: DataCenter, export_basis: str | None) -> Check:
    """*Policy*: personal information stays in the mainland unless the job states a basis."""
    if dc.mainland:
        return check(
            "data-residency", PASS, Msg("personal information stays in mainland China"), _where(dc)
        )
    if export_basis:
        return check(
            "data-residency",
            PASS,
            Msg(
                (
                    "personal information leaves mainland China for {country} under export basis "
                    "{export_basis}"
                ),
                country=dc.country,
                export_basis=export_basis,
            ),
            _where(dc),
        )
    return check(
        "data-residency",
        FAIL,
        Msg(
            (
                "training data holds personal information and the data centre is outside mainland "
                "China ({country}); the job declares no legal basis for exporting it"
            ),
            country=dc.country,
        ),
        _where(dc),
    )


# --- rule 9 ---------------------------------------------------------------------------------
def freshness_check(observed_at: Sequence[datetime], today: date, freshness_days: int) -> Check:
    """Rule 9 over the offers of one data centre: the oldest price decides."""
    oldest = min(observed_at)
    age_days = (today - oldest.date()).days
    evidence = f"observed_at={oldest.isoformat()}"
    if age_days > freshness_days:
        return check(
            "price-freshness",
            WARN,
            Msg(
                "prices are {age_days} days old (over {freshness_days})",
                age_days=age_days,
                freshness_days=freshness_days,
            ),
            evidence,
        )
    return check(
        "price-freshness",
        PASS,
        Msg("prices observed {age_days} days ago", age_days=age_days),
        evidence,
    )
