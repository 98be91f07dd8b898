"""Questions asked at about the same moment, answered together: one query for many sources.

A source skipped by a worker (another worker refreshed it, or is refreshing it) reports its
provider's current snapshot. One query per skipped source was, with two workers sharing
10,000 sources, 5,000 queries per worker, each a hop to a thread and back.
:class:`Gathered` collects the keys asked within :data:`GATHER_WAIT_S` (at most ``most``
asks: :class:`~comparator.refresh.batched.Batched`) and answers them with one call of a
blocking function in a thread.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Hashable, Sequence
from typing import TypeVar

from sqlalchemy import Engine

from comparator.catalog.bulk import current_snapshots_of
from comparator.catalog.queries import SnapshotInfo
from comparator.refresh.batched import Batched
from providers import phase

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")
GATHER_WAIT_S = 0.02


class Gathered(Batched[K, V | None]):
    """``await ask(key)``: ``answer(keys)[key]`` (None when absent), many keys a call."""

    def __init__(
        self,
        answer: Callable[[Sequence[K]], dict[K, V]],
        *,
        wait_s: float = GATHER_WAIT_S,
        most: int = 500,
    ) -> None:
        super().__init__(wait_s, most)
        self.answer = answer

    async def ask(self, key: K) -> V | None:
        return await self.submit(key)

    async def flush(self, batch: list[tuple[K, asyncio.Future[V | None]]]) -> None:
        keys = list(dict.fromkeys(key for key, _ in batch))  # each asked once, in order
        try:
            found = await asyncio.to_thread(self.answer, keys)
        except Exception as exc:  # each asker gets the error
            for _, done in batch:
                if not done.done():
                    done.set_exception(exc)
            return
        for key, done in batch:
            if not done.done():
                done.set_result(found.get(key))


def current_snapshots(engine: Engine) -> Gathered[str, SnapshotInfo]:
    """The current snapshot of each provider asked for, 500 providers a query."""

    def answer(providers: Sequence[str]) -> dict[str, SnapshotInfo]:
        with phase("skip_db"), engine.connect() as conn:
            return current_snapshots_of(conn, providers)

    return Gathered(answer)
