"""Number parsers (table-driven): licences, website numbers, ICP filings, 公安备案, USCC."""

from __future__ import annotations

import pytest

from comparator.domain.credentials import (
    identify_number,
    normalise_number,
    parse_gongan,
    parse_icp_filing,
    parse_licence,
    parse_uscc,
    uscc_check_digit,
)
from comparator.domain.provinces import canonical_province

# text, province, joint venture, categories, year, site, old-style ICP licence
LICENCES = [
    ("A2.B1.B2-20202637", None, False, ("A2", "B1", "B2"), 2020, None, False),
    ("粤B1-20070214", "广东", False, ("B1",), 2007, None, False),
    ("京B2-20202418", "北京", False, ("B2",), 2020, None, False),
    ("合字B1.B2-20130004", None, True, ("B1", "B2"), 2013, None, False),
    ("粤B2-20090059-5", "广东", False, ("B2",), 2009, 5, False),
    ("B1.B2-20090059", None, False, ("B1", "B2"), 2009, None, False),
    ("蜀B1-20210001", "四川", False, ("B1",), 2021, None, False),
    ("贵B1-20190002号", "贵州", False, ("B1",), 2019, None, False),
    ("沪B2-1-20180003", "上海", False, ("B2-1",), 2018, None, False),
    ("京ICP证030173号", "北京", False, ("B25",), None, None, True),
    ("浙ICP证060123号-2", "浙江", False, ("B25",), None, 2, True),
    # full-width characters and whitespace are normalised first
    ("粤Ｂ１－２００７０２１４", "广东", False, ("B1",), 2007, None, False),
    (" A2 . B1 . B2 - 2020 2637 ", None, False, ("A2", "B1", "B2"), 2020, None, False),
    ("增值电信业务经营许可证：B1-20190123", None, False, ("B1",), 2019, None, False),
    ("b1-20190123", None, False, ("B1",), 2019, None, False),
]


@pytest.mark.parametrize(("text", "province", "jv", "cats", "year", "site", "old"), LICENCES)
def test_licence_numbers_parse_into_their_parts(
    text: str,
    province: str | None,
    jv: bool,
    cats: tuple[str, ...],
    year: int | None,
    site: int | None,
    old: bool,
) -> None:
    parsed = parse_licence(text)
    assert parsed is not None
    assert (parsed.province, parsed.joint_venture, parsed.categories) == (province, jv, cats)
    assert (parsed.year, parsed.site, parsed.old_style_icp) == (year, site, old)
    assert parsed.cross_regional is (province is None)
    assert parsed.is_website_number is (site is not None)


@pytest.mark.parametrize(
    "text",
    [
        "B1-201901",  # sequence too short
        "C1-20190123",  # no category C
        "粤B1-18990123",  # year out of range
        "港B1-20190123",  # Hong Kong issues no mainland licences
        "粤ICP备12345678号-1",  # a filing is not a licence
        "京公网安备11010802032137号",
        "91440300708461136T",
        "",
    ],
)
def test_texts_that_are_not_licences(text: str) -> None:
    assert parse_licence(text) is None


def test_website_number_keeps_the_licence_it_belongs_to() -> None:
    parsed = parse_licence("粤B2-20090059-5")
    assert parsed is not None
    assert parsed.licence_text == "粤B2-20090059"
    assert parsed.site == 5


def test_subcategories_count_as_their_category() -> None:
    parsed = parse_licence("B1-1.B2-20190123")
    assert parsed is not None and parsed.has_category("B1") and not parsed.has_category("B11")


# text, province, number, site
ICP_FILINGS = [
    ("蜀ICP备2026007879号-1", "四川", "2026007879", 1),
    ("粤ICP备12345678号-1", "广东", "12345678", 1),
    ("京ICP备05002571号", "北京", "05002571", None),
    ("浙ICP备2021012345号-12", "浙江", "2021012345", 12),
    ("沪ICP备 13041839 号－３", "上海", "13041839", 3),
]


@pytest.mark.parametrize(("text", "province", "number", "site"), ICP_FILINGS)
def test_icp_filings_parse(text: str, province: str, number: str, site: int | None) -> None:
    parsed = parse_icp_filing(text)
    assert parsed is not None
    assert (parsed.province, parsed.number, parsed.site) == (province, number, site)


