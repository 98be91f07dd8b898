"""init / import / providers / offers end to end through the CLI, on SQLite and PostgreSQL."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy import func, select

from comparator.catalog.db import make_engine
from comparator.catalog.models import Offer, PriceSnapshot
from tests.conftest import DATA

OFFER_KEYS = {
    "offer_id",
    "provider",
    "region",
    "province",
    "city",
    "gpu",
    "cards",
    "billing",
    "price",
    "currency",
    "card_hour_price",
    "time_of_use",
    "stock",
    "observed_at",
    "snapshot_id",
}
PROFILE = """
[provider]
id = "exact"
name = "精确云"
country = "CN"

[[datacenters]]
id = "gd-sz-x"
name = "深圳X"
province = "广东"
city = "深圳"
"""


def counts(db_url: str) -> tuple[int, int]:
    engine = make_engine(db_url)
    with engine.connect() as conn:
        snapshots = conn.execute(select(func.count()).select_from(PriceSnapshot)).scalar_one()
        offers = conn.execute(select(func.count()).select_from(Offer)).scalar_one()
    engine.dispose()
    return snapshots, offers


def test_demo_catalog_offers(cli) -> None:
    assert cli("init").code == 0
    result = cli("offers", "--json")
    assert result.code == 0, result.err
    offers = result.json()["offers"]
    assert len(offers) >= 40
    assert set(offers[0]) >= OFFER_KEYS
    assert len({o["provider"] for o in offers}) >= 6
    assert {
        "RTX4090",
        "A100-SXM4-80GB",
        "A800-SXM4-80GB",
        "H800-SXM5-80GB",
        "H100-SXM5-80GB",
        "H20",
        "L40S",
        "Ascend-910B",
    } <= {o["gpu"] for o in offers}
    assert {"hourly", "spot", "daily", "weekly", "monthly", "yearly"} <= {
        o["billing"] for o in offers
    }
    quote_prices = [float(o["card_hour_price_quote"]) for o in offers]
    assert quote_prices == sorted(quote_prices)


def test_init_twice_adds_nothing(cli, sqlite_url: str) -> None:
    cli("init")
    before = counts(sqlite_url)
    assert cli("init").code == 0
    assert cli("init", "--demo").code == 0
    assert counts(sqlite_url) == before


def test_exact_prices_round_trip(cli, any_db_url: str, tmp_path: Path) -> None:
    profile = tmp_path / "exact.toml"
    profile.write_text(PROFILE, encoding="utf-8")
    sheet = tmp_path / "exact.csv"
    sheet.write_text(
        "provider,region,gpu,billing,price\nexact,gd-sz-x,4090,hourly,123456789012.1234\n"
        "exact,gd-sz-x,4090,hourly,0.0001\n",
        encoding="utf-8",
    )
    assert cli("init", "--no-demo", db=any_db_url).code == 0
    result = cli("import", "--profile", str(profile), str(sheet), db=any_db_url)
    assert result.code == 0, result.err
    prices = {
        o["price"]
        for o in cli("offers", "--json", "--provider", "exact", db=any_db_url).json()["offers"]
    }
    assert prices == {"123456789012.1234", "0.0001"}


def test_reimporting_identical_content_makes_no_snapshot(cli, sqlite_url: str) -> None:
    cli("init")
    before = counts(sqlite_url)
    sheet = DATA / "sheets" / "gb18030_chinese_headers.csv"
    first = cli("import", str(sheet), "--replace", "--json")  # 4 offers replace the demo's 15
    assert first.code == 0, first.err
    assert [s["status"] for s in first.json()["snapshots"]] == ["succeeded"]
    middle = counts(sqlite_url)
    assert middle[0] == before[0] + 1
    second = cli("import", str(sheet), "--json")
    assert [s["status"] for s in second.json()["snapshots"]] == ["unchanged"]
    assert counts(sqlite_url) == middle


def test_bad_sheet_is_rejected_whole(cli, sqlite_url: str) -> None:
    cli("init")
    before = counts(sqlite_url)
    result = cli("import", str(DATA / "sheets" / "three_bad_rows.csv"), lang="en")
    assert result.code == 1
    assert "Traceback" not in result.err
    for row in ("row 3", "row 5", "row 7"):
        assert row in result.err
    assert counts(sqlite_url) == before


def test_offers_filters(cli) -> None:
    cli("init")
    rows = cli(
        "offers", "--json", "--gpu", "A100 80G", "--province", "粤", "--billing", "包月"
    ).json()["offers"]
    assert rows
    assert {(r["gpu"], r["province"], r["billing"]) for r in rows} == {
        ("A100-SXM4-80GB", "广东", "monthly")
    }
    assert len(cli("offers", "--json", "--limit", "3").json()["offers"]) == 3


@pytest.mark.parametrize(
    ("args", "message", "exit_code"),
    [
        (["offers", "--gpu", "H8000"], "did you mean", 1),
        (["offers", "--province", "火星"], "--province", 2),
        (["offers", "--billing", "per-minute"], "--billing", 2),
        (["import", "--decimal", ";", "x.csv"], "--decimal", 2),
        (["import", "nope.csv"], "nope.csv: no such file", 1),
    ],
)
def test_bad_flags_get_one_clear_error(cli, args: list[str], message: str, exit_code: int) -> None:
    cli("init")
    result = cli(*args, lang="en")
    assert result.code == exit_code
    assert message in result.err
    assert "Traceback" not in result.err


def test_commands_need_a_schema(cli) -> None:
    result = cli("offers")
    assert result.code == 1 and "suanli init" in result.err


def test_providers_lists_credentials(cli) -> None:
    cli("init")
    providers = cli("providers", "--json").json()["providers"]
    assert len(providers) >= 6
    assert all(p["demo"] for p in providers)
    assert any(p["licenses"] for p in providers)
    assert any(not d["mainland"] for p in providers for d in p["datacenters"])


def test_debug_shows_the_traceback(cli) -> None:
    from comparator.errors import UnknownGpuError

    cli("init")
    plain = cli("offers", "--gpu", "H8000")
    assert plain.code == 1 and plain.err.count("\n") <= 2
    with pytest.raises(UnknownGpuError):
        cli("--debug", "offers", "--gpu", "H8000")


def test_usage_errors_exit_2(cli) -> None:
    assert cli("offers", "--limit", "zero").code == 2
    assert cli("no-such-command").code == 2
