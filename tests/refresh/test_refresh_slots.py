"""Many sources: at most max_in_flight at a time, each deadline starting when its turn comes."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy import Engine

from comparator.refresh.run import run_refresh
from comparator.refresh.sources import load_sources
from tests.support.httpserver import Reply, fault_server
from tests.support.refresh_helpers import profile_toml, sheet_csv, source_entry, write_sources

SOURCES = 120
SLOTS = 4
DELAY_S = 0.15  # each answer: 120 sources / 4 slots x 0.15 s = at least 4.5 s in all
TIMEOUT_S = 2  # per source: more than half would run out if deadlines started when queued


@pytest.mark.slow
def test_queued_sources_do_not_time_out_and_in_flight_is_capped(
    engine: Engine, tmp_path: Path
) -> None:
    with fault_server() as server:
        entries = []
        for n in range(SOURCES):
            provider = f"p{n:03d}"
            (tmp_path / f"{provider}.toml").write_text(profile_toml(provider), encoding="utf-8")
            body = sheet_csv(provider, ["2.00"])
            url = server.set(f"/{provider}.csv", Reply(body=body, delay_s=DELAY_S))
            entries.append(
                source_entry(
                    provider, url, profile=f"{provider}.toml", timeout_s=TIMEOUT_S, retries=0
                )
            )
        config = write_sources(tmp_path, entries, worker_extra=f"max_in_flight = {SLOTS}\n")
        report = run_refresh(engine, load_sources(config))
        most = server.max_in_flight
    statuses = [run.status for run in report.runs]
    assert statuses.count("succeeded") == SOURCES, {r.error for r in report.runs}
    assert report.seconds > SOURCES / SLOTS * DELAY_S * 0.9  # they really queued ...
    assert most <= SLOTS  # ... at most SLOTS at a time, and none timed out
