"""The refresh: run every source's adapter concurrently, store what came back, report changes.

At most ``[worker] max_in_flight`` sources fetch at a time (default 32), each slot with an
:class:`httpx.AsyncClient` of one connection (:mod:`comparator.refresh.slots`). A source
claims its (provider, period, attempt) run ahead of its slot, together with the sources whose
turn came about the same moment (:mod:`comparator.refresh.claims`; at most ``max_in_flight``
claimed sources wait for a slot), then waits for a slot, fetches within its own deadline —
which starts only now, so 10,000 queued sources do not time out waiting — and hands what it
fetched to the store batch, which writes its snapshot and the run's outcome together, several
sources per transaction, set-based (:mod:`comparator.refresh.batch`). The report's
``timings`` say where the sources' time went (:mod:`providers.phase_clock`). A failing source
is recorded with its error and keeps its last good snapshot current; the others are
unaffected. Database work and the parse of a large sheet (or any XLSX) run in threads so a
slow parse never starves another source's deadline; a small sheet is parsed on the event loop
(:meth:`providers.base.Adapter.parse_within`).
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import random
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from zoneinfo import ZoneInfo

from sqlalchemy import Engine

from comparator.catalog.changes import PriceChange, count_changes
from comparator.catalog.queries import SnapshotInfo, load_profiles
from comparator.domain.collector import older_objects_frozen
from comparator.domain.profile import ProviderProfile
from comparator.errors import Msg, SuanliError
from comparator.refresh.batch import StoreBatch
from comparator.refresh.claims import ClaimBatch
from comparator.refresh.gather import Gathered, current_snapshots
from comparator.refresh.runs import (
    FAILED,
    GOOD,
    INTERRUPTED,
    Claim,
    GoodRuns,
    RunRecord,
    this_holder,
)
from comparator.refresh.schedule import Period, current_period, parse_cron
from comparator.refresh.slots import Slots, Turn
from comparator.refresh.source_store import Stored, finish_failed
from comparator.refresh.sources import SourcesFile
from providers import (
    PARSE_ON_LOOP,
    PhaseClock,
    SourceSpec,
    Validators,
    adapter_class,
    clock_in_use,
)

log = logging.getLogger("suanli.refresh")
SKIPPED = "skipped"


@dataclass(frozen=True)
class SourceOutcome:
    """What happened to one source in one refresh."""

    provider: str
    source: str
    status: str  # succeeded | unchanged | failed | skipped
    offers: int = 0
    snapshot_id: int | None = None
    error: str | None = None  # English, as stored on the run and logged
    attempt: int | None = None
    seconds: float = 0.0
    changes: list[PriceChange] = field(default_factory=list)
    first_snapshot: bool = False
    notes: tuple[str, ...] = ()
    error_msg: Msg | None = None  # the error as a message, for the chosen language

    def to_json(self) -> dict[str, object]:
        return {
            "provider": self.provider,
            "status": self.status,
            "offers": self.offers,
            "snapshot_id": None if self.snapshot_id is None else str(self.snapshot_id),
            "error": self.error,
            "source": self.source,
            "attempt": self.attempt,
            "seconds": round(self.seconds, 3),
            "first_snapshot": self.first_snapshot,
            "change_counts": count_changes(self.changes),
            "notes": list(self.notes),
        }


@dataclass(frozen=True)
class RefreshReport:
    period: str
    runs: list[SourceOutcome]
    seconds: float
    # seconds summed over the sources, by phase (wall; ``<phase>_cpu``: CPU where measured):
    # waiting for a slot, claiming, fetching, parsing, waiting for the store batch, the store
    # batches' phases, the event loop's CPU as a whole (:mod:`providers.phase_clock`)
    timings: dict[str, float] = field(default_factory=dict)

    @property
    def changes(self) -> list[PriceChange]:
        return [change for run in self.runs for change in run.changes]

    @property
    def all_failed(self) -> bool:
        """Every source that ran failed (skipped ones do not count): exit non-zero."""
        ran = [r for r in self.runs if r.status != SKIPPED]
        return bool(ran) and all(r.status == FAILED for r in ran)

    def to_json(self) -> dict[str, object]:
        return {
            "period": self.period,
            "seconds": round(self.seconds, 3),
            "runs": [run.to_json() for run in self.runs],
            "changes": [change.to_json() for change in self.changes],
        }


ProgressCallback = Callable[[SourceOutcome], None]


@dataclass
class _Context:
    engine: Engine
    period: Period
    timezone: ZoneInfo
    only_if_due: bool
    profiles: dict[str, ProviderProfile]
    progress: ProgressCallback | None
    slots: Slots
    batch: StoreBatch
    good: GoodRuns | None  # only_if_due: the sources already refreshed this period
    clock: PhaseClock = field(default_factory=PhaseClock)
    claims: ClaimBatch = field(init=False)
    snapshots: Gathered[str, SnapshotInfo] = field(init=False)  # skipped sources' current

    def __post_init__(self) -> None:
        self.snapshots = current_snapshots(self.engine)
        self.claims = ClaimBatch(
            self.engine, self.period.label, only_if_due=self.only_if_due, now=self.now
        )

    def now(self) -> datetime:
        return datetime.now(self.timezone)

    def took(self, phase: str, since: float) -> float:
        """Add the wall seconds since ``since`` to ``phase``; the time now."""
        now = time.perf_counter()
        self.clock.add(phase, now - since)
        return now


def run_refresh(
    engine: Engine,
    sources: SourcesFile,
    providers: Sequence[str] = (),
    *,
    only_if_due: bool = False,
    now: datetime | None = None,
    progress: ProgressCallback | None = None,
    stop: threading.Event | None = None,
) -> RefreshReport:
    """Refresh the sources of ``providers`` (all when empty) once: the weekly job's body.

    ``only_if_due`` (the worker) skips sources that already have a good run this period;
    a manual refresh runs each source as a new attempt. When ``stop`` is set (SIGTERM), the
    sources still running get the worker's ``stop_grace_s``, then are cancelled and recorded
    as failed, so the next run retries them.
    """
    zone = sources.worker.timezone
    period = current_period(parse_cron(sources.worker.cron, zone), now or datetime.now(zone))
    selected = sources.select(providers)
    with older_objects_frozen():
        return asyncio.run(
            refresh_sources(
                engine,
                selected,
                period=period,
                timezone=zone,
                only_if_due=only_if_due,
                progress=progress,
                stop=stop,
                grace_s=sources.worker.stop_grace_s,
                max_in_flight=sources.worker.max_in_flight,
            )
        )


async def refresh_sources(
    engine: Engine,
    sources: Sequence[SourceSpec],
    *,
    period: Period,
    timezone: ZoneInfo,
    only_if_due: bool = False,
    progress: ProgressCallback | None = None,
    stop: threading.Event | None = None,
    grace_s: float = 0.0,
    max_in_flight: int = 32,
) -> RefreshReport:
    """Every source concurrently on one client; one outcome per source, in input order."""
    started, loop_cpu = time.monotonic(), time.thread_time()
    clock = PhaseClock()
    profiles = await asyncio.to_thread(load_profiles, engine)
    slots = Slots(max_in_flight)
    try:
        batch = StoreBatch(engine, clock=clock)
        providers = [s.provider for s in sources]
        good = GoodRuns(engine, period.label, providers) if only_if_due else None
        context = _Context(
            engine,
            period,
            timezone,
            only_if_due,
            profiles,
            progress,
            slots,
            batch,
            good,
            clock,
        )
        with clock_in_use(clock):  # the sources' tasks (and their threads) add to it
            by_index = {  # the slots go in the order the tasks start in
                i: asyncio.ensure_future(_refresh_source(context, sources[i]))
                for i in _start_order(len(sources), only_if_due)
            }
        tasks = [by_index[i] for i in range(len(sources))]
        try:
            await _until_done_or_stopped(tasks, stop, grace_s)
        finally:
            await context.claims.drain()  # claims of cancelled sources finished as failed
            await asyncio.to_thread(batch.close)  # what was handed over is committed
    finally:
        await slots.aclose()
    outcomes = [_result_of(task, source) for task, source in zip(tasks, sources, strict=True)]
    loop_cpu = time.thread_time() - loop_cpu - clock.cpu_s.get(PARSE_ON_LOOP, 0.0)
    clock.add("event_loop", 0.0, loop_cpu)  # its parses are counted as parse
    timings = clock.timings() | batch.timings()
    return RefreshReport(period.label, outcomes, time.monotonic() - started, timings)


START_BLOCK = 100  # sources a worker walks in a row (a claim batch's worth)


def _start_order(count: int, only_if_due: bool, holder: str | None = None) -> list[int]:
    """The order sources get their turns in: the file's, or for a worker (``only_if_due``)
    the file's blocks of :data:`START_BLOCK` in an order of its own (shuffled by its host
    and process id), so that workers sharing the sources seldom walk the same block at the
    same moment, and a worker reaching a block another one has done skips it from the
    run table's answer, not by losing a race for each claim. (Each worker began at
    ``pid % count`` before: workers started together have consecutive process ids, so they
    began one source apart and raced for every claim along the way.)"""
    if not only_if_due or count == 0:
        return list(range(count))
    blocks = [range(i, min(i + START_BLOCK, count)) for i in range(0, count, START_BLOCK)]
    random.Random(holder or this_holder()).shuffle(blocks)
    return [i for block in blocks for i in block]


async def _until_done_or_stopped(
    tasks: Sequence[asyncio.Future[SourceOutcome]], stop: threading.Event | None, grace_s: float
) -> None:
    """Wait for every task; once ``stop`` is set, at most ``grace_s`` more, then cancel.

    One waiter watches all the tasks and the 0.2 s polls of ``stop`` look at it alone: an
    ``asyncio.wait`` of every pending task at each poll added and removed a callback on each
    of 10,000 tasks five times a second."""
    all_done = asyncio.ensure_future(asyncio.wait(tasks)) if tasks else None
    while all_done is not None and not all_done.done():
        if stop is not None and stop.is_set():
            break
        await asyncio.wait({all_done}, timeout=0.2)
    pending = {task for task in tasks if not task.done()}
    if pending:
        log.info("stopping: %d source(s) still running get %g s to finish", len(pending), grace_s)
        _, pending = await asyncio.wait(pending, timeout=grace_s)
    for task in pending:
        task.cancel()
    if pending:
        await asyncio.wait(pending)
    if all_done is not None:
        await all_done  # done now: every task is


def _result_of(task: asyncio.Future[SourceOutcome], source: SourceSpec) -> SourceOutcome:
    if task.cancelled():
        return SourceOutcome(source.provider, source.shown, FAILED, error=INTERRUPTED)
    return task.result()


async def _refresh_source(context: _Context, source: SourceSpec) -> SourceOutcome:
    waiting = time.perf_counter()
    async with context.slots.ahead() as ahead:
        context.took("claim_wait", waiting)
        return await _refresh_ahead(context, source, ahead)


async def _refresh_ahead(context: _Context, source: SourceSpec, ahead: Turn) -> SourceOutcome:
    """The source's claim, made while the fetches of others run; its fetch when a slot frees."""
    started = time.perf_counter()
    claim: Claim | Msg | None = None
    since: Validators | None = None
    if context.good is not None:  # a source another worker refreshed: no claim needed
        # at hand, or one read of its chunk shared by the sources asking meanwhile
        claim = await context.good.ask(source.provider)
    if claim is None:  # with the claims of the sources whose turn came about now
        claim, since = await context.claims.claim(source)
    context.took("claim", started)
    if isinstance(claim, Msg):
        ahead.release()  # a skipped source holds no turn while its snapshot is read
        outcome = await _skipped(context, source, claim)
    else:
        outcome = await _run_claimed(context, source, (claim, since), started, ahead)
    _log(outcome, context.period.label)
    if context.progress is not None:
        context.progress(outcome)
    return outcome


