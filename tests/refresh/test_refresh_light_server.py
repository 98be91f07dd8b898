"""The fleet benchmark's light loopback server answers as the FaultServer does for the fleet:
each source's sheet after its latency, the faulty ones past the deadline, with HTTP 500 or a
body cut short, and 304 Not Modified to a source's ETag on the next refresh."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest
from sqlalchemy import Engine

from comparator.refresh.run import run_refresh
from comparator.refresh.sources import load_sources
from tests.support.light_httpserver import light_server
from tests.support.refresh_fleet import failure_kind, publish_fleet


@pytest.mark.slow  # the "timeout" source waits for its 10 s deadline
def test_the_light_server_serves_the_fleet_and_its_faults(engine: Engine, tmp_path: Path) -> None:
    with light_server() as server:
        fleet = publish_fleet(server, tmp_path, 12, fault_share=0.25, max_in_flight=8)
        first = run_refresh(engine, load_sources(fleet.config))
        second = run_refresh(engine, load_sources(fleet.config))
    assert sorted(fleet.faults.values()) == ["http_500", "timeout", "truncated"]
    outcome = {run.provider: run for run in first.runs}
    for provider in fleet.providers:
        fault = fleet.faults.get(provider)
        if fault is None:
            assert outcome[provider].status == "succeeded", outcome[provider].error
            assert outcome[provider].offers == 3
        else:
            assert outcome[provider].status == "failed"
            assert failure_kind(outcome[provider].error or "") == fault
    again = Counter(run.status for run in second.runs)
    assert again == Counter({"unchanged": 9, "failed": 3})  # ETag → 304 for the good ones
