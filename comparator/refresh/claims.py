"""Claims made together: the sources that got a slot at about the same moment, one transaction.

:func:`~comparator.refresh.runs.claim_run` and :func:`~comparator.refresh.runs.last_validators`
cost a source two transactions and seven round trips before its fetch could start, each
waiting for a thread of the event loop's pool and, on a busy machine, for the GIL after its
answer. :class:`ClaimBatch` gathers the claims asked for within :data:`CLAIM_WAIT_S` (at
most :data:`MAX_CLAIMS`) and :func:`claim_runs` makes them in one transaction with the same
rules: a transaction advisory lock per (provider, period) tried, not waited for (of two
workers claiming one source, one goes on and the other skips it); the period's runs of every
provider read in one query; one insert of the new runs; what each source's last good run saw
read in one more. When two processes insert the same run at the same moment (SQLite, or a
claim made outside these locks), the batch is rolled back and each source is claimed alone.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import Connection, Engine, Row, func, insert, select, text
from sqlalchemy.exc import IntegrityError

from comparator.catalog.db import advisory_key, write_transaction
from comparator.errors import Msg
from comparator.refresh.batched import Batched
from comparator.refresh.runs import (
    GOOD,
    INTERRUPTED,
    RUN,
    RUNNING,
    SNAPSHOT,
    Claim,
    claim_run,
    last_validators,
    reason_to_skip,
    this_holder,
)
from comparator.refresh.source_store import finish_failed
from providers import SourceSpec, Validators, phase

CLAIM_WAIT_S = 0.02  # after the first claim asked for, how long a batch gathers more
MAX_CLAIMS = 100
_IN_CHUNK = 500
_TRY_LOCKS = text(
    "SELECT k FROM unnest(CAST(:keys AS bigint[])) AS t(k) WHERE pg_try_advisory_xact_lock(k)"
)

Claimed = tuple[Claim | Msg, Validators | None]


@dataclass(frozen=True)
class ClaimRequest:
    provider: str
    source: str  # as shown (SourceSpec.shown): the run's source
    deadline_s: float


def claim_runs(
    engine: Engine,
    requests: Sequence[ClaimRequest],
    period: str,
    *,
    only_if_due: bool,
    now: datetime,
) -> list[Claimed]:
    """:func:`claim_run` and, for each claim made, :func:`last_validators`, of every request
    (distinct providers) in one transaction; per request: the claim or the reason to skip."""
    try:
        with phase("claim_db"), write_transaction(engine) as conn:
            return _claim_in(conn, requests, period, only_if_due, now)
    except IntegrityError:  # another process inserted one of these runs first
        return [_claim_alone(engine, r, period, only_if_due, now) for r in requests]


def _claim_alone(
    engine: Engine, request: ClaimRequest, period: str, only_if_due: bool, now: datetime
) -> Claimed:
    claim = claim_run(
        engine,
        request.provider,
        request.source,
        period,
        only_if_due=only_if_due,
        now=now,
        deadline_s=request.deadline_s,
    )
    if isinstance(claim, Msg):
        return claim, None
    return claim, last_validators(engine, request.provider, request.source)


def _claim_in(
    conn: Connection,
    requests: Sequence[ClaimRequest],
    period: str,
    only_if_due: bool,
    now: datetime,
) -> list[Claimed]:
    providers = [r.provider for r in requests]
    locked = _try_locks(conn, providers, period)
    runs = _runs_of(conn, [p for p in providers if p in locked], period)
    answers: dict[str, Claim | Msg] = {}
    new: list[dict[str, Any]] = []
    busy = Msg("another worker is claiming period {period} at this moment", period=period)
    for request in requests:
        pid = request.provider
        reason = busy if pid not in locked else None
        reason = reason or reason_to_skip(
            conn, runs.get(pid, []), only_if_due, now, request.deadline_s
        )
        if reason is not None:
            answers[pid] = reason
            continue
        attempt = max((r.attempt for r in runs.get(pid, [])), default=0) + 1
        new.append(
            {"provider_id": pid, "source": request.source, "period": period}
            | {"attempt": attempt, "status": RUNNING, "started_at": now, "offers": 0}
            | {"holder": this_holder()}
        )
    if new:
        statement = insert(RUN).returning(RUN.c.id, sort_by_parameter_order=True)
        ids = conn.execute(statement, new).scalars().all()
        for row, run_id in zip(new, ids, strict=True):
            answers[row["provider_id"]] = Claim(
                int(run_id), row["provider_id"], period, row["attempt"]
            )
    seen = _validators_of(conn, [r for r in requests if isinstance(answers[r.provider], Claim)])
    return [(answers[r.provider], seen.get((r.provider, r.source))) for r in requests]


def _try_locks(conn: Connection, providers: Sequence[str], period: str) -> set[str]:
    """The providers whose (provider, period) claim lock this transaction got (PostgreSQL;
    SQLite's write lock already serialises claims: all of them)."""
    if conn.dialect.name != "postgresql":
        return set(providers)
    keys = {advisory_key(f"claim:{pid}:{period}"): pid for pid in providers}
    got = conn.execute(_TRY_LOCKS, {"keys": list(keys)}).scalars()
    return {keys[int(k)] for k in got}


def _runs_of(conn: Connection, providers: Sequence[str], period: str) -> dict[str, list[Row[Any]]]:
    runs: dict[str, list[Row[Any]]] = {}
    for start in range(0, len(providers), _IN_CHUNK):
        chunk = providers[start : start + _IN_CHUNK]
        query = select(RUN).where(RUN.c.provider_id.in_(chunk), RUN.c.period == period)
        for row in conn.execute(query):
            runs.setdefault(row.provider_id, []).append(row)
    return runs


def _validators_of(
    conn: Connection, requests: Sequence[ClaimRequest]
) -> dict[tuple[str, str], Validators]:
    """:func:`last_validators` of each request's (provider, source), in queries of 500."""
    found: dict[tuple[str, str], tuple[int, Validators]] = {}
    current = (
        select(func.max(SNAPSHOT.c.id))
        .where(SNAPSHOT.c.provider_id == RUN.c.provider_id)
        .scalar_subquery()
    )
    for start in range(0, len(requests), _IN_CHUNK):
        chunk = sorted({r.provider for r in requests[start : start + _IN_CHUNK]})
        query = select(
            RUN.c.id, RUN.c.provider_id, RUN.c.source, RUN.c.etag, RUN.c.last_modified
        ).add_columns(RUN.c.body_sha256)
        query = query.where(
            RUN.c.provider_id.in_(chunk), RUN.c.status.in_(GOOD), RUN.c.snapshot_id == current
        )
        for run_id, pid, source, etag, modified, sha in conn.execute(query):
            key = (pid, source)
            if key not in found or found[key][0] < run_id:
                found[key] = (run_id, Validators(etag, modified, sha))
    return {key: validators for key, (_, validators) in found.items()}


class ClaimBatch(Batched[ClaimRequest, Claimed]):
    """Gathers the claims asked for at about the same moment into one :func:`claim_runs`."""

    def __init__(
        self,
        engine: Engine,
        period: str,
        *,
        only_if_due: bool,
        now: Callable[[], datetime],
        wait_s: float = CLAIM_WAIT_S,
        max_claims: int = MAX_CLAIMS,
    ) -> None:
        super().__init__(wait_s, max_claims)
        self.engine, self.period, self.only_if_due, self.now = engine, period, only_if_due, now

    async def claim(self, source: SourceSpec) -> Claimed:
        """The source's claim (or the reason to skip it) and its last good run's validators.

        A source cancelled while it waits (the worker stopped) takes its request back when
        its batch has not started; else the batch's transaction still makes its claim (it is
        shielded: one source's cancel must not roll back the others'), and the run it made is
        finished as failed, ``interrupted``, as soon as it commits (:meth:`_release_lost`):
        no run is left ``running`` by a live worker. :meth:`drain` waits for those writes."""
        request = ClaimRequest(source.provider, source.shown, source.policy.deadline_s)
        answer = self.submit(request)
        try:
            return await asyncio.shield(answer)  # a claim made is a run: see run.py
        except asyncio.CancelledError:
            if not self.withdraw(answer):
                answer.add_done_callback(self._release_lost)
            raise

    def _release_lost(self, answer: asyncio.Future[Claimed]) -> None:
        """The run claimed for a source cancelled meanwhile, finished as failed."""
        if answer.cancelled() or answer.exception() is not None:
            return
        claim, _ = answer.result()
        if isinstance(claim, Claim):
            self._start(self._finish_lost(claim, self.now()))

    async def _finish_lost(self, claim: Claim, now: datetime) -> None:
        await asyncio.to_thread(finish_failed, self.engine, claim, INTERRUPTED, now)

    async def flush(self, batch: list[tuple[ClaimRequest, asyncio.Future[Claimed]]]) -> None:
        requests = [request for request, _ in batch]
        try:
            if len({r.provider for r in requests}) < len(requests):  # one provider twice
                answers = [one for r in requests for one in await self._claims([r])]
            else:
                answers = await self._claims(requests)
        except Exception as exc:  # the database is gone: each source records its failure
            for _, done in batch:
                done.set_exception(exc)
            return
        for (_, done), answer in zip(batch, answers, strict=True):
            done.set_result(answer)

    async def _claims(self, requests: list[ClaimRequest]) -> list[Claimed]:
        now = self.now()
        return await asyncio.to_thread(
            claim_runs, self.engine, requests, self.period, only_if_due=self.only_if_due, now=now
        )
