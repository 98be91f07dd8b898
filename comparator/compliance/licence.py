"""Rules 2–5 of compliance.md: the telecom licence's number, validity, scope, coverage and
annual report. Pure functions of a profile and dates."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from comparator.compliance.verdicts import FAIL, PASS, WARN, Check, check, worst
from comparator.domain.credentials import LicenceNumber, parse_licence
from comparator.domain.profile import DataCenter, License, ProviderProfile
from comparator.domain.profile_fields import NATIONWIDE

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
    zh, en = (
        "未登记电信业务经营许可证（在中国大陆提供 IDC 需 B1 许可证）",
        ("no telecom business licence on file (IDC in mainland China needs a B1 licence)"),
    )
    return [check("licence-valid", FAIL, zh, en), check("licence-scope", FAIL, zh, en)]


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
            f"“{number}”不是有效的电信业务经营许可证编号",
            f"“{number}” is not a telecom business licence number",
            number,
        )
    if parsed.is_website_number:
        return check(
            "licence-valid",
            FAIL,
            f"{number} 是许可证 {parsed.licence_text} 下的网站编号，不是许可证本身",
            f"{number} is a website number under licence {parsed.licence_text}, "
            "not the licence itself",
            number,
        )
    return _expiry_check(number, licence.valid_until, today, last_day)


def _expiry_check(number: str, valid_until: date | None, today: date, last_day: date) -> Check:
    evidence = f"{number} valid_until={valid_until}"
    if valid_until is None:
        return check(
            "licence-valid", WARN, "许可证有效期未登记", "licence validity not recorded", number
        )
    if valid_until < today:
        return check(
            "licence-valid",
            FAIL,
            f"许可证已于 {valid_until} 过期",
            f"licence expired on {valid_until}",
            evidence,
        )
    if valid_until < last_day:
        return check(
            "licence-valid",
            FAIL,
            f"许可证于 {valid_until} 到期，早于任务最后一天 {last_day}",
            f"licence expires {valid_until}, before the job's last day {last_day}",
            evidence,
        )
    days_left = (valid_until - last_day).days
    if days_left < RENEWAL_WARNING_DAYS:
        ref_zh, ref_en = (
            ("任务最后一天", "the job's last day") if last_day > today else ("今天", "today")
        )
        return check(
            "licence-valid",
            WARN,
            f"许可证 {valid_until} 到期，距{ref_zh} {last_day} 仅 {days_left} 天"
            f"（不足 {RENEWAL_WARNING_DAYS} 天），应已申请续期",
            f"licence expires {valid_until}, {days_left} days after {ref_en} {last_day} "
            f"(under {RENEWAL_WARNING_DAYS}); renewal should be filed",
            evidence,
        )
    return check(
        "licence-valid",
        PASS,
        f"许可证有效至 {valid_until}",
        f"licence valid until {valid_until}",
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
            "旧式 ICP 证（B25 信息服务）不含第一类增值电信业务，不能经营 IDC",
            "an old-style ICP licence (B25 information service) does not cover IDC (needs B1)",
            number,
        )
    if parsed is not None and not parsed.has_category("B1"):
        cats = ".".join(parsed.categories)
        return check(
            "licence-scope",
            FAIL,
            f"许可证类别 {cats} 不含 B1；仅有 B2 不能经营 IDC（B11）",
            f"licence categories {cats} lack B1; a B2 licence alone does not cover IDC (B11)",
            evidence,
        )
    if "B11" not in licence.services:
        return check(
            "licence-scope",
            FAIL,
            f"许可业务 {services} 不含 B11 互联网数据中心业务",
            f"licensed services {services} do not include B11 internet data centre",
            evidence,
        )
    return check(
        "licence-scope",
        PASS,
        "许可证含 B1 类及 B11 互联网数据中心业务",
        "licence includes category B1 and service B11 (IDC)",
        evidence,
    )


def cloud_item_check(licence: License) -> Check:
    item = licence.idc_item
    if "不含" in item:
        return check(
            "licence-cloud-item",
            WARN,
            "许可证不含互联网资源协作服务，自助开通的云服务器不在许可范围内",
            "licence excludes 互联网资源协作服务 (Internet resource collaboration services): "
            "self-service cloud instances are not covered",
            f"{licence.number} {item}",
        )
    if not item:
        return check(
            "licence-cloud-item",
            PASS,
            "未登记 IDC 服务项（按含互联网资源协作服务处理）",
            "IDC service item not recorded (taken as including resource collaboration)",
            licence.number,
        )
    return check(
        "licence-cloud-item",
        PASS,
        f"IDC 服务项：{item}",
        f"IDC service item: {item}",
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
                f"许可证覆盖 {where}",
                f"licence covers {where}",
                _coverage_evidence(item),
            )
    if not assessed:
        return check(
            "licence-coverage", FAIL, f"没有许可证覆盖 {where}", f"no licence covers {where}"
        )
    best = assessed[0]
    zh, en = _gap_reason(best, dc, where)
    return check("licence-coverage", FAIL, zh, en, _coverage_evidence(best))


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


def _gap_reason(best: LicenceAssessment, dc: DataCenter, where: str) -> tuple[str, str]:
    parsed = best.parsed
    number = best.licence.number
    if parsed is None or parsed.is_website_number:
        return (
            f"{number} 不是可用的许可证编号，无法覆盖 {where}",
            f"{number} is not a usable licence number, so it cannot cover {where}",
        )
    if parsed.province is not None and parsed.province != dc.province:
        return (
            f"{number} 是{parsed.province}省级许可证，只在{parsed.province}有效，不覆盖 {where}",
            f"{number} is a provincial licence of {parsed.province}, valid only there; "
            f"it does not cover {where}",
        )
    if dc.city is None:
        return (
            f"许可证在{dc.province}只覆盖部分城市，而机房未登记城市",
            f"the licence covers only some cities of {dc.province} and the data centre's "
            "city is not recorded",
        )
    return (f"许可证覆盖范围不含 {where}", f"licence coverage does not include {where}")


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
            f"未登记年报（应已报送 {required} 年度）",
            f"annual report not recorded ({required} is due)",
            licence.number,
        )
    if last >= required:
        return check(
            "annual-report", PASS, f"已报送 {last} 年年报", f"annual report {last} filed", evidence
        )
    if last == required - 1:
        return check(
            "annual-report",
            WARN,
            f"缺少 {required} 年年报（最近一次为 {last} 年）",
            f"annual report {required} missing (last filed {last})",
            evidence,
        )
    return check(
        "annual-report",
        FAIL,
        f"年报落后两年以上（最近一次为 {last} 年，应为 {required} 年），可能被列入不良名单",
        f"annual report two or more years behind (last {last}, due {required}); "
        "the licensee may be on the list of operators in breach (不良名单)",
        evidence,
    )
