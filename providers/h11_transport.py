"""An httpx transport for one refresh slot: HTTP/1.1 with ``h11`` straight over an asyncio
protocol, one kept-alive connection at a time.

httpx's own transport goes through ``httpcore``'s connection pool and ``anyio``: per request
a pool lock and a shielded cancel scope or two, a cancel scope per socket read and write
(``anyio.fail_after``), ``sniffio`` asking which event loop runs, and a readability check of
the idle socket (a ``select`` and the socket's attributes) before each reuse. In the fleet
(10,000 sources, one request each) that was most of the event loop's CPU. A refresh slot
sends one request at a time, so this transport keeps what it needs of that: ``h11`` (the
same parser httpcore uses, same event size limit), a connection kept alive for the next
request to the same origin, and httpx's timeouts (connect, read, write; the ``pool``
timeout has nothing to wait for). A read waits on one future with one timer; the protocol
knows when the server closed the idle connection, with no system call. httpx's client, its
``Request``/``Response`` models, proxies from the environment (mounted by the client beside
this transport) and every check of :mod:`providers.fetch` stay as they were.

Errors are httpx's: ``ConnectError``/``ConnectTimeout``, ``ReadError``/``ReadTimeout``,
``WriteError``/``WriteTimeout``, ``RemoteProtocolError`` (a body cut short, a malformed
answer), ``UnsupportedProtocol``. A GET or HEAD sent on a reused connection that the server
closed before answering a byte is sent again once on a new connection (the server closed
it idle as the request left); anything else is the caller's to retry.
"""

from __future__ import annotations

import asyncio
import collections
import ssl
import time
from collections.abc import AsyncIterator
from typing import Any

import h11
import httpx

# httpcore's limit for a response's head (httpcore/_async/http11.py, AsyncHTTP11Connection.
# MAX_INCOMPLETE_EVENT_SIZE = 100 * 1024, httpcore 1.0.9 as installed) and read size (64 KiB)
MAX_HEAD_BYTES = 100 * 1024
READ_BYTES = 64 * 1024
# httpx.Limits' default keepalive_expiry (httpx/_config.py, Limits.__init__, 5.0; httpx 0.29
# as installed), which the slots' clients used before
KEEPALIVE_EXPIRY_S = 5.0
PAUSE_ABOVE_BYTES = 1024 * 1024  # unread bytes at which the socket stops being read
_IDEMPOTENT = frozenset({b"GET", b"HEAD"})


class H11Transport(httpx.AsyncBaseTransport):
    """One connection at a time (a slot's client), kept alive between requests."""

    def __init__(self, ssl_context: ssl.SSLContext | None = None) -> None:
        self.ssl_context = ssl_context
        self._idle: _Connection | None = None

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        timeouts: dict[str, float | None] = request.extensions.get("timeout", {})
        origin = _origin(request.url)
        reused = self._reusable(origin)
        connection = reused or await self._connect(origin, timeouts.get("connect"))
        try:
            return await connection.send(self, request, timeouts)
        except _ClosedBeforeAnswer:
            if reused is None or request.method.encode() not in _IDEMPOTENT:
                raise httpx.RemoteProtocolError(
                    "Server disconnected without sending a response.", request=request
                ) from None
        fresh = await self._connect(origin, timeouts.get("connect"))
        try:
            return await fresh.send(self, request, timeouts)
        except _ClosedBeforeAnswer:
            raise httpx.RemoteProtocolError(
                "Server disconnected without sending a response.", request=request
            ) from None

    async def aclose(self) -> None:
        if self._idle is not None:
            self._idle.close()
            self._idle = None

    def _reusable(self, origin: tuple[bytes, str, int]) -> _Connection | None:
        idle, self._idle = self._idle, None
        if idle is None:
            return None
        if idle.origin == origin and idle.usable():
            return idle
        idle.close()
        return None

    def _keep(self, connection: _Connection) -> None:
        """``connection`` done with its answer and fit for another: the one kept alive."""
        if self._idle is not None:
            self._idle.close()
        connection.idle_since = time.monotonic()
        self._idle = connection

    async def _connect(self, origin: tuple[bytes, str, int], timeout: float | None) -> _Connection:
        scheme, host, port = origin
        if scheme not in (b"http", b"https"):
            raise httpx.UnsupportedProtocol(f"Request URL has an unsupported protocol '{scheme!r}'")
        secure = scheme == b"https"
        tls = (self.ssl_context or httpx.create_ssl_context()) if secure else None
        loop = asyncio.get_running_loop()
        try:
            async with asyncio.timeout(timeout):
                _, wire = await loop.create_connection(
                    _Wire, host, port, ssl=tls, server_hostname=host if secure else None
                )
        except TimeoutError:
            raise httpx.ConnectTimeout("timed out while connecting") from None
        except (OSError, ssl.SSLError) as exc:
            raise httpx.ConnectError(str(exc) or type(exc).__name__) from None
        return _Connection(origin, wire)