async def _skipped(context: _Context, source: SourceSpec, reason: Msg) -> SourceOutcome:
    current = await context.snapshots.ask(source.provider)
    offers, snapshot_id = (current.offers, current.id) if current else (0, None)
    return SourceOutcome(
        source.provider, source.shown, SKIPPED, offers, snapshot_id, str(reason), error_msg=reason
    )


async def _run_claimed(
    context: _Context,
    source: SourceSpec,
    claimed: tuple[Claim, Validators | None],
    started: float,
    ahead: Turn,
) -> SourceOutcome:
    message = None
    claim = claimed[0]
    handed = _Handed()
    try:
        stored, notes = await _fetch_and_store(context, source, claimed, ahead, handed)
    except asyncio.CancelledError:
        if not handed.done:  # not yet handed to the store batch, which else finishes the run
            finish_failed(context.engine, claim, INTERRUPTED, context.now())
        raise
    except Exception as exc:  # every failure is recorded on the run, never raised past it
        error = _error_text(source, exc)
        if isinstance(exc, SuanliError) and error == str(exc):  # nothing secret to scrub
            message = exc.msg
        if not isinstance(exc, SuanliError):
            log.error("%s: unexpected error: %s", source.provider, error)
        record = await asyncio.to_thread(finish_failed, context.engine, claim, error, context.now())
        stored, notes = Stored(record), ()
    outcome = _outcome(source, claim, stored, notes, time.perf_counter() - started)
    return dataclasses.replace(outcome, error_msg=message) if message else outcome


