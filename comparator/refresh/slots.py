"""The refresh's turns to fetch: ``[worker] max_in_flight`` slots, each with its own client.

One :class:`httpx.AsyncClient` of ``max_in_flight`` connections served every source before;
its pool looks through all of its connections at every request and every response's end
(``httpcore``'s ``_assign_requests_to_connections``, a readability check of each idle
socket), which with 64 sources in flight was a third of the event loop's CPU. A slot's client
has one connection: a source fetches its documents one after the other on it, and the next
source of the slot reuses it when it goes to the same host. Its transport is
:class:`providers.H11Transport` (``h11`` over an asyncio protocol, no ``httpcore`` pool or
``anyio`` cancel scopes per read: 10,000 sources, two workers, the event loop's CPU per
source 2.2 → 1.8 ms). The clients share one SSL context (loading the certificates per client
cost tens of milliseconds each).

Claims go ahead of the slots: a source takes one of ``max_in_flight`` turns to be claimed
(:meth:`Slots.ahead`) and gives it back once it has its slot, or once it is skipped. So while
the slots fetch, the next sources' claims are made (at most ``max_in_flight`` claimed sources
wait for a slot), and a slot goes from one fetch to the next without waiting for a claim
transaction; a skipped source never takes a slot. Before, a slot was held from the claim on:
with two workers sharing 10,000 sources, the claims (about 0.2 s each, in batches) and the
skipped sources' reads held the slots a third of their time.
"""

from __future__ import annotations

import asyncio

import httpx

from providers import H11Transport

USER_AGENT = "suanli-refresh (+https://github.com/suanli/suanli)"


class Slots:
    """``count`` slots; :meth:`turn` waits for one (first come, first served)."""

    def __init__(self, count: int) -> None:
        self._free = asyncio.Semaphore(count)
        self._ahead = asyncio.Semaphore(max(1, count))
        tls = httpx.create_ssl_context()
        self._clients = [
            httpx.AsyncClient(
                transport=H11Transport(tls),
                verify=tls,  # (for the transports of proxies from the environment)
                follow_redirects=False,  # providers.fetch follows them itself, checking each
                headers={"User-Agent": USER_AGENT},
            )
            for _ in range(max(1, count))
        ]
        self._idle = list(self._clients)

    def turn(self) -> Slot:
        return Slot(self)

    def ahead(self) -> Turn:
        """A turn to be claimed (and skipped, or wait for a slot) ahead of the fetches."""
        return Turn(self._ahead)

    async def aclose(self) -> None:
        for client in self._clients:
            await client.aclose()


class Slot:
    """A source's turn to fetch, with its slot's client: held from its claim to the end of its
    fetch, given back before its result waits for the store batch (the slots bound fetches,
    not commits)."""

    def __init__(self, slots: Slots) -> None:
        self.slots = slots
        self.held = False
        self.client: httpx.AsyncClient | None = None

    async def __aenter__(self) -> Slot:
        await self.slots._free.acquire()
        self.client = self.slots._idle.pop()  # a free slot always has its client idle
        self.client.cookies.clear()  # cookies stay with their source (kept over its redirects)
        self.held = True
        return self

    async def __aexit__(self, *_: object) -> None:
        self.release()

    def release(self) -> None:
        if self.held and self.client is not None:
            self.held = False
            self.slots._idle.append(self.client)
            self.slots._free.release()


class Turn:
    """One of a semaphore's places, given back by :meth:`release` (once) or at the block's end."""

    def __init__(self, free: asyncio.Semaphore) -> None:
        self.free = free
        self.held = False

    async def __aenter__(self) -> Turn:
        await self.free.acquire()
        self.held = True
        return self

    async def __aexit__(self, *_: object) -> None:
        self.release()

    def release(self) -> None:
        if self.held:
            self.held = False
            self.free.release()
