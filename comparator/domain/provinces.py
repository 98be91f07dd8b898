"""Mainland China's provinces (GB/T 2260 codes, names, 简称) and the city codes of interest.

Canonical name of a province is its short name without the suffix: "广东", "内蒙古", "新疆".
Licence, filing and 公安备案 numbers start with a 简称 (粤, 川 or 蜀, 黔 or 贵 …).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Province:
    code: str  # GB/T 2260, two digits
    name: str  # canonical short name, e.g. "广东"
    abbreviations: tuple[str, ...]  # 简称 used in licence numbers, e.g. ("川", "蜀")
    full_name: str  # e.g. "广东省", "内蒙古自治区"


def _p(code: str, name: str, abbreviations: str, full_name: str) -> Province:
    return Province(code, name, tuple(abbreviations), full_name)


PROVINCES: tuple[Province, ...] = (
    _p("11", "北京", "京", "北京市"),
    _p("12", "天津", "津", "天津市"),
    _p("13", "河北", "冀", "河北省"),
    _p("14", "山西", "晋", "山西省"),
    _p("15", "内蒙古", "蒙", "内蒙古自治区"),
    _p("21", "辽宁", "辽", "辽宁省"),
    _p("22", "吉林", "吉", "吉林省"),
    _p("23", "黑龙江", "黑", "黑龙江省"),
    _p("31", "上海", "沪", "上海市"),
    _p("32", "江苏", "苏", "江苏省"),
    _p("33", "浙江", "浙", "浙江省"),
    _p("34", "安徽", "皖", "安徽省"),
    _p("35", "福建", "闽", "福建省"),
    _p("36", "江西", "赣", "江西省"),
    _p("37", "山东", "鲁", "山东省"),
    _p("41", "河南", "豫", "河南省"),
    _p("42", "湖北", "鄂", "湖北省"),
    _p("43", "湖南", "湘", "湖南省"),
    _p("44", "广东", "粤", "广东省"),
    _p("45", "广西", "桂", "广西壮族自治区"),
    _p("46", "海南", "琼", "海南省"),
    _p("50", "重庆", "渝", "重庆市"),
    _p("51", "四川", "川蜀", "四川省"),
    _p("52", "贵州", "黔贵", "贵州省"),
    _p("53", "云南", "滇云", "云南省"),
    _p("54", "西藏", "藏", "西藏自治区"),
    _p("61", "陕西", "陕秦", "陕西省"),
    _p("62", "甘肃", "甘陇", "甘肃省"),
    _p("63", "青海", "青", "青海省"),
    _p("64", "宁夏", "宁", "宁夏回族自治区"),
    _p("65", "新疆", "新", "新疆维吾尔自治区"),
)

BY_NAME: dict[str, Province] = {p.name: p for p in PROVINCES}
BY_CODE: dict[str, Province] = {p.code: p for p in PROVINCES}
BY_ABBREVIATION: dict[str, Province] = {a: p for p in PROVINCES for a in p.abbreviations}

# Every 简称 in one string, for the number regexes (京津冀…新).
ABBREVIATION_CHARS = "".join(BY_ABBREVIATION)

# Cities the notes name (GB/T 2260 four-digit prefixes), keyed by city name.
CITY_CODES: dict[str, str] = {
    "广州": "4401",
    "深圳": "4403",
    "佛山": "4406",
    "东莞": "4419",
    "南京": "3201",
    "常州": "3204",
    "苏州": "3205",
}

_SUFFIXES = ("维吾尔自治区", "壮族自治区", "回族自治区", "自治区", "省", "市")
_ENGLISH = {
    "beijing": "北京",
    "tianjin": "天津",
    "hebei": "河北",
    "shanxi": "山西",
    "inner mongolia": "内蒙古",
    "neimenggu": "内蒙古",
    "liaoning": "辽宁",
    "jilin": "吉林",
    "heilongjiang": "黑龙江",
    "shanghai": "上海",
    "jiangsu": "江苏",
    "zhejiang": "浙江",
    "anhui": "安徽",
    "fujian": "福建",
    "jiangxi": "江西",
    "shandong": "山东",
    "henan": "河南",
    "hubei": "湖北",
    "hunan": "湖南",
    "guangdong": "广东",
    "guangxi": "广西",
    "hainan": "海南",
    "chongqing": "重庆",
    "sichuan": "四川",
    "guizhou": "贵州",
    "yunnan": "云南",
    "tibet": "西藏",
    "xizang": "西藏",
    "shaanxi": "陕西",
    "gansu": "甘肃",
    "qinghai": "青海",
    "ningxia": "宁夏",
    "xinjiang": "新疆",
}


def canonical_province(text: str) -> str | None:
    """The canonical name of a province given as name, full name, 简称, code or pinyin."""
    cleaned = text.strip()
    for suffix in _SUFFIXES:
        if cleaned.endswith(suffix) and cleaned[: -len(suffix)] in BY_NAME:
            cleaned = cleaned[: -len(suffix)]
            break
    if cleaned in BY_NAME:
        return cleaned
    found = BY_ABBREVIATION.get(cleaned) or BY_CODE.get(cleaned)
    if found is not None:
        return found.name
    return _ENGLISH.get(cleaned.lower())


def province_by_abbreviation(abbreviation: str) -> Province | None:
    return BY_ABBREVIATION.get(abbreviation)


def province_of_code(code: str) -> Province | None:
    """The province whose GB/T 2260 code starts ``code`` (a 2-, 4- or 6-digit division code)."""
    return BY_CODE.get(code[:2])


def canonical_city(text: str) -> str:
    """A city name without its 市 suffix ("深圳市" → "深圳")."""
    cleaned = text.strip()
    return cleaned[:-1] if cleaned.endswith("市") and len(cleaned) > 2 else cleaned
