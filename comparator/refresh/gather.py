"""Questions asked at about the same moment, answered together: one query for many sources.

A source skipped by a worker (another worker refreshed it, or is refreshing it) reports its
provider's current snapshot. One query per skipped source was, with two workers sharing
10,000 sources, 5,000 queries per worker, each a hop to a thread and back.
:class:`Gathered` collects the keys asked within :data:`GATHER_WAIT_S` (at most ``most``)
and answers them with one call of a blocking function in a thread.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine, Hashable, Sequence
from typing import Any, Generic, TypeVar

from sqlalchemy import Engine

from comparator.catalog.bulk import current_snapshots_of
from comparator.catalog.queries import SnapshotInfo
from providers import phase

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")
GATHER_WAIT_S = 0.02


class Gathered(Generic[K, V]):
    """``await ask(key)``: ``answer(keys)[key]`` (None when absent), many keys a call."""

    def __init__(
        self,
        answer: Callable[[Sequence[K]], dict[K, V]],
        *,
        wait_s: float = GATHER_WAIT_S,
        most: int = 500,
    ) -> None:
        self.answer, self.wait_s, self.most = answer, wait_s, most
        self._pending: dict[K, list[asyncio.Future[V | None]]] = {}
        self._tasks: set[asyncio.Task[None]] = set()

    async def ask(self, key: K) -> V | None:
        done: asyncio.Future[V | None] = asyncio.get_running_loop().create_future()
        first = not self._pending
        self._pending.setdefault(key, []).append(done)
        if len(self._pending) >= self.most:
            self._start(self._answer(self._take()))
        elif first:
            self._start(self._after_wait())
        return await done

    def _take(self) -> dict[K, list[asyncio.Future[V | None]]]:
        taken, self._pending = self._pending, {}
        return taken

    def _start(self, work: Coroutine[Any, Any, None]) -> None:
        task = asyncio.ensure_future(work)
        self._tasks.add(task)  # held until done: the loop keeps only weak references
        task.add_done_callback(self._tasks.discard)

    async def _after_wait(self) -> None:
        await asyncio.sleep(self.wait_s)
        if self._pending:
            await self._answer(self._take())

    async def _answer(self, asked: dict[K, list[asyncio.Future[V | None]]]) -> None:
        try:
            found = await asyncio.to_thread(self.answer, list(asked))
        except Exception as exc:  # each asker gets the error
            for futures in asked.values():
                for done in futures:
                    if not done.done():
                        done.set_exception(exc)
            return
        for key, futures in asked.items():
            for done in futures:
                if not done.done():
                    done.set_result(found.get(key))


def current_snapshots(engine: Engine) -> Gathered[str, SnapshotInfo]:
    """The current snapshot of each provider asked for, 500 providers a query."""

    def answer(providers: Sequence[str]) -> dict[str, SnapshotInfo]:
        with phase("skip_db"), engine.connect() as conn:
            return current_snapshots_of(conn, providers)

    return Gathered(answer)
