"""Rules 2–5 of compliance.md: the telecom licence's number, validity, scope, coverage and
annual report. Pure functions of a profile and dates."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from comparator.compliance.verdicts import FAIL, PASS, WARN, Check, check, worst
from comparator.domain.credentials import IDC_ITEM_EXCLUDES, LicenceNumber, parse_licence
from comparator.domain.profile import DataCenter, License, ProviderProfile
from comparator.domain.profile_values import NATIONWIDE
from comparator.errors import Msg

RENEWAL_WARNING_DAYS = 90
_RANK = {PASS: 0, WARN: 1, FAIL: 2}


@dataclass(frozen=True)
class LicenceAssessment:
    """One licence judged on rules 2 and 3; ``status`` is the worse of the two."""

    licence: License
    parsed: LicenceNumber | None
    validity: Check
    scope: Check
    cloud_item: Check

    @property
    def status(self) -> str:
        return worst([self.validity.status, self.scope.status])


def assess_licences(
    profile: ProviderProfile, today: date, last_day: date
) -> list[LicenceAssessment]:
    """Every licence judged, best first (fewest problems, then the order of the profile)."""
    assessed = [_assess(lic, today, last_day) for lic in profile.licenses if not lic.claimed]
    return sorted(assessed, key=lambda a: _RANK[a.status])


def _assess(licence: License, today: date, last_day: date) -> LicenceAssessment:
    parsed = parse_licence(licence.number)
    return LicenceAssessment(
        licence=licence,
        parsed=parsed,
        validity=validity_check(licence, parsed, today, last_day),
        scope=scope_check(licence, parsed),
        cloud_item=cloud_item_check(licence),
    )


def no_licence_checks() -> list[Check]:
    missing = Msg("no telecom business licence on file (IDC in mainland China needs a B1 licence)")
    return [check("licence-valid", FAIL, missing), check("licence-scope", FAIL, missing)]


# --- rule 2 ---------------------------------------------------------------------------------
def validity_check(
    licence: License, parsed: LicenceNumber | None, today: date, last_day: date
) -> Check:
    """Rule 2; ``last_day`` is the job's last day (``today`` without a job)."""
    number = licence.number
    if parsed is None:
        return check(
            "licence-valid",
            FAIL,
            Msg("“{number}” is not a telecom business licence number", number=number),
            number,
        )
    if parsed.is_website_number:
        return check(
            "licence-valid",
            FAIL,
            Msg(
                (
                    "{number} is a website number under licence {licence_text}, not the licence "
                    "itself"
                ),
                number=number,
                licence_text=parsed.licence_text,
            ),
            number,
        )
    return _expiry_check(number, licence.valid_until, today, last_day)


def _expiry_check(number: str, valid_until: date | None, today: date, last_day: date) -> Check:
    evidence = f"{number} valid_until={valid_until}"
    if valid_until is None:
        return check("licence-valid", WARN, Msg("licence validity not recorded"), number)
    if valid_until < today:
        return check(
            "licence-valid",
            FAIL,
            Msg("licence expired on {valid_until}", valid_until=valid_until),
            evidence,
        )
    if valid_until < last_day:
        return check(
            "licence-valid",
            FAIL,
            Msg(
                "licence expires {valid_until}, before the job's last day {last_day}",
                valid_until=valid_until,
                last_day=last_day,
            ),
            evidence,
        )
    days_left = (valid_until - last_day).days
    if days_left < RENEWAL_WARNING_DAYS:
        reference = Msg("the job's last day") if last_day > today else Msg("today")
        return check(
            "licence-valid",
            WARN,
            Msg(
                (
                    "licence expires {valid_until}, {days_left} days after {reference} {last_day} "
                    "(under {renewal_days}); renewal should be filed"
                ),
                valid_until=valid_until,
                days_left=days_left,
                reference=reference,
                last_day=last_day,
                renewal_days=RENEWAL_WARNING_DAYS,
            ),
            evidence,
        )
    return check(
        "licence-valid",
        PASS,
        Msg("licence valid until {valid_until}", valid_until=valid_until),
        evidence,
    )


# --- rule 3 ---------------------------------------------------------------------------------
def scope_check(licence: License, parsed: LicenceNumber | None) -> Check:
    number = licence.number
    services = ",".join(licence.services) or "-"
    evidence = f"{number} services={services}"
    if parsed is not None and parsed.old_style_icp:
        return check(
            "licence-scope",
            FAIL,
            Msg("an old-style ICP licence (B25 information service) does not cover IDC (needs B1)"),
            number,
        )
    if parsed is not None and not parsed.has_category("B1"):
        cats = ".".join(parsed.categories)
        return check(
            "licence-scope",
            FAIL,
            Msg(
                "licence categories {cats} lack B1; a B2 licence alone does not cover IDC (B11)",
                cats=cats,
            ),
            evidence,
        )
    if "B11" not in licence.services:
        return check(
            "licence-scope",
            FAIL,
            Msg(
                "licensed services {services} do not include B11 internet data centre",
                services=services,
            ),
            evidence,
        )
    return check(
        "licence-scope", PASS, Msg("licence includes category B1 and service B11 (IDC)"), evidence
    )