def _origin(url: httpx.URL) -> tuple[bytes, str, int]:
    scheme = url.raw_scheme
    port = url.port or (443 if scheme == b"https" else 80)
    return scheme, url.raw_host.decode("ascii"), port


class _ClosedBeforeAnswer(Exception):
    """The server closed the connection before a byte of the answer arrived."""


class _Wire(asyncio.Protocol):
    """The socket's bytes as they arrive, read by one waiter at a time."""

    def __init__(self) -> None:
        self.transport: asyncio.Transport | None = None
        self.chunks: collections.deque[bytes] = collections.deque()
        self.buffered = 0
        self.paused = False
        self.ended = False  # EOF or connection lost
        self.error: Exception | None = None
        self.waiter: asyncio.Future[None] | None = None
        self.writable: asyncio.Future[None] | None = None  # set while writing is paused

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport

    def data_received(self, data: bytes) -> None:
        self.chunks.append(data)
        self.buffered += len(data)
        if self.buffered > PAUSE_ABOVE_BYTES and self.transport is not None:
            self.transport.pause_reading()
            self.paused = True
        self._wake()

    def eof_received(self) -> bool:
        self.ended = True
        self._wake()
        return False  # the transport closes itself

    def connection_lost(self, exc: Exception | None) -> None:
        self.ended = True
        self.error = exc
        self._wake()
        if self.writable is not None and not self.writable.done():
            self.writable.set_result(None)

    def pause_writing(self) -> None:
        self.writable = asyncio.get_running_loop().create_future()

    def resume_writing(self) -> None:
        if self.writable is not None and not self.writable.done():
            self.writable.set_result(None)
        self.writable = None

    def _wake(self) -> None:
        waiter = self.waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    async def read(self, timeout: float | None) -> bytes:
        """The bytes arrived (waiting at most ``timeout`` s for some); b"" at the end."""
        if not self.chunks and not self.ended:
            loop = asyncio.get_running_loop()
            self.waiter = waiter = loop.create_future()
            timer = None if timeout is None else loop.call_later(timeout, _expire, waiter)
            try:
                await waiter
            finally:
                self.waiter = None
                if timer is not None:
                    timer.cancel()
        if self.chunks:
            data = self.chunks.popleft() if len(self.chunks) == 1 else b"".join(self.chunks)
            self.chunks.clear()
            self.buffered = 0
            if self.paused and self.transport is not None:
                self.paused = False
                self.transport.resume_reading()
            return data
        if self.error is not None:
            raise httpx.ReadError(str(self.error) or type(self.error).__name__)
        return b""

    async def write(self, data: bytes, timeout: float | None) -> None:
        if self.ended or self.transport is None or self.transport.is_closing():
            raise httpx.WriteError("the connection is closed")
        self.transport.write(data)
        writable = self.writable
        if writable is not None:
            try:
                async with asyncio.timeout(timeout):
                    await asyncio.shield(writable)
            except TimeoutError:
                raise httpx.WriteTimeout("timed out while sending the request") from None


def _expire(waiter: asyncio.Future[None]) -> None:
    if not waiter.done():
        waiter.set_exception(httpx.ReadTimeout("timed out while reading the answer"))


