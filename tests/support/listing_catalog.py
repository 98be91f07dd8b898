"""A small generated catalog for the `offers` listing tests: ties, currencies, failing places.

Seeded, imported with ``suanli import``'s code path: ``PROVIDERS`` providers, half of them with
a nationwide B1 licence (their mainland data centres pass), the others without any licence
(their mainland data centres fail the default checks and every job's); one or two mainland
data centres each (广东, 贵州, 上海) and an overseas one for every fourth provider (no licence
needed there). Offers mix GPUs of one family (H800, H20), 4090 and A100-80G (no A100-40GB: ``--gpu A100`` is
empty, with the hint of the 80 GB card), every billing mode, CNY and USD, prices to the cent (many
ties) and two times read (older ones warn under rule 9).
"""

from __future__ import annotations

import random
from pathlib import Path

from sqlalchemy import Engine

from comparator.catalog.db import make_engine, upgrade_schema
from comparator.config import load_settings
from comparator.refresh.importer import import_files

PROVIDERS = 24
OFFERS_PER_PROVIDER = 40
PLACES = [("广东", "深圳"), ("广东", "广州"), ("贵州", "贵安"), ("上海", "上海")]
GPUS = {"H800 80G": 14.0, "H20": 6.0, "4090": 1.9, "A100 80G": 8.0}
HOURS = {"hourly": 1, "spot": 1, "daily": 24, "weekly": 168, "monthly": 720}
OBSERVED = ("2026-11-23T11:00:00+08:00", "2026-10-01T09:00:00+08:00")
HEADER = "provider,region,gpu,cards,node_cards,billing,price,currency,observed_at\n"
LICENCE = """
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


def _profile(n: int, rng: random.Random) -> tuple[str, list[str]]:
    pid = f"list-{n:03d}"
    text = f'[provider]\nid = "{pid}"\nname = "Listing {n}"\nuscc = "91440300MA5H1N6W28"\n'
    text += 'country = "CN"\ninvoice_types = ["专票", "普票"]\n'
    text += LICENCE if n % 2 == 0 else ""
    regions = []
    for i, (province, city) in enumerate(rng.sample(PLACES, rng.randint(1, 2))):
        regions.append(f"dc{n}-{i}")
        text += f'\n[[datacenters]]\nid = "dc{n}-{i}"\nname = "{city}{i}"\n'
        text += f'province = "{province}"\ncity = "{city}"\n'
    if n % 4 == 3:
        regions.append(f"sg{n}")
        text += f'\n[[datacenters]]\nid = "sg{n}"\nname = "Singapore"\ncountry = "SG"\n'
    return text, regions


def _offer(rng: random.Random, pid: str, region: str) -> str:
    gpu = rng.choice(list(GPUS))
    cards = rng.choice((1, 8))
    billing = rng.choice(list(HOURS))
    currency = rng.choice(("CNY", "CNY", "USD"))
    rate = 7.12 if currency == "USD" else 1.0
    price = round(GPUS[gpu] * cards * HOURS[billing] * rng.choice((0.6, 0.8, 1.0)) / rate, 2)
    return (
        f"{pid},{region},{gpu},{cards},8,{billing},{price:.2f},{currency},{rng.choice(OBSERVED)}\n"
    )


def build_listing_catalog(url: str, folder: Path, seed: int = 29) -> Engine:
    """Write and import the catalog into the database at ``url``; its engine."""
    rng = random.Random(seed)
    profiles, lines = [], [HEADER]
    for n in range(PROVIDERS):
        text, regions = _profile(n, rng)
        path = folder / f"list-{n:03d}.toml"
        path.write_text(text, encoding="utf-8")
        profiles.append(path)
        lines += [_offer(rng, path.stem, rng.choice(regions)) for _ in range(OFFERS_PER_PROVIDER)]
    sheet = folder / "listing.csv"
    sheet.write_text("".join(lines), encoding="utf-8")
    engine = make_engine(url)
    upgrade_schema(engine)
    import_files(engine, [sheet], profiles, timezone=load_settings({}).timezone)
    return engine
