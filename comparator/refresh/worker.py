"""``suanli worker``: the scheduled refresh, on the sources file's cron (APScheduler 3.11).

One job, run once at start (catch-up) and then at every cron fire time. Each run takes the
worker lease, then refreshes only the sources without a good run in the current period — so
after any downtime, however long, the worker runs each source once, not once per missed week,
and a second worker beside it runs nothing. Late fires still run (``misfire_grace_time=None``),
coalesced into one. SIGTERM/SIGINT let a running refresh finish, then the process exits 0.
"""

from __future__ import annotations

import logging
import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from types import FrameType

from apscheduler.schedulers.background import BackgroundScheduler
from sqlalchemy import Engine

from comparator.errors import SuanliError
from comparator.refresh.lease import hold_lease
from comparator.refresh.run import RefreshReport, run_refresh
from comparator.refresh.schedule import parse_cron
from comparator.refresh.sources import load_sources

log = logging.getLogger("suanli.worker")
LEASE_NAME = "refresh-worker"


def refresh_due(engine: Engine, sources_path: Path) -> RefreshReport | None:
    """One scheduled run: under the lease, refresh the sources still due this period."""
    try:
        sources = load_sources(sources_path)  # re-read: edits apply without a restart
        with hold_lease(engine, LEASE_NAME) as holder:
            if holder is not None:
                log.info("lease %r is held by %s; that worker refreshes", LEASE_NAME, holder)
                return None
            report = run_refresh(engine, sources, only_if_due=True)
    except SuanliError as exc:
        log.error("refresh not run: %s", exc)
        return None
    statuses = [run.status for run in report.runs]
    counts = ", ".join(f"{statuses.count(s)} {s}" for s in sorted(set(statuses)))
    log.info("refresh of period %s finished in %.1f s: %s", report.period, report.seconds, counts)
    return report


def run_worker(engine: Engine, sources_path: Path, stop: threading.Event | None = None) -> None:
    """Run until SIGTERM/SIGINT (or ``stop``): catch up now, then follow the cron."""
    sources = load_sources(sources_path)  # a broken file fails at start, not at 03:00
    zone = sources.worker.timezone
    trigger = parse_cron(sources.worker.cron, zone)
    stop = stop or threading.Event()
    scheduler = BackgroundScheduler(timezone=zone)
    scheduler.add_job(
        refresh_due,
        trigger,
        args=(engine, sources_path),
        id="refresh",
        name="refresh",
        next_run_time=datetime.now(zone),  # catch up at start
        misfire_grace_time=None,
        coalesce=True,
        max_instances=1,
    )
    with _stop_on_signals(stop):
        scheduler.start()
        log.info(
            "worker started: %d source(s), cron %r %s; catching up now",
            len(sources.sources),
            sources.worker.cron,
            zone.key,
        )
        while not stop.wait(1.0):
            pass
        log.info("stopping: letting a running refresh finish")
        scheduler.shutdown(wait=True)
    log.info("worker stopped")


@contextmanager
def _stop_on_signals(stop: threading.Event) -> Iterator[None]:
    def handle(signum: int, _frame: FrameType | None) -> None:
        log.info("received %s", signal.Signals(signum).name)
        stop.set()

    if threading.current_thread() is not threading.main_thread():
        yield  # only the main thread may install signal handlers (tests run it in threads)
        return
    previous = {sig: signal.signal(sig, handle) for sig in (signal.SIGTERM, signal.SIGINT)}
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
