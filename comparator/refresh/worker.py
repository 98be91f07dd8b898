"""``suanli worker``: the scheduled refresh, on the sources file's cron (APScheduler 3.11).

One job, run once at start (catch-up) and then at every cron fire time. Each run takes the
worker lease, then refreshes only the sources without a good run in the current period — so
after any downtime, however long, the worker runs each source once, not once per missed week,
and a second worker beside it runs nothing. Late fires still run (``misfire_grace_time=None``),
coalesced into one. A run that finds the lease held by a live worker, or cannot start, looks
again after :data:`RETRY_S` (so a standby takes over from a worker that died). With
``[worker] shared = true`` there is no lease: several workers (on one PostgreSQL) run together
and share the sources through the per-source claims, each source once per period; a worker
that left sources to another one still running them looks again after :data:`RETRY_S`. A refresh still
running when the next period begins (a long catch-up) runs the new period right after, so no
period is skipped.

SIGTERM/SIGINT: sources still running get ``[worker] stop_grace_s`` (default 30 s) to finish,
then they are cancelled and recorded as failed (the next start retries them); the process
exits 0 within the grace plus :data:`STOP_MARGIN_S`, whatever state it is in. If a refresh does
not end even then (a thread stuck in a database call), ``run_worker`` returns False and the
command exits 1 without waiting for it.
"""

from __future__ import annotations

import logging
import signal
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import datetime, timedelta
from functools import partial
from pathlib import Path
from types import FrameType
from zoneinfo import ZoneInfo

from apscheduler.schedulers.background import BackgroundScheduler
from sqlalchemy import Engine

from comparator.errors import SuanliError
from comparator.refresh.lease import hold_lease
from comparator.refresh.run import RefreshReport, run_refresh
from comparator.refresh.schedule import current_period, parse_cron
from comparator.refresh.sources import SourcesFile, load_sources

log = logging.getLogger("suanli.worker")
LEASE_NAME = "refresh-worker"
STOP_MARGIN_S = 15.0  # after the grace: time for cancelled sources to record their failure
RETRY_S = 60.0  # lease held by a live worker, or the run failed to start: look again then
#: what runs after each scheduled refresh (``suanli worker`` writes the market report)
AfterRefresh = Callable[[SourcesFile, RefreshReport], None]


class ZonedFormatter(logging.Formatter):
    """Log times in one zone, with its offset (``2026-12-07T03:00:04+08:00``): the worker's
    lines read in ``SUANLI_TIMEZONE`` whatever the host's zone, and never ambiguously."""

    def __init__(self, fmt: str, zone: ZoneInfo) -> None:
        super().__init__(fmt)
        self.zone = zone

    def formatTime(self, record: logging.LogRecord, datefmt: str | None = None) -> str:
        moment = datetime.fromtimestamp(record.created, self.zone)
        return moment.strftime(datefmt) if datefmt else moment.isoformat(timespec="seconds")


def _log_next_run(scheduler: BackgroundScheduler) -> None:
    """Say when the cron runs the refresh next (its zone's offset included)."""
    job = scheduler.get_job("refresh")
    upcoming = getattr(job, "next_run_time", None)
    if upcoming is not None:
        log.info("next scheduled refresh at %s", upcoming.isoformat(timespec="seconds"))


