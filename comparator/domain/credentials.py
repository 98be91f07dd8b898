"""Parsers for the numbers on a Chinese provider's credentials (pure; no I/O).

Every parser first normalises its input (full-width → half-width, whitespace removed, an
ASCII label before a colon dropped, dash variants → ``-``) and returns a structured result, or
``None`` when the text is not that kind of number at all:

* :func:`parse_licence` — 增值电信业务经营许可证 numbers (``A2.B1.B2-20202637``, ``粤B1-20070214``,
  ``合字B1.B2-20130004``, the website number ``粤B2-20090059-5``) and old-style ICP licences
  (``京ICP证030173号``).
* :func:`parse_icp_filing` — ICP 备案 (``蜀ICP备2026007879号-1``).
* :func:`parse_gongan` — 公安备案 (``京公网安备11010802032137号``).
* :func:`parse_uscc` — 统一社会信用代码 with its mod-31 check digit.
* :func:`identify_number` — which of the above a text is.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from functools import lru_cache

from comparator.domain.provinces import (
    ABBREVIATION_CHARS,
    province_by_abbreviation,
    province_of_code,
)

_P = f"[{ABBREVIATION_CHARS}]"
_CAT = r"[AB]\d{1,2}(?:-\d)?"
LICENCE_RE = re.compile(
    rf"^(?P<prov>{_P})?(?P<jv>合字)?(?P<cats>{_CAT}(?:\.{_CAT})*)"
    r"-(?P<year>(?:19|20)\d{2})(?P<seq>\d{4})号?(?:-(?P<site>\d{1,4}))?$"
)
_SITE = r"(?:-(?P<site>\d{1,4}))?"
# the word by which a licence's IDC service item leaves resource collaboration out
IDC_ITEM_EXCLUDES = "不含"
# well-formed numbers, shown as examples when a number is malformed
ICP_FILING_EXAMPLE = "粤ICP备12345678号-1"
GONGAN_EXAMPLE = "京公网安备11010802032137号"
ICP_FILING_RE = re.compile(rf"^(?P<prov>{_P})ICP备(?P<num>\d{{8}}|\d{{10}})号?{_SITE}$")
ICP_LICENCE_RE = re.compile(rf"^(?P<prov>{_P})ICP证(?P<num>\d{{6}})号?{_SITE}$")
GONGAN_RE = re.compile(rf"^(?P<prov>{_P})公网安备(?P<code>\d{{14}})号?$")
USCC_ALPHABET = "0123456789ABCDEFGHJKLMNPQRTUWXY"
USCC_WEIGHTS = (1, 3, 9, 27, 19, 26, 16, 17, 20, 29, 25, 13, 8, 24, 10, 30, 28)
USCC_RE = re.compile(r"^[0-9A-HJ-NPQRTUWXY]{2}\d{6}[0-9A-HJ-NPQRTUWXY]{10}$")

_DASHES = str.maketrans({c: "-" for c in "‐‑‒–—―−－"})
_LABEL_RE = re.compile(r"^[^:]*:")


@lru_cache(maxsize=1 << 14)
def normalise_number(text: str) -> str:
    """Full-width → half-width, dashes → ``-``, no whitespace, ASCII upper case, no label."""
    folded = unicodedata.normalize("NFKC", text).translate(_DASHES)
    compact = "".join(ch for ch in folded if not ch.isspace())
    return _LABEL_RE.sub("", compact).upper()


@dataclass(frozen=True)
class LicenceNumber:
    """A telecom business licence number, or the website number under one."""

    text: str  # normalised
    province: str | None  # canonical province of the 简称 prefix; None = cross-regional (MIIT)
    joint_venture: bool  # 合字: foreign-invested
    categories: tuple[str, ...]  # ("A2", "B1", "B2")
    year: int | None  # issue year; None for old-style ICP licences
    sequence: str
    site: int | None  # trailing -N: a website number under the licence
    old_style_icp: bool = False  # 京ICP证030173号: a B25 information-service licence

    @property
    def cross_regional(self) -> bool:
        return self.province is None

    @property
    def is_website_number(self) -> bool:
        return self.site is not None

    @property
    def licence_text(self) -> str:
        """The licence itself, without a website-number suffix."""
        return self.text if self.site is None else self.text.rsplit("-", 1)[0]

    def has_category(self, code: str) -> bool:
        """Whether a category (``B1``) is granted; ``B1-1`` style sub-categories count too."""
        return any(cat.split("-")[0] == code for cat in self.categories)


@dataclass(frozen=True)
class IcpFiling:
    """An ICP 备案 number: a filing, not a licence."""

    text: str
    province: str
    number: str  # 8 (legacy) or 10 digits
    site: int | None


@dataclass(frozen=True)
class GonganFiling:
    """A 公安备案 number; its code's first two digits should be the prefix's province code."""

    text: str
    province: str  # from the 简称 prefix
    code: str  # 14 digits
    code_province: str | None  # province of the code's first two digits

    @property
    def consistent(self) -> bool:
        return self.code_province == self.province


@dataclass(frozen=True)
class Uscc:
    """A 统一社会信用代码, well-formed; ``check_ok`` tells whether its check digit is right."""

    text: str
    registration_authority: str  # 1st char (9 = market regulation)
    entity_type: str  # 2nd char
    division_code: str  # chars 3–8
    province: str | None  # from the division code's first two digits
    check_digit: str
    expected_check_digit: str

    @property
    def check_ok(self) -> bool:
        return self.check_digit == self.expected_check_digit


def _province(abbreviation: str | None) -> str | None:
    if abbreviation is None:
        return None
    found = province_by_abbreviation(abbreviation)
    return found.name if found else None


def _site(value: str | None) -> int | None:
    return int(value) if value is not None else None


def parse_licence(text: str) -> LicenceNumber | None:
    """A licence number (new or old ICP style), or None if the text is not one."""
    normal = normalise_number(text)
    match = LICENCE_RE.match(normal)
    if match is None:
        return _parse_old_icp_licence(normal)
    return LicenceNumber(
        text=normal,
        province=_province(match["prov"]),
        joint_venture=match["jv"] is not None,
        categories=tuple(match["cats"].split(".")),
        year=int(match["year"]),
        sequence=match["seq"],
        site=_site(match["site"]),
    )


def _parse_old_icp_licence(normal: str) -> LicenceNumber | None:
    match = ICP_LICENCE_RE.match(normal)
    if match is None:
        return None
    return LicenceNumber(
        text=normal,
        province=_province(match["prov"]),
        joint_venture=False,
        categories=("B25",),
        year=None,
        sequence=match["num"],
        site=_site(match["site"]),
        old_style_icp=True,
    )


def parse_icp_filing(text: str) -> IcpFiling | None:
    normal = normalise_number(text)
    match = ICP_FILING_RE.match(normal)
    if match is None:
        return None
    province = _province(match["prov"])
    assert province is not None  # the regex only admits known 简称
    return IcpFiling(normal, province, match["num"], _site(match["site"]))


def parse_gongan(text: str) -> GonganFiling | None:
    normal = normalise_number(text)
    match = GONGAN_RE.match(normal)
    if match is None:
        return None
    province = _province(match["prov"])
    assert province is not None
    code_province = province_of_code(match["code"])
    return GonganFiling(
        normal, province, match["code"], code_province.name if code_province else None
    )


def uscc_check_digit(first17: str) -> str:
    """The check character of a USCC's first 17 characters (GB 32100-2015)."""
    total = sum(USCC_ALPHABET.index(ch) * w for ch, w in zip(first17, USCC_WEIGHTS, strict=True))
    return USCC_ALPHABET[(31 - total % 31) % 31]


def parse_uscc(text: str) -> Uscc | None:
    """A well-formed USCC (whatever its check digit), or None."""
    normal = normalise_number(text)
    if USCC_RE.match(normal) is None:
        return None
    division = normal[2:8]
    province = province_of_code(division)
    return Uscc(
        text=normal,
        registration_authority=normal[0],
        entity_type=normal[1],
        division_code=division,
        province=province.name if province else None,
        check_digit=normal[17],
        expected_check_digit=uscc_check_digit(normal[:17]),
    )


def identify_number(text: str) -> str | None:
    """Which kind of number a text is: ``licence``, ``icp_license``, ``icp_filing``, ``gongan``,
    ``uscc``, or None when it is none of them."""
    licence = parse_licence(text)
    if licence is not None:
        return "icp_license" if licence.old_style_icp else "licence"
    if parse_icp_filing(text) is not None:
        return "icp_filing"
    if parse_gongan(text) is not None:
        return "gongan"
    if parse_uscc(text) is not None:
        return "uscc"
    return None