@dataclass
class _Handed:
    done: bool = False  # the fetch went to the store batch, which finishes the run


async def _fetch_and_store(
    context: _Context,
    source: SourceSpec,
    claimed: tuple[Claim, Validators | None],
    ahead: Turn,
    handed: _Handed,
) -> tuple[Stored, tuple[str, ...]]:
    claim, since = claimed
    waiting = time.perf_counter()
    async with context.slots.turn() as slot:
        ahead.release()  # the next source's claim may go ahead
        started = context.took("slot_wait", waiting)
        client = slot.client
        assert client is not None  # held
        adapter = adapter_class(source.adapter, source.where)(source, client, context.profiles)
        result = await adapter.fetch(since)
        started = context.took("fetch_parse", started)  # wall, from the slot to parsed offers
    handed.done = True
    stored = await context.batch.store(claim, source, result, context.now())
    context.took("store_wait", started)
    return stored, result.notes


def _error_text(source: SourceSpec, exc: BaseException) -> str:
    if isinstance(exc, SuanliError):
        return source.scrub(str(exc))
    return source.scrub(f"{source.where}: unexpected {type(exc).__name__}: {exc}")


def _outcome(
    source: SourceSpec, claim: Claim, stored: Stored, notes: tuple[str, ...], seconds: float
) -> SourceOutcome:
    record: RunRecord = stored.record
    return SourceOutcome(
        source.provider,
        source.shown,
        record.status,
        record.offers,
        record.snapshot_id,
        record.error,
        claim.attempt,
        seconds,
        stored.changes,
        stored.first_snapshot,
        notes,
    )


def _log(outcome: SourceOutcome, period: str) -> None:
    if outcome.status in GOOD:
        counts = ", ".join(f"{n} {k}" for k, n in count_changes(outcome.changes).items() if n)
        log.info(
            "%s: %s in %s (attempt %s), %d offers, snapshot %s%s, %.1f s",
            outcome.provider,
            outcome.status,
            period,
            outcome.attempt,
            outcome.offers,
            outcome.snapshot_id,
            f" ({counts})" if counts else "",
            outcome.seconds,
        )
    elif outcome.status == SKIPPED:
        log.info("%s: skipped in %s: %s", outcome.provider, period, outcome.error)
    else:
        log.warning(
            "%s: failed in %s (attempt %s): %s",
            outcome.provider,
            period,
            outcome.attempt,
            outcome.error,
        )