@pytest.mark.parametrize(
    "text",
    [
        "粤ICP备1234567号",  # 7 digits
        "粤ICP备123456789号",  # 9 digits
        "ICP备12345678号",  # no province
        "京ICP证030173号",  # a licence, not a filing
    ],
)
def test_malformed_icp_filings(text: str) -> None:
    assert parse_icp_filing(text) is None


# text, prefix province, code province
GONGAN = [
    ("京公网安备11010802032137号", "北京", "北京"),
    ("粤公网安备44030502000001号", "广东", "广东"),
    ("川公网安备51010702043123号", "四川", "四川"),
    ("蒙公网安备44090202000123号", "内蒙古", "广东"),  # prefix and code disagree
]


@pytest.mark.parametrize(("text", "province", "code_province"), GONGAN)
def test_gongan_numbers(text: str, province: str, code_province: str) -> None:
    parsed = parse_gongan(text)
    assert parsed is not None
    assert (parsed.province, parsed.code_province) == (province, code_province)
    assert parsed.consistent is (province == code_province)


@pytest.mark.parametrize("text", ["京公网安备1101080203213号", "公网安备11010802032137号"])
def test_malformed_gongan_numbers(text: str) -> None:
    assert parse_gongan(text) is None


# Real codes published by the companies (annual reports, website footers, Wikipedia).
REAL_USCC = [
    ("91440300708461136T", "广东"),  # 深圳市腾讯计算机系统有限公司
    ("91330106673959654P", "浙江"),  # 阿里云计算有限公司
    ("914403001922038216", "广东"),  # 华为技术有限公司
    ("91110000802100433B", "北京"),  # 北京百度网讯科技有限公司
    ("91110108551385082Q", "北京"),  # 小米科技有限责任公司
]


@pytest.mark.parametrize(("code", "province"), REAL_USCC)
def test_real_uscc_check_digits_verify(code: str, province: str) -> None:
    parsed = parse_uscc(code)
    assert parsed is not None and parsed.check_ok
    assert parsed.province == province
    assert uscc_check_digit(code[:17]) == code[17]


@pytest.mark.parametrize(("code", "_province"), REAL_USCC)
def test_any_changed_character_breaks_the_check_digit(code: str, _province: str) -> None:
    for position in (0, 5, 16):
        digit = code[position]
        swapped = "1" if digit != "1" else "2"
        changed = code[:position] + swapped + code[position + 1 :]
        parsed = parse_uscc(changed)
        assert parsed is not None and not parsed.check_ok


def test_wrong_check_digit_reports_the_expected_one() -> None:
    parsed = parse_uscc("91440300708461136X")
    assert parsed is not None
    assert (parsed.check_digit, parsed.expected_check_digit) == ("X", "T")


def test_lower_case_and_full_width_uscc_is_normalised() -> None:
    parsed = parse_uscc("９１４４０３００７０８４６１１３６ｔ")
    assert parsed is not None and parsed.text == "91440300708461136T" and parsed.check_ok


@pytest.mark.parametrize(
    "code",
    [
        "91440300708461136",  # 17 characters
        "9144030070846113I6T",  # 19 characters
        "91440300708461136I",  # I is not in the alphabet
        "914403A0708461136T",  # letters in the division code
    ],
)
def test_malformed_uscc(code: str) -> None:
    assert parse_uscc(code) is None


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("A2.B1.B2-20202637", "licence"),
        ("粤B2-20090059-5", "licence"),
        ("京ICP证030173号", "icp_license"),
        ("蜀ICP备2026007879号-1", "icp_filing"),
        ("京公网安备11010802032137号", "gongan"),
        ("91330106673959654P", "uscc"),
        ("hello", None),
    ],
)
def test_identify_number(text: str, kind: str | None) -> None:
    assert identify_number(text) == kind


def test_normalise_number_folds_width_dashes_and_spaces() -> None:
    assert normalise_number("　粤Ｂ１—２００７ ０２１４ ") == "粤B1-20070214"


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("广东", "广东"),
        ("广东省", "广东"),
        ("粤", "广东"),
        ("44", "广东"),
        ("川", "四川"),
        ("蜀", "四川"),
        ("黔", "贵州"),
        ("贵", "贵州"),
        ("内蒙古自治区", "内蒙古"),
        ("新疆维吾尔自治区", "新疆"),
        ("上海市", "上海"),
        ("Guangdong", "广东"),
        ("香港", None),
        ("火星", None),
    ],
)
def test_canonical_province(text: str, name: str | None) -> None:
    assert canonical_province(text) == name
