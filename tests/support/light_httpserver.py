"""A light loopback HTTP/1.1 server for the fleet benchmark: one asyncio thread, no thread per
connection.

:class:`~tests.support.httpserver.FaultServer` (``http.server``, a thread per connection)
served the 10,000-source fleet with 128 keep-alive connections: 128 threads of one process
taking turns at its GIL, about 0.6 ms of CPU per source on the two cores the workers and
PostgreSQL share. A remote provider's server costs the refreshing machine nothing, so the
benchmark's server should cost as little as it can: this one answers from one event loop
(``asyncio.Protocol``), waiting each reply's latency with a timer, not a sleeping thread.

It answers what the fleet asks (:func:`tests.support.refresh_fleet.publish_fleet`): ``GET``
of a path set with :meth:`LightServer.set` (a :class:`~tests.support.httpserver.Reply`: status,
body, ``delay_s``, ``reset_after_bytes``, headers; the last reply repeats), ``If-None-Match``
against the path's ETag (304), keep-alive. Trickled bodies and ``Last-Modified`` are the
``FaultServer``'s alone.
"""

from __future__ import annotations

import asyncio
import socket
import struct
import threading
from collections.abc import Iterator
from contextlib import contextmanager

from tests.support.httpserver import Reply, Route

_REASONS = {200: "OK", 304: "Not Modified", 404: "Not Found", 500: "Internal Server Error"}


class LightServer:
    """``set(path, reply, etag=…)`` → URL; serves from its own thread's event loop."""

    def __init__(self) -> None:
        self.routes: dict[str, Route] = {}
        self._loop = asyncio.new_event_loop()
        self._server: asyncio.Server | None = None
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True)
        self.port = 0

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.port}{path}"

    def set(self, path: str, *replies: Reply, etag: str | None = None) -> str:
        self.routes[path] = Route(list(replies), etag)  # read by the loop only after start
        return self.url(path)

    def start(self) -> LightServer:
        async def listen() -> asyncio.Server:
            return await self._loop.create_server(
                lambda: _Connection(self), "127.0.0.1", 0, backlog=1024
            )

        self._server = self._loop.run_until_complete(listen())
        self.port = int(self._server.sockets[0].getsockname()[1])
        self._thread.start()
        return self

    def stop(self) -> None:
        async def close() -> None:
            if self._server is not None:
                self._server.close()

        asyncio.run_coroutine_threadsafe(close(), self._loop).result(timeout=10)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(timeout=10)

    def reply_for(self, path: str, headers: dict[str, str]) -> tuple[Reply, Route | None]:
        route = self.routes.get(path)
        if route is None:
            return Reply(404, b"not found"), None
        if route.etag and headers.get("if-none-match") == route.etag:
            return Reply(304), route
        return route.next_reply(), route


class _Connection(asyncio.Protocol):
    """One client connection: requests answered in order, each after its reply's delay."""

    def __init__(self, server: LightServer) -> None:
        self.server = server
        self.buffer = b""
        self.transport: asyncio.Transport | None = None
        self.busy = False  # a reply is waiting for its delay: the next request waits too

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport

    def data_received(self, data: bytes) -> None:
        self.buffer += data
        self._next()

    def _next(self) -> None:
        if self.busy or b"\r\n\r\n" not in self.buffer or self.transport is None:
            return
        head, _, self.buffer = self.buffer.partition(b"\r\n\r\n")
        lines = head.decode("latin-1").split("\r\n")
        path = lines[0].split(" ")[1] if len(lines[0].split(" ")) > 1 else "/"
        headers = {}
        for line in lines[1:]:
            name, _, value = line.partition(":")
            headers[name.strip().lower()] = value.strip()
        reply, route = self.server.reply_for(path, headers)
        self.busy = True
        loop = asyncio.get_running_loop()
        loop.call_later(reply.delay_s, self._answer, reply, route)

    def _answer(self, reply: Reply, route: Route | None) -> None:
        self.busy = False
        if self.transport is None or self.transport.is_closing():
            return
        head = [f"HTTP/1.1 {reply.status} {_REASONS.get(reply.status, 'Status')}"]
        head.append(f"Content-Length: {len(reply.body)}")
        if route is not None and route.etag:
            head.append(f"ETag: {route.etag}")
        head += [f"{name}: {value}" for name, value in reply.headers.items()]
        self.transport.write(("\r\n".join(head) + "\r\n\r\n").encode("latin-1"))
        if reply.status == 304:
            return self._next()
        if reply.reset_after_bytes is not None:  # promise the body, send a part, then RST
            self.transport.write(reply.body[: reply.reset_after_bytes])
            sock = self.transport.get_extra_info("socket")
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            self.transport.abort()
            self.transport = None
            return None
        self.transport.write(reply.body)
        return self._next()

    def connection_lost(self, exc: Exception | None) -> None:
        self.transport = None


@contextmanager
def light_server() -> Iterator[LightServer]:
    server = LightServer().start()
    try:
        yield server
    finally:
        server.stop()
