"""The worker's log reads in SUANLI_TIMEZONE with the offset, and says when it runs next
(issue 25: it logged in the host's UTC without a zone and never said when it would run)."""

from __future__ import annotations

import logging
import re
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from comparator.catalog.db import make_engine, upgrade_schema
from comparator.refresh.worker import ZonedFormatter
from tests.refresh.test_worker import WorkerProcess, sources_file
from tests.support.httpserver import FaultServer, fault_server


@pytest.fixture()
def server() -> Iterator[FaultServer]:
    with fault_server() as running:
        yield running


@pytest.mark.parametrize(
    ("zone", "shown"),
    [
        ("Asia/Shanghai", "2026-12-07T03:00:04+08:00 INFO suanli.worker: hello"),
        ("America/New_York", "2026-12-06T14:00:04-05:00 INFO suanli.worker: hello"),
    ],
)
def test_log_times_carry_the_zone_and_its_offset(zone: str, shown: str) -> None:
    formatter = ZonedFormatter("%(asctime)s %(levelname)s %(name)s: %(message)s", ZoneInfo(zone))
    record = logging.LogRecord("suanli.worker", logging.INFO, __file__, 1, "hello", None, None)
    record.created = datetime(2026, 12, 7, 3, 0, 4, tzinfo=ZoneInfo("Asia/Shanghai")).timestamp()
    assert formatter.format(record) == shown


@pytest.mark.slow
def test_the_worker_logs_in_the_configured_zone_and_its_next_run(
    server: FaultServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SUANLI_TIMEZONE", "America/New_York")
    db_url = f"sqlite:///{tmp_path / 'catalog.db'}"
    upgrade_schema(make_engine(db_url))
    config = sources_file(server, tmp_path)
    worker = WorkerProcess(db_url, config)
    worker.wait_for(r"next scheduled refresh at")
    assert worker.terminate() == 0
    stamps = re.findall(r"^(\S+) INFO ", worker.log, re.M)
    assert stamps, worker.log
    for stamp in stamps:  # New York's offset (EST or EDT), whatever the host's zone
        assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d-0[45]:00", stamp), stamp
    upcoming = re.search(r"next scheduled refresh at (\S+)", worker.log)
    assert upcoming is not None
    when = datetime.fromisoformat(upcoming.group(1))  # the cron's: Monday 03:00 Asia/Shanghai
    assert when.utcoffset() is not None and when.weekday() == 0 and when.hour == 3
