"""Random provider profiles that parse, each key of every table drawn from values a provider
writes (and a few at the edge: exponents, trailing zeros, overseas places, claimed credentials).

:func:`profile_document` gives a TOML-shaped mapping; callers keep those ``parse_profile``
accepts (about nine in ten). The bad-input fuzzing of profile files is
:func:`tests.support.fuzz_inputs.toml_case`.
"""

from __future__ import annotations

import random
from datetime import date
from typing import Any

from comparator.domain.profile import ProviderProfile, parse_profile
from comparator.errors import ProfileError

AMOUNTS: list[object] = [0, 1, 0.5, "0.10", "1.50", "1E+3", 1000000, "12345.6789", 3.0, "0"]
FLAGS: list[object] = [True, False, None]
ZONES = ["Asia/Shanghai", "Asia/Singapore", "America/Los_Angeles", "UTC", None]
PLACES = [  # (country, province, city)
    ("CN", "广东", "深圳"),
    ("CN", "粤", "广州市"),
    ("CN", "内蒙古", "乌兰察布"),
    ("CN", "江苏", None),
    ("CN", "贵州", "贵安"),
    ("SG", None, None),
    ("US", None, "Oregon"),
    (None, "上海", "上海"),
]
CARRIERS = [["电信"], ["联通", "移动"], ["BGP", "电信", "BGP"], ["telecom", "CU"], "BGP", []]
LICENCES = ["B1-20190123", "B1-20200712", "B2-20210001"]
FILINGS = [
    {"kind": "icp_filing", "number": "粤ICP备2021123456号-1"},
    {"kind": "gongan", "number": "粤公网安备44030502000001号"},
    {"kind": "mlps", "level": 3, "assessed_on": date(2026, 6, 30)},
    {"kind": "mlps", "level": 2},
    {"kind": "icp_license", "claimed": True},
    {"kind": "gongan", "number": "x", "claimed": True, "level": 4},
]


def _maybe(rng: random.Random, table: dict[str, Any], key: str, values: list[Any]) -> None:
    if rng.random() < 0.5:
        value = rng.choice(values)
        if value is not None:
            table[key] = value


def _provider(rng: random.Random, n: int) -> dict[str, Any]:
    table: dict[str, Any] = {"id": f"fuzz-{n:04d}", "name": rng.choice(["Fuzz", " 云 ", "x"])}
    _maybe(rng, table, "legal_name", ["深圳市腾讯计算机系统有限公司", "Fuzz Pte Ltd", ""])
    _maybe(rng, table, "uscc", ["91440300708461136T", "91440300MA5H1N6W28"])
    _maybe(rng, table, "country", ["CN", "中国", "sg", "US"])
    _maybe(rng, table, "website", ["https://fuzz.example", " https://x.example "])
    for key in ("own_datacenter", "demo", "converts_billing", "cnnic_member", "elastic_scaling"):
        _maybe(rng, table, key, FLAGS)
    for key in ("hourly_refund", "free_maintenance"):
        _maybe(rng, table, key, FLAGS)
    _maybe(rng, table, "support", ["7x24", "工作日"])
    _maybe(rng, table, "support_response_minutes", [0, 15, 60, 2**31 - 1])
    _maybe(rng, table, "registered_capital_cny", AMOUNTS)
    _maybe(rng, table, "deposit_cny", AMOUNTS)
    _maybe(rng, table, "invoice_types", [["专票", "普票"], "invoice", [], [" 专票 ", ""]])
    _maybe(rng, table, "timezone", ZONES)
    _maybe(rng, table, "discount", [0.9, "0.85", 1, "1.00", "0.5E0"])
    _maybe(rng, table, "sla_percent", [99.9, "99.95", 100])
    _maybe(rng, table, "prepayment", ["按月预付", "none"])
    return table


def _licence(rng: random.Random) -> dict[str, Any]:
    if rng.random() < 0.2:
        return {"claimed": True, "name": "一类全牌照"}
    table: dict[str, Any] = {"number": rng.choice(LICENCES)}
    _maybe(rng, table, "services", [["B11", "B12"], "B14", ["ｂ11"], []])
    _maybe(rng, table, "coverage", [["全国"], ["广东", "江苏-常州"], "粤", ["上海·浦东"]])
    _maybe(rng, table, "idc_item", ["含互联网资源协作服务", ""])
    _maybe(rng, table, "valid_until", [date(2029, 5, 1), "2027-01-31", date(2024, 1, 1)])
    _maybe(rng, table, "last_annual_report", [2025, 2026])
    return table


def _datacenter(rng: random.Random, n: int, country: str | None) -> dict[str, Any]:
    place_country, province, city = rng.choice(PLACES)
    table: dict[str, Any] = {"id": f"dc-{n}", "name": rng.choice(["一区", "Zone A"])}
    place_country = place_country or country or "CN"
    if place_country != (country or "CN"):
        table["country"] = place_country
    if place_country in ("CN", "中国") and province is not None:
        table["province"] = province
    if city is not None:
        table["city"] = city
    _maybe(rng, table, "region", ["Oregon", "华南"])
    _maybe(rng, table, rng.choice(["storage_price_gb_month", "storage_price_gb_day"]), AMOUNTS)
    for key in ("free_storage_gb", "egress_price_gb"):
        _maybe(rng, table, key, AMOUNTS)
    _maybe(rng, table, "upload_gbps", [10, "2.5", 0.1])
    _maybe(rng, table, "storage_currency", ["cny", "USD"])
    _maybe(rng, table, "carriers", CARRIERS)
    _maybe(rng, table, "latency_ms", [{"深圳": 8.5}, {"广州": "12", "上海市": 30}, {}])
    return table


def profile_document(rng: random.Random, n: int) -> dict[str, Any]:
    """A random profile document (a mapping as TOML gives it); most parse."""
    provider = _provider(rng, n)
    country = "CN" if provider.get("country") in (None, "CN", "中国") else None
    return {
        "provider": provider,
        "licenses": [_licence(rng) for _ in range(rng.choice((0, 1, 2)))],
        "filings": [dict(rng.choice(FILINGS)) for _ in range(rng.choice((0, 1, 3)))],
        "certifications": [
            {"name": "ISO27001", "valid_until": date(2027, 9, 30)}
            | rng.choice([{}, {"claimed": True}])
            for _ in range(rng.choice((0, 1)))
        ],
        "datacenters": [
            _datacenter(rng, i, country if country else provider.get("country"))
            for i in range(rng.choice((0, 1, 2, 3)))
        ],
    }


def parsed_profiles(count: int, seed: int) -> list[ProviderProfile]:
    """The profiles of ``count`` random documents (drawn with ``seed``) that parse."""
    rng = random.Random(seed)
    found = []
    for n in range(count):
        try:
            found.append(parse_profile(profile_document(rng, n), f"random-{n}"))
        except ProfileError:
            continue
    return found
