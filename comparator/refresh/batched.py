"""Requests asked at about the same moment, answered together.

A worker's sources reach the same step (their claim, a skipped source's current snapshot)
within milliseconds of each other; one transaction for many of them saves a thread hop and
round trips each. :class:`Batched` collects the requests asked within ``wait_s`` of the first
(at most ``most``) and hands them to :meth:`Batched.flush` together, in a task of the running
loop; each asker awaits its own future.
"""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from typing import Any, Generic, TypeVar

R = TypeVar("R")
A = TypeVar("A")


class Batched(Generic[R, A]):
    """The requests pending, flushed at ``most`` or ``wait_s`` after the first."""

    def __init__(self, wait_s: float, most: int) -> None:
        self.wait_s, self.most = wait_s, most
        self._pending: list[tuple[R, asyncio.Future[A]]] = []
        self._tasks: set[asyncio.Task[None]] = set()

    def submit(self, request: R) -> asyncio.Future[A]:
        """The future of ``request``'s answer (set by :meth:`flush`)."""
        done: asyncio.Future[A] = asyncio.get_running_loop().create_future()
        self._pending.append((request, done))
        if len(self._pending) >= self.most:
            self._start(self.flush(self._take()))
        elif len(self._pending) == 1:
            self._start(self._after_wait())
        return done

    async def flush(self, batch: list[tuple[R, asyncio.Future[A]]]) -> None:
        """Answer every request of ``batch`` (each future's result or exception)."""
        raise NotImplementedError

    def withdraw(self, answer: asyncio.Future[A]) -> bool:
        """Take back a request not yet handed to :meth:`flush` (its future cancelled); False
        when its batch is already under way (its answer will come)."""
        for n, (_, pending) in enumerate(self._pending):
            if pending is answer:
                del self._pending[n]
                answer.cancel()
                return True
        return False

    async def drain(self) -> None:
        """Wait for every batch under way and every task they started (:meth:`_start`)."""
        while self._tasks:
            await asyncio.wait(set(self._tasks))

    def _take(self) -> list[tuple[R, asyncio.Future[A]]]:
        taken, self._pending = self._pending, []
        return taken

    def _start(self, work: Coroutine[Any, Any, None]) -> None:
        task = asyncio.ensure_future(work)
        self._tasks.add(task)  # held until done: the loop keeps only weak references
        task.add_done_callback(self._tasks.discard)

    async def _after_wait(self) -> None:
        await asyncio.sleep(self.wait_s)
        if self._pending:
            await self.flush(self._take())
