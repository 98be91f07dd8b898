"""A three-week catalog with hand-known prices for the market report's tests.

Three weekly snapshots (2026-W47, W48, W49; "today" is Thursday 2026-12-03) imported from CSV
sheets with `suanli import`; each import's snapshots are then dated inside its week (an import
is stamped with the time it runs). H800 hourly, one card, CNY unless said, per card-hour:

| provider | W47                | W48                 | W49                                   |
|----------|--------------------|---------------------|---------------------------------------|
| alpha    | 5 SKUs, from 12.00 | 5 SKUs, from 11.50  | 5 SKUs, from 11.00                    |
| beta     | 10.00              | 10.40               | 10.00 tax-exclusive (VAT 6 %) → 10.60 |
| gamma    | 11.00              | USD 1.50 × 7.12 → 10.68 | gone (its snapshot holds no offer)  |
| delta    | —                  | —                   | 12.00 with 00:00-08:00*0.5 → 10.00    |

The reference week's factor of ``00:00-08:00*0.5``: 56 hours at 0.5 and 112 at 1 → 140/168.
Index (continuous percentiles over the providers' cheapest prices):

- W47 [10.00, 11.00, 12.00]: min 10.00, median 11.00, P90 11.00 + 0.8 × 1.00 = 11.80
- W48 [10.40, 10.68, 11.50]: min 10.40, median 10.68, P90 10.68 + 0.8 × 0.82 = 11.336 → 11.34
- W49 [10.00, 10.60, 11.00]: min 10.00, median 10.60, P90 10.60 + 0.8 × 0.40 = 10.92;
  against W48: 10.60 − 10.68 = −0.08, −0.08 / 10.68 = −0.749 % → −0.7 %

A800 monthly in W49 only: alpha 6,912.00 per card-month → 9.60, beta a whole machine of 8
cards at 57,600.00 → 10.00, delta 7,236.00 → 10.05: min 9.60, median 10.00,
P90 10.00 + 0.8 × 0.05 = 10.04.

alpha's dearest SKU (a-4) had 3 units in stock in W48 and none in W49. Credentials: delta's
licence ends on 2027-01-02, 30 days after today. beta's source failed
its last refresh (its sheet file is missing), so its prices are last week's good ones.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from sqlalchemy import Engine, text

from comparator.catalog.db import make_engine
from comparator.catalog.queries import store_snapshot
from comparator.refresh.run import run_refresh
from comparator.refresh.sources import load_sources
from tests.conftest import run_cli

SHANGHAI = ZoneInfo("Asia/Shanghai")
TODAY = "2026-12-03"
FX = "USD=7.12,EUR=7.53"
HEADER = (
    "provider,region,gpu,cards,billing,price,currency,tax_inclusive,vat_rate,time_of_use,sku,stock"
)
WEEK_DAYS = {"W47": datetime(2026, 11, 18, 9, tzinfo=SHANGHAI),
             "W48": datetime(2026, 11, 25, 9, tzinfo=SHANGHAI),
             "W49": datetime(2026, 12, 2, 9, tzinfo=SHANGHAI)}  # fmt: skip

PROFILE = """[provider]
id = "{pid}"
name = "{pid} 算力"
legal_name = "{pid} 算力有限公司（虚构）"
uscc = "91440300MA5H1N6W28"
country = "CN"
invoice_types = ["专票", "普票"]

[[licenses]]
number = "B1-20200712"
services = ["B11"]
coverage = ["全国"]
valid_until = {until}
last_annual_report = 2026

[[filings]]
kind = "icp_filing"
number = "粤ICP备2020067890号-1"

[[filings]]
kind = "gongan"
number = "粤公网安备44030402005566号"