def refresh_due(
    engine: Engine,
    sources_path: Path,
    stop: threading.Event | None = None,
    after: AfterRefresh | None = None,
) -> RefreshReport | None:
    """One scheduled run: under the lease, refresh the sources still due this period, then
    call ``after`` (the market report; its failure is logged, the worker goes on).

    When a new period began while it ran (a catch-up longer than the cron's interval), the
    new period is refreshed right away too: the scheduler drops fires that come while a run
    is still going, so this loop is what keeps every period.
    """
    report = None
    while stop is None or not stop.is_set():
        try:
            sources = load_sources(sources_path)  # re-read: edits apply without a restart
            if sources.worker.shared:  # per-source claims share the work between workers
                report = run_refresh(engine, sources, only_if_due=True, stop=stop)
            else:
                with hold_lease(engine, LEASE_NAME) as holder:
                    if holder is not None:
                        log.info(
                            "lease %r is held by %s; that worker refreshes", LEASE_NAME, holder
                        )
                        return None
                    report = run_refresh(engine, sources, only_if_due=True, stop=stop)
        except SuanliError as exc:
            log.error("refresh not run: %s", exc)
            return None
        _log_report(report)
        _after(after, sources, report)
        zone = sources.worker.timezone
        now = current_period(parse_cron(sources.worker.cron, zone), datetime.now(zone)).label
        if now == report.period:
            break
        log.info("period %s began during the refresh of %s: refreshing it now", now, report.period)
    return report


def _after(after: AfterRefresh | None, sources: SourcesFile, report: RefreshReport) -> None:
    if after is None:
        return
    try:
        after(sources, report)
    except Exception as exc:  # a report that cannot be written never stops the refreshes
        log.error("after the refresh of %s: %s: %s", report.period, type(exc).__name__, exc)


def _elsewhere(report: RefreshReport) -> bool:
    """Whether some sources were left to another worker still running them (look again)."""
    return any(
        run.status == "skipped" and not (run.error or "").startswith("already refreshed")
        for run in report.runs
    )


def _log_report(report: RefreshReport) -> None:
    statuses = [run.status for run in report.runs]
    counts = ", ".join(f"{statuses.count(s)} {s}" for s in sorted(set(statuses)))
    log.info("refresh of period %s finished in %.1f s: %s", report.period, report.seconds, counts)


def run_worker(
    engine: Engine,
    sources_path: Path,
    stop: threading.Event | None = None,
    after: AfterRefresh | None = None,
) -> bool:
    """Run until SIGTERM/SIGINT (or ``stop``): catch up now, then follow the cron; ``after``
    runs after each refresh (see :func:`refresh_due`).

    Returns whether every refresh ended within the grace (False: one is still stuck).
    """
    sources = load_sources(sources_path)  # a broken file fails at start, not at 03:00
    zone = sources.worker.timezone
    trigger = parse_cron(sources.worker.cron, zone)
    stop = stop or threading.Event()
    running = threading.Lock()  # one refresh at a time in this process
    scheduler = BackgroundScheduler(timezone=zone)

    def job() -> None:
        report = refresh_due(engine, sources_path, stop, after)
        if not stop.is_set():
            _log_next_run(scheduler)
        if (report is None or _elsewhere(report)) and not stop.is_set():
            retry_at = datetime.now(zone) + timedelta(seconds=RETRY_S)
            log.info("trying again at %s", retry_at.isoformat(timespec="seconds"))
            scheduler.add_job(
                partial(_one_at_a_time, running, stop, job),
                "date",
                run_date=retry_at,
                id="retry",
                replace_existing=True,
                misfire_grace_time=None,
            )

    scheduler.add_job(
        partial(_one_at_a_time, running, stop, job),
        trigger,
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
        grace = sources.worker.stop_grace_s
        log.info("stopping: a running refresh gets %g s to finish", grace)
        scheduler.shutdown(wait=False)
        stopped = running.acquire(timeout=grace + STOP_MARGIN_S)
        if stopped:
            running.release()
    if not stopped:
        log.error("a refresh did not stop within %g s; exiting without it", grace + STOP_MARGIN_S)
        return False
    log.info("worker stopped")
    return True


def _one_at_a_time(lock: threading.Lock, stop: threading.Event, job: Callable[[], None]) -> None:
    """Run ``job`` once no other refresh of this process runs, unless the worker is stopping."""
    while not lock.acquire(timeout=0.5):
        if stop.is_set():
            return
    try:
        if not stop.is_set():
            job()
    finally:
        lock.release()


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