class _Connection:
    """One HTTP/1.1 connection: ``h11``'s state over a :class:`_Wire`."""

    def __init__(self, origin: tuple[bytes, str, int], wire: _Wire) -> None:
        self.origin = origin
        self.wire = wire
        self.h11 = h11.Connection(h11.CLIENT, max_incomplete_event_size=MAX_HEAD_BYTES)
        self.idle_since = time.monotonic()

    def usable(self) -> bool:
        """Still open, nothing unasked for arrived, and idle for less than the expiry."""
        wire = self.wire
        fresh = time.monotonic() - self.idle_since < KEEPALIVE_EXPIRY_S
        return fresh and not wire.ended and not wire.chunks and self.h11.our_state is h11.IDLE

    def close(self) -> None:
        if self.wire.transport is not None:
            self.wire.transport.close()

    async def send(
        self, owner: H11Transport, request: httpx.Request, timeouts: dict[str, float | None]
    ) -> httpx.Response:
        try:
            await self._send_request(request, timeouts.get("write"))
            head = await self._read_head(timeouts.get("read"))
        except BaseException:
            self.close()
            raise
        return httpx.Response(
            head.status_code,
            headers=head.headers.raw_items(),
            stream=_Body(owner, self, timeouts.get("read")),
            extensions={"http_version": b"HTTP/1.1", "reason_phrase": head.reason},
        )

    async def _send_request(self, request: httpx.Request, timeout: float | None) -> None:
        event = h11.Request(
            method=request.method, target=request.url.raw_path, headers=request.headers.raw
        )
        try:
            data = self.h11.send(event) or b""
            assert isinstance(request.stream, httpx.AsyncByteStream)
            async for chunk in request.stream:
                data += self.h11.send(h11.Data(data=chunk)) or b""
                if len(data) >= READ_BYTES:
                    await self.wire.write(data, timeout)
                    data = b""
            data += self.h11.send(h11.EndOfMessage()) or b""
        except h11.LocalProtocolError as exc:
            raise httpx.LocalProtocolError(str(exc)) from None
        await self.wire.write(data, timeout)

    async def _read_head(self, timeout: float | None) -> h11.Response:
        answered = False
        while True:
            event = self._next_event()
            if event is h11.NEED_DATA:
                data = await self.wire.read(timeout)
                if not data and not answered:
                    raise _ClosedBeforeAnswer
                answered = True
                self.h11.receive_data(data)
            elif isinstance(event, h11.Response):
                return event
            elif isinstance(event, h11.ConnectionClosed):
                raise _ClosedBeforeAnswer
            # an informational (1xx) answer: the real one follows

    def _next_event(self) -> Any:
        try:
            return self.h11.next_event()
        except h11.RemoteProtocolError as exc:
            raise httpx.RemoteProtocolError(str(exc)) from None

    async def body(self, timeout: float | None) -> AsyncIterator[bytes]:
        while True:
            event = self._next_event()
            if event is h11.NEED_DATA:
                self.h11.receive_data(await self.wire.read(timeout))
            elif isinstance(event, h11.Data):
                yield bytes(event.data)
            elif isinstance(event, h11.EndOfMessage | h11.ConnectionClosed):
                return

    def reusable_after_answer(self) -> bool:
        """The answer's end already here (read, or a 304's empty body) and both sides willing
        to go on: ready for the next request. An answer left unread closes the connection."""
        try:
            while self.h11.their_state is h11.SEND_BODY:
                event = self.h11.next_event()
                if event is h11.NEED_DATA or isinstance(event, h11.ConnectionClosed):
                    return False
            if self.h11.our_state is not h11.DONE or self.h11.their_state is not h11.DONE:
                return False
            self.h11.start_next_cycle()
        except (h11.LocalProtocolError, h11.RemoteProtocolError):
            return False
        return not self.wire.ended


class _Body(httpx.AsyncByteStream):
    """A response's body as it arrives; the connection goes back to its transport once the
    body was read to its end, and is closed when the body is left unread."""

    def __init__(self, owner: H11Transport, connection: _Connection, timeout: float | None):
        self.owner, self.connection, self.timeout = owner, connection, timeout
        self.closed = False

    async def __aiter__(self) -> AsyncIterator[bytes]:
        try:
            async for chunk in self.connection.body(self.timeout):
                yield chunk
        except BaseException:
            await self.aclose()
            raise

    async def aclose(self) -> None:
        if self.closed:
            return
        self.closed = True
        if self.connection.reusable_after_answer():
            self.owner._keep(self.connection)
        else:
            self.connection.close()
