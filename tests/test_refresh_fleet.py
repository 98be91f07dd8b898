"""Many sources, several worker processes, one PostgreSQL: each source refreshed exactly once.

300 loopback sheet sources with 50–300 ms of latency, 3 % of them faulty (past the deadline,
HTTP 500, a body cut short); four ``run_refresh(only_if_due=True)`` processes with
``[worker] shared = true`` start together. Every good source ends with one good run and one
snapshot, every faulty one with failed runs only, and none is left without a finished run.
The 10,000-source version of this is ``benchmarks/refresh.py --fleet``.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from comparator.catalog.db import make_engine, upgrade_schema
from tests.httpserver import fault_server
from tests.refresh_fleet import publish_fleet, run_workers, tally


@pytest.mark.slow
@pytest.mark.postgres
def test_four_workers_on_one_postgres_refresh_each_source_once(
    pg_url: str, tmp_path: Path
) -> None:
    engine = make_engine(pg_url)
    upgrade_schema(engine)
    with fault_server() as server:
        fleet = publish_fleet(server, tmp_path, 300, fault_share=0.03, shared=True)
        _, results = run_workers(fleet.config, pg_url, 4)
        found = tally(engine, fleet)
    engine.dispose()
    assert found.duplicates == []
    assert found.lost == []
    assert found.extra_snapshots == []
    assert found.wrong == []  # the faulty sources failed, every other one was refreshed
    assert found.good == 300 - len(fleet.faults)
    assert sorted(found.failed_kinds.elements()) == sorted(fleet.faults.values())
    ran = [r.statuses.get("succeeded", 0) for r in results]
    assert sum(ran) == found.good
    assert sum(1 for n in ran if n) >= 2  # the work was shared, not done by one of them
