"""Rules 1, 6 and 7 of compliance.md: the USCC, the website filing (ICP 备案 / ICP 证) and the
公安备案. Pure functions of a profile."""

from __future__ import annotations

from comparator.compliance.verdicts import FAIL, PASS, WARN, Check, check
from comparator.domain.credentials import parse_gongan, parse_icp_filing, parse_licence, parse_uscc
from comparator.domain.profile import Filing, ProviderProfile


# --- rule 1 ---------------------------------------------------------------------------------
def uscc_check(profile: ProviderProfile) -> Check:
    if profile.uscc is None:
        return check(
            "uscc", WARN, "未登记统一社会信用代码", "no unified social credit code (USCC) on file"
        )
    parsed = parse_uscc(profile.uscc)
    if parsed is None:
        return check(
            "uscc",
            FAIL,
            "统一社会信用代码格式错误（应为 18 位，不含 I/O/Z/S/V）",
            "malformed USCC (expected 18 characters without I, O, Z, S, V)",
            profile.uscc,
        )
    if not parsed.check_ok:
        return check(
            "uscc",
            FAIL,
            f"统一社会信用代码校验位错误：应为 {parsed.expected_check_digit}，"
            f"实为 {parsed.check_digit}",
            f"USCC check digit wrong: expected {parsed.expected_check_digit}, "
            f"got {parsed.check_digit}",
            profile.uscc,
        )
    where = parsed.province or parsed.division_code
    return check(
        "uscc",
        PASS,
        f"统一社会信用代码格式与校验位正确（登记地 {where}）",
        f"USCC well-formed with a correct check digit (registered in {where})",
        parsed.text,
    )


def _registered_province(profile: ProviderProfile) -> str | None:
    parsed = parse_uscc(profile.uscc) if profile.uscc else None
    return parsed.province if parsed is not None and parsed.check_ok else None


# --- rule 6 ---------------------------------------------------------------------------------
def website_filing_checks(profile: ProviderProfile) -> list[Check]:
    filings = [
        f for f in profile.filings if f.kind in ("icp_filing", "icp_license") and not f.claimed
    ]
    if not filings:
        return [
            check(
                "icp-filing",
                WARN,
                "未登记网站 ICP 备案或 ICP 证",
                "no website ICP filing or ICP licence on file",
            )
        ]
    home = _registered_province(profile)
    return [_website_filing_check(filing, home) for filing in filings]


def _website_filing_check(filing: Filing, home: str | None) -> Check:
    number = filing.number or ""
    province, kind_zh, kind_en = _website_filing_province(number)
    if province is None:
        return check(
            "icp-filing",
            WARN,
            "ICP 备案号格式错误（应如 粤ICP备12345678号-1）",
            "malformed ICP filing number (expected e.g. 粤ICP备12345678号-1)",
            number,
        )
    if home is not None and province != home:
        return check(
            "icp-filing",
            WARN,
            f"{kind_zh}在{province}，而统一社会信用代码登记地为{home}",
            f"{kind_en} issued in {province}, but the USCC is registered in {home}",
            number,
        )
    if filing.kind == "icp_filing" and kind_en == "ICP licence":
        return check(
            "icp-filing",
            PASS,
            f"登记为备案，实为 ICP 证（{province}）",
            f"recorded as a filing but it is an ICP licence ({province})",
            number,
        )
    return check(
        "icp-filing",
        PASS,
        f"{kind_zh}格式正确（{province}）",
        f"{kind_en} well-formed ({province})",
        number,
    )


def _website_filing_province(number: str) -> tuple[str | None, str, str]:
    filing = parse_icp_filing(number)
    if filing is not None:
        return filing.province, "ICP 备案", "ICP filing"
    licence = parse_licence(number)
    if licence is not None and licence.old_style_icp:
        return licence.province, "ICP 证", "ICP licence"
    return None, "", ""


# --- rule 7 ---------------------------------------------------------------------------------
def gongan_checks(profile: ProviderProfile) -> list[Check]:
    filings = [f for f in profile.filings if f.kind == "gongan" and not f.claimed]
    if not filings:
        return [
            check("gongan", WARN, "未登记公安备案", "no 公安备案 (public security filing) on file")
        ]
    return [_gongan_check(filing.number or "") for filing in filings]


def _gongan_check(number: str) -> Check:
    parsed = parse_gongan(number)
    if parsed is None:
        return check(
            "gongan",
            WARN,
            "公安备案号格式错误（应如 京公网安备11010802032137号）",
            "malformed 公安备案 number (expected e.g. 京公网安备11010802032137号)",
            number,
        )
    if not parsed.consistent:
        shown = parsed.code_province or parsed.code[:2]
        return check(
            "gongan",
            WARN,
            f"公安备案前缀为{parsed.province}，但代码前两位 {parsed.code[:2]} 属于{shown}",
            f"the public-security filing (公安备案) prefix is {parsed.province} but the code's "
            "first two digits "
            f"{parsed.code[:2]} belong to {shown}",
            number,
        )
    return check(
        "gongan",
        PASS,
        f"公安备案格式正确，代码与省份一致（{parsed.province}）",
        f"public-security filing well-formed, code matches its province ({parsed.province})",
        number,
    )
