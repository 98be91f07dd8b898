"""`suanli history`: each offer's price over the snapshots refreshes made."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import CliResult, run_cli
from tests.support.httpserver import FaultServer, Reply, fault_server
from tests.support.refresh_helpers import profile_toml, source_entry, write_sources

HEADER = "provider,region,gpu,cards,billing,price,currency,sku\n"


@pytest.fixture()
def server() -> Iterator[FaultServer]:
    with fault_server() as running:
        yield running


def publish(server: FaultServer, *rows: str) -> str:
    return server.set("/acme.csv", Reply(body=(HEADER + "".join(rows)).encode()))


@pytest.fixture()
def three_weeks(
    capsys: pytest.CaptureFixture[str], any_db_url: str, server: FaultServer, tmp_path: Path
) -> Any:
    """Three refreshes: an H100 gets cheaper, an L40S gets dearer then goes, an A100 arrives;
    on SQLite and on PostgreSQL (the history is streamed from a server-side cursor there)."""

    def cli(*args: str, lang: str | None = None) -> CliResult:
        return run_cli(capsys, any_db_url, *args, lang=lang)

    (tmp_path / "acme.toml").write_text(profile_toml("acme"), encoding="utf-8")
    h100 = "acme,sg-1,H100,8,hourly,{},USD,h100x8\n"
    l40s = "acme,sg-1,L40S,1,monthly,{},USD,l40s\n"
    url = publish(server, h100.format("20.00"), l40s.format("600"))
    config = write_sources(tmp_path, [source_entry("acme", url, profile="acme.toml")])
    assert cli("init", "--no-demo").code == 0
    for rows in (
        [],
        [h100.format("18.50"), l40s.format("640.00")],
        [
            h100.format("18.50"),
            "acme,sg-1,A100-80G,1,hourly,1.25,USD,a100\n",
            "acme,sg-1,A100-80G,1,hourly,1.40,USD,a100\n",
        ],
    ):
        if rows:
            publish(server, *rows)
        assert cli("refresh", "--config", str(config), "--json").code == 0
    return cli


def by_gpu(document: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {offer["gpu"]: offer for offer in document["offers"]}


@pytest.mark.slow
def test_history_follows_each_offer_over_the_snapshots(three_weeks: Any) -> None:
    result = three_weeks("history", "--provider", "acme", "--json")
    assert result.code == 0, result.err
    offers = by_gpu(result.json())
    h100 = offers["H100-SXM5-80GB"]
    assert [p["price"] for p in h100["points"]] == ["20.00", "18.50", "18.50"]
    assert (h100["first_price"], h100["last_price"], h100["change_pct"]) == (
        "20.00",
        "18.50",
        "-7.5",
    )
    assert h100["current"] is True and h100["cards"] == 8 and h100["currency"] == "USD"
    l40s = offers["L40S"]
    assert [p["price"] for p in l40s["points"]] == ["600", "640.00"]
    assert l40s["current"] is False and l40s["change_pct"] == "6.7"
    a100 = offers["A100-SXM4-80GB"]
    assert [p["price"] for p in a100["points"]] == ["1.25"]  # a duplicate: its lowest price
    snapshot_ids = [p["snapshot_id"] for p in h100["points"]]
    assert len(set(snapshot_ids)) == 3 and snapshot_ids == sorted(snapshot_ids, key=int)


@pytest.mark.slow
def test_history_filters_by_gpu_alias_and_provider(three_weeks: Any) -> None:
    only_h100 = three_weeks("history", "--gpu", "H100", "--json").json()["offers"]
    assert [o["gpu"] for o in only_h100] == ["H100-SXM5-80GB"]
    assert three_weeks("history", "--provider", "nobody", "--json").json() == {"offers": []}
    unknown = three_weeks("history", "--gpu", "H1OO0", lang="en")
    assert unknown.code == 1 and "unknown GPU" in unknown.err


@pytest.mark.slow
def test_history_table_shows_the_biggest_drop_first(three_weeks: Any) -> None:
    result = three_weeks("history", "--provider", "acme", lang="en")
    assert result.code == 0
    assert "Price history" in result.out
    assert result.out.index("-7.5") < result.out.index("6.7")
    assert "20.00 →" in result.out


@pytest.mark.slow
def test_history_limit_keeps_the_biggest_drops_and_counts_the_rest(three_weeks: Any) -> None:
    """The table keeps the biggest drops of every offer read, and says how many are left; the
    JSON keeps the first offers in their order."""
    table = three_weeks("history", "--limit", "1", lang="en")
    assert table.code == 0, table.err
    assert "-7.5" in table.out and "6.7" not in table.out
    assert "2 more (--limit / --json)" in table.out
    every = three_weeks("history", "--json").json()["offers"]
    first = three_weeks("history", "--json", "--limit", "2").json()["offers"]
    assert len(every) == 3 and first == every[:2]
