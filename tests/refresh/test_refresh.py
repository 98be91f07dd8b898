"""The refresh end to end: real sources over 127.0.0.1, a fault matrix, unchanged content."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Engine

from comparator.catalog.db import make_engine
from comparator.refresh.run import run_refresh
from comparator.refresh.sources import load_sources
from tests.conftest import SKYPILOT_DIR
from tests.support.httpserver import FaultServer, Reply, fault_server
from tests.support.refresh_helpers import (
    CLOUDS,
    current_snapshot_ids,
    local_examples,
    local_examples_file,
    profile_toml,
    runs_by_provider,
    serve_catalogs,
    sheet_csv,
    snapshot_counts,
    source_entry,
    write_sources,
)

DEMO_PROVIDERS = (
    "demo-baiyun",
    "demo-caoyuan",
    "demo-merlion",
    "demo-nanshan",
    "demo-pengcheng",
    "demo-qianhai",
    "demo-zhujiang",
)


@pytest.fixture()
def server() -> Iterator[FaultServer]:
    with fault_server() as running:
        yield running


@pytest.mark.slow
def test_examples_refresh_every_real_catalog_and_demo_sheet(
    engine: Engine, server: FaultServer
) -> None:
    serve_catalogs(server)
    report = run_refresh(engine, local_examples(server))
    statuses = {run.provider: run.status for run in report.runs}
    assert statuses == dict.fromkeys((*CLOUDS, *DEMO_PROVIDERS), "succeeded")
    assert all(run.first_snapshot and not run.changes for run in report.runs)
    assert {run.provider: run.offers for run in report.runs}["lambda"] == 374
    for cloud in CLOUDS:
        assert server.hits[f"/catalogs/v8/{cloud}/vms.csv"] == 1


@pytest.mark.slow
def test_unchanged_content_makes_no_new_snapshot(engine: Engine, server: FaultServer) -> None:
    serve_catalogs(server)
    sources = local_examples(server)
    first = run_refresh(engine, sources)
    before = snapshot_counts(engine)
    second = run_refresh(engine, sources)
    assert snapshot_counts(engine) == before
    assert {run.status for run in second.runs} == {"unchanged"}
    assert [run.snapshot_id for run in second.runs] == [run.snapshot_id for run in first.runs]
    for cloud in CLOUDS:  # answered 304 to If-None-Match: nothing downloaded or parsed
        assert server.conditional_hits[f"/catalogs/v8/{cloud}/vms.csv"] == 1
    attempts = {p: [r["attempt"] for r in runs] for p, runs in runs_by_provider(engine).items()}
    assert attempts == {provider: [1, 2] for provider in attempts}


@pytest.mark.slow
def test_same_bytes_without_etag_and_same_offers_in_new_bytes_are_unchanged(
    engine: Engine, server: FaultServer, tmp_path: Path
) -> None:
    (tmp_path / "acme.toml").write_text(profile_toml("acme"), encoding="utf-8")
    url = server.set("/acme.csv", Reply(body=sheet_csv("acme", ["2.10", "4.00"])))
    config = write_sources(tmp_path, [source_entry("acme", url, profile="acme.toml")])
    sources = load_sources(config)
    assert run_refresh(engine, sources).runs[0].status == "succeeded"
    assert run_refresh(engine, sources).runs[0].status == "unchanged"  # body hash
    reordered = b"\n".join(
        [
            sheet_csv("acme", ["2.10", "4.00"]).splitlines()[0],
            *reversed(sheet_csv("acme", ["2.10", "4.00"]).splitlines()[1:]),
        ]
    )
    server.set("/acme.csv", Reply(body=reordered + b"\n"))
    assert run_refresh(engine, sources).runs[0].status == "unchanged"  # offers hash
    assert snapshot_counts(engine) == {"acme": 1}


@pytest.mark.slow
def test_offers_cli_shows_lambda_in_usd_with_the_csv_prices(
    cli: Any, server: FaultServer, tmp_path: Path
) -> None:
    serve_catalogs(server)
    config = local_examples_file(tmp_path, server)
    assert cli("init", "--no-demo").code == 0
    refreshed = cli("refresh", "--config", str(config), "--provider", "lambda", "--json")
    assert refreshed.code == 0, refreshed.err
    assert refreshed.json()["runs"][0]["status"] == "succeeded"
    listed = cli("offers", "--provider", "lambda", "--json")
    assert listed.code == 0, listed.err
    offers = listed.json()["offers"]
    text = (SKYPILOT_DIR / "lambda" / "vms.csv").read_text(encoding="utf-8")
    rows = [r for r in csv.DictReader(io.StringIO(text, newline="")) if r["AcceleratorName"]]
    assert len(offers) == len(rows) == 374
    expected = {(r["InstanceType"], r["Region"]): r["Price"] for r in rows}
    for offer in offers:
        assert offer["currency"] == "USD" and offer["provider"] == "lambda"
        assert Decimal(offer["price"]) == Decimal(expected[(offer["sku"], offer["region"])])


DEADLINE_S = 4
FAILING = ("down", "slow", "stalled", "malformed", "empty", "reset")


def fault_matrix(server: FaultServer, folder: Path, good: bool) -> Path:
    """Nine sources; with ``good`` every one serves a valid sheet, else each its fault."""
    lambda_csv = (SKYPILOT_DIR / "lambda" / "vms.csv").read_bytes()
    first = {p: sheet_csv(p, ["2.00", "3.00"]) for p in ("good", "busy", *FAILING)}
    faults = {
        "good": Reply(body=sheet_csv("good", ["1.80", "3.00", "5.50"])),
        "down": Reply(500, b"internal error"),
        "busy": Reply(429, headers={"Retry-After": "1"}),
        "slow": Reply(body=first["slow"] * 80, trickle_bytes=64, trickle_every_s=0.1),
        "stalled": Reply(body=first["stalled"], delay_s=30),  # connected, then silence
        "malformed": Reply(
            body=b"provider,region,gpu,billing,price\n"
            b"malformed,sg-1,H100,hourly,-3\n"
            b"malformed,mars-1,NoSuchGPU,weekly,abc\n"
        ),
        "empty": Reply(body=b""),
        "reset": Reply(body=first["reset"] * 50, reset_after_bytes=40),
    }
    entries = [
        source_entry(
            "lambda",
            server.set("/lambda/vms.csv", Reply(body=lambda_csv)),
            adapter="skypilot",
            timeout_s=DEADLINE_S,
            retries=2,
            backoff_s=0.05,
        )
    ]
    for provider, body in first.items():
        replies = [Reply(body=body)] if good else [faults[provider]]
        if provider == "busy" and not good:
            replies.append(Reply(body=sheet_csv("busy", ["1.90", "3.00"])))
        (folder / f"{provider}.toml").write_text(profile_toml(provider), encoding="utf-8")
        url = server.set(f"/{provider}.csv", *replies)
        entries.append(
            source_entry(
                provider,
                url,
                profile=f"{provider}.toml",
                timeout_s=DEADLINE_S,
                retries=2,
                backoff_s=0.05,
            )
        )
    return write_sources(folder, entries)


@pytest.mark.slow
def test_fault_matrix_good_sources_land_bad_ones_fail_and_keep_their_snapshot(
    cli: Any, sqlite_url: str, server: FaultServer, tmp_path: Path
) -> None:
    assert cli("init", "--no-demo").code == 0
    config = fault_matrix(server, tmp_path, good=True)
    first = cli("refresh", "--config", str(config), "--json")
    assert first.code == 0, first.err
    assert {r["status"] for r in first.json()["runs"]} == {"succeeded"}
    snapshots = {r["provider"]: r["snapshot_id"] for r in first.json()["runs"]}
    engine = make_engine(sqlite_url)
    current_before = current_snapshot_ids(engine)

    fault_matrix(server, tmp_path, good=False)
    second = cli("refresh", "--config", str(config), "--json")
    assert second.code == 0, second.err  # some sources succeeded
    document = second.json()
    runs = {r["provider"]: r for r in document["runs"]}
    assert {p: r["status"] for p, r in runs.items()} == {
        "lambda": "unchanged",
        "good": "succeeded",
        "busy": "succeeded",
        **dict.fromkeys(FAILING, "failed"),
    }
    errors = {p: r["error"] for p, r in runs.items()}
    assert "HTTP 500 after 3 attempt(s)" in errors["down"]
    assert "within the 4 s deadline" in errors["slow"] and "body bytes" in errors["slow"]
    assert "within the 4 s deadline (1 attempt(s), 0 body bytes" in errors["stalled"]
    assert "bad row(s), nothing imported" in errors["malformed"]
    assert "row 2, column price" in errors["malformed"]
    assert "row 3, column gpu" in errors["malformed"]
    assert "empty body" in errors["empty"]
    assert "connection" in errors["reset"] and "after 3 attempt(s)" in errors["reset"]
    for failed in FAILING:
        assert runs[failed]["snapshot_id"] is None
    assert runs["good"]["snapshot_id"] != snapshots["good"]
    assert runs["busy"]["snapshot_id"] != snapshots["busy"]
    changes = {(c["provider"], c["cards"], c["change"]) for c in document["changes"]}
    assert changes == {("good", 1, "cheaper"), ("good", 3, "new"), ("busy", 1, "cheaper")}
    # two sources each ran into the deadline, yet the whole run took about one deadline
    assert runs["slow"]["seconds"] >= DEADLINE_S and runs["stalled"]["seconds"] >= DEADLINE_S
    assert DEADLINE_S <= document["seconds"] < 2 * DEADLINE_S

    current_after = current_snapshot_ids(engine)  # failed sources keep their last good snapshot
    for provider in (*FAILING, "lambda"):
        assert current_after[provider] == current_before[provider]
    assert current_after["good"] > current_before["good"]
    for provider, runs in runs_by_provider(engine).items():
        last = runs[-1]
        assert (last["attempt"], last["status"]) == (2, runs_json_status(document, provider))
        assert last["finished_at"] is not None and (last["error"] is None) == (
            last["status"] != "failed"
        )
    engine.dispose()


def runs_json_status(document: dict[str, Any], provider: str) -> str:
    return next(str(r["status"]) for r in document["runs"] if r["provider"] == provider)


@pytest.mark.slow
def test_refresh_exits_non_zero_when_every_source_failed(
    cli: Any, server: FaultServer, tmp_path: Path
) -> None:
    assert cli("init", "--no-demo").code == 0
    url = server.set("/down.csv", Reply(503))
    config = write_sources(tmp_path, [source_entry("down", url, retries=0)])
    result = cli("refresh", "--config", str(config), "--json")
    assert result.code == 1
    assert result.json()["runs"][0]["status"] == "failed"
    human = cli("refresh", "--config", str(config), "--provider", "down", lang="en")
    assert human.code == 1 and "HTTP 503" in human.out
