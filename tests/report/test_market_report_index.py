"""`suanli report market --json` over three weekly snapshots with hand-known prices, on SQLite
and PostgreSQL: every min / median / P90 and week-over-week change to the cent, and a provider
with five SKUs of one GPU counted once (the hand computation is in tests/support/market_catalog.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.conftest import run_cli
from tests.support import market_catalog

H800, A800 = "H800-SXM5-80GB", "A800-SXM4-80GB"


@pytest.fixture
def document(
    any_db_url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: Any
) -> dict[str, Any]:
    monkeypatch.setenv("SUANLI_FX_RATES", market_catalog.FX)
    monkeypatch.setenv("SUANLI_CURRENCY", "CNY")
    market_catalog.build(capsys, any_db_url, tmp_path).dispose()
    args = ("report", "market", "--json", "--today", market_catalog.TODAY, "--weeks", "3")
    result = run_cli(capsys, any_db_url, *args)
    assert result.code == 0, result.err
    return dict(result.json())


def _row(document: dict[str, Any], gpu: str, billing: str) -> dict[str, Any]:
    return next(r for r in document["index"] if (r["gpu"], r["billing"]) == (gpu, billing))


def _prices(stats: dict[str, Any]) -> tuple[str, str, str]:
    return stats["min"], stats["median"], stats["p90"]


def test_each_week_matches_the_hand_computation(document: dict[str, Any]) -> None:
    assert document["weeks"] == ["2026-W47", "2026-W48", "2026-W49"]
    history = _row(document, H800, "hourly")["history"]
    assert [_prices(h) for h in history] == [
        ("10.00", "11.00", "11.80"),
        ("10.40", "10.68", "11.34"),
        ("10.00", "10.60", "10.92"),
    ]


def test_the_change_against_last_week_is_exact(document: dict[str, Any]) -> None:
    row = _row(document, H800, "hourly")
    assert row["change_1w"] == {"amount": "-0.08", "pct": "-0.7"}
    assert row["change_4w"] is None  # no week four weeks back on record


def test_five_skus_of_one_provider_count_once(document: dict[str, Any]) -> None:
    now = _row(document, H800, "hourly")["current"]
    assert now["providers"] == 3  # alpha (5 SKUs), beta, delta
    assert now["offers"] == 7  # every SKU is still counted as an offer


def test_whole_machines_and_contracts_are_priced_per_card_hour(document: dict[str, Any]) -> None:
    row = _row(document, A800, "monthly")
    assert _prices(row["current"]) == ("9.60", "10.00", "10.04")
    assert row["change_1w"] is None  # new this week
    assert [h.get("median") for h in row["history"]] == [None, None, "10.00"]


def test_the_basis_is_stated(document: dict[str, Any]) -> None:
    assert document["currency"] == "CNY"
    assert document["tax_basis"] == "tax_inclusive"
    assert document["fx"]["rates_cny"]["USD"] == "7.12"
    assert document["fx"]["date"]
    assert document["reference_week"] == {
        "start": "2026-11-30",
        "end": "2026-12-06",
        "time_zone": "Asia/Shanghai",
    }


def test_the_cheapest_compliant_offer_and_stale_prices(document: dict[str, Any]) -> None:
    row = _row(document, H800, "hourly")
    offer = row["cheapest_compliant"]
    assert (offer["provider"], offer["price_card_hour"], offer["stale"]) == (
        "delta",
        "10.00",
        False,
    )
    assert row["current"]["stale_providers"] == 1  # beta's source failed its last refresh
    machine = _row(document, A800, "monthly")["cheapest_compliant"]
    assert (machine["provider"], machine["price_card_hour"]) == ("alpha", "9.60")


def test_a_job_policy_judges_the_cheapest_compliant_offer(
    sqlite_url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: Any
) -> None:
    """Every data centre is in 广东: a job that must run in 北京 has no compliant offer, and
    the index itself does not depend on the policy."""
    monkeypatch.setenv("SUANLI_FX_RATES", market_catalog.FX)
    market_catalog.build(capsys, sqlite_url, tmp_path).dispose()
    job = tmp_path / "beijing.toml"
    job.write_text(
        'name = "北京任务"\ncurrency = "CNY"\n\n[workload]\ncard_hours = 100\ngpu = "H800"\n\n'
        "[schedule]\nearliest_start = 2026-12-04T00:00:00+08:00\n"
        "deadline = 2026-12-20T00:00:00+08:00\n\n"
        '[requirements]\nprovinces = ["北京"]\n',
        encoding="utf-8",
    )
    args = ("report", "market", "--json", "--today", market_catalog.TODAY, "--weeks", "3")
    default = run_cli(capsys, sqlite_url, *args).json()
    result = run_cli(capsys, sqlite_url, *args, "--policy", str(job))
    assert result.code == 0, result.err
    judged = result.json()
    assert judged["policy"] == {"job": str(job)}
    assert [r["cheapest_compliant"] for r in judged["index"] if r["current"]] == [None, None]
    assert [r["current"] for r in judged["index"]] == [r["current"] for r in default["index"]]
