"""A generated national-scale catalog: provider profiles (TOML) and price sheets (CSV) in the
README's formats, for :mod:`benchmarks.scale`.

Providers hold a nationwide B1 licence with IDC scope (so mainland data centres pass
compliance), one to three data centres over 20 provinces, and offers of mixed GPU models,
unit sizes (1 or 8 cards), billing modes (hourly, spot, daily, weekly, monthly) and
time-of-use rules. Seeded: the same arguments write the same files.
"""

from __future__ import annotations

import random
from pathlib import Path

PROVINCES = [
    ("广东", "深圳"),
    ("广东", "广州"),
    ("江苏", "常州"),
    ("贵州", "贵安"),
    ("上海", "上海"),
    ("北京", "北京"),
    ("浙江", "杭州"),
    ("内蒙古", "乌兰察布"),
    ("四川", "成都"),
    ("河北", "张家口"),
    ("宁夏", "中卫"),
    ("湖北", "武汉"),
    ("山东", "济南"),
    ("安徽", "芜湖"),
    ("福建", "福州"),
    ("河南", "郑州"),
    ("湖南", "长沙"),
    ("重庆", "重庆"),
    ("陕西", "西安"),
    ("甘肃", "庆阳"),
]
# sheet spelling → list price per card-hour (CNY)
GPUS = {
    "4090": 1.9,
    "A100 80G": 8.0,
    "A800": 7.5,
    "H800 80G": 14.0,
    "L40S": 4.2,
    "H20": 6.0,
    "910B": 5.5,
    "A100 40G": 5.0,
}
BILLING = {"hourly": (1, 1.0), "spot": (1, 0.45), "daily": (24, 0.85), "weekly": (168, 0.7)}
BILLING["monthly"] = (720, 0.55)
TIME_OF_USE = ["", "", "00:00-08:00*0.5", "sat-sun*0.8", "22:00-08:00*0.6"]
HEADER = (
    "provider,region,gpu,cards,node_cards,billing,price,currency,time_of_use,stock,min_units,"
    "interconnect,network,observed_at,source\n"
)
OBSERVED = "2026-11-23T11:00:00+08:00"

PROFILE = """[provider]
id = "{pid}"
name = "规模测试{n}"
legal_name = "规模测试{n}算力有限公司（虚构）"
uscc = "91440300MA5H1N6W28"
country = "CN"
website = "https://{pid}.example"
own_datacenter = true
invoice_types = ["专票", "普票"]
demo = true

[[licenses]]
number = "B1-20200712"
services = ["B11"]
idc_item = ""
coverage = ["全国"]
valid_until = 2030-07-11
last_annual_report = 2026

[[filings]]
kind = "icp_filing"
number = "粤ICP备2020067890号-1"

[[filings]]
kind = "gongan"
number = "粤公网安备44030402005566号"

[[filings]]
kind = "mlps"
level = 3
assessed_on = 2026-08-20
"""
DATACENTER = """
[[datacenters]]
id = "{dc}"
name = "{city}{i}号机房"
province = "{province}"
city = "{city}"
"""


def provider_id(n: int) -> str:
    return f"scale-{n:05d}"


def datacenters(rng: random.Random, n: int) -> list[tuple[str, str, str]]:
    """(id, province, city) of provider ``n``'s one to three data centres."""
    picks = rng.sample(PROVINCES, rng.randint(1, 3))
    return [(f"dc{n}-{i}", p, c) for i, (p, c) in enumerate(picks)]


def offer_line(rng: random.Random, pid: str, dc: str) -> str:
    gpu = rng.choice(list(GPUS))
    cards = rng.choice((1, 1, 8))
    billing = rng.choice(list(BILLING))
    hours, discount = BILLING[billing]
    tou = rng.choice(TIME_OF_USE) if billing in ("hourly", "spot") else ""
    price = GPUS[gpu] * cards * hours * discount * rng.uniform(0.7, 1.4)
    stock = rng.choice(("", "2", "8", "40"))
    network = rng.choice(("", "ib-200g", "roce-100g"))
    return (
        f"{pid},{dc},{gpu},{cards},8,{billing},{price:.2f},CNY,{tou},{stock},1,nvlink,"
        f"{network},{OBSERVED},scale\n"
    )


def write_catalog(
    root: Path, offers: int, providers: int, *, seed: int = 15, sheet_rows: int = 100_000
) -> tuple[list[Path], list[Path]]:
    """Write ``providers`` profiles and ``offers`` offers spread evenly over them."""
    rng = random.Random(seed)
    (root / "profiles").mkdir(parents=True, exist_ok=True)
    (root / "sheets").mkdir(parents=True, exist_ok=True)
    profiles, sheets, lines = [], [], [HEADER]
    per = max(1, offers // providers)
    written = 0
    for n in range(providers):
        pid = provider_id(n)
        centres = datacenters(rng, n)
        text = PROFILE.format(pid=pid, n=n) + "".join(
            DATACENTER.format(dc=dc, province=p, city=c, i=i)
            for i, (dc, p, c) in enumerate(centres)
        )
        path = root / "profiles" / f"{pid}.toml"
        path.write_text(text, encoding="utf-8")
        profiles.append(path)
        count = per if n < providers - 1 else offers - written
        for _ in range(count):
            lines.append(offer_line(rng, pid, rng.choice(centres)[0]))
        written += count
        if len(lines) > sheet_rows or n == providers - 1:
            sheet = root / "sheets" / f"sheet-{len(sheets):03d}.csv"
            sheet.write_text("".join(lines), encoding="utf-8")
            sheets.append(sheet)
            lines = [HEADER]
    return sheets, profiles
