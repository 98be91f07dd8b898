"""Rules 1, 6 and 7 of compliance.md: the USCC, the website filing (ICP 备案 / ICP 证) and the
公安备案. Pure functions of a profile."""

from __future__ import annotations

from comparator.compliance.verdicts import FAIL, PASS, WARN, Check, check
from comparator.domain.credentials import (
    GONGAN_EXAMPLE,
    ICP_FILING_EXAMPLE,
    parse_gongan,
    parse_icp_filing,
    parse_licence,
    parse_uscc,
)
from comparator.domain.profile import Filing, ProviderProfile
from comparator.errors import Msg


# --- rule 1 ---------------------------------------------------------------------------------
def uscc_check(profile: ProviderProfile) -> Check:
    if profile.uscc is None:
        return check("uscc", WARN, Msg("no unified social credit code (USCC) on file"))
    parsed = parse_uscc(profile.uscc)
    if parsed is None:
        return check(
            "uscc",
            FAIL,
            Msg("malformed USCC (expected 18 characters without I, O, Z, S, V)"),
            profile.uscc,
        )
    if not parsed.check_ok:
        return check(
            "uscc",
            FAIL,
            Msg(
                "USCC check digit wrong: expected {expected_check_digit}, got {check_digit}",
                expected_check_digit=parsed.expected_check_digit,
                check_digit=parsed.check_digit,
            ),
            profile.uscc,
        )
    where = parsed.province or parsed.division_code
    return check(
        "uscc",
        PASS,
        Msg("USCC well-formed with a correct check digit (registered in {where})", where=where),
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
        return [check("icp-filing", WARN, Msg("no website ICP filing or ICP licence on file"))]
    home = _registered_province(profile)
    return [_website_filing_check(filing, home) for filing in filings]


def _website_filing_check(filing: Filing, home: str | None) -> Check:
    number = filing.number or ""
    found = _website_filing_province(number)
    if found is None:
        return check(
            "icp-filing",
            WARN,
            Msg(
                "malformed ICP filing number (expected e.g. {example})", example=ICP_FILING_EXAMPLE
            ),
            number,
        )
    province, kind = found
    if home is not None and province != home:
        return check(
            "icp-filing",
            WARN,
            Msg(
                "{kind} issued in {province}, but the USCC is registered in {home}",
                kind=kind,
                province=province,
                home=home,
            ),
            number,
        )
    if filing.kind == "icp_filing" and kind == _ICP_LICENCE:
        return check(
            "icp-filing",
            PASS,
            Msg("recorded as a filing but it is an ICP licence ({province})", province=province),
            number,
        )
    return check(
        "icp-filing",
        PASS,
        Msg(
            "{kind} well-formed ({province})",
            kind=kind,
            province=province,
        ),
        number,
    )


_ICP_FILING, _ICP_LICENCE = Msg("ICP filing"), Msg("ICP licence")


def _website_filing_province(number: str) -> tuple[str, Msg] | None:
    """The province and kind (filing or licence) of a website number; None: malformed."""
    filing = parse_icp_filing(number)
    if filing is not None:
        return filing.province, _ICP_FILING
    licence = parse_licence(number)
    if licence is not None and licence.old_style_icp and licence.province is not None:
        return licence.province, _ICP_LICENCE
    return None


# --- rule 7 ---------------------------------------------------------------------------------
def gongan_checks(profile: ProviderProfile) -> list[Check]:
    filings = [f for f in profile.filings if f.kind == "gongan" and not f.claimed]
    if not filings:
        return [check("gongan", WARN, Msg("no 公安备案 (public security filing) on file"))]
    return [_gongan_check(filing.number or "") for filing in filings]


def _gongan_check(number: str) -> Check:
    parsed = parse_gongan(number)
    if parsed is None:
        return check(
            "gongan",
            WARN,
            Msg("malformed 公安备案 number (expected e.g. {example})", example=GONGAN_EXAMPLE),
            number,
        )
    if not parsed.consistent:
        shown = parsed.code_province or parsed.code[:2]
        return check(
            "gongan",
            WARN,
            Msg(
                (
                    "the public-security filing (公安备案) prefix is {province} but the code's first "
                    "two digits {value} belong to {shown}"
                ),
                province=parsed.province,
                value=parsed.code[:2],
                shown=shown,
            ),
            number,
        )
    return check(
        "gongan",
        PASS,
        Msg(
            "public-security filing well-formed, code matches its province ({province})",
            province=parsed.province,
        ),
        number,
    )
