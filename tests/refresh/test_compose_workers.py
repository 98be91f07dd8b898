"""What ``examples/compose.workers.yaml`` runs, run for real: N workers, one PostgreSQL.

Docker is not there in the tests, so the test reads the worker service's command from the
compose file (``suanli init --no-demo`` then ``suanli worker --config …``) and runs it as N
processes against the test PostgreSQL, on a fleet of loopback sources with
``[worker] shared = true`` (as the compose file asks). Once every source has a finished run,
the workers are stopped with SIGTERM (what ``docker compose stop`` sends): each exits 0, no
source was refreshed twice, none was lost, and the work was shared.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from sqlalchemy import select

from comparator.catalog.db import make_engine
from tests.support.httpserver import fault_server
from tests.support.refresh_fleet import ROOT, publish_fleet, tally
from tests.support.refresh_helpers import RUN

COMPOSE = ROOT / "examples" / "compose.workers.yaml"
WORKERS = 4
SOURCES = 200


def compose_commands() -> list[list[str]]:
    """The worker service's commands, ``suanli`` as ``python -m comparator``."""
    text = COMPOSE.read_text(encoding="utf-8")
    assert "--scale worker=" in text and "shared = true" in text
    block = text.split("  worker:", 1)[1].split("command:", 1)[1].split("environment:", 1)[0]
    found = re.findall(r"suanli (init --no-demo|worker --config [^\s\"]+)", block)
    assert found == ["init --no-demo", "worker --config /etc/suanli/sources.toml"], found
    return [[sys.executable, "-m", "comparator", *command.split()] for command in found]


def _finished(url: str) -> int:
    engine = make_engine(url)
    with engine.connect() as conn:
        rows = conn.execute(select(RUN.c.provider_id).where(RUN.c.status != "running")).all()
    engine.dispose()
    return len({pid for (pid,) in rows})


@pytest.mark.slow
@pytest.mark.postgres
def test_the_compose_files_workers_share_one_postgres_without_duplicates(
    pg_url: str, tmp_path: Path
) -> None:
    init, worker = compose_commands()
    env = os.environ | {"SUANLI_DB": pg_url}
    with fault_server() as server:
        fleet = publish_fleet(server, tmp_path, SOURCES, fault_share=0.02, shared=True)
        config = str(fleet.config)
        for _ in range(2):  # as each container does, twice: init is idempotent
            subprocess.run(init, cwd=ROOT, env=env, check=True, capture_output=True)
        argv = [config if arg == "/etc/suanli/sources.toml" else arg for arg in worker]
        procs = [
            subprocess.Popen(argv, cwd=ROOT, env=env, stderr=subprocess.PIPE, text=True)
            for _ in range(WORKERS)
        ]
        deadline = time.monotonic() + 300
        while _finished(pg_url) < SOURCES:
            assert all(p.poll() is None for p in procs), "a worker exited on its own"
            assert time.monotonic() < deadline, "the workers did not finish in 300 s"
            time.sleep(0.5)
        for proc in procs:
            proc.send_signal(signal.SIGTERM)
        logs = [proc.communicate(timeout=120)[1] for proc in procs]
        engine = make_engine(pg_url)
        found = tally(engine, fleet)
        engine.dispose()
    assert [p.returncode for p in procs] == [0] * WORKERS, logs[-1][-3000:]
    assert found.duplicates == []
    assert found.lost == []
    assert found.extra_snapshots == []
    assert found.wrong == []
    assert found.good == SOURCES - len(fleet.faults)
    workers_that_ran = sum(1 for log in logs if re.search(r"\b[1-9]\d* succeeded", log))
    assert workers_that_ran >= 2, "one worker did all the work"