def cloud_item_check(licence: License) -> Check:
    item = licence.idc_item
    if IDC_ITEM_EXCLUDES in item:
        return check(
            "licence-cloud-item",
            WARN,
            Msg(
                "licence excludes 互联网资源协作服务 (Internet resource collaboration services): "
                "self-service cloud instances are not covered"
            ),
            f"{licence.number} {item}",
        )
    if not item:
        return check(
            "licence-cloud-item",
            PASS,
            Msg("IDC service item not recorded (taken as including resource collaboration)"),
            licence.number,
        )
    return check(
        "licence-cloud-item",
        PASS,
        Msg("IDC service item: {item}", item=item),
        f"{licence.number} {item}",
    )


# --- rule 4 ---------------------------------------------------------------------------------
def coverage_check(assessed: list[LicenceAssessment], dc: DataCenter) -> Check:
    """Rule 4 for one mainland data centre: the first (best) licence that covers it."""
    where = f"{dc.province}-{dc.city}" if dc.city else f"{dc.province}"
    for item in assessed:
        if item.parsed is not None and covers(item.parsed, item.licence.coverage, dc):
            return check(
                "licence-coverage",
                PASS,
                Msg("licence covers {where}", where=where),
                _coverage_evidence(item),
            )
    if not assessed:
        return check("licence-coverage", FAIL, Msg("no licence covers {where}", where=where))
    best = assessed[0]
    return check("licence-coverage", FAIL, _gap_reason(best, dc, where), _coverage_evidence(best))


def covers(parsed: LicenceNumber, coverage: tuple[str, ...], dc: DataCenter) -> bool:
    """Whether a licence covers a data centre's province (and city where coverage lists cities)."""
    if parsed.is_website_number or dc.province is None:
        return False
    if parsed.province is not None and parsed.province != dc.province:
        return False
    entries = [e for e in coverage if e == NATIONWIDE or e.split("-")[0] == dc.province]
    if parsed.province is not None and not entries:
        return True  # a provincial licence covers its whole province unless it lists cities
    if any(e in (NATIONWIDE, dc.province) for e in entries):
        return True
    return dc.city is not None and f"{dc.province}-{dc.city}" in entries


def _gap_reason(best: LicenceAssessment, dc: DataCenter, where: str) -> Msg:
    parsed = best.parsed
    number = best.licence.number
    if parsed is None or parsed.is_website_number:
        return Msg(
            "{number} is not a usable licence number, so it cannot cover {where}",
            number=number,
            where=where,
        )
    if parsed.province is not None and parsed.province != dc.province:
        return Msg(
            "{number} is a provincial licence of {province}, valid only there; "
            "it does not cover {where}",
            number=number,
            province=parsed.province,
            where=where,
        )
    if dc.city is None:
        return Msg(
            "the licence covers only some cities of {province} and the data centre's "
            "city is not recorded",
            province=dc.province,
        )
    return Msg("licence coverage does not include {where}", where=where)


def _coverage_evidence(item: LicenceAssessment) -> str:
    listed = ",".join(item.licence.coverage) or "-"
    return f"{item.licence.number} coverage={listed}"


# --- rule 5 ---------------------------------------------------------------------------------
def required_report_year(today: date) -> int:
    """The annual report a licensee must have filed by ``today`` (due by the end of April)."""
    return today.year if today >= date(today.year, 5, 1) else today.year - 1


def annual_report_check(licence: License, today: date) -> Check:
    required = required_report_year(today)
    last = licence.last_annual_report
    evidence = f"{licence.number} last_annual_report={last}"
    if last is None:
        return check(
            "annual-report",
            WARN,
            Msg("annual report not recorded ({required} is due)", required=required),
            licence.number,
        )
    if last >= required:
        return check("annual-report", PASS, Msg("annual report {last} filed", last=last), evidence)
    if last == required - 1:
        return check(
            "annual-report",
            WARN,
            Msg(
                "annual report {required} missing (last filed {last})", required=required, last=last
            ),
            evidence,
        )
    return check(
        "annual-report",
        FAIL,
        Msg(
            (
                "annual report two or more years behind (last {last}, due {required}); the "
                "licensee may be on the list of operators in breach (不良名单)"
            ),
            last=last,
            required=required,
        ),
        evidence,
    )