[[datacenters]]
id = "{pid}-gz"
name = "广州一号机房"
province = "广东"
city = "广州"
"""


def _alpha(cheapest: str, last_stock: str = "") -> list[str]:
    """Five SKUs of H800, the dearest (a-4) with ``last_stock`` units in stock."""
    prices = [cheapest, "12.50", "13.00", "14.00", "15.00"]
    stocks = ["", "", "", "", last_stock]
    return [
        f"alpha,alpha-gz,H800,1,hourly,{p},CNY,true,0.06,,a-{i},{stocks[i]}"
        for i, p in enumerate(prices)
    ]


SHEETS: dict[str, list[str]] = {
    "W47": [
        *_alpha("12.00"),
        "beta,beta-gz,H800,1,hourly,10.00,CNY,true,0.06,,,",
        "gamma,gamma-gz,H800,1,hourly,11.00,CNY,true,0.06,,,",
    ],
    "W48": [
        *_alpha("11.50", last_stock="3"),
        "beta,beta-gz,H800,1,hourly,10.40,CNY,true,0.06,,,",
        "gamma,gamma-gz,H800,1,hourly,1.50,USD,true,0,,,",
    ],
    "W49": [
        *_alpha("11.00", last_stock="0"),
        "alpha,alpha-gz,A800,1,monthly,6912.00,CNY,true,0.06,,,",
        "beta,beta-gz,H800,1,hourly,10.00,CNY,false,0.06,,,",
        "beta,beta-gz,A800,8,monthly,57600.00,CNY,true,0.06,,,",
        "delta,delta-gz,H800,1,hourly,12.00,CNY,true,0.06,00:00-08:00*0.5,,",
        "delta,delta-gz,A800,1,monthly,7236.00,CNY,true,0.06,,,",
    ],
}


def build(capsys: pytest.CaptureFixture[str], db_url: str, folder: Path) -> Engine:
    """The three weeks in a new catalog at ``db_url``; returns its engine."""
    assert run_cli(capsys, db_url, "init", "--no-demo").code == 0
    for pid in ("alpha", "beta", "gamma", "delta"):
        until = "2027-01-02" if pid == "delta" else "2030-07-11"
        (folder / f"{pid}.toml").write_text(PROFILE.format(pid=pid, until=until), "utf-8")
    engine = make_engine(db_url)
    for week, rows in SHEETS.items():
        sheet = folder / f"{week}.csv"
        sheet.write_text("\n".join([HEADER, *rows]) + "\n", encoding="utf-8")
        profiles = [
            a
            for p in ("alpha", "beta", "gamma", "delta")
            for a in ("--profile", str(folder / f"{p}.toml"))
        ]
        result = run_cli(capsys, db_url, "import", *profiles, "--replace", str(sheet))
        assert result.code == 0, result.err
        if week == "W49":  # gamma delisted everything: a snapshot with no offers
            store_snapshot(engine, "gamma", [], source="gamma.csv", content_sha256="0" * 64,
                           fetched_at=WEEK_DAYS[week])  # fmt: skip
        _date_new_snapshots(engine, WEEK_DAYS[week])
    _fail_beta_source(engine, folder)
    return engine


def _date_new_snapshots(engine: Engine, moment: datetime) -> None:
    """Snapshots not yet dated in an earlier week get ``moment`` (what a refresh that week
    would have stamped)."""
    with engine.begin() as conn:
        latest = conn.execute(text("SELECT MAX(fetched_at) FROM pricesnapshot")).scalar()
        params = {"moment": moment if conn.dialect.name == "postgresql" else _naive_utc(moment)}
        if latest is None:
            return
        conn.execute(
            text("UPDATE pricesnapshot SET fetched_at = :moment WHERE fetched_at > :moment"),
            params,
        )


def _naive_utc(moment: datetime) -> datetime:
    return moment.astimezone(ZoneInfo("UTC")).replace(tzinfo=None)


def _fail_beta_source(engine: Engine, folder: Path) -> None:
    """A real refresh of beta whose sheet file is gone: the run is recorded as failed."""
    sources = folder / "sources.toml"
    sources.write_text(
        '[[source]]\nprovider = "beta"\nadapter = "sheet"\npath = "beta-missing.csv"\n'
        'profile = "beta.toml"\n',
        encoding="utf-8",
    )
    report = run_refresh(engine, load_sources(sources))
    assert [run.status for run in report.runs] == ["failed"]
