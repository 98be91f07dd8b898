"""The weekly job: `suanli worker` writes the dated market report into the `[report]` folder of
its sources file after the scheduled refresh, keeps the newest `keep` dates, and lists a source
that failed with its last good prices marked stale."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path

import pytest

from comparator.catalog.db import make_engine, upgrade_schema
from comparator.errors import InputError
from comparator.refresh.sources import load_sources
from tests.refresh.test_worker import SHANGHAI, WorkerProcess
from tests.support.httpserver import FaultServer, Reply, fault_server
from tests.support.refresh_helpers import profile_toml, sheet_csv, source_entry, write_sources


@pytest.fixture()
def server() -> Iterator[FaultServer]:
    with fault_server() as running:
        yield running


def test_a_scheduled_run_writes_the_dated_report(server: FaultServer, tmp_path: Path) -> None:
    db_url = f"sqlite:///{tmp_path / 'catalog.db'}"
    engine = make_engine(db_url)
    upgrade_schema(engine)
    for provider in ("alpha", "beta"):
        (tmp_path / f"{provider}.toml").write_text(profile_toml(provider), encoding="utf-8")
    url = server.set("/alpha.csv", Reply(body=sheet_csv("alpha", ["3.10", "2.90"])))
    entries = [
        source_entry("alpha", url, profile="alpha.toml"),
        source_entry("beta", "beta-missing.csv", profile="beta.toml"),
    ]
    config = write_sources(tmp_path, entries)
    report_table = '\n[report]\nfolder = "reports"\nkeep = 2\nlang = "en"\n'
    config.write_text(config.read_text(encoding="utf-8") + report_table, encoding="utf-8")
    folder = tmp_path / "reports"
    folder.mkdir()
    for old in ("2026-01-01", "2026-01-02"):  # two earlier weekly reports
        for suffix in ("html", "json"):
            (folder / f"market-{old}.{suffix}").write_text("{}", encoding="utf-8")

    worker = WorkerProcess(db_url, config)
    worker.wait_for(r"market report of \S+ written")
    assert worker.terminate() == 0

    today = datetime.now(SHANGHAI).date().isoformat()
    assert sorted(p.name for p in folder.iterdir()) == [
        "market-2026-01-02.html",
        "market-2026-01-02.json",
        f"market-{today}.html",
        f"market-{today}.json",
    ]  # keep = 2: the oldest date went
    document = json.loads((folder / f"market-{today}.json").read_text(encoding="utf-8"))
    [row] = document["index"]
    assert (row["gpu"], row["billing"], row["current"]["offers"]) == ("H100-SXM5-80GB", "hourly", 2)
    assert [f["provider"] for f in document["failed_sources"]] == ["beta"]
    html = (folder / f"market-{today}.html").read_text(encoding="utf-8")
    assert "GPU compute market report" in html and "beta" in html
    engine.dispose()


def test_a_bad_report_table_names_the_key(tmp_path: Path) -> None:
    entry = source_entry("alpha", "alpha.csv")
    config = write_sources(tmp_path, [entry])
    config.write_text(
        config.read_text(encoding="utf-8") + '\n[report]\nfolder = "r"\nkeep = 0\n',
        encoding="utf-8",
    )
    with pytest.raises(InputError) as caught:
        load_sources(config)
    assert "[report] keep: expected a whole number 1–520, got 0" in str(caught.value)
